"""The refine loop with its collaborators passed in as plain objects (the crawler and LLM are tested with it
end to end in test_pipeline_live.py)."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.exceptions import JobDeadlineExceeded
from negative_cache import cache
from negative_cache.models import NegativeCacheEntry
from search.crawler import Crawler
from search.exceptions import Blocked, CrawlFailed, LlmBadResponse, LlmUnavailable
from search.handler import run_pipeline
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, SearchPage, TokenUsage, Verdict
from search.pipeline import search_product

pytestmark = pytest.mark.django_db

NO_USAGE = TokenUsage()

PRODUCT = ProductQuery(
    product_code="P-1", product_name="삼성 갤럭시 버즈3 프로 SM-R630", brand="삼성", model_code="SM-R630"
)


def identity_key(product: ProductQuery) -> str:
    """The negative-cache key of `product`: its identity, not its product_code."""
    return cache.key_for(product_name=product.product_name, model_code=product.model_code, brand=product.brand).key


def listing(title, price, **extra):
    return Listing(title=title, price=price, url=f"https://shop.test/vp/{abs(hash(title)) % 10_000}", **extra)


class Shelf:
    """A marketplace as a plain object: query → page (or an exception to raise); records every query."""

    def __init__(self, pages=None, *, bytes_per_page=1000):
        self.pages = dict(pages or {})
        self.queries: list[str] = []
        self.bytes_per_page = bytes_per_page

    def __call__(self, query: str) -> SearchPage:
        self.queries.append(query)
        found = self.pages.get(query, [])
        if isinstance(found, Exception):
            raise found
        return SearchPage(
            query=query,
            url=f"https://shop.test/np/search?q={query}",
            listings=found,
            empty=not found,
            bytes=self.bytes_per_page,
        )


class TitleJudge:
    """Calls a candidate the same product, as surely as the rules call a code match, when its title holds the model
    code; records every call."""

    def __init__(self, usage=NO_USAGE, error=None):
        self.calls: list[list[Listing]] = []
        self.usage = usage
        self.error = error

    def __call__(self, product, candidates):
        self.calls.append(list(candidates))
        if self.error:
            raise self.error
        verdicts = []
        for index, candidate in enumerate(candidates):
            same = product.model_code in candidate.title
            verdicts.append(Verdict(index, same, 0.95 if same else 0.1, "model code in title" if same else "other"))
        return Judgement(verdicts=verdicts, usage=self.usage, judge="rules")


class Refiner:
    def __init__(self, precise="삼성 SM-R630", broad="갤럭시 버즈3 프로", usage=NO_USAGE):
        self.calls: list[list[str]] = []
        self.precise, self.broad, self.usage = precise, broad, usage

    def __call__(self, product, tried):
        self.calls.append(list(tried))
        return RefinedQueries(precise=self.precise, broad=self.broad, usage=self.usage)


def run(product=PRODUCT, *, shelf, judge=None, refine=None, **options):
    return search_product(
        product,
        fetch=shelf,
        judge=judge or TitleJudge(),
        refine=refine or Refiner(),
        ai_cost=lambda usage: usage.total * 1e-6,
        **options,
    )


def assert_no_nulls(value, path="result"):
    if isinstance(value, dict):
        for key, item in value.items():
            assert_no_nulls(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_no_nulls(item, f"{path}[{index}]")
    else:
        assert value is not None, f"{path} is null"


def test_the_lowest_priced_match_wins_and_ads_or_sold_out_listings_never_do():
    shelf = Shelf(
        {
            PRODUCT.product_name: [
                listing("갤럭시 버즈3 프로 SM-R630 화이트", 219_000, product_id="111", seller="삼성전자", rocket=True),
                listing("갤럭시 버즈3 프로 SM-R630 (광고)", 99_000, ad=True),
                listing("갤럭시 버즈3 프로 SM-R630 실버", 189_000, product_id="222"),
                listing("갤럭시 버즈3 프로 SM-R630 품절", 150_000, sold_out=True),
                listing("갤럭시 버즈3 프로 케이스", 9_900),
            ]
        }
    )
    judge, refine = TitleJudge(), Refiner()

    result = run(shelf=shelf, judge=judge, refine=refine)

    assert result["outcome"] == "found"
    assert result["lowest"] == {
        "price": 189_000,
        "title": "갤럭시 버즈3 프로 SM-R630 실버",
        "url": result["lowest"]["url"],
        "product_id": "222",
        "rocket": False,
    }
    assert [match["price"] for match in result["matches"]] == [189_000, 219_000]
    assert result["matches"][1]["seller"] == "삼성전자"
    assert result["matches"][1]["rocket"] is True
    assert result["matches"][0]["confidence"] == 0.95
    assert [len(call) for call in judge.calls] == [3]
    assert refine.calls == []


def test_a_found_result_has_exactly_the_documented_shape_and_no_nulls():
    found = listing("버즈3 프로 SM-R630", 200_000, product_id="77")
    shelf = Shelf({PRODUCT.product_name: [found]})

    result = run(shelf=shelf)

    assert set(result) == {"outcome", "lowest", "matches", "rounds", "cached", "metrics", "left_out"}
    assert result["cached"] is False
    assert result["left_out"] == []
    assert result["rounds"] == [
        {
            "query": PRODUCT.product_name,
            "kind": "original",
            "candidates": 1,
            "matches": 1,
            "verdicts": [
                {
                    "index": 0,
                    "same_product": True,
                    "confidence": 0.95,
                    "reason": "model code in title",
                    "source": "rules",
                    "title": "버즈3 프로 SM-R630",
                    "price": 200_000,
                    # What a correction names it by and what recomputing the answer needs (SPEC §10).
                    "marketplace": "coupang",
                    "product_id": "77",
                    "url": found.url,
                    "rocket": False,
                }
            ],
            "judge": "rules",
            "settled_by_rules": 0,
            "sent_to_llm": 0,
        }
    ]
    assert set(result["metrics"]) == {"duration_ms", "rounds", "tokens", "bytes", "cost"}
    assert set(result["metrics"]["cost"]) == {"ai_usd", "proxy_usd", "total_usd"}
    assert_no_nulls(result)


def test_a_round_without_a_match_asks_for_refined_queries_and_the_precise_one_finds_it():
    shelf = Shelf(
        {
            PRODUCT.product_name: [listing("버즈2 케이스", 5_000)],
            "삼성 SM-R630": [listing("삼성 SM-R630 버즈3 프로", 199_000)],
        }
    )
    refine = Refiner()

    result = run(shelf=shelf, refine=refine)

    assert result["outcome"] == "found"
    assert result["lowest"]["price"] == 199_000
    assert shelf.queries == [PRODUCT.product_name, "삼성 SM-R630"]
    assert refine.calls == [[PRODUCT.product_name]]
    assert [(r["kind"], r["candidates"], r["matches"]) for r in result["rounds"]] == [
        ("original", 1, 0),
        ("precise", 1, 1),
    ]
    assert result["metrics"]["rounds"] == 2


def test_three_empty_rounds_end_not_found_and_write_the_negative_cache_for_the_ttl():
    shelf, judge, refine = Shelf(), TitleJudge(), Refiner()

    result = run(shelf=shelf, judge=judge, refine=refine, cache_ttl=timedelta(hours=24))

    assert result["outcome"] == "not_found"
    assert "lowest" not in result
    assert result["matches"] == []
    assert [r["kind"] for r in result["rounds"]] == ["original", "precise", "broad"]
    assert shelf.queries == [PRODUCT.product_name, "삼성 SM-R630", "갤럭시 버즈3 프로"]
    assert len(refine.calls) == 1
    assert judge.calls == []
    entry = NegativeCacheEntry.objects.get(key=identity_key(PRODUCT))
    assert timedelta(hours=23, minutes=59) < entry.until - timezone.now() <= timedelta(hours=24)
    assert "갤럭시 버즈3 프로" in entry.reason
    assert_no_nulls(result)


def test_a_cached_not_found_returns_at_once_without_fetching_judging_or_refining():
    run(shelf=Shelf())
    shelf, judge, refine = Shelf(), TitleJudge(), Refiner()

    result = run(shelf=shelf, judge=judge, refine=refine)

    assert result["outcome"] == "not_found"
    assert result["cached"] is True
    assert result["rounds"] == []
    assert result["metrics"]["cost"] == {"ai_usd": 0.0, "proxy_usd": 0.0, "total_usd": 0.0}
    assert (shelf.queries, judge.calls, refine.calls) == ([], [], [])


def test_an_expired_cache_row_lets_the_product_be_searched_again():
    run(shelf=Shelf())
    NegativeCacheEntry.objects.filter(key=identity_key(PRODUCT)).update(until=timezone.now() - timedelta(seconds=1))
    shelf = Shelf({PRODUCT.product_name: [listing("버즈3 프로 SM-R630 재입고", 210_000)]})

    result = run(shelf=shelf)

    assert result["outcome"] == "found"
    assert result["cached"] is False
    assert shelf.queries == [PRODUCT.product_name]


def test_the_same_product_under_another_code_and_spelling_is_answered_from_the_cache():
    run(
        ProductQuery(product_code="SHOP-A-1", product_name="  Galaxy   BUDS3 Pro ", model_code="SM-R630"), shelf=Shelf()
    )
    shelf = Shelf()

    result = run(ProductQuery(product_code="B-77", product_name="galaxy buds3 pro", model_code="sm-r630"), shelf=shelf)

    assert result["cached"] is True
    assert shelf.queries == []
    entry = NegativeCacheEntry.objects.get()
    assert (entry.product_name, entry.model_code, entry.brand) == ("  Galaxy   BUDS3 Pro ", "SM-R630", "")


def test_another_product_under_the_same_code_is_searched_despite_a_cached_not_found():
    run(ProductQuery(product_code="SKU-1", product_name="갤럭시 버즈3 프로", model_code="SM-R630"), shelf=Shelf())
    shelf = Shelf()

    result = run(
        ProductQuery(product_code="SKU-1", product_name="다이슨 V15 무선청소기", model_code="SV47"), shelf=shelf
    )

    assert result["cached"] is False
    assert shelf.queries[0] == "다이슨 V15 무선청소기"


def test_a_block_in_a_later_round_raises_and_caches_nothing():
    shelf = Shelf({"삼성 SM-R630": Blocked("HTTP 403", kind="http_403", http_status=403)})

    with pytest.raises(Blocked):
        run(shelf=shelf)

    assert shelf.queries == [PRODUCT.product_name, "삼성 SM-R630"]
    assert not NegativeCacheEntry.objects.exists()


def test_an_llm_outage_in_the_judge_raises_and_caches_nothing():
    shelf = Shelf({PRODUCT.product_name: [listing("버즈3 프로 SM-R630", 200_000)]})

    with pytest.raises(LlmUnavailable):
        run(shelf=shelf, judge=TitleJudge(error=LlmUnavailable("HTTP 500")))

    assert not NegativeCacheEntry.objects.exists()


def test_a_verdict_about_a_candidate_that_does_not_exist_is_a_bad_llm_response():
    class WildJudge:
        def __call__(self, product, candidates):
            return Judgement([Verdict(7, True, 1.0, "?")])

    shelf = Shelf({PRODUCT.product_name: [listing("버즈3 프로 SM-R630", 200_000)]})

    with pytest.raises(LlmBadResponse, match="candidate 7 of 1"):
        run(shelf=shelf, judge=WildJudge())


def test_a_page_of_only_ads_and_sold_out_listings_is_not_judged_and_leads_to_refining():
    shelf = Shelf(
        {PRODUCT.product_name: [listing("SM-R630 광고", 1_000, ad=True), listing("SM-R630", 2_000, sold_out=True)]}
    )
    judge, refine = TitleJudge(), Refiner()

    result = run(shelf=shelf, judge=judge, refine=refine, max_rounds=2)

    assert result["rounds"][0]["candidates"] == 0
    assert judge.calls == []
    assert refine.calls == [[PRODUCT.product_name]]


@pytest.mark.parametrize(("max_rounds", "searched"), [(1, 1), (2, 2), (3, 3), (5, 3)])
def test_max_rounds_bounds_the_rounds_and_one_round_never_refines(max_rounds, searched):
    shelf, refine = Shelf(), Refiner()

    result = run(shelf=shelf, refine=refine, max_rounds=max_rounds)

    assert len(shelf.queries) == searched
    assert result["metrics"]["rounds"] == searched
    assert len(refine.calls) == (0 if max_rounds == 1 else 1)


def test_a_refined_query_equal_to_one_already_searched_is_not_searched_again():
    shelf = Shelf()

    result = run(shelf=shelf, refine=Refiner(precise=PRODUCT.product_name.upper() + "  ", broad="버즈3"))

    assert shelf.queries == [PRODUCT.product_name, "버즈3"]
    assert [r["kind"] for r in result["rounds"]] == ["original", "broad"]


def test_metrics_add_up_tokens_bytes_and_the_ai_and_proxy_cost(settings):
    settings.LPS_PROXY_USD_PER_GB = 8.0
    shelf = Shelf(
        {"삼성 SM-R630": [listing("SM-R630", 200_000)], PRODUCT.product_name: [listing("케이스", 9_000)]},
        bytes_per_page=250_000,
    )

    result = run(shelf=shelf, judge=TitleJudge(usage=TokenUsage(300, 40)), refine=Refiner(usage=TokenUsage(100, 20)))

    metrics = result["metrics"]
    assert metrics["tokens"] == {"input": 700, "output": 100, "total": 800}
    assert metrics["bytes"] == 500_000
    assert metrics["cost"]["ai_usd"] == pytest.approx(800e-6)
    assert metrics["cost"]["proxy_usd"] == pytest.approx(500_000 / 1e9 * 8.0)
    assert metrics["cost"]["total_usd"] == pytest.approx(800e-6 + 0.004)
    assert metrics["duration_ms"] >= 0


def test_a_cancelled_search_stops_before_the_next_step_and_caches_nothing():
    cancelled = threading.Event()

    class CancellingShelf(Shelf):
        def __call__(self, query):
            cancelled.set()
            return super().__call__(query)

    shelf, refine = CancellingShelf(), Refiner()

    with pytest.raises(JobDeadlineExceeded):
        run(shelf=shelf, refine=refine, cancelled=cancelled)

    assert shelf.queries == [PRODUCT.product_name]
    assert refine.calls == []
    assert not NegativeCacheEntry.objects.exists()


def test_a_product_without_a_name_is_refused_before_anything_runs():
    shelf = Shelf()

    with pytest.raises(ValueError, match="name"):
        run(ProductQuery(product_code="X", product_name="  "), shelf=shelf)

    assert shelf.queries == []
    assert not NegativeCacheEntry.objects.exists()


# --- End to end: the real crawler and Chromium on the fake marketplace, the real openai client on the fake
# --- OpenAI endpoint (or the rules when no key is set) --------------------------------------------------------

LIVE = ProductQuery(product_code="LIVE-1", product_name="로지텍 MX Master 3S 마우스", brand="로지텍", model_code="MX3S")
LIVE_LISTINGS = [
    {"title": "로지텍 MX Master 3S 마우스 그래파이트", "price": 139_000, "original_price": 159_000, "rocket": True},
    {"title": "로지텍 MX Master 3S 마우스 페일그레이", "price": 129_000, "seller": "로지텍코리아"},
    {"title": "로지텍 MX Master 3S 마우스 (광고)", "price": 99_000, "ad": True},
    {"title": "로지텍 MX Master 3S 마우스 품절", "price": 89_000, "sold_out": True},
    {"title": "로지텍 MX Master 3S 마우스 파우치 케이스", "price": 12_000},
    {"title": "로지텍 MX Master 3S 마우스 블랙", "price": 145_000, "unit_price_text": "(1g당 1,023원)"},
]


@pytest.fixture(scope="module")
def crawler(django_db_blocker):
    """One Chromium for the module. A budget of one request per IP session keeps each session (and its
    IpSession row) inside the test that opened it, so no session outlives a test's database."""
    crawler = Crawler(request_budget=1, navigation_timeout=5.0)
    yield crawler
    with django_db_blocker.unblock():
        crawler.close()


