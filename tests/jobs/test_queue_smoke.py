import pytest

from jobs import queue
from jobs.models import Job, JobStatus, JobType

pytestmark = pytest.mark.django_db


def test_enqueue_claim_complete_round_trip():
    enqueued = queue.enqueue_many(
        [
            queue.NewJob(JobType.SEARCH, {"product_code": "A"}, dedupe_key="search:A"),
            queue.NewJob(JobType.SEARCH, {"product_code": "A"}, dedupe_key="search:A"),
            queue.NewJob(JobType.OUTBOX, {"x": 1}),
        ]
    )
    assert [e.duplicate for e in enqueued] == [False, True, False]
    assert enqueued[0].job_id == enqueued[1].job_id
    again = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "A"}, dedupe_key="search:A"))
    assert again.duplicate
    assert again.job_id == enqueued[0].job_id
    claimed = queue.claim("w1", limit=5, job_types=[JobType.SEARCH])
    assert [c.job_id for c in claimed] == [enqueued[0].job_id]
    assert isinstance(queue.complete(claimed[0], {"ok": True}), queue.Moved)
    assert isinstance(queue.complete(claimed[0], {"ok": True}), queue.Lost)
    assert Job.objects.get(job_id=claimed[0].job_id).status == JobStatus.DONE
    snapshot = queue.snapshot()
    assert snapshot.pending == 1
    assert snapshot.done == 1
    assert queue.counts()["DONE"] == 1
    assert queue.ping()
