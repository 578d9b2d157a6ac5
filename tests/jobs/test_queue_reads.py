"""The queue's observing reads: counts and the ops snapshot add up what the transitions did."""

from __future__ import annotations

import pytest

from jobs import queue, queue_reads
from jobs.models import Job, JobStatus
from tests.jobs.queue_jobs import claim_one, expire_lease, new

pytestmark = pytest.mark.django_db
committed = pytest.mark.django_db(transaction=True)


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
