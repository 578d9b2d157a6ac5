"""Real worker processes against the test database: races, kills, signals and wake-ups."""

from __future__ import annotations

import signal
import time

import pytest

from jobs import queue
from jobs.models import Job, JobStatus
from jobs.reaper import Reaper
from lps_site.job_types import JobType
from tests.jobs.conftest import wait_until
from tests.jobs.scripted import read_records, starts_by_job

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def enqueue_many(count: int, payload: dict) -> list:
    return [e.job_id for e in queue.enqueue_many([queue.NewJob(JobType.OUTBOX, payload) for _ in range(count)])]


def count_in(status: JobStatus, job_ids=None) -> int:
    jobs = Job.objects.filter(status=status)
    return (jobs.filter(job_id__in=job_ids) if job_ids is not None else jobs).count()


def test_workers_racing_in_separate_processes_complete_every_job_exactly_once(worker_process, record_path):
    workers = [worker_process("--outbox-concurrency", "4") for _ in range(4)]
    worker_ids = {worker.wait_ready() for worker in workers}

    job_ids = enqueue_many(400, {})
    wait_until(lambda: count_in(JobStatus.DONE) == 400, timeout=45, message="all 400 jobs to be done")
    for worker in workers:
        worker.signal(signal.SIGTERM)

    assert [worker.wait() for worker in workers] == [0, 0, 0, 0]
    starts = starts_by_job(record_path)
    assert sorted(starts) == sorted(str(job_id) for job_id in job_ids)
    assert set(starts.values()) == {1}
    done = list(Job.objects.filter(job_id__in=job_ids))
    assert {job.attempts for job in done} == {1}
    assert all(job.result["worker_id"] == job.worker_id for job in done)
    runners = {job.worker_id for job in done}
    assert runners <= worker_ids
    assert len(runners) > 1, "one process took every job: the race did not happen"


def _claimed_job_of(job: Job, *, attempt: int, worker_id: str) -> queue.ClaimedJob:
    return queue.ClaimedJob(
        job_id=job.job_id,
        job_type=JobType(job.job_type),
        priority=job.priority,
        payload=job.payload,
        dedupe_key=job.dedupe_key,
        attempt=attempt,
        max_attempts=job.max_attempts,
        lease_until=job.lease_until,
        created_at=job.created_at,
        worker_id=worker_id,
    )


def test_jobs_of_a_killed_worker_are_reaped_and_finished_by_another_and_its_late_complete_changes_nothing(
    worker_process, record_path
):
    doomed = worker_process("--lease", "1", "--outbox-concurrency", "4")
    doomed_id = doomed.wait_ready()
    job_ids = enqueue_many(3, {"sleep_first_run": 30})
    wait_until(lambda: count_in(JobStatus.RUNNING, job_ids) == 3, timeout=10, message="the jobs to run")
    # RUNNING is committed before the handlers start: wait for all three to have started (and recorded it),
    # or the rescuer would take an unrecorded job for a first run and sleep into its deadline.
    wait_until(lambda: len(starts_by_job(record_path)) == 3, timeout=10, message="the three handlers to start")
    assert set(Job.objects.filter(job_id__in=job_ids).values_list("worker_id", flat=True)) == {doomed_id}

    doomed.signal(signal.SIGKILL)
    doomed.wait()
    reaper = Reaper(interval=60)
    reclaimed = []
    wait_until(
        lambda: reclaimed.append(reaper.run_once().requeued) or sum(reclaimed) == 3,
        timeout=10,
        interval=0.2,
        message="the reaper to reclaim the three jobs",
    )
    reaped = list(Job.objects.filter(job_id__in=job_ids))
    assert {job.status for job in reaped} == {JobStatus.PENDING}
    assert all(job.last_error.startswith(f"LeaseExpired: reclaimed from worker {doomed_id}") for job in reaped)

    rescuer = worker_process("--burst")
    assert rescuer.wait() == 0

    finished = {job.job_id: job for job in Job.objects.filter(job_id__in=job_ids)}
    rescuer_id = rescuer.worker_id
    assert {job.status for job in finished.values()} == {JobStatus.DONE}
    assert {job.worker_id for job in finished.values()} == {rescuer_id}
    assert {job.attempts for job in finished.values()} == {2}
    # The killed worker comes back late with its first attempts: nothing it says lands.
    for job in finished.values():
        late = _claimed_job_of(job, attempt=1, worker_id=doomed_id)
        assert queue.complete(late, {"late": True}) == queue.Lost(job.job_id)
        assert queue.fail(late, "late failure") == queue.Lost(job.job_id)
        assert queue.release(late) == queue.Lost(job.job_id)
        assert queue.renew_leases(doomed_id, [late]) == set()
    after = {job.job_id: job for job in Job.objects.filter(job_id__in=job_ids)}
    for job_id, job in after.items():
        assert (job.status, job.result, job.worker_id, job.updated_at) == (
            JobStatus.DONE,
            finished[job_id].result,
            rescuer_id,
            finished[job_id].updated_at,
        )
    assert set(starts_by_job(record_path).values()) == {2}


