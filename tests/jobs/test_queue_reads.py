"""The queue's reads: one job by id as the ORM reads it, and counts and the ops snapshot add up what the transitions
did."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs import queue, queue_reads
from jobs.models import Job, JobStatus
from tests.jobs.queue_jobs import claim_one, expire_lease, new

pytestmark = pytest.mark.django_db
committed = pytest.mark.django_db(transaction=True)


def _fields(job: Job) -> list:
    return [getattr(job, field.attname) for field in Job._meta.concrete_fields]


@pytest.mark.parametrize("owner_id", [None, 7], ids=["any owner", "one owner"])
def test_one_job_is_read_with_the_statement_the_orm_compiles_and_comes_back_as_the_orm_builds_it(owner_id):
    queue.enqueue(new({"product_code": "P1", "words": ["상품", 2]}, owner_id=7))
    job = claim_one()
    queue.complete(job, {"outcome": "found", "lowest": {"price": 1000}, "rounds": [1, 2]})

    with CaptureQueriesContext(connection) as compiled_once:
        found = queue_reads.visible_job(job.job_id, owner_id=owner_id)
    with CaptureQueriesContext(connection) as by_the_orm:
        [expected] = queue_reads.job_query(job.job_id, owner_id=owner_id)

    assert [query["sql"] for query in compiled_once] == [query["sql"] for query in by_the_orm]
    assert ('"job"."owner_id" = 7' in compiled_once[0]["sql"]) is (owner_id is not None)
    assert _fields(found) == _fields(expected)
    assert found.result == {"outcome": "found", "lowest": {"price": 1000}, "rounds": [1, 2]}
    assert found.payload == {"product_code": "P1", "words": ["상품", 2]}
    assert found._state.db == "default"
    assert not found._state.adding


def test_a_job_of_another_owner_or_none_at_all_is_not_read():
    queue.enqueue(new(owner_id=7))
    [job] = Job.objects.all()

    assert queue_reads.visible_job(job.job_id, owner_id=8) is None
    assert queue_reads.visible_job(uuid.uuid4(), owner_id=None) is None
    assert queue_reads.visible_job(job.job_id, owner_id=7).job_id == job.job_id
    assert queue_reads.visible_job(job.job_id, owner_id=None).job_id == job.job_id


def test_counts_and_the_snapshot_add_up_the_states():
    queue.enqueue_many([new() for _ in range(4)])
    first, second, third = queue.claim("w1", limit=3)
    queue.complete(first, {})
    queue.fail(second, "JobDeadlineExceeded: stopped", kind="JobDeadlineExceeded", retryable=False)

    assert queue_reads.counts() == {"PENDING": 1, "RUNNING": 1, "DONE": 1, "DEAD": 1}
    snapshot = queue_reads.snapshot()
    assert (snapshot.pending, snapshot.running, snapshot.done, snapshot.dead) == (1, 1, 1, 1)
    assert snapshot.dead_last_hour == 1
    assert snapshot.deadline_kills_last_hour == 1
    assert snapshot.stuck == 0
    assert snapshot.oldest_pending_seconds is not None
    assert snapshot.done_is_estimate is False
    assert third.job_id in {job.job_id for job in Job.objects.filter(status=JobStatus.RUNNING)}


@committed
def test_the_snapshot_counts_a_running_job_whose_lease_expired_as_stuck():
    queue.enqueue(new())
    expire_lease(claim_one().job_id)

    assert queue_reads.snapshot().stuck == 1
