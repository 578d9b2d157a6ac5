"""The labelled corpus through the real pipeline: the fake Coupang serves a corpus page in its markup, the real
crawler reads it in Chromium, the rules judge decides, and the right lowest price comes out — one page per trap
class, through the handler's pipeline, `manage.py search` and the API with a real worker."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from api import keys
from jobs import handlers
from jobs.models import Job, JobStatus
from jobs.worker import Worker
from lps_site.job_types import JobType
from search import handler
from search.crawler import Crawler
from search.handler import run_pipeline
from search.judge import judge_listings
from tests.search.corpus import COUPANG_MARKUPS, TRAPS, CorpusPage, load_pages

# The fake Coupang serves these pages; the Naver-shaped ones go through the fake Naver (test_naver_corpus.py).
PAGES = [page for page in load_pages() if page.markup in COUPANG_MARKUPS]
SAME_TRAPS = frozenset({"cross_script", "word_variant", "gift", "pack_arithmetic", "option_text", "seller_tag"})


def representative(trap: str, prefer_markup: str, taken: frozenset[str] = frozenset()) -> CorpusPage | None:
    """The page that tests `trap` hardest: its trap listing is the genuine lowest price (a trap that is the
    product) or cheaper than it (a trap that is not); then a page not `taken` yet, the preferred markup, the name.
    Only pages the rules judge gets right offline (bench/judge_eval.py measures the judge): a failure here is
    then the pipeline's — the crawler, the markup, the rounds — not a judge's miss on a blind page. None when no
    page of the class is one (a class only a new blind set has yet, such as refill: the bench scores those)."""
    having = [page for page in PAGES if any(listing.trap == trap for listing in page.listings)]

    def hardness(page: CorpusPage) -> tuple:
        expected = page.expected_price or 10**12
        trapped = [listing for listing in page.listings if listing.trap == trap]
        if trap in SAME_TRAPS:
            hard = any(listing.price == expected and listing.is_candidate for listing in trapped)
        else:
            hard = any(listing.price < expected for listing in trapped)
        return (not hard, page.name in taken, page.markup != prefer_markup, page.name)

    return next((page for page in sorted(having, key=hardness) if _judged_right_offline(page)), None)


def _judged_right_offline(page: CorpusPage) -> bool:
    listings = [listing.as_listing(position) for position, listing in enumerate(page.candidates)]
    judgement = judge_listings(page.product, listings, llm=None)
    matched = [listings[verdict.index].price for verdict in judgement.verdicts if verdict.same_product]
    return (min(matched) if matched else None) == page.expected_price


def cases() -> list:
    """One page per trap class, a different page for each class where the corpus allows, markups alternating."""
    chosen, taken = [], set()
    for number, trap in enumerate(sorted(TRAPS)):
        page = representative(trap, ("current", "legacy")[number % 2], frozenset(taken))
        if page is None:
            continue
        taken.add(page.name)
        chosen.append(pytest.param(page, id=f"{trap}:{page.name}:{page.markup}"))
    return chosen


CASES = cases()


def expected_of(page: CorpusPage) -> tuple[str, int | None]:
    return page.expected_outcome, page.expected_price


def reported(result: dict) -> tuple[str, int | None]:
    return result["outcome"], (result.get("lowest") or {}).get("price")


def test_the_corpus_covers_every_trap_class_in_both_markups_with_enough_pages():
    assert len(PAGES) >= 40
    assert sum(len(page.listings) for page in PAGES) >= 300
    assert {page.markup for page in PAGES} == {"current", "legacy"}
    assert {listing.trap for page in PAGES for listing in page.listings} - {None} == TRAPS


def test_the_chosen_pages_use_both_markups():
    assert {param.values[0].markup for param in CASES} == {"current", "legacy"}


@pytest.fixture(scope="module")
def crawler(django_db_blocker):
    """One Chromium for the module; one request per IP session keeps each session inside its test."""
    crawler = Crawler(request_budget=1, navigation_timeout=5.0)
    yield crawler
    with django_db_blocker.unblock():
        crawler.close()


@pytest.mark.browser
@pytest.mark.django_db
@pytest.mark.parametrize("page", CASES)
def test_the_pipeline_reports_the_lowest_genuine_price_of_a_corpus_page(page, fake_coupang, crawler, settings):
    settings.OPENAI_API_KEY = ""
    fake_coupang.set_results(page.product.product_name, page.rendered_listings(), markup=page.markup)

    result = run_pipeline(page.product, crawler=crawler, llm=None)

    assert reported(result) == expected_of(page), json.dumps(result["rounds"], ensure_ascii=False)[:2000]
    assert result["rounds"][0]["candidates"] == len(page.candidates)


@pytest.mark.browser
@pytest.mark.django_db
@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_the_search_command_prints_the_lowest_genuine_price_of_a_corpus_page(markup, fake_coupang, settings):
    settings.OPENAI_API_KEY = ""
    page = representative("condition", markup)
    fake_coupang.set_results(page.product.product_name, page.rendered_listings(), markup=page.markup)
    options = {"product_code": "SHOP-1"}
    if page.product.model_code:
        options["model_code"] = page.product.model_code
    if page.product.brand:
        options["brand"] = page.product.brand
    out = io.StringIO()

    call_command("search", page.product.product_name, stdout=out, **options)

    assert reported(json.loads(out.getvalue())) == expected_of(page)


@pytest.fixture
def shared_browser(fake_coupang):
    """The worker's shared browser, closed after the test: its IP sessions must not outlive the test database."""
    yield fake_coupang
    handler.close_shared_crawler()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_api_reports_the_lowest_genuine_price_of_a_corpus_page_after_a_worker_ran_it(
    client, shared_browser, settings
):
    settings.OPENAI_API_KEY = ""
    page = representative("accessory_with_code", "legacy")
    shared_browser.set_results(page.product.product_name, page.rendered_listings(), markup=page.markup)
    shop = keys.issue_key("corpus-shop")
    product = {"product_code": "SKU-1", "product_name": page.product.product_name}
    product |= {key: value for key in ("brand", "model_code") if (value := getattr(page.product, key))}
    headers = {"X-API-Key": shop.api_key}

    submitted = client.post("/v1/lps/search", {"products": [product]}, content_type="application/json", headers=headers)
    assert submitted.status_code == 202, submitted.content
    job_id = submitted.json()["jobs"][0]["job_id"]
    worker = Worker(
        {JobType.SEARCH: handlers.get(JobType.SEARCH)},
        concurrency={JobType.SEARCH: 1},
        burst=True,
        poll_only=True,
        shutdown_hooks=[],
    )
    assert worker.run() == 0
    answered = client.get(f"/v1/lps/jobs/{job_id}", headers=headers).json()["job"]

    assert answered["status"] == "DONE"
    assert reported(answered["result"]) == expected_of(page)
    assert Job.objects.get(job_type=JobType.SEARCH).status == JobStatus.DONE
