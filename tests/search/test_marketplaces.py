"""A search across Coupang and Naver Shopping: the pipeline's rounds per marketplace, one judge call per round, the
negative cache, the quota and the failures; then through the real worker, the fake Coupang in Chromium and the fake
Naver Search API; and the API's `marketplaces` field."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs import handlers, queue
from jobs.models import Job, JobStatus
from jobs.worker import Worker
from lps_site.job_types import JobType
from negative_cache.models import NegativeCacheEntry
from search import handler, metrics
from search.exceptions import CrawlFailed, MarketplacesSkipped
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, SearchPage, TokenUsage, Verdict
from search.marketplaces import naver_may_find_more
from search.models import PriceSnapshot
from search.pipeline import Marketplace, Skip, search_product

PRODUCT = ProductQuery(product_code="BUDS-1", product_name="갤럭시 버즈3 프로", model_code="SM-R630")


def page(query, listings):
    return SearchPage(query=query, url=f"https://x.test/?q={query}", listings=listings, empty=not listings)


class Shelf:
    """A marketplace's fetch: a page of listings per query, every query asked remembered."""

    def __init__(self, name, pages=None, *, fail=None):
        self.name, self.pages, self.fail, self.queries = name, pages or {}, fail, []

    def __call__(self, query):
        self.queries.append(query)
        if self.fail is not None:
            raise self.fail
        titles = self.pages.get(query, [])
        return page(
            query,
            [Listing(t, p, f"https://{self.name}.test/{i}", marketplace=self.name) for i, (t, p) in enumerate(titles)],
        )