def test_sigterm_during_a_run_finishes_what_can_finish_and_hands_back_the_rest(worker_process, record_path):
    worker = worker_process("--grace", "1.5", "--outbox-concurrency", "4")
    worker.wait_ready()
    short_ids = enqueue_many(2, {"sleep": 0.6})
    long_ids = enqueue_many(2, {"sleep_first_run": 30})
    all_ids = short_ids + long_ids
    wait_until(lambda: count_in(JobStatus.RUNNING, all_ids) == 4, timeout=10, message="the jobs to run")

    signalled = time.monotonic()
    worker.signal(signal.SIGTERM)

    assert worker.wait() == 0, worker.log()
    assert time.monotonic() - signalled < 1.5 + 8  # the grace period, plus slack for a loaded machine
    assert count_in(JobStatus.RUNNING) == 0
    assert count_in(JobStatus.DONE, short_ids) == 2
    released = list(Job.objects.filter(job_id__in=long_ids))
    assert {job.status for job in released} == {JobStatus.PENDING}
    assert {job.attempts for job in released} == {0}
    assert all(job.last_error.startswith("Released") for job in released)
    assert "cancelled" in {line["event"] for line in read_records(record_path)}

    assert worker_process("--burst").wait() == 0

    assert count_in(JobStatus.DONE, all_ids) == 4


def test_a_second_signal_hands_back_the_held_jobs_and_exits_at_once(worker_process):
    worker = worker_process("--grace", "60", "--outbox-concurrency", "4")
    worker.wait_ready()
    job_ids = enqueue_many(2, {"sleep": 60})
    wait_until(lambda: count_in(JobStatus.RUNNING, job_ids) == 2, timeout=10, message="the jobs to run")

    worker.signal(signal.SIGTERM)
    wait_until(lambda: "SIGTERM received" in worker.log(), timeout=5, message="the first signal to be seen")
    signalled = time.monotonic()
    worker.signal(signal.SIGTERM)

    assert worker.wait(timeout=10) == 1
    assert time.monotonic() - signalled < 4
    released = list(Job.objects.filter(job_id__in=job_ids))
    assert {job.status for job in released} == {JobStatus.PENDING}
    assert {job.attempts for job in released} == {0}


def test_a_worker_process_idling_on_a_slow_poll_starts_a_new_job_within_moments(worker_process, record_path):
    worker = worker_process("--poll-interval", "60")
    worker.wait_ready()

    sent = time.time()
    [job_id] = enqueue_many(1, {"sent_at": sent})

    wait_until(lambda: count_in(JobStatus.DONE, [job_id]) == 1, timeout=10, message="the job to finish")
    started = next(line["t"] for line in read_records(record_path) if line["event"] == "start")
    assert started - sent < 1.0  # the next poll was a minute away
    worker.signal(signal.SIGTERM)
    assert worker.wait() == 0