def live_search(product, *, crawler, llm=None, remaining=None):
    """The pipeline as the handler and the search command bind it: the Coupang adapter, judge and keywords."""
    return run_pipeline(product, crawler=crawler, llm=llm, remaining=remaining)


@pytest.mark.browser
def test_live_the_lowest_genuine_price_is_found_past_ads_sold_out_accessories_and_unit_prices(fake_coupang, crawler):
    fake_coupang.set_results(LIVE.product_name, LIVE_LISTINGS)

    result = live_search(LIVE, crawler=crawler)

    assert result["outcome"] == "found"
    assert result["lowest"]["price"] == 129_000
    assert result["lowest"]["seller"] == "로지텍코리아"
    assert result["lowest"]["url"].startswith(fake_coupang.base_url + "/vp/products/")
    assert result["rounds"][0]["candidates"] == 4
    assert fake_coupang.search_queries == [LIVE.product_name]
    assert result["metrics"]["bytes"] > 0
    assert_no_nulls(result)


@pytest.mark.browser
def test_live_with_the_llm_one_judge_call_per_round_its_lowest_verified_and_no_keyword_call_when_round_one_finds_it(
    fake_coupang, crawler, fake_openai, llm
):
    fake_coupang.set_results(LIVE.product_name, LIVE_LISTINGS)

    result = live_search(LIVE, crawler=crawler, llm=llm)

    assert result["outcome"] == "found"
    assert result["lowest"]["price"] == 129_000
    # One judge call for the round, then the listing the model made the lowest asked about again, alone.
    round_call, verification = (json.loads(body["messages"][-1]["content"]) for body in fake_openai.judge_requests)
    assert len(round_call["candidates"]) > 1
    assert [candidate["price_won"] for candidate in verification["candidates"]] == [129_000]
    assert fake_openai.refine_requests == []
    prompt, completion = fake_openai.total_usage()
    assert result["metrics"]["tokens"] == {"input": prompt, "output": completion, "total": prompt + completion}
    assert result["metrics"]["cost"]["ai_usd"] > 0


