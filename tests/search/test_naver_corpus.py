"""The Naver-shaped pages of the judge's corpus through the real pipeline: the fake Naver Search API serves each
page's items (highlighted, escaped, every productType), the adapter reads them, the rules judge decides."""

from __future__ import annotations

import json

import pytest

from search.handler import run_pipeline
from tests.search.corpus import load_pages

NAVER_PAGES = [page for page in load_pages() if page.markup == "naver"]


def test_the_corpus_has_naver_pages_with_catalogs_used_discontinued_and_unreleased_items():
    types = {listing.product_type for page in NAVER_PAGES for listing in page.listings}
    assert len(NAVER_PAGES) >= 10
    assert {1, 2, 3} <= types
    assert types & {4, 5, 6}
    assert types & {7, 8, 9}
    assert types & {10, 11, 12}
    assert any(
        listing.trap == "pack_count" and listing.product_type == 1 for p in NAVER_PAGES for listing in p.listings
    )


@pytest.mark.django_db
@pytest.mark.parametrize("page", NAVER_PAGES, ids=[page.name for page in NAVER_PAGES])
def test_the_pipeline_never_reports_a_trap_price_of_a_naver_page(page, fake_naver, settings):
    settings.OPENAI_API_KEY = ""
    fake_naver.set_results(page.product.product_name, page.rendered_listings())

    result = run_pipeline(page.product, crawler=None, llm=None, marketplaces=["naver"])

    shown = json.dumps(result["rounds"], ensure_ascii=False)[:2000]
    candidates = {listing.title for listing in page.candidates}
    for round_ in result["rounds"]:
        judged = {verdict["title"] for verdict in round_["verdicts"]}
        assert judged <= candidates, shown  # never a used, discontinued or unreleased item
    if result["outcome"] == "found":
        lowest = result["lowest"]
        assert lowest["marketplace"] == "naver"
        genuine = {listing.title: listing.same for listing in page.listings}
        assert genuine[lowest["title"]] is True, shown
        # A dearer genuine offer is a judge's miss, measured by bench/judge_eval.py; a cheaper one cannot be.
        assert lowest["price"] >= page.expected_price, shown