class ModelCodeJudge:
    """Same product when the title has the model code; counts its calls and what it was shown."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, product, candidates):
        self.calls.append([c.marketplace for c in candidates])
        verdicts = [Verdict(i, "SM-R630" in c.title, 0.9, "code") for i, c in enumerate(candidates)]
        return Judgement(verdicts=verdicts, usage=TokenUsage(100, 10))


def refine(product, tried):
    return RefinedQueries(precise="SM-R630", broad="버즈3 프로", usage=TokenUsage(50, 5))


def run(*markets, **options):
    judge = options.pop("judge", ModelCodeJudge())
    result = search_product(
        PRODUCT,
        marketplaces=list(markets),
        configured=options.pop("configured", [m.name for m in markets]),
        judge=judge,
        refine=refine,
        ai_cost=lambda usage: usage.total * 1e-6,
        **options,
    )
    return result, judge


@pytest.mark.django_db
def test_naver_finding_it_in_round_one_still_lets_coupang_search_the_precise_query_one_judge_call_a_round():
    coupang = Shelf("coupang", {"SM-R630": [("삼성 버즈3 프로 SM-R630", 205_000)]})
    naver = Shelf("naver", {PRODUCT.product_name: [("갤럭시 버즈3 프로 SM-R630", 199_000), ("케이스", 9_000)]})

    result, judge = run(Marketplace("coupang", coupang), Marketplace("naver", naver, concurrent=True))

    assert naver.queries == [PRODUCT.product_name]
    assert coupang.queries == [PRODUCT.product_name, "SM-R630"]
    assert judge.calls == [["naver", "naver"], ["coupang"]]
    assert result["metrics"]["tokens"]["total"] == 2 * 110 + 55
    assert result["lowest"]["marketplace"] == "naver"
    assert result["lowest"]["price"] == 199_000
    assert result["by_marketplace"]["coupang"] == {
        "outcome": "found",
        "lowest": {
            "price": 205_000,
            "title": "삼성 버즈3 프로 SM-R630",
            "url": "https://coupang.test/0",
            "rocket": False,
            "marketplace": "coupang",
        },
    }
    assert result["by_marketplace"]["naver"]["outcome"] == "found"
    assert [m["marketplace"] for m in result["matches"]] == ["naver", "coupang"]
    assert result["rounds"][0]["marketplaces"] == {
        "coupang": {"candidates": 0, "matches": 0},
        "naver": {"candidates": 2, "matches": 1},
    }
    assert result["rounds"][0]["verdicts"][0]["marketplace"] == "naver"
    assert result["metrics"]["by_marketplace"]["naver"]["calls"] == 1
    assert result["metrics"]["by_marketplace"]["coupang"]["calls"] == 2


@pytest.mark.django_db
def test_naver_finding_nothing_for_the_products_words_is_not_asked_again_with_the_same_words_or_more_of_them():
    coupang = Shelf("coupang", {PRODUCT.product_name: [("삼성 버즈3 프로 SM-R630", 205_000)]})
    naver = Shelf("naver")

    def refine_like_an_llm(product, tried):
        # The precise query adds the model code to the name's words; the broad one drops one of them.
        return RefinedQueries(precise="갤럭시 버즈3 프로 SM-R630", broad="버즈3 프로", usage=TokenUsage(50, 5))

    result = search_product(
        PRODUCT,
        marketplaces=[
            Marketplace("coupang", coupang),
            Marketplace("naver", naver, concurrent=True, may_find_more=naver_may_find_more),
        ],
        configured=["coupang", "naver"],
        judge=ModelCodeJudge(),
        refine=refine_like_an_llm,
    )

    # The precise round could only find less than the name found (nothing): no call, no quota; the broad one may.
    assert naver.queries == [PRODUCT.product_name, "버즈3 프로"]
    assert coupang.queries == [PRODUCT.product_name]
    assert [round_["query"] for round_ in result["rounds"]] == [PRODUCT.product_name, "버즈3 프로"]
    assert result["metrics"]["by_marketplace"]["naver"]["calls"] == 2
    assert result["by_marketplace"]["naver"]["outcome"] == "not_found"


def test_naver_may_find_more_only_with_fewer_or_other_words_than_a_query_that_found_nothing():
    nothing = ["삼성전자 갤럭시 버즈3 SM-R630"]

    assert not naver_may_find_more("SM-R630 갤럭시  버즈3 삼성전자", nothing)  # reordered, respaced
    assert not naver_may_find_more("삼성전자 갤럭시 버즈3 smr630", nothing)  # the code re-hyphenated
    assert not naver_may_find_more("삼성전자 갤럭시 버즈3 프로 SM-R630", nothing)  # one word more
    assert naver_may_find_more("삼성전자 SM-R630", nothing)  # fewer words
    assert naver_may_find_more("삼성 갤럭시 버즈3 SM-R630", nothing)  # another word
    assert naver_may_find_more("삼성전자 갤럭시 버즈3 SM-R630", [])


@pytest.mark.django_db
def test_the_negative_cache_is_written_only_when_every_marketplace_said_not_found_and_answers_a_narrower_search():
    markets = [Marketplace("coupang", Shelf("coupang")), Marketplace("naver", Shelf("naver"), concurrent=True)]

    result, _ = run(*markets)

    assert result["outcome"] == "not_found"
    assert {m: a["outcome"] for m, a in result["by_marketplace"].items()} == {
        "coupang": "not_found",
        "naver": "not_found",
    }
    assert NegativeCacheEntry.objects.count() == 1
    coupang_alone = Shelf("coupang")
    cached, _ = run(Marketplace("coupang", coupang_alone), configured=["coupang", "naver"])
    assert cached["cached"] is True
    assert coupang_alone.queries == []


@pytest.mark.django_db
def test_a_skipped_marketplace_leaves_the_others_answer_standing_and_writes_no_cache():
    naver = Shelf("naver")
    skip = Marketplace("naver", naver, admit=lambda: Skip("the quota is spent"), concurrent=True)

    result, _ = run(Marketplace("coupang", Shelf("coupang")), skip)

    assert result["outcome"] == "not_found"
    assert result["by_marketplace"]["naver"] == {"outcome": "skipped", "reason": "the quota is spent"}
    assert naver.queries == []
    assert not NegativeCacheEntry.objects.exists()


@pytest.mark.django_db
def test_a_search_whose_every_marketplace_is_skipped_raises_to_be_retried_when_it_resets():
    skip = Marketplace("naver", Shelf("naver"), admit=lambda: Skip("the quota is spent", retry_in_seconds=3600))

    with pytest.raises(MarketplacesSkipped, match="quota") as caught:
        run(skip)

    assert caught.value.retry_in_seconds == 3600
    assert not NegativeCacheEntry.objects.exists()


@pytest.mark.django_db
def test_a_marketplace_failing_while_another_answered_fails_the_search_rather_than_answer_in_part():
    naver = Shelf("naver", {PRODUCT.product_name: [("갤럭시 버즈3 프로 SM-R630", 199_000)]})
    broken = Shelf("coupang", fail=CrawlFailed("the page did not load"))

    with pytest.raises(CrawlFailed):
        run(Marketplace("coupang", broken), Marketplace("naver", naver, concurrent=True))

    assert naver.queries == [PRODUCT.product_name]
    assert not NegativeCacheEntry.objects.exists()


def test_naver_fetches_run_beside_coupangs_rather_than_after_them():
    def slow(name):
        def fetch(query):
            time.sleep(0.3)
            return page(query, [])

        return fetch

    started = time.monotonic()
    from search.pipeline import _fetch_all

    _fetch_all([Marketplace("coupang", slow("coupang")), Marketplace("naver", slow("naver"), concurrent=True)], "q")

    assert time.monotonic() - started < 0.55


# --- Through the real worker: the fake Coupang in Chromium, the fake Naver Search API ---------------------------

BUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
COUPANG = [
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 219_000, "seller": "삼성전자", "rocket": True},
    {"title": "갤럭시 버즈3 프로 케이스 투명", "price": 8_900},
]
NAVER_TRAPS = [
    {"title": "[중고] 삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 99_000, "product_type": 5, "mall": "중고나라"},
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 렌탈", "price": 9_900, "product_type": 2, "rental": True},
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 단종", "price": 150_000, "product_type": 8},
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 예약판매", "price": 160_000, "product_type": 11},
]


@pytest.fixture
def marketplaces(fake_coupang, fake_naver):
    """Both fakes, Naver configured, and the worker's shared browser closed after the test."""
    fake_naver.ignore_exclude = True  # the adapter must drop used and rental items on its own too
    yield fake_coupang, fake_naver
    handler.close_shared_crawler()


