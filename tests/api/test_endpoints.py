"""Every endpoint's success shape, through the real HTTP stack and the real database."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from api.codes import ResultCode
from api.envelope import dumps
from api.schemas import JobEnvelopeOut, job_out
from jobs import queue
from jobs.models import Job, JobStatus, Priority
from lps_site.job_types import JobType
from search.models import BotEvent, IpSession, PriceSnapshot, Product, SessionEndReason
from tests.api.conftest import products

pytestmark = [pytest.mark.django_db]

FOUND_RESULT = {
    "outcome": "found",
    "lowest": {"price": 12900, "title": "삼다수 2L", "url": "https://example.test/p/1", "rocket": True, "seller": None},
    "matches": [],
    "rounds": [{"query": "삼다수", "kind": "original", "candidates": 3, "matches": 1}],
    "cached": False,
    "metrics": {"duration_ms": 1200, "rounds": 1, "cost": {"ai_usd": 0.001, "proxy_usd": 0.002, "total_usd": 0.003}},
}


def _contains_null(value) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_contains_null(item) for item in value.values())
    if isinstance(value, list):
        return any(_contains_null(item) for item in value)
    return False


def _finish(job_id, result: dict) -> None:
    """Run the next SEARCH job, which must be `job_id`, to DONE with `result`, as a worker would."""
    (claimed,) = queue.claim("test-worker", job_types=[JobType.SEARCH])
    assert claimed.job_id == job_id
    assert isinstance(queue.complete(claimed, result), queue.Moved)


def test_search_enqueues_one_job_per_product_and_answers_202_with_their_ids(as_shop, shop):
    response = as_shop.post(
        "/v1/lps/search",
        {
            "products": [
                {
                    "product_code": "A1",
                    "product_name": "제주 삼다수 2L",
                    "brand": "삼다수",
                    "model_code": "SD2",
                    "price": 15000,
                    "callback_url": "https://93.184.216.34/hook",
                },
                {"product_code": "A2", "product_name": "신라면 멀티팩"},
            ],
            "priority": "high",
        },
    )
    assert response.status_code == 202
    body = response.json()
    assert body["result"] == ResultCode.SUCCESS
    assert [job["product_code"] for job in body["jobs"]] == ["A1", "A2"]
    assert [job["duplicate"] for job in body["jobs"]] == [False, False]
    first = Job.objects.get(job_id=body["jobs"][0]["job_id"])
    assert first.payload == {
        "product_code": "A1",
        "product_name": "제주 삼다수 2L",
        "brand": "삼다수",
        "model_code": "SD2",
        "price": 15000,
        "callback_url": "https://93.184.216.34/hook",
        "client_id": shop.client.pk,
    }
    assert (first.job_type, first.priority, first.owner_id) == (JobType.SEARCH, Priority.HIGH, shop.client.pk)
    assert first.dedupe_key == f"search:{shop.client.pk}:A1"
    second = Job.objects.get(job_id=body["jobs"][1]["job_id"])
    assert second.payload == {"product_code": "A2", "product_name": "신라면 멀티팩", "client_id": shop.client.pk}
    assert second.priority == Priority.HIGH


def test_search_returns_the_active_jobs_id_with_duplicate_true_for_a_product_already_queued(as_shop):
    first = as_shop.post("/v1/lps/search", {"products": products(2)}).json()["jobs"]
    again = as_shop.post("/v1/lps/search", {"products": products(3), "priority": "low"}).json()["jobs"]
    assert [job["duplicate"] for job in again] == [True, True, False]
    assert [job["job_id"] for job in again[:2]] == [job["job_id"] for job in first]
    assert Job.objects.count() == 3


def test_search_marks_the_second_of_two_equal_codes_in_one_batch_as_a_duplicate_of_the_first(as_shop):
    jobs = as_shop.post("/v1/lps/search", {"products": [*products(1), *products(1)]}).json()["jobs"]
    assert jobs[0]["job_id"] == jobs[1]["job_id"]
    assert [job["duplicate"] for job in jobs] == [False, True]
    assert Job.objects.count() == 1


def test_search_takes_a_full_batch_of_a_thousand_products(as_shop):
    response = as_shop.post("/v1/lps/search", {"products": products(1000)})
    assert response.status_code == 202
    assert len(response.json()["jobs"]) == 1000
    assert Job.objects.count() == 1000


def test_search_ignores_unknown_fields_and_strips_surrounding_blanks(as_shop, shop):
    response = as_shop.post(
        "/v1/lps/search",
        {"products": [{"product_code": " X9 ", "product_name": " 물티슈 ", "colour": "blue"}], "job_type": "x"},
    )
    assert response.status_code == 202
    assert Job.objects.get().payload["product_code"] == "X9"
    assert Job.objects.get().dedupe_key == f"search:{shop.client.pk}:X9"


def test_a_price_written_as_a_whole_json_number_is_taken_as_that_integer(as_shop):
    response = as_shop.post(
        "/v1/lps/search", {"products": [{"product_code": "F1", "product_name": "n", "price": 990.0}]}
    )
    assert response.status_code == 202
    assert Job.objects.get().payload["price"] == 990
    assert type(Job.objects.get().payload["price"]) is int


def test_a_job_reads_back_in_the_spec_shape_with_absent_values_left_out(as_shop):
    job_id = as_shop.post("/v1/lps/search", {"products": products(1)}).json()["jobs"][0]["job_id"]
    body = as_shop.get(f"/v1/lps/jobs/{job_id}").json()
    assert body["result"] == ResultCode.SUCCESS
    assert set(body["job"]) == {
        "job_id",
        "job_type",
        "status",
        "priority",
        "attempts",
        "max_attempts",
        "created_at",
        "updated_at",
    }
    assert (body["job"]["job_type"], body["job"]["status"], body["job"]["attempts"]) == ("SEARCH", "PENDING", 0)


def test_a_finished_job_carries_its_result_without_nulls(as_shop):
    job_id = as_shop.post("/v1/lps/search", {"products": products(1)}).json()["jobs"][0]["job_id"]
    _finish(uuid.UUID(job_id), FOUND_RESULT)
    response = as_shop.get(f"/v1/lps/jobs/{job_id}")
    job = response.json()["job"]
    assert job["status"] == "DONE"
    assert job["result"]["lowest"] == {
        "price": 12900,
        "title": "삼다수 2L",
        "url": "https://example.test/p/1",
        "rocket": True,
    }
    assert b"null" not in response.content


SHAPED_RESULT = {
    **FOUND_RESULT,
    "left_out_more": 3,
    "left_out": [
        {"why": "ad", "price": 9900, "title": "광고 삼다수", "marketplace": "coupang", "rank": 1},
        {"marketplace": "naver", "price": 9000, "title": "품절", "why": "sold_out", "product_id": "77"},
    ],
    "price_check": {"gap_won": 100, "your_price": 13000, "lowest_price": 12900, "gap_percent": 0.8, "note": "x"},
    "product_code": "P0",
    "searched_at": "2026-01-02T03:04:05Z",
}
# Not SearchResultOut's shape (a reason it does not know): JobOut takes it as a plain dict.
UNSHAPED_RESULT = {**FOUND_RESULT, "left_out": [{"why": "other", "price": 1}]}


@pytest.mark.parametrize(
    "result", [None, FOUND_RESULT, SHAPED_RESULT, UNSHAPED_RESULT], ids=["pending", "found", "shaped", "unshaped"]
)
def test_a_job_is_rendered_byte_for_byte_as_the_validation_of_its_documented_shape_renders_it(as_shop, result):
    job_id = uuid.UUID(as_shop.post("/v1/lps/search", {"products": products(1)}).json()["jobs"][0]["job_id"])
    if result is not None:
        _finish(job_id, result)
    job = Job.objects.get(job_id=job_id)
    job.last_error = "TimeoutError: the page did not load"
    job.save(update_fields=["last_error"])

    response = as_shop.get(f"/v1/lps/jobs/{job_id}")

    validated = JobEnvelopeOut.model_validate({"result": ResultCode.SUCCESS, "job": job_out(job)}).model_dump()
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.content == dumps(validated).encode()


def test_an_unknown_job_is_404_with_lps_job_not_found(as_shop):
    response = as_shop.get(f"/v1/lps/jobs/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.json()["result"] == ResultCode.LPS_JOB_NOT_FOUND


def test_queue_stats_gives_counts_by_state_and_the_ops_snapshot(as_shop):
    as_shop.post("/v1/lps/search", {"products": products(3)})
    body = as_shop.get("/v1/lps/queue/stats").json()
    assert body["result"] == ResultCode.SUCCESS
    assert body["counts"] == {"PENDING": 3, "RUNNING": 0, "DONE": 0, "DEAD": 0}
    assert body["snapshot"]["pending"] == 3
    assert {"running", "done", "dead", "dead_last_hour", "stuck", "cost_last_hour_usd"} <= set(body["snapshot"])


def test_the_operator_job_list_is_newest_first_with_outcome_price_cost_and_error(as_operator):
    first = as_operator.post("/v1/lps/search", {"products": products(1, prefix="OLD")}).json()["jobs"][0]
    as_operator.post("/v1/lps/search", {"products": products(1, prefix="NEW")})
    _finish(uuid.UUID(first["job_id"]), FOUND_RESULT)
    body = as_operator.get("/v1/lps/jobs").json()
    assert body["result"] == ResultCode.SUCCESS
    assert (body["total"], body["total_is_estimate"], body["page"], body["page_size"]) == (2, False, 1, 50)
    assert [row["product_code"] for row in body["jobs"]] == ["NEW0", "OLD0"]
    done = body["jobs"][1]
    assert (done["status"], done["outcome"], done["lowest_price"], done["cost_usd"]) == ("DONE", "found", 12900, 0.003)
    assert "error" not in body["jobs"][0]


def test_the_operator_job_list_filters_by_status_and_by_product_code_or_name(as_operator):
    as_operator.post(
        "/v1/lps/search",
        {"products": [{"product_code": "K1", "product_name": "코카콜라 제로"}, *products(2)]},
    )
    assert as_operator.get("/v1/lps/jobs", q="K1").json()["total"] == 1
    assert as_operator.get("/v1/lps/jobs", q="콜라").json()["jobs"][0]["product_code"] == "K1"
    assert as_operator.get("/v1/lps/jobs", status="PENDING").json()["total"] == 3
    assert as_operator.get("/v1/lps/jobs", status="DEAD").json()["total"] == 0
    page = as_operator.get("/v1/lps/jobs", page=2, page_size=2).json()
    assert (page["total"], len(page["jobs"])) == (3, 1)


def _dead_job(code: str = "D1") -> uuid.UUID:
    enqueued = queue.enqueue(
        queue.NewJob(JobType.SEARCH, {"product_code": code}, dedupe_key=f"search:{code}", max_attempts=1)
    )
    claimed = queue.claim("test-worker", job_types=[JobType.SEARCH])[0]
    queue.fail(claimed, "CrawlFailed: the page did not load")
    assert Job.objects.get(job_id=enqueued.job_id).status == JobStatus.DEAD
    return enqueued.job_id


def test_requeue_moves_a_dead_job_back_to_pending(as_operator):
    job_id = _dead_job()
    response = as_operator.post(f"/v1/lps/jobs/{job_id}/requeue")
    assert response.status_code == 200
    assert response.json() == {"result": 0, "job_id": str(job_id), "status": "PENDING"}
    assert Job.objects.get(job_id=job_id).attempts == 0


def test_requeue_is_409_db_already_same_key_while_a_twin_is_active(as_operator):
    job_id = _dead_job("T1")
    twin = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "T1"}, dedupe_key="search:T1"))
    response = as_operator.post(f"/v1/lps/jobs/{job_id}/requeue")
    assert response.status_code == 409
    assert response.json()["result"] == ResultCode.DB_ALREADY_SAME_KEY
    assert response.json()["active_job_id"] == str(twin.job_id)
    assert Job.objects.get(job_id=job_id).status == JobStatus.DEAD


def test_requeue_of_a_job_that_is_not_dead_is_409_lps_job_not_dead(as_operator):
    job_id = as_operator.post("/v1/lps/search", {"products": products(1)}).json()["jobs"][0]["job_id"]
    response = as_operator.post(f"/v1/lps/jobs/{job_id}/requeue")
    assert response.status_code == 409
    assert response.json()["result"] == ResultCode.LPS_JOB_NOT_DEAD


def test_requeue_of_an_unknown_job_is_404(as_operator):
    response = as_operator.post(f"/v1/lps/jobs/{uuid.uuid4()}/requeue")
    assert response.status_code == 404
    assert response.json()["result"] == ResultCode.LPS_JOB_NOT_FOUND


def test_products_come_most_recently_searched_first_with_their_latest_snapshot(as_operator):
    now = timezone.now()
    older = Product.objects.create(
        product_code="C1",
        product_name="오래된",
        search_count=4,
        last_outcome="found",
        last_price=900,
        last_searched_at=now - timedelta(hours=2),
    )
    newer = Product.objects.create(
        product_code="C2", product_name="새것", search_count=1, last_outcome="not_found", last_searched_at=now
    )
    Product.objects.create(product_code="C3", product_name="아직")
    PriceSnapshot.objects.create(product=older, outcome="found", price=1000, title="old", rocket=False)
    PriceSnapshot.objects.create(product=older, outcome="found", price=900, title="new", rocket=True, seller="S")
    PriceSnapshot.objects.create(product=newer, outcome="not_found")
    body = as_operator.get("/v1/lps/products").json()
    assert body["result"] == ResultCode.SUCCESS
    assert body["total"] == 3
    assert [row["product_code"] for row in body["products"]] == ["C2", "C1", "C3"]
    assert body["products"][1]["search_count"] == 4
    assert body["products"][1]["latest"]["price"] == 900
    assert body["products"][1]["latest"]["title"] == "new"
    assert "latest" not in body["products"][2]


def test_ip_session_stats_show_end_reasons_histogram_and_the_fewest_requests_of_a_blocked_session(as_operator):
    now = timezone.now()
    for requests, reason in [
        (40, SessionEndReason.BLOCKED),
        (12, SessionEndReason.BLOCKED),
        (50, SessionEndReason.BUDGET),
        (3, None),
    ]:
        IpSession.objects.create(requests=requests, end_reason=reason, ended_at=now if reason else None)
    body = as_operator.get("/v1/lps/stats/ip-sessions").json()
    assert body["result"] == ResultCode.SUCCESS
    assert body["end_reasons"]["blocked"] == 2
    assert body["fewest_requests_blocked"] == 12
    assert sum(bucket["sessions"] for bucket in body["histogram"]) == 3
    assert len(body["recent"]) == 4
    assert "end_reason" not in next(row for row in body["recent"] if row["requests"] == 3)


def test_bot_stats_show_blocks_per_hour_and_recent_detections(as_operator):
    BotEvent.objects.create(kind="http_403", http_status=403, query="삼다수")
    BotEvent.objects.create(kind="captcha")
    body = as_operator.get("/v1/lps/stats/bot").json()
    assert body["result"] == ResultCode.SUCCESS
    assert sum(hour["blocks"] for hour in body["per_hour"]) == 2
    assert {event["kind"] for event in body["recent"]} == {"http_403", "captcha"}


def test_cost_stats_show_cost_per_hour_with_ai_and_proxy_apart(as_operator):
    job_id = as_operator.post("/v1/lps/search", {"products": products(1)}).json()["jobs"][0]["job_id"]
    _finish(uuid.UUID(job_id), FOUND_RESULT)
    body = as_operator.get("/v1/lps/stats/cost", hours=2).json()
    assert body["result"] == ResultCode.SUCCESS
    assert body["total_usd"] == 0.003
    assert (body["per_hour"][-1]["ai_usd"], body["per_hour"][-1]["proxy_usd"]) == (0.001, 0.002)


def test_health_endpoints_answer_without_a_key(anonymous):
    assert anonymous.get("/healthz").json() == {"result": 0, "status": "ok"}
    ready = anonymous.get("/readyz")
    assert (ready.status_code, ready.json()) == (200, {"result": 0, "status": "ok"})


def test_the_openapi_document_is_served_and_names_every_endpoint(anonymous):
    document = anonymous.get("/v1/lps/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == {
        "/v1/lps/search",
        "/v1/lps/jobs/{job_id}",
        "/v1/lps/queue/stats",
        "/v1/lps/jobs",
        "/v1/lps/jobs/{job_id}/requeue",
        "/v1/lps/products",
        "/v1/lps/stats/ip-sessions",
        "/v1/lps/stats/bot",
        "/v1/lps/stats/cost",
        "/healthz",
        "/readyz",
        "/v1/lps/jobs/{job_id}/corrections",
        "/v1/lps/corrections",
        "/v1/lps/corrections/{correction_id}",
        "/v1/lps/jobs/{job_id}/reports",
        "/v1/lps/watches",
        "/v1/lps/watches/{product_code}",
        "/v1/lps/watches/{product_code}/run",
        "/v1/lps/watches/{product_code}/pause",
        "/v1/lps/watches/{product_code}/resume",
    }


def test_no_success_response_carries_a_null(as_operator):
    as_operator.post("/v1/lps/search", {"products": products(2)})
    IpSession.objects.create(requests=1)
    for path in [
        "/v1/lps/jobs",
        "/v1/lps/queue/stats",
        "/v1/lps/products",
        "/v1/lps/stats/ip-sessions",
        "/v1/lps/stats/bot",
        "/v1/lps/stats/cost",
    ]:
        assert not _contains_null(as_operator.get(path).json()), path


def test_the_openapi_document_describes_the_result_fields_that_tell_a_shop_how_far_to_trust_it(anonymous):
    document = anonymous.get("/v1/lps/openapi.json").json()
    schemas = document["components"]["schemas"]

    result = schemas["SearchResultOut"]
    assert result["additionalProperties"] is True  # the contract's own fields pass through beside these
    assert {"product_code", "searched_at", "cache", "price_check", "left_out", "left_out_more"} <= set(
        result["properties"]
    )
    assert set(schemas["PriceCheckOut"]["properties"]) == {"your_price", "lowest_price", "gap_won", "gap_percent"}
    assert set(schemas["CachedNotFoundOut"]["properties"]) == {"remembered_at", "expires_at", "age_seconds"}
    assert set(schemas["LeftOutOut"]["properties"]["why"]["enum"]) == {
        "ad",
        "sold_out",
        "rental",
        "used",
        "discontinued",
        "not_yet_on_sale",
    }
    job_result = str(schemas["JobOut"]["properties"]["result"])
    assert "#/components/schemas/SearchResultOut" in job_result
