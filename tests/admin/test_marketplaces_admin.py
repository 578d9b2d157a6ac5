"""The job page of a search across marketplaces: each listing's marketplace and each marketplace's own answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from search import naver_quota
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, SearchPage, Verdict
from search.pipeline import Marketplace, Skip, search_product
from tests.admin import rows

pytestmark = pytest.mark.django_db

NAME = "삼성전자 갤럭시 버즈3 프로 SM-R630"


def result_across_marketplaces(*, naver_skipped: bool) -> dict:
    def shelf(name, price):
        listing = Listing(f"{NAME} {name}", price, f"https://{name}.test/1", seller=f"{name}몰", marketplace=name)
        return lambda query: SearchPage(query=query, url="https://x.test", listings=[listing], empty=False)

    naver = Marketplace(
        "naver",
        shelf("naver", 197_000),
        admit=(lambda: Skip("Naver's daily quota of 25,000 calls is spent")) if naver_skipped else None,
        concurrent=True,
    )
    return search_product(
        ProductQuery(product_code="M-1", product_name=NAME),
        marketplaces=[Marketplace("coupang", shelf("coupang", 219_000)), naver],
        judge=lambda product, candidates: Judgement([Verdict(i, True, 0.9, "same") for i in range(len(candidates))]),
        refine=lambda product, tried: RefinedQueries("SM-R630", "버즈3 프로"),
        ai_cost=lambda usage: 0.0,
    )


def test_the_job_page_names_the_lowest_listings_marketplace_and_each_marketplaces_answer(admin_client):
    job_id = rows.done("M-1", NAME, result_across_marketplaces(naver_skipped=False))

    html = admin_client.get(reverse("admin:jobs_job_change", args=[job_id])).content.decode()

    assert 'id="lps-by-marketplace"' in html
    assert "<th>Marketplace</th><td>naver</td>" in html
    assert "₩197,000" in html
    assert "₩219,000" in html
    assert "[coupang]" in html
    assert "[naver]" in html
    # Rocket delivery is Coupang's badge: a Naver lowest does not say "no" to it.
    assert "Rocket delivery" not in html.split('id="lps-lowest"')[1].split("</table>")[0]


def test_the_job_page_shows_why_a_marketplace_was_skipped(admin_client):
    job_id = rows.done("M-2", NAME, result_across_marketplaces(naver_skipped=True))

    html = admin_client.get(reverse("admin:jobs_job_change", args=[job_id])).content.decode()

    assert "skipped" in html
    assert "Naver&#x27;s daily quota of 25,000 calls is spent" in html


def test_operators_see_naver_calls_per_quota_day_against_the_daily_quota(admin_client, settings):
    settings.LPS_NAVER_DAILY_CALLS = 200
    for _ in range(3):
        naver_quota.take_call()

    listing = admin_client.get(reverse("admin:search_navercallday_changelist")).content.decode()
    page = admin_client.get(
        reverse("admin:search_navercallday_change", args=[naver_quota.quota_day().isoformat()])
    ).status_code

    assert "1.5% of 200" in listing
    assert page == 200
