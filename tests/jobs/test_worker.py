"""The Worker in a thread of the test process: outcomes, retries, deadlines, leases, wake-ups, poll-only mode."""

from __future__ import annotations

import itertools
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from jobs import queue
from jobs.models import Job, JobStatus, Priority
from jobs.worker import Worker
from lps_site.job_types import JobType
from tests.jobs.conftest import wait_until
from tests.jobs.scripted import read_records, scripted_handler, scripted_registration, starts_by_job

pytestmark = pytest.mark.django_db(transaction=True)


def enqueue(payload: dict | None = None, *, job_type: JobType = JobType.OUTBOX, **options) -> queue.Enqueued:
    return queue.enqueue(queue.NewJob(job_type, payload or {}, **options))


def status_of(job_id) -> JobStatus:
    return JobStatus(Job.objects.values_list("status", flat=True).get(job_id=job_id))


def test_a_burst_worker_runs_every_due_job_and_records_each_result(threaded_worker, record_path):
    jobs = [enqueue({"n": n}) for n in range(5)] + [enqueue({"n": 5}, job_type=JobType.SEARCH)]

    exit_code = threaded_worker(burst=True).join()

    assert exit_code == 0
    finished = Job.objects.filter(job_id__in=[e.job_id for e in jobs])
    assert [job.status for job in finished] == [JobStatus.DONE] * 6
    assert all(job.result["attempt"] == 1 for job in finished)
    assert sorted(starts_by_job(record_path).values()) == [1] * 6


def test_a_burst_worker_is_not_kept_alive_by_jobs_due_later(threaded_worker, record_path):
    later = enqueue({}, delay_seconds=3600)

    started = time.monotonic()
    assert threaded_worker(burst=True).join() == 0

    assert time.monotonic() - started < 5
    assert status_of(later.job_id) == JobStatus.PENDING
    assert read_records(record_path) == []


def test_a_failing_job_is_retried_after_a_backoff_and_then_succeeds(threaded_worker):
    job = enqueue({"fail_attempts": 1}, max_attempts=3)

    threaded_worker(burst=True).join()

    failed_once = Job.objects.get(job_id=job.job_id)
    assert failed_once.status == JobStatus.PENDING
    assert failed_once.last_error == "ScriptedFailure: scripted failure of attempt 1"
    delay = (failed_once.run_after - failed_once.updated_at).total_seconds()
    assert 2.5 - 0.1 <= delay <= 5 + 0.1  # backoff(1): half of 5 s fixed, half jittered
    # The backoff is the queue's to wait; the test moves the clock instead of waiting it out.
    Job.objects.filter(job_id=job.job_id).update(run_after=timezone.now())

    threaded_worker(burst=True).join()

    done = Job.objects.get(job_id=job.job_id)
    assert done.status == JobStatus.DONE
    assert done.attempts == 2
    assert done.result["attempt"] == 2


def test_a_job_that_keeps_failing_ends_dead_after_max_attempts(threaded_worker):
    job = enqueue({"fail_attempts": 99}, max_attempts=2)

    threaded_worker(burst=True).join()
    Job.objects.filter(job_id=job.job_id).update(run_after=timezone.now())
    threaded_worker(burst=True).join()

    dead = Job.objects.get(job_id=job.job_id)
    assert dead.status == JobStatus.DEAD
    assert dead.attempts == 2
    assert dead.last_error == "ScriptedFailure: scripted failure of attempt 2"


def test_a_non_retryable_error_ends_the_job_dead_at_once(threaded_worker):
    job = enqueue({"permanent": True}, max_attempts=5)

    threaded_worker(burst=True).join()

    dead = Job.objects.get(job_id=job.job_id)
    assert dead.status == JobStatus.DEAD
    assert dead.attempts == 1
    assert dead.last_error == "PermanentFailure: this job can never succeed"


