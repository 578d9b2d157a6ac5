"""A correction's re-answer in the product's price history (SPEC §10): the snapshot of the corrected search shows
the corrected lowest, its marketplace included, and so does the product's latest answer."""

from __future__ import annotations

import pytest

from corrections.correcting import correct
from corrections.models import Author
from jobs.models import Job
from search import pipeline
from search.listings import ProductQuery, RefinedQueries, SearchPage
from search.models import PriceSnapshot, Product
from search.products import record_search
from tests.corrections.searches import NAME, finished_search, plain_judge, shelf_listing

pytestmark = pytest.mark.django_db


def two_marketplace_result() -> dict:
    """Naver's trap is the cheapest; Coupang holds the genuine one."""
    pages = {
        "coupang": [shelf_listing("102", 219_000, "OK 삼성전자 갤럭시 버즈3 프로 SM-R630 실버", seller="삼성전자")],
        "naver": [shelf_listing("901", 99_000, "OK 갤럭시 버즈3 프로 SM-R630 (trap)", marketplace="naver")],
    }

    def fetching(name: str):
        return lambda query: SearchPage(query, f"https://{name}.test/search", pages[name], empty=False)

    return pipeline.search_product(
        ProductQuery("SKU-1", NAME),
        marketplaces=[pipeline.Marketplace(name, fetching(name)) for name in pages],
        judge=plain_judge,
        refine=lambda product, tried: RefinedQueries(precise="", broad=""),
        max_rounds=1,
        ai_cost=lambda usage: 0.0,
    )


def test_a_corrected_answer_names_its_new_marketplace_in_the_snapshot_and_the_product():
    result = two_marketplace_result()
    assert (result["lowest"]["marketplace"], result["lowest"]["price"]) == ("naver", 99_000)
    job_id = finished_search(None, result=result)
    record_search(ProductQuery("SKU-1", NAME), Job.objects.get(job_id=job_id).result, job_id=job_id)

    made = correct(job_id, marketplace="naver", product_id="901", same_product=False, made_by=Author.OPERATOR,
                   made_by_client_id=None, visible_to=None)  # fmt: skip

    assert made.current["lowest"]["marketplace"] == "coupang"
    snapshot = PriceSnapshot.objects.get(job_id=job_id)
    assert (snapshot.marketplace, snapshot.price, snapshot.seller) == ("coupang", 219_000, "삼성전자")
    product = Product.objects.get(product_code="SKU-1")
    assert (product.last_price, product.last_url) == (219_000, "https://www.coupang.com/vp/products/102")