@pytest.mark.browser
def test_live_the_keyword_llm_is_asked_once_only_after_a_zero_match_round_and_the_precise_query_finds_it(
    fake_coupang, crawler, fake_openai, llm
):
    fake_coupang.set_results(LIVE.product_name, [{"title": "MX 마우스 전용 파우치 케이스", "price": 9_000}])
    fake_coupang.set_results("로지텍 MX3S", [{"title": "로지텍 MX Master 3S 마우스 MX3S 블랙", "price": 131_000}])

    result = live_search(LIVE, crawler=crawler, llm=llm)

    assert result["outcome"] == "found"
    assert result["lowest"]["price"] == 131_000
    assert fake_coupang.search_queries == [LIVE.product_name, "로지텍 MX3S"]
    assert [r["kind"] for r in result["rounds"]] == ["original", "precise"]
    asked = [schema for body in fake_openai.requests for schema in [body["response_format"]["json_schema"]["name"]]]
    # The rules settle both pages (a case; the model code with nothing against it): the judge LLM is not asked.
    assert asked == ["RefineAnswer"]


@pytest.mark.browser
def test_live_not_found_is_cached_and_the_next_search_makes_no_request_and_no_llm_call(
    fake_coupang, crawler, fake_openai, llm
):
    first = live_search(LIVE, crawler=crawler, llm=llm)
    # Counted as searches: the tab of a page read as served may still be fetching its scripts meanwhile.
    searches_before, llm_calls_before = len(fake_coupang.search_queries), len(fake_openai.requests)

    second = live_search(LIVE, crawler=crawler, llm=llm)

    assert first["outcome"] == "not_found"
    assert [r["kind"] for r in first["rounds"]] == ["original", "precise", "broad"]
    assert len(fake_openai.refine_requests) == 1
    assert NegativeCacheEntry.objects.filter(key=identity_key(LIVE)).exists()
    assert second["outcome"] == "not_found"
    assert second["cached"] is True
    assert len(fake_coupang.search_queries) == searches_before
    assert len(fake_openai.requests) == llm_calls_before