@pytest.mark.parametrize(
    ("bad_result", "error"),
    [
        ("object", "InvalidJobResult: the handler's result is not JSON"),
        ("nan", "InvalidJobResult: the handler's result is not JSON"),
        ("nul", "InvalidJobResult: the handler's result holds a NUL character"),
    ],
)
def test_a_result_that_jsonb_cannot_hold_fails_the_job_for_good_and_the_worker_goes_on(
    threaded_worker, bad_result, error
):
    job = enqueue({"bad_result": bad_result}, max_attempts=5)
    fine = enqueue({"result": {"title": "a\\u0000b is plain text"}})

    threaded_worker(burst=True).join()

    dead = Job.objects.get(job_id=job.job_id)
    assert dead.status == JobStatus.DEAD
    assert dead.last_error.startswith(error)
    assert Job.objects.get(job_id=fine.job_id).result == {"title": "a\\u0000b is plain text"}


def test_a_pure_python_handler_past_its_deadline_is_stopped_and_the_attempt_fails(
    threaded_worker, record_path, settings
):
    settings.LPS_OUTBOX_DEADLINE_SECONDS = 0.5
    job = enqueue({"spin": 30}, max_attempts=1)
    quick = enqueue({})

    started = time.monotonic()
    threaded_worker(burst=True, concurrency={JobType.OUTBOX: 1}).join()

    assert time.monotonic() - started < 5
    dead = Job.objects.get(job_id=job.job_id)
    assert dead.status == JobStatus.DEAD
    assert dead.last_error == ("JobDeadlineExceeded: the OUTBOX handler ran past its 0.5 s deadline and was stopped")
    events = [line["event"] for line in read_records(record_path) if line["job_id"] == str(job.job_id)]
    assert events == ["start", "stopped"]  # the exception reached the busy loop itself
    # Its slot was freed: the single-slot worker went on to the next job.
    assert status_of(quick.job_id) == JobStatus.DONE


def test_a_deadline_is_kept_for_a_job_that_starts_while_the_worker_sleeps_on_a_long_timer(
    threaded_worker, record_path, settings
):
    settings.LPS_OUTBOX_DEADLINE_SECONDS = 0.5
    quick = [enqueue({}), enqueue({})]
    stuck = enqueue({"spin": 30}, max_attempts=1)

    started = time.monotonic()
    threaded_worker(burst=True, concurrency={JobType.OUTBOX: 1}, prefetch={JobType.OUTBOX: 2}, lease_seconds=60).join()

    assert time.monotonic() - started < 5  # not the 20 s heartbeat nor the 60 s poll
    assert Job.objects.get(job_id=stuck.job_id).last_error.startswith("JobDeadlineExceeded")
    assert [status_of(job.job_id) for job in quick] == [JobStatus.DONE, JobStatus.DONE]


def test_a_cooperative_handler_sees_cancelled_at_its_deadline_and_its_late_result_is_not_written(
    threaded_worker, record_path, settings
):
    settings.LPS_OUTBOX_DEADLINE_SECONDS = 0.3
    job = enqueue({"sleep": 30}, max_attempts=2)

    threaded_worker(burst=True).join()

    failed = Job.objects.get(job_id=job.job_id)
    assert failed.status == JobStatus.PENDING
    assert failed.result is None
    assert failed.last_error.startswith("JobDeadlineExceeded")
    assert failed.attempts == 1
    assert "start" in [line["event"] for line in read_records(record_path)]


def test_a_job_whose_lease_was_taken_back_is_cancelled_and_its_result_dropped(threaded_worker, record_path):
    job = enqueue({"sleep": 30})
    runner = threaded_worker(lease_seconds=0.6)
    wait_until(lambda: status_of(job.job_id) == JobStatus.RUNNING, timeout=5, message="the job to run")
    # Another party takes the job over: the reaper, after this worker's lease ran out, then another worker.
    # One transaction, so that this worker's heartbeat cannot renew the lease in between, nor this worker
    # claim the job back.
    with transaction.atomic():
        Job.objects.filter(job_id=job.job_id).update(lease_until=timezone.now() - timedelta(seconds=1))
        assert [r.job_id for r in queue.reap()] == [job.job_id]
        [thief] = queue.claim("someone-else", lease_seconds=60)

    wait_until(
        lambda: "cancelled" in [line["event"] for line in read_records(record_path)],
        timeout=5,
        message="the handler to see it was cancelled",
    )
    runner.stop()

    held = Job.objects.get(job_id=job.job_id)
    assert held.status == JobStatus.RUNNING
    assert held.worker_id == "someone-else"
    assert held.result is None
    assert isinstance(queue.complete(thief, {"by": "thief"}), queue.Moved)


