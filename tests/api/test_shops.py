"""Many shops, one service: a product_code is one shop's SKU, so jobs, reads, lists and counts are per client."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connections
from django.test import Client

from api import keys
from api.codes import ResultCode
from jobs import queue
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from tests.api.conftest import Caller

pytestmark = [pytest.mark.django_db]

EARBUDS = {"product_code": "SKU-1", "product_name": "삼성 갤럭시 버즈3 프로 SM-R630"}
VACUUM = {"product_code": "SKU-1", "product_name": "다이슨 V15 디텍트 무선청소기"}


@pytest.fixture
def other_shop(db) -> keys.IssuedKey:
    return keys.issue_key("other-shop")


@pytest.fixture
def as_other_shop(client, other_shop) -> Caller:
    return Caller(client, other_shop.api_key)


def search(caller: Caller, *products: dict) -> list[dict]:
    response = caller.post("/v1/lps/search", {"products": list(products)})
    assert response.status_code == 202, response.content
    return response.json()["jobs"]


def test_two_clients_posting_the_same_product_code_get_two_jobs_each_their_own(
    as_shop, shop, as_other_shop, other_shop
):
    (earbuds,) = search(as_shop, EARBUDS)
    (vacuum,) = search(as_other_shop, VACUUM)

    assert earbuds["duplicate"] is False
    assert vacuum["duplicate"] is False
    assert earbuds["job_id"] != vacuum["job_id"]
    a, b = Job.objects.get(job_id=earbuds["job_id"]), Job.objects.get(job_id=vacuum["job_id"])
    assert (a.owner_id, a.payload["product_name"]) == (shop.client.pk, EARBUDS["product_name"])
    assert (b.owner_id, b.payload["product_name"]) == (other_shop.client.pk, VACUUM["product_name"])


def test_reposting_within_one_client_is_still_a_duplicate_of_its_own_active_job(as_shop, as_other_shop):
    (first,) = search(as_shop, EARBUDS)
    search(as_other_shop, VACUUM)

    (again,) = search(as_shop, EARBUDS)

    assert again == {**first, "duplicate": True}
    assert Job.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_posts_per_client_of_one_product_code_make_one_job_per_client():
    shops = [keys.issue_key(f"racer-{uuid.uuid4()}"), keys.issue_key(f"racer-{uuid.uuid4()}")]
    start = threading.Barrier(40)
    answers: list[tuple[int, dict]] = []
    errors: list[BaseException] = []

    def post(issued: keys.IssuedKey) -> None:
        try:
            caller = Caller(Client(), issued.api_key)
            start.wait(timeout=20)
            response = caller.post("/v1/lps/search", {"products": [EARBUDS]})
            assert response.status_code == 202, response.content
            answers.append((issued.client.pk, response.json()["jobs"][0]))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    racers = [threading.Thread(target=post, args=(issued,)) for issued in shops for _ in range(20)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=60)

    assert errors == []
    for issued in shops:
        (job,) = Job.objects.filter(owner_id=issued.client.pk)
        mine = [answer for client_id, answer in answers if client_id == issued.client.pk]
        assert {answer["job_id"] for answer in mine} == {str(job.job_id)}
        assert sorted(answer["duplicate"] for answer in mine) == [False] + [True] * 19


def test_a_client_reading_another_clients_job_gets_404_in_the_envelope(as_shop, as_other_shop):
    (earbuds,) = search(as_shop, EARBUDS)

    response = as_other_shop.get(f"/v1/lps/jobs/{earbuds['job_id']}")

    assert response.status_code == 404
    assert response.json() == {
        "result": ResultCode.LPS_JOB_NOT_FOUND,
        "error": f"no job {earbuds['job_id']}",
        "field": "job_id",
    }
    assert as_shop.get(f"/v1/lps/jobs/{earbuds['job_id']}").status_code == 200


def test_an_operator_reads_every_clients_job(as_shop, as_other_shop, operator):
    (earbuds,) = search(as_shop, EARBUDS)
    (vacuum,) = search(as_other_shop, VACUUM)

    for job in (earbuds, vacuum):
        response = as_shop.get(f"/v1/lps/jobs/{job['job_id']}", api_key=operator.api_key)
        assert response.status_code == 200
        assert response.json()["job"]["job_id"] == job["job_id"]


def test_a_client_reads_the_outbox_job_of_its_own_search_and_not_another_clients(shop, other_shop, as_shop):
    search_job = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "W1"}, owner_id=shop.client.pk))
    outbox = queue.enqueue(
        queue.NewJob(JobType.OUTBOX, {"search_job_id": str(search_job.job_id)}, owner_id=shop.client.pk)
    )

    assert as_shop.get(f"/v1/lps/jobs/{outbox.job_id}").json()["job"]["job_type"] == "OUTBOX"
    assert as_shop.get(f"/v1/lps/jobs/{outbox.job_id}", api_key=other_shop.api_key).status_code == 404


def test_a_client_job_list_shows_only_its_own_jobs_with_the_operators_filters(
    as_shop, shop, as_other_shop, other_shop, operator
):
    mine = search(as_shop, EARBUDS, {"product_code": "SKU-2", "product_name": "물티슈 100매"})
    theirs = search(as_other_shop, VACUUM, {"product_code": "SKU-9", "product_name": "물티슈 캡형"})
    Job.objects.filter(job_id=mine[1]["job_id"]).update(status=JobStatus.DEAD)

    listed = as_shop.get("/v1/lps/jobs").json()
    dead = as_shop.get("/v1/lps/jobs", status="DEAD").json()
    wipes = as_shop.get("/v1/lps/jobs", q="물티슈").json()
    by_code = as_other_shop.get("/v1/lps/jobs", q="SKU-1").json()
    everything = as_shop.get("/v1/lps/jobs", api_key=operator.api_key).json()

    assert listed["total"] == 2
    assert {job["job_id"] for job in listed["jobs"]} == {job["job_id"] for job in mine}
    assert {job["client_id"] for job in listed["jobs"]} == {shop.client.pk}
    assert [job["job_id"] for job in dead["jobs"]] == [mine[1]["job_id"]]
    assert [job["job_id"] for job in wipes["jobs"]] == [mine[1]["job_id"]]
    assert [job["job_id"] for job in by_code["jobs"]] == [theirs[0]["job_id"]]
    assert everything["total"] == 4
    assert {job["client_id"] for job in everything["jobs"]} == {shop.client.pk, other_shop.client.pk}


def test_a_clients_queue_stats_count_only_its_own_jobs_and_an_operators_count_all(as_shop, as_other_shop, operator):
    (earbuds,) = search(as_shop, EARBUDS)
    search(as_other_shop, VACUUM, {"product_code": "SKU-2", "product_name": "물티슈"})
    # The oldest job (the shop's) is claimed first and ends DEAD.
    (claimed,) = queue.claim("test-worker", job_types=[JobType.SEARCH], limit=1)
    assert str(claimed.job_id) == earbuds["job_id"]
    queue.fail(claimed, "boom", retryable=False)

    mine = as_shop.get("/v1/lps/queue/stats").json()
    theirs = as_other_shop.get("/v1/lps/queue/stats").json()
    everything = as_shop.get("/v1/lps/queue/stats", api_key=operator.api_key).json()

    assert mine["counts"] == {"PENDING": 0, "RUNNING": 0, "DONE": 0, "DEAD": 1}
    assert (mine["snapshot"]["pending"], mine["snapshot"]["dead"], mine["snapshot"]["done"]) == (0, 1, 0)
    assert theirs["counts"] == {"PENDING": 2, "RUNNING": 0, "DONE": 0, "DEAD": 0}
    assert (theirs["snapshot"]["pending"], theirs["snapshot"]["dead"]) == (2, 0)
    assert everything["counts"] == {"PENDING": 2, "RUNNING": 0, "DONE": 0, "DEAD": 1}
    assert (everything["snapshot"]["pending"], everything["snapshot"]["dead"]) == (2, 1)
