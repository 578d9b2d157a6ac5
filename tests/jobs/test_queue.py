"""The queue's operations against the real PostgreSQL: each transition a compare-and-set, each race refereed."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import psycopg
import pytest
from django.db import connections, transaction
from django.utils import timezone

from jobs import queue
from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound
from jobs.models import Job, JobStatus, Priority
from lps_site.job_types import JobType
from tests.addresses import database_url
from tests.jobs.queue_jobs import claim_one, expire_lease, new

pytestmark = pytest.mark.django_db
# Races, wake-ups and row locks need real commits and several connections.
committed = pytest.mark.django_db(transaction=True)


def row(job_id) -> Job:
    return Job.objects.get(job_id=job_id)


# --- enqueue ---------------------------------------------------------------------------------------------


def test_enqueue_many_inserts_every_job_in_one_statement_and_answers_in_input_order():
    enqueued = queue.enqueue_many([new({"n": n}, dedupe_key=f"k{n}" if n % 2 else None) for n in range(6)])

    jobs = {job.job_id: job for job in Job.objects.all()}
    assert [jobs[e.job_id].payload["n"] for e in enqueued] == list(range(6))
    assert [e.duplicate for e in enqueued] == [False] * 6
    assert {job.status for job in jobs.values()} == {JobStatus.PENDING}


def test_a_dedupe_key_held_by_an_active_job_returns_that_job_instead_of_a_new_one():
    first = queue.enqueue(new({"v": 1}, dedupe_key="search:A"))

    again = queue.enqueue(new({"v": 2}, dedupe_key="search:A"))

    assert again == queue.Enqueued(first.job_id, "search:A", duplicate=True)
    assert Job.objects.count() == 1
    assert row(first.job_id).payload == {"v": 1}


def test_a_dedupe_key_twice_in_one_batch_is_inserted_once():
    enqueued = queue.enqueue_many([new(dedupe_key="B"), new(), new(dedupe_key="B")])

    assert [e.duplicate for e in enqueued] == [False, False, True]
    assert enqueued[0].job_id == enqueued[2].job_id
    assert Job.objects.count() == 2


def test_a_finished_job_does_not_hold_its_dedupe_key():
    first = queue.enqueue(new(dedupe_key="C"))
    queue.complete(claim_one(), {})

    second = queue.enqueue(new(dedupe_key="C"))

    assert not second.duplicate
    assert second.job_id != first.job_id


@committed
def test_twenty_concurrent_enqueues_of_one_dedupe_key_make_one_job_and_nineteen_get_its_id():
    start = threading.Barrier(20)

    def enqueue_from_own_connection(n: int) -> queue.Enqueued:
        try:
            start.wait(timeout=10)
            return queue.enqueue(new({"caller": n}, dedupe_key="search:RACE"))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(enqueue_from_own_connection, range(20)))

    active = list(Job.objects.filter(dedupe_key="search:RACE"))
    assert len(active) == 1
    assert {e.job_id for e in results} == {active[0].job_id}
    assert sorted(e.duplicate for e in results) == [False] + [True] * 19


def test_a_delayed_job_is_not_claimable_before_its_run_after():
    queue.enqueue(new(delay_seconds=60))

    assert queue.claim("w1") == []
    assert row(Job.objects.get().job_id).run_after > timezone.now() + timedelta(seconds=50)


def _listener() -> psycopg.Connection:
    listener = psycopg.connect(database_url(), autocommit=True)
    listener.execute(queue.LISTEN_SQL)
    return listener


@committed
def test_an_enqueue_wakes_listeners_only_once_its_transaction_commits():
    with _listener() as listener:
        with transaction.atomic():
            queue.enqueue(new(job_type=JobType.SEARCH))
            assert list(listener.notifies(timeout=0.2)) == []

        [notify] = list(listener.notifies(timeout=2, stop_after=1))

    assert notify.channel == queue.NOTIFY_CHANNEL
    assert notify.payload == str(int(JobType.SEARCH))


@committed
def test_a_duplicate_enqueue_wakes_nobody():
    queue.enqueue(new(dedupe_key="D"))
    with _listener() as listener:
        queue.enqueue(new(dedupe_key="D"))

        assert list(listener.notifies(timeout=0.3)) == []


# --- claim -----------------------------------------------------------------------------------------------


@committed
def test_claim_takes_the_highest_priority_then_the_oldest_job():
    low = queue.enqueue(new(priority=Priority.LOW))
    old_normal = queue.enqueue(new())
    young_normal = queue.enqueue(new())
    high = queue.enqueue(new(priority=Priority.HIGH))

    order = [claim_one().job_id for _ in range(4)]

    assert order == [high.job_id, old_normal.job_id, young_normal.job_id, low.job_id]


def test_claim_marks_the_job_running_for_the_worker_with_a_lease_and_counts_the_attempt():
    enqueued = queue.enqueue(new({"product_code": "P1"}))

    job = claim_one("worker-a", lease_seconds=30)

    assert job.payload == {"product_code": "P1"}
    assert (job.job_id, job.attempt, job.worker_id) == (enqueued.job_id, 1, "worker-a")
    claimed = row(enqueued.job_id)
    assert (claimed.status, claimed.worker_id, claimed.attempts) == (JobStatus.RUNNING, "worker-a", 1)
    assert timedelta(seconds=25) < claimed.lease_until - claimed.run_started_at <= timedelta(seconds=30)
    assert abs(job.lease_until - claimed.lease_until) < timedelta(milliseconds=1)
    assert abs(job.created_at - claimed.created_at) < timedelta(milliseconds=1)
    assert job.lease_until.utcoffset() == timedelta(0)


def test_claim_takes_up_to_its_limit_and_only_the_job_types_asked_for():
    queue.enqueue_many([new(job_type=JobType.SEARCH) for _ in range(3)] + [new() for _ in range(5)])

    outbox = queue.claim("w1", limit=4, job_types=[JobType.OUTBOX])
    search = queue.claim("w1", limit=10, job_types=[JobType.SEARCH])

    assert [job.job_type for job in outbox] == [JobType.OUTBOX] * 4
    assert [job.job_type for job in search] == [JobType.SEARCH] * 3


@committed
def test_claim_skips_a_job_locked_by_another_transaction():
    locked = queue.enqueue(new())
    free = queue.enqueue(new())
    has_lock, release_lock = threading.Event(), threading.Event()

    def hold_row_lock() -> None:
        try:
            with transaction.atomic():
                Job.objects.select_for_update().get(job_id=locked.job_id)
                has_lock.set()
                release_lock.wait(10)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_row_lock)
    holder.start()
    try:
        assert has_lock.wait(10)
        claimed = queue.claim("w1", limit=2)
    finally:
        release_lock.set()
        holder.join(10)

    assert [job.job_id for job in claimed] == [free.job_id]


@committed
def test_concurrent_claimers_never_get_the_same_job():
    queue.enqueue_many([new() for _ in range(300)])
    start = threading.Barrier(8)

    def claim_until_empty(n: int) -> list[uuid.UUID]:
        try:
            start.wait(timeout=10)
            mine = []
            while batch := queue.claim(f"w{n}", limit=n % 3 + 1):
                mine.extend(job.job_id for job in batch)
            return mine
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        claimed = [job_id for ids in pool.map(claim_until_empty, range(8)) for job_id in ids]

    assert len(claimed) == 300
    assert len(set(claimed)) == 300


# --- complete, fail, release, renew ----------------------------------------------------------------------


def test_complete_finishes_the_held_attempt_and_a_second_complete_is_told_it_lost():
    queue.enqueue(new())
    job = claim_one()

    assert queue.complete(job, {"price": 1000}) == queue.Moved(job.job_id, JobStatus.DONE)
    assert queue.complete(job, {"price": 1}) == queue.Lost(job.job_id)
    done = row(job.job_id)
    assert (done.status, done.result, done.lease_until) == (JobStatus.DONE, {"price": 1000}, None)


def test_complete_by_a_worker_that_does_not_hold_the_job_changes_nothing():
    queue.enqueue(new())
    job = claim_one("owner")
    impostor = queue.ClaimedJob(**{**job.__dict__, "worker_id": "impostor"})

    assert queue.complete(impostor, {"x": 1}) == queue.Lost(job.job_id)
    assert row(job.job_id).status == JobStatus.RUNNING


def test_complete_many_finishes_the_held_attempts_and_reports_the_lost_ones():
    queue.enqueue_many([new() for _ in range(3)])
    first, second, third = queue.claim("w1", limit=3)
    queue.release(second)

    transitions = queue.complete_many([(first, {"n": 1}), (second, {"n": 2}), (third, None)])

    assert transitions == [
        queue.Moved(first.job_id, JobStatus.DONE),
        queue.Lost(second.job_id),
        queue.Moved(third.job_id, JobStatus.DONE),
    ]
    assert row(second.job_id).status == JobStatus.PENDING


def test_complete_many_refuses_jobs_of_several_workers():
    queue.enqueue_many([new(), new()])
    one, other = claim_one("a"), claim_one("b")

    with pytest.raises(ValueError, match="one worker"):
        queue.complete_many([(one, {}), (other, {})])


def test_complete_and_claim_finishes_the_held_attempts_and_leases_the_next_jobs_in_one_statement():
    queue.enqueue_many([new({"n": n}) for n in range(5)])
    first, second = queue.claim("w1", limit=2)
    queue.release(second)

    transitions, claimed = queue.complete_and_claim(
        [(first, {"ok": 1}), (second, {"ok": 2})], "w1", limit=2, job_types=[JobType.OUTBOX], lease_seconds=30
    )

    assert transitions == [queue.Moved(first.job_id, JobStatus.DONE), queue.Lost(second.job_id)]
    assert len(claimed) == 2
    assert {job.worker_id for job in claimed} == {"w1"}
    assert all(isinstance(job.payload, dict) for job in claimed)
    assert row(first.job_id).result == {"ok": 1}
    assert {row(job.job_id).status for job in claimed} == {JobStatus.RUNNING}


def test_complete_and_claim_claims_only_the_job_types_asked_for_and_nothing_with_limit_zero():
    queue.enqueue_many([new(job_type=JobType.SEARCH), new()])

    assert queue.complete_and_claim([], "w1", limit=0, job_types=[JobType.OUTBOX]) == ([], [])
    _, claimed = queue.complete_and_claim([], "w1", limit=5, job_types=[JobType.SEARCH])
    assert [job.job_type for job in claimed] == [JobType.SEARCH]


def test_complete_and_claim_refuses_jobs_of_another_worker():
    queue.enqueue(new())
    job = claim_one("a")

    with pytest.raises(ValueError, match="one worker"):
        queue.complete_and_claim([(job, {})], "b", limit=1, job_types=[JobType.OUTBOX])


def test_several_operations_in_one_transaction_take_effect_together():
    queue.enqueue_many([new(), new()])
    first = claim_one()

    with queue.one_transaction():
        queue.complete(first, {})
        second = claim_one()

    assert row(first.job_id).status == JobStatus.DONE
    assert row(second.job_id).status == JobStatus.RUNNING


def test_fail_with_attempts_left_schedules_a_retry_after_the_backoff():
    queue.enqueue(new(max_attempts=3))
    job = claim_one()

    transition = queue.fail(job, "CrawlFailed: HTTP 503", retry_in_seconds=42)

    assert isinstance(transition, queue.Moved)
    assert transition.status == JobStatus.PENDING
    failed = row(job.job_id)
    assert failed.last_error == "CrawlFailed: HTTP 503"
    assert timedelta(seconds=41) < failed.run_after - failed.updated_at <= timedelta(seconds=42)
    assert queue.claim("w1") == []


def test_fail_of_the_last_attempt_ends_the_job_dead():
    queue.enqueue(new(max_attempts=1))
    job = claim_one()

    assert queue.fail(job, "Boom: no").status == JobStatus.DEAD
    assert row(job.job_id).status == JobStatus.DEAD


def test_a_non_retryable_failure_ends_the_job_dead_with_attempts_left():
    queue.enqueue(new(max_attempts=5))
    job = claim_one()

    assert queue.fail(job, "InvalidProduct: no name", retryable=False).status == JobStatus.DEAD


def test_fail_of_an_attempt_no_longer_held_changes_nothing():
    queue.enqueue(new())
    job = claim_one()
    queue.complete(job, {})

    assert queue.fail(job, "late") == queue.Lost(job.job_id)
    assert row(job.job_id).last_error is None


@committed
def test_release_hands_the_job_back_at_once_without_counting_the_attempt_and_wakes_workers():
    queue.enqueue(new())
    job = claim_one()

    with _listener() as listener:
        assert queue.release(job) == queue.Moved(job.job_id, JobStatus.PENDING)
        assert len(list(listener.notifies(timeout=2, stop_after=1))) == 1

    released = row(job.job_id)
    assert (released.status, released.attempts) == (JobStatus.PENDING, 0)
    assert claim_one("w2").attempt == 1


def test_renew_leases_extends_only_the_attempts_the_worker_still_holds():
    queue.enqueue_many([new(), new()])
    kept, lost = queue.claim("w1", limit=2, lease_seconds=5)
    queue.release(lost)

    still_held = queue.renew_leases("w1", [kept, lost], lease_seconds=300)

    assert still_held == {kept.job_id}
    renewed = row(kept.job_id)
    assert renewed.lease_until > timezone.now() + timedelta(seconds=250)


def test_every_transition_that_writes_last_error_records_its_kind_beside_the_text():
    queue.enqueue_many([new(), new(), new()])
    failed, released, reaped = queue.claim("w1", limit=3)

    queue.fail(failed, "ScriptedFailure: boom", kind="ScriptedFailure")
    queue.release(released)
    expire_lease(reaped.job_id)
    queue.reap()

    kinds = {job.job_id: (job.last_error_kind, job.last_error) for job in Job.objects.all()}
    assert kinds[failed.job_id] == ("ScriptedFailure", "ScriptedFailure: boom")
    assert kinds[released.job_id] == ("Released", "Released: the worker shut down before the job finished")
    assert kinds[reaped.job_id][0] == "LeaseExpired"
    assert kinds[reaped.job_id][1].startswith("LeaseExpired: reclaimed from worker w1")


def test_renew_leases_of_nothing_asks_nothing():
    assert queue.renew_leases("w1", []) == set()


# --- reap ------------------------------------------------------------------------------------------------


@committed
def test_reap_returns_an_expired_job_to_pending_and_notes_the_reclaim():
    queue.enqueue(new(max_attempts=3))
    job = claim_one("gone-worker")
    expire_lease(job.job_id)

    assert queue.reap() == [queue.Reaped(job.job_id, JobStatus.PENDING)]
    reaped = row(job.job_id)
    assert reaped.status == JobStatus.PENDING
    assert reaped.last_error == ("LeaseExpired: reclaimed from worker gone-worker whose lease ran out during attempt 1")
    assert claim_one("w2").attempt == 2


@committed
def test_reap_ends_an_expired_job_dead_when_its_attempts_are_spent():
    queue.enqueue(new(max_attempts=1))
    job = claim_one()
    expire_lease(job.job_id)

    assert queue.reap() == [queue.Reaped(job.job_id, JobStatus.DEAD)]


@committed
def test_reap_leaves_live_leases_alone_and_takes_at_most_its_limit():
    queue.enqueue_many([new() for _ in range(5)])
    jobs = queue.claim("w1", limit=5)
    for job in jobs[:3]:
        expire_lease(job.job_id)

    assert len(queue.reap(limit=2)) == 2
    assert len(queue.reap(limit=2)) == 1
    assert queue.reap() == []
    assert Job.objects.filter(status=JobStatus.RUNNING).count() == 2


# --- requeue ---------------------------------------------------------------------------------------------


def _dead_job(**options) -> queue.ClaimedJob:
    queue.enqueue(new(max_attempts=1, **options))
    job = claim_one()
    queue.fail(job, "Boom: dead")
    return job


def test_requeue_moves_a_dead_job_back_to_pending_with_its_attempts_reset():
    job = _dead_job()

    assert queue.requeue(job.job_id) == queue.Moved(job.job_id, JobStatus.PENDING)
    requeued = row(job.job_id)
    assert (requeued.status, requeued.attempts) == (JobStatus.PENDING, 0)
    assert claim_one("w2").job_id == job.job_id


def test_requeue_is_refused_while_another_job_with_the_same_dedupe_key_is_active():
    dead = _dead_job(dedupe_key="search:Z")
    twin = queue.enqueue(new(dedupe_key="search:Z"))

    with pytest.raises(DuplicateActiveJob) as refused:
        queue.requeue(dead.job_id)

    assert refused.value.active_job_id == twin.job_id
    assert str(twin.job_id) in str(refused.value)
    assert row(dead.job_id).status == JobStatus.DEAD


def test_requeue_works_again_once_the_twin_is_finished():
    dead = _dead_job(dedupe_key="search:Y")
    queue.enqueue(new(dedupe_key="search:Y"))
    queue.complete(claim_one(), {})

    assert queue.requeue(dead.job_id).status == JobStatus.PENDING


def test_requeue_refuses_a_job_that_is_not_dead_and_one_that_does_not_exist():
    pending = queue.enqueue(new())

    with pytest.raises(JobNotDead, match="PENDING"):
        queue.requeue(pending.job_id)
    with pytest.raises(JobNotFound):
        queue.requeue(uuid.uuid4())


# --- prune -----------------------------------------------------------------------------------------------


def _age(status: JobStatus, count: int, days: float) -> None:
    queue.enqueue_many([new() for _ in range(count)])
    for job in queue.claim("w1", limit=count):
        queue.complete(job, {}) if status == JobStatus.DONE else queue.fail(job, "x", retryable=False)
    Job.objects.filter(status=status, updated_at__gt=timezone.now() - timedelta(minutes=1)).update(
        updated_at=timezone.now() - timedelta(days=days)
    )


def test_prune_deletes_old_finished_jobs_of_one_status_in_bounded_batches():
    _age(JobStatus.DONE, 5, days=8)
    _age(JobStatus.DONE, 2, days=1)
    _age(JobStatus.DEAD, 3, days=8)

    assert queue.prune(status=JobStatus.DONE, older_than=timedelta(days=7), limit=3) == 3
    assert queue.prune(status=JobStatus.DONE, older_than=timedelta(days=7), limit=3) == 2
    assert queue.prune(status=JobStatus.DONE, older_than=timedelta(days=7), limit=3) == 0
    assert Job.objects.filter(status=JobStatus.DONE).count() == 2
    assert Job.objects.filter(status=JobStatus.DEAD).count() == 3


def test_prune_refuses_active_statuses():
    with pytest.raises(ValueError, match="finished"):
        queue.prune(status=JobStatus.PENDING, older_than=timedelta(days=1))


def test_ping_answers_while_the_database_is_up():
    assert queue.ping() is True


def test_the_claim_statement_written_out_in_claims_docstring_is_the_one_that_runs():
    documented = queue.claim.__doc__.split("::", 1)[1]
    assert documented.split() == queue.CLAIM_SQL.split()


def test_the_complete_and_claim_statement_written_out_in_its_docstring_is_the_one_that_runs():
    documented = queue.complete_and_claim.__doc__.split("::", 1)[1]
    assert documented.split() == queue.COMPLETE_AND_CLAIM_SQL.split()


def test_amend_pending_merges_into_a_pending_jobs_payload_and_leaves_a_started_one_alone():
    pending = queue.enqueue(new({"a": 1}, dedupe_key="amend-1"))
    assert queue.amend_pending(pending.job_id, {"b": True}) is True
    assert Job.objects.get(job_id=pending.job_id).payload == {"a": 1, "b": True}

    (claimed,) = queue.claim("w1")
    assert queue.amend_pending(claimed.job_id, {"c": True}) is False
    assert "c" not in Job.objects.get(job_id=claimed.job_id).payload