def test_a_job_enqueued_while_the_worker_idles_starts_at_once_through_notify(threaded_worker, record_path):
    threaded_worker(poll_interval=60.0)

    sent = time.time()
    job = enqueue({"sent_at": sent})

    wait_until(lambda: status_of(job.job_id) == JobStatus.DONE, timeout=5, message="the job to finish")
    started = next(line["t"] for line in read_records(record_path) if line["event"] == "start")
    assert started - sent < 1.0  # the slow poll would have taken 60 s


def _listening_backends() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = %s",
            [queue.LISTEN_SQL],
        )
        return cursor.fetchone()[0]


def test_a_poll_only_worker_never_listens_and_finds_new_jobs_by_polling(threaded_worker, record_path):
    before = _listening_backends()
    threaded_worker(poll_only=True, poll_interval=0.2)

    job = enqueue({})

    wait_until(lambda: status_of(job.job_id) == JobStatus.DONE, timeout=5, message="the job to finish")
    assert _listening_backends() == before


def test_a_listening_worker_holds_one_listen_connection(threaded_worker):
    before = _listening_backends()

    threaded_worker()

    assert _listening_backends() == before + 1


def test_each_job_type_runs_at_most_its_own_concurrency(threaded_worker, record_path):
    for _ in range(4):
        enqueue({"sleep": 0.4}, job_type=JobType.SEARCH)
    for _ in range(4):
        enqueue({"sleep": 0.4}, job_type=JobType.OUTBOX)

    threaded_worker(burst=True, concurrency={JobType.SEARCH: 1, JobType.OUTBOX: 4}).join()

    spans = {}
    for line in read_records(record_path):
        spans.setdefault(line["job_id"], []).append(line["t"])
    search_ids = {str(j) for j in Job.objects.filter(job_type=JobType.SEARCH).values_list("job_id", flat=True)}
    search_spans = sorted(tuple(spans[job_id]) for job_id in search_ids)
    # One SEARCH slot: each search starts after the previous one finished.
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(search_spans))
    assert Job.objects.filter(status=JobStatus.DONE).count() == 8


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    running = most = 0
    for _, change in edges:
        running += change
        most = max(most, running)
    return most


def test_jobs_claimed_ahead_wait_for_a_free_handler_and_never_raise_the_concurrency(threaded_worker, record_path):
    for _ in range(6):
        enqueue({"sleep": 0.3})

    threaded_worker(burst=True, concurrency={JobType.OUTBOX: 2}, prefetch={JobType.OUTBOX: 4}).join()

    times: dict[str, list[float]] = {}
    for line in read_records(record_path):
        times.setdefault(line["job_id"], []).append(line["t"])
    assert len(times) == 6
    assert _most_at_once([(start, end) for start, end in times.values()]) == 2


def test_quick_jobs_are_recorded_together_without_waiting_for_a_slow_one_beside_them(threaded_worker):
    slow = enqueue({"sleep": 3}, priority=Priority.HIGH)
    quick = [enqueue({}) for _ in range(3)]
    threaded_worker(concurrency={JobType.OUTBOX: 2}, prefetch={JobType.OUTBOX: 2})

    wait_until(
        lambda: all(status_of(job.job_id) == JobStatus.DONE for job in quick),
        timeout=2,
        message="the quick jobs to be recorded",
    )

    assert status_of(slow.job_id) == JobStatus.RUNNING