@pytest.mark.browser
def test_live_an_expired_cache_row_lets_the_marketplace_be_searched_again(fake_coupang, crawler):
    cache.remember(identity_key(LIVE), ttl=timedelta(hours=24))
    NegativeCacheEntry.objects.filter(key=identity_key(LIVE)).update(until=timezone.now() - timedelta(minutes=1))
    fake_coupang.set_results(LIVE.product_name, LIVE_LISTINGS)

    result = live_search(LIVE, crawler=crawler)

    assert result["outcome"] == "found"
    assert fake_coupang.search_queries == [LIVE.product_name]


@pytest.mark.browser
@pytest.mark.parametrize("kind", ["http_403", "captcha"])
def test_live_a_block_is_a_technical_failure_and_caches_nothing(fake_coupang, crawler, kind):
    fake_coupang.set_behaviour(None, kind)

    with pytest.raises(Blocked):
        live_search(LIVE, crawler=crawler)

    assert not NegativeCacheEntry.objects.exists()


@pytest.mark.browser
def test_live_an_llm_outage_is_a_technical_failure_and_caches_nothing(fake_coupang, crawler, fake_openai, llm):
    fake_coupang.set_results(LIVE.product_name, LIVE_LISTINGS)
    fake_openai.queue_error(500, times=5)

    with pytest.raises(LlmUnavailable):
        live_search(LIVE, crawler=crawler, llm=llm)

    assert len(fake_openai.judge_requests) == 2  # the first try and the client's one retry
    assert not NegativeCacheEntry.objects.exists()


@pytest.mark.browser
def test_live_a_slow_page_past_the_navigation_timeout_is_a_technical_failure(fake_coupang, crawler):
    fake_coupang.set_behaviour(None, "slow", delay_seconds=30)
    started = time.monotonic()

    with pytest.raises(CrawlFailed):
        live_search(LIVE, crawler=crawler, remaining=lambda: 1.0)

    assert time.monotonic() - started < 5

    assert not NegativeCacheEntry.objects.exists()