def run_worker() -> None:
    worker = Worker(
        {JobType.SEARCH: handlers.get(JobType.SEARCH)},
        concurrency={JobType.SEARCH: 2},
        burst=True,
        poll_only=True,
        shutdown_hooks=[],
    )
    assert worker.run() == 0


def enqueue(code, name=BUDS, **fields):
    return queue.enqueue(
        queue.NewJob(
            JobType.SEARCH,
            {"product_code": code, "product_name": name, "brand": "삼성전자", "model_code": "SM-R630", **fields},
            dedupe_key=f"search:{code}",
            max_attempts=3,
        )
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_cheaper_marketplace_wins_naver_here_coupang_there_and_naver_traps_are_never_candidates(marketplaces):
    coupang, naver = marketplaces
    coupang.set_results(BUDS, COUPANG)
    naver.set_results(
        BUDS,
        [
            *NAVER_TRAPS,
            {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 197_000, "hprice": 289_000, "product_type": 1},
            {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버 &정품", "price": 203_000, "mall": "하이마트쇼핑몰"},
        ],
    )
    cheaper_on_naver = enqueue("N-1")

    run_worker()

    job = Job.objects.get(job_id=cheaper_on_naver.job_id)
    assert job.status == JobStatus.DONE, job.last_error
    result = job.result
    assert (result["lowest"]["marketplace"], result["lowest"]["price"]) == ("naver", 197_000)
    assert result["lowest"]["url"].startswith("https://search.shopping.naver.com/catalog/")
    assert result["by_marketplace"]["coupang"]["lowest"]["price"] == 219_000
    assert result["by_marketplace"]["naver"]["lowest"]["seller"] == "네이버"
    judged = [v["title"] for r in result["rounds"] for v in r["verdicts"]]
    for trap in NAVER_TRAPS:
        assert trap["title"] not in judged
    assert result["rounds"][0]["marketplaces"]["naver"]["candidates"] == 2
    assert PriceSnapshot.objects.get(job_id=job.job_id).marketplace == "naver"

    naver.set_results(BUDS, [*NAVER_TRAPS, {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 229_000}])
    cheaper_on_coupang = enqueue("C-1")
    run_worker()

    result = Job.objects.get(job_id=cheaper_on_coupang.job_id).result
    assert (result["lowest"]["marketplace"], result["lowest"]["price"]) == ("coupang", 219_000)
    assert result["by_marketplace"]["naver"]["lowest"]["price"] == 229_000


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_catalog_whose_title_is_another_pack_count_is_not_the_product(marketplaces, settings):
    coupang, naver = marketplaces
    name = "제주삼다수 2L 6병"
    coupang.set_results(name, [{"title": "제주삼다수 2L 6병", "price": 6_480, "rocket": True}])
    naver.set_results(
        name,
        [
            {"title": "제주삼다수 2L 12병", "price": 5_900, "product_type": 1, "category": "식품>생수/음료>생수"},
            {"title": "제주삼다수 2L 24병 (2L x 24)", "price": 5_500, "product_type": 1},
        ],
    )
    job = queue.enqueue(
        queue.NewJob(JobType.SEARCH, {"product_code": "W-1", "product_name": name, "brand": "제주삼다수"})
    )

    run_worker()

    result = Job.objects.get(job_id=job.job_id).result
    assert (result["lowest"]["marketplace"], result["lowest"]["price"]) == ("coupang", 6_480)
    assert result["by_marketplace"]["naver"]["outcome"] == "not_found"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_spent_quota_skips_naver_with_the_reason_and_coupangs_answer_stands(marketplaces, settings):
    coupang, naver = marketplaces
    settings.LPS_NAVER_DAILY_CALLS = 0
    coupang.set_results(BUDS, COUPANG)
    naver.set_results(BUDS, [{"title": BUDS, "price": 100_000}])
    spent_before = metrics.NAVER_CALLS.labels("quota_spent")._value.get()
    job = enqueue("Q-1")

    run_worker()

    done = Job.objects.get(job_id=job.job_id)
    assert done.status == JobStatus.DONE
    assert (done.result["lowest"]["marketplace"], done.result["lowest"]["price"]) == ("coupang", 219_000)
    skipped = done.result["by_marketplace"]["naver"]
    assert skipped["outcome"] == "skipped"
    assert "quota of 0 calls is spent" in skipped["reason"]
    assert "00:00 KST" in skipped["reason"]
    assert naver.requests == []
    assert metrics.NAVER_CALLS.labels("quota_spent")._value.get() == spent_before + 1


@pytest.mark.django_db(transaction=True)
def test_a_job_for_naver_alone_with_the_quota_spent_waits_for_the_reset_instead_of_answering_not_found(
    fake_naver, settings
):
    settings.LPS_NAVER_DAILY_CALLS = 0
    job = enqueue("Q-2", marketplaces=["naver"])

    run_worker()

    waiting = Job.objects.get(job_id=job.job_id)
    assert (waiting.status, waiting.attempts) == (JobStatus.PENDING, 1)
    assert waiting.last_error.startswith("MarketplacesSkipped: naver: Naver's daily quota")
    assert waiting.run_after > timezone.now() + timedelta(seconds=30)
    assert waiting.run_after <= timezone.now() + timedelta(hours=24, minutes=2)
    assert fake_naver.requests == []


@pytest.mark.django_db(transaction=True)
def test_rejected_keys_end_the_job_dead_at_once_with_a_clear_message_and_a_metric(fake_naver):
    fake_naver.client_secret = "the secret Naver has now"
    rejected_before = metrics.NAVER_CALLS.labels("rejected")._value.get()
    job = enqueue("K-1", marketplaces=["naver"])

    run_worker()

    dead = Job.objects.get(job_id=job.job_id)
    assert (dead.status, dead.attempts, dead.max_attempts) == (JobStatus.DEAD, 1, 3)
    assert dead.last_error.startswith("NaverRejected: Naver's Search API refused LPS's credentials (HTTP 401)")
    assert "NAVER_CLIENT_ID" in dead.last_error  # for operators only: tests/api/test_what_a_client_sees.py
    assert len(fake_naver.requests) == 1
    assert metrics.NAVER_CALLS.labels("rejected")._value.get() == rejected_before + 1


@pytest.mark.django_db(transaction=True)
def test_a_429_is_retried_with_backoff_and_the_retry_finds_the_price(fake_naver):
    fake_naver.set_behaviour("http_429", times=1)
    fake_naver.set_results(BUDS, [{"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 201_000}])
    job = enqueue("R-1", marketplaces=["naver"])

    run_worker()

    retried = Job.objects.get(job_id=job.job_id)
    assert (retried.status, retried.attempts) == (JobStatus.PENDING, 1)
    assert retried.last_error.startswith("NaverFailed: Naver's Search API is rate limiting LPS (HTTP 429")
    assert retried.run_after > timezone.now()
    Job.objects.filter(job_id=job.job_id).update(run_after=timezone.now())  # the backoff, elapsed

    run_worker()

    done = Job.objects.get(job_id=job.job_id)
    assert (done.status, done.attempts) == (JobStatus.DONE, 2)
    assert done.result["lowest"] == {
        "price": 201_000,
        "title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버",
        "url": done.result["lowest"]["url"],
        "product_id": done.result["lowest"]["product_id"],
        "seller": "스마트스토어",
        "marketplace": "naver",
    }  # no "rocket": it is Coupang's badge alone
    assert done.result["rounds"][0]["verdicts"][0]["product_type"] == 2
    assert list(done.result["by_marketplace"]) == ["naver"]
    assert len(fake_naver.requests) == 2
