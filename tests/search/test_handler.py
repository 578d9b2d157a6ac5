"""The SEARCH handler: a bad payload refused, price snapshots, the OUTBOX job, and a run through the real queue and
worker against the fake marketplace in the real Chromium."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from django.db import connection
from django.utils import timezone

from jobs import handlers, queue
from jobs.exceptions import JobDeadlineExceeded
from jobs.handlers import JobContext
from jobs.models import Job, JobStatus
from jobs.worker import Worker
from lps_site.job_types import JobType
from search import handler
from search.exceptions import InvalidProduct
from search.listings import ProductQuery
from search.models import PriceSnapshot, Product
from search.products import record_search

BUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
BUDS_LISTINGS = [
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 219_000, "seller": "삼성전자", "rocket": True},
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트", "price": 199_000, "original_price": 259_000},
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 (광고)", "price": 99_000, "ad": True},
    {"title": "갤럭시 버즈3 프로 케이스 투명", "price": 8_900},
]


@pytest.fixture
def worker_browser(fake_coupang):
    """The fake marketplace, and the worker process's shared browser closed after the test.

    A browser that outlived the test would hold IP sessions whose rows the test database has rolled back.
    """
    yield fake_coupang
    handler.close_shared_crawler()


def found_result(price=199_000, url="https://www.coupang.com/vp/products/1"):
    return {
        "outcome": "found",
        "lowest": {"price": price, "title": "버즈3 프로", "url": url, "seller": "삼성전자", "rocket": True},
        "matches": [],
        "rounds": [],
        "cached": False,
        "metrics": {"cost": {"ai_usd": 0.001, "proxy_usd": 0.0002, "total_usd": 0.0012}},
    }


def claimed(payload: dict, *, deadline_seconds: float = 60.0) -> tuple[queue.ClaimedJob, JobContext]:
    """Enqueue a SEARCH job and claim it the way a worker would, with its context."""
    queue.enqueue(queue.NewJob(JobType.SEARCH, payload, dedupe_key=f"search:{payload.get('product_code')}"))
    (job,) = queue.claim("test-worker", job_types=[JobType.SEARCH])
    return job, JobContext(worker_id="test-worker", deadline=time.monotonic() + deadline_seconds)


# --- Payloads ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_bad_payload_fails_in_the_handler_before_any_page_or_row(fake_coupang):
    job, context = claimed({"product_code": "A", "product_name": ""})

    with pytest.raises(InvalidProduct, match="product_name"):
        handler.run_search(job, context)

    assert fake_coupang.requests == []
    assert not Product.objects.exists()


# --- Products and snapshots -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_each_search_adds_a_snapshot_and_moves_the_products_count_and_last_fields():
    product = ProductQuery("A-1", BUDS, brand="삼성", model_code="SM-R630")
    job_id = uuid.uuid4()

    first = record_search(product, found_result(), job_id=job_id)
    record_search(product, {**found_result(), "outcome": "not_found", "lowest": None})
    record_search(ProductQuery("A-1", BUDS + " (new name)"), found_result(price=189_000, url="https://x.test/2"))

    row = Product.objects.get(product_code="A-1")
    assert row.search_count == 3
    assert row.product_name == BUDS + " (new name)"
    assert (row.last_outcome, row.last_price, row.last_url) == ("found", 189_000, "https://x.test/2")
    assert row.last_searched_at is not None
    assert first.job_id == job_id
    assert (first.price, first.seller, first.rocket, str(first.cost_usd)) == (199_000, "삼성전자", True, "0.001200")
    assert list(row.snapshots.order_by("captured_at", "id").values_list("outcome", "price")) == [
        ("found", 199_000),
        ("not_found", None),
        ("found", 189_000),
    ]


@pytest.mark.django_db
def test_a_not_found_clears_the_last_price_rather_than_keeping_a_stale_one():
    product = ProductQuery("A-1", BUDS)
    record_search(product, found_result())

    record_search(product, {"outcome": "not_found", "matches": [], "metrics": {}})

    row = Product.objects.get(product_code="A-1")
    assert (row.last_outcome, row.last_price, row.last_url) == ("not_found", None, "")


@pytest.mark.django_db(transaction=True)
def test_workers_recording_the_same_product_at_once_lose_no_count():
    product = ProductQuery("RACE-1", BUDS)
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def record() -> None:
        try:
            barrier.wait(timeout=10)
            for _ in range(5):
                record_search(product, found_result())
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=record) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert Product.objects.get(product_code="RACE-1").search_count == 30
    assert PriceSnapshot.objects.filter(product__product_code="RACE-1").count() == 30


# --- The handler against the fake marketplace -----------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db
def test_the_handler_finds_the_lowest_price_records_it_and_enqueues_the_webhook(worker_browser):
    worker_browser.set_results(BUDS, BUDS_LISTINGS)
    job, context = claimed(
        {
            "product_code": "BUDS-1",
            "product_name": BUDS,
            "brand": "삼성전자",
            "model_code": "SM-R630",
            "callback_url": "https://client.test/lps",
            "client_id": 7,
        }
    )

    result = handler.run_search(job, context)

    assert result["outcome"] == "found"
    assert (result["lowest"]["price"], result["lowest"]["title"]) == (199_000, BUDS_LISTINGS[1]["title"])
    assert worker_browser.search_queries == [BUDS]
    # Where the search's time went, for operators: the browser's stages, the judge's and the database's.
    stages = result["metrics"]["stages_ms"]
    assert {"browser_page", "navigation", "parse", "judge", "database"} <= set(stages)
    assert all(isinstance(ms, float) and ms >= 0 for ms in stages.values())
    snapshot = PriceSnapshot.objects.get(job_id=job.job_id)
    assert (snapshot.product.product_code, snapshot.outcome, snapshot.price) == ("BUDS-1", "found", 199_000)
    assert snapshot.url == result["lowest"]["url"]
    outbox = Job.objects.get(job_type=JobType.OUTBOX)
    assert outbox.payload == {
        "search_job_id": str(job.job_id),
        "product_code": "BUDS-1",
        "callback_url": "https://client.test/lps",
        "client_id": 7,
        "result": result,
    }
    assert outbox.dedupe_key == f"outbox:{job.job_id}"
    assert outbox.max_attempts == 8
    assert outbox.status == JobStatus.PENDING


@pytest.mark.browser
@pytest.mark.django_db
@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_the_lowest_is_by_listing_price_and_carries_the_shipping_fee_its_card_states(worker_browser, markup):
    listings = [
        # Cheaper to buy (21,900 delivered free) but dearer by listing price: the lowest stays by price (§4).
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 201_900, "delivery": "free"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트", "price": 199_000, "delivery": 3_000},
    ]
    worker_browser.set_results(BUDS, listings, markup=markup)
    job, context = claimed({"product_code": "BUDS-3", "product_name": BUDS, "model_code": "SM-R630"})

    result = handler.run_search(job, context)

    assert (result["lowest"]["price"], result["lowest"]["shipping_fee"]) == (199_000, 3_000)
    assert [(match["price"], match.get("shipping_fee")) for match in result["matches"]] == [
        (199_000, 3_000),
        (201_900, 0),
    ]


@pytest.mark.browser
@pytest.mark.django_db
def test_without_a_callback_url_no_outbox_job_is_enqueued(worker_browser):
    worker_browser.set_results(BUDS, BUDS_LISTINGS)
    job, context = claimed({"product_code": "BUDS-2", "product_name": BUDS, "model_code": "SM-R630"})

    handler.run_search(job, context)

    assert not Job.objects.filter(job_type=JobType.OUTBOX).exists()
    assert Product.objects.get(product_code="BUDS-2").search_count == 1


@pytest.mark.django_db
def test_a_job_out_of_time_stops_before_loading_any_page(fake_coupang):
    job, context = claimed({"product_code": "LATE-1", "product_name": BUDS}, deadline_seconds=0)

    with pytest.raises(JobDeadlineExceeded):
        handler.run_search(job, context)

    assert fake_coupang.search_queries == []
    assert not Product.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_search_job_runs_through_the_real_queue_and_worker(worker_browser):
    worker_browser.set_results(BUDS, BUDS_LISTINGS)
    worker_browser.set_behaviour("차단되는 상품", "http_403")
    found, blocked, invalid = queue.enqueue_many(
        [
            queue.NewJob(
                JobType.SEARCH,
                {"product_code": "Q-1", "product_name": BUDS, "callback_url": "http://127.0.0.1:9/hook"},
                dedupe_key="search:Q-1",
            ),
            queue.NewJob(JobType.SEARCH, {"product_code": "Q-2", "product_name": "차단되는 상품"}, max_attempts=1),
            queue.NewJob(JobType.SEARCH, {"product_code": "Q-3"}, max_attempts=3),
        ]
    )
    # Only the SEARCH lane: the OUTBOX job it enqueues is checked, not delivered.
    worker = Worker(
        {JobType.SEARCH: handlers.get(JobType.SEARCH)},
        concurrency={JobType.SEARCH: 2},
        burst=True,
        poll_only=True,
        shutdown_hooks=[],
    )

    assert worker.run() == 0

    done = Job.objects.get(job_id=found.job_id)
    assert done.status == JobStatus.DONE
    assert done.result["outcome"] == "found"
    assert done.result["lowest"]["price"] == 199_000
    assert done.result["metrics"]["bytes"] > 0
    dead = Job.objects.get(job_id=blocked.job_id)
    assert dead.status == JobStatus.DEAD
    assert dead.last_error.startswith("Blocked")
    assert dead.result is None
    refused = Job.objects.get(job_id=invalid.job_id)
    assert (refused.status, refused.attempts) == (JobStatus.DEAD, 1)
    assert "product_name" in refused.last_error
    assert Job.objects.get(job_type=JobType.OUTBOX).payload["search_job_id"] == str(found.job_id)
    assert PriceSnapshot.objects.filter(job_id=found.job_id, price=199_000).exists()
    assert Product.objects.filter(product_code="Q-2").exists() is False
    assert Product.objects.get(product_code="Q-1").last_searched_at <= timezone.now()


def test_the_search_handler_is_registered_with_its_deadline_and_browser_shutdown():
    registration = handlers.get(JobType.SEARCH)

    assert registration.handler is handler.run_search
    assert registration.deadline_setting == "LPS_SEARCH_DEADLINE_SECONDS"
    assert handler.close_shared_crawler in handlers.shutdown_hooks()