def test_a_deadline_counts_from_the_handler_start_not_from_the_claim(threaded_worker, settings):
    settings.LPS_OUTBOX_DEADLINE_SECONDS = 1.0
    jobs = [enqueue({"sleep": 0.6}) for _ in range(2)]

    threaded_worker(burst=True, concurrency={JobType.OUTBOX: 1}, prefetch={JobType.OUTBOX: 1}).join()

    # The second waited 0.6 s for the only handler thread, then ran 0.6 s of its own 1 s.
    assert [status_of(job.job_id) for job in jobs] == [JobStatus.DONE, JobStatus.DONE]


def test_a_stop_hands_back_at_once_the_jobs_claimed_ahead_that_never_started(threaded_worker, record_path):
    first, second = enqueue({"sleep": 1.0}), enqueue({"sleep": 1.0})
    runner = threaded_worker(concurrency={JobType.OUTBOX: 1}, prefetch={JobType.OUTBOX: 1})
    wait_until(
        lambda: Job.objects.filter(status=JobStatus.RUNNING).count() == 2, timeout=5, message="both jobs claimed"
    )

    runner.worker.stop()
    wait_until(lambda: Job.objects.filter(status=JobStatus.PENDING).count() == 1, timeout=5, message="a release")
    runner.join()

    started = [line["job_id"] for line in read_records(record_path) if line["event"] == "start"]
    assert len(started) == 1
    waiting = second if started == [str(first.job_id)] else first
    released = Job.objects.get(job_id=waiting.job_id)
    assert (released.status, released.attempts) == (JobStatus.PENDING, 0)
    assert status_of(started[0]) == JobStatus.DONE


def test_a_worker_with_no_slots_for_a_job_type_leaves_its_jobs_alone(threaded_worker):
    search = enqueue({}, job_type=JobType.SEARCH)
    outbox = enqueue({})

    threaded_worker(burst=True, concurrency={JobType.SEARCH: 0}).join()

    assert status_of(search.job_id) == JobStatus.PENDING
    assert status_of(outbox.job_id) == JobStatus.DONE


def test_stop_lets_running_jobs_finish_within_the_grace_period(threaded_worker):
    job = enqueue({"sleep": 0.5})
    runner = threaded_worker(grace_seconds=5)
    wait_until(lambda: status_of(job.job_id) == JobStatus.RUNNING, timeout=5, message="the job to run")

    assert runner.stop() == 0

    assert status_of(job.job_id) == JobStatus.DONE


def test_stop_releases_what_outlives_the_grace_period_without_counting_the_attempt(threaded_worker, record_path):
    job = enqueue({"sleep": 30})
    runner = threaded_worker(grace_seconds=0.3)
    wait_until(lambda: status_of(job.job_id) == JobStatus.RUNNING, timeout=5, message="the job to run")

    assert runner.stop() == 0

    released = Job.objects.get(job_id=job.job_id)
    assert released.status == JobStatus.PENDING
    assert released.attempts == 0
    assert released.run_after <= timezone.now()
    assert released.last_error.startswith("Released")
    assert released.result is None


def test_shutdown_hooks_run_once_when_the_worker_stops(threaded_worker):
    calls = []

    threaded_worker(burst=True, shutdown_hooks=[lambda: calls.append("closed")]).join()

    assert calls == ["closed"]


def test_a_handler_registry_is_passed_in_and_only_its_job_types_are_claimed(threaded_worker, record_path):
    search = enqueue({}, job_type=JobType.SEARCH)
    outbox = enqueue({})
    only_outbox = {JobType.OUTBOX: scripted_registration(JobType.OUTBOX, scripted_handler(record_path))}

    threaded_worker(registry=only_outbox, burst=True).join()

    assert status_of(outbox.job_id) == JobStatus.DONE
    assert status_of(search.job_id) == JobStatus.PENDING


def test_negative_concurrency_or_prefetch_is_refused():
    with pytest.raises(ValueError, match="concurrency"):
        Worker({}, concurrency={JobType.SEARCH: -1})
    with pytest.raises(ValueError, match="prefetch"):
        Worker({}, prefetch={JobType.OUTBOX: -1})
