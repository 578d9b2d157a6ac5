"""The queue's metrics read from the database, the job-run counters of a real worker, and the job fields on every
log line of a job's life."""

from __future__ import annotations

import io
import json
import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from prometheus_client import REGISTRY
from pythonjsonlogger.json import JsonFormatter

from jobs import queue, queue_reads
from jobs.log_context import JobContextFilter, PlainFormatter, job_logging
from jobs.metrics import QueueCollector
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType

pytestmark = pytest.mark.django_db(transaction=True)


def enqueue(payload: dict | None = None, *, job_type: JobType = JobType.OUTBOX, **options) -> queue.Enqueued:
    return queue.enqueue(queue.NewJob(job_type, payload or {}, **options))


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Samples:
    """The values of some samples now, to compare with later (the registry lives as long as the process)."""

    def __init__(self, *keys: tuple[str, dict]):
        self.keys = keys
        self.before = [sample(name, **labels) for name, labels in keys]

    def moved(self) -> list[float]:
        return [sample(name, **labels) - before for (name, labels), before in zip(self.keys, self.before, strict=True)]


def test_the_queue_metrics_count_jobs_by_type_and_status_with_every_pair_present():
    for _ in range(3):
        enqueue(job_type=JobType.SEARCH)
    enqueue(job_type=JobType.OUTBOX)
    (running,) = queue.claim("w1", job_types=[JobType.OUTBOX])
    enqueue(job_type=JobType.OUTBOX, max_attempts=1)
    (dying,) = queue.claim("w1", job_types=[JobType.OUTBOX])
    queue.fail(dying, "Boom: for good")
    (finishing,) = queue.claim("w1", job_types=[JobType.SEARCH])
    queue.complete(finishing, {"outcome": "found"})

    read = queue_reads.queue_metrics()

    assert read.jobs == {
        (JobType.SEARCH, JobStatus.PENDING): 2,
        (JobType.SEARCH, JobStatus.RUNNING): 0,
        (JobType.SEARCH, JobStatus.DONE): 1,
        (JobType.SEARCH, JobStatus.DEAD): 0,
        (JobType.OUTBOX, JobStatus.PENDING): 0,
        (JobType.OUTBOX, JobStatus.RUNNING): 1,
        (JobType.OUTBOX, JobStatus.DONE): 0,
        (JobType.OUTBOX, JobStatus.DEAD): 1,
        **{(JobType.WATCH_EVENT, status): 0 for status in JobStatus},
    }
    assert read.history_is_estimate is False
    assert read.dead_last_hour == {JobType.SEARCH: 0, JobType.OUTBOX: 1, JobType.WATCH_EVENT: 0}
    assert running.job_type == JobType.OUTBOX


def test_the_oldest_due_job_counts_from_when_it_became_due_and_ignores_jobs_not_due_yet():
    waiting = enqueue(job_type=JobType.SEARCH)
    Job.objects.filter(job_id=waiting.job_id).update(run_after=timezone.now() - timedelta(seconds=90))
    enqueue(job_type=JobType.SEARCH)
    enqueue(job_type=JobType.OUTBOX, delay_seconds=3600)

    oldest = queue_reads.queue_metrics().oldest_due_seconds

    assert 90 <= oldest[JobType.SEARCH] < 100
    assert oldest[JobType.OUTBOX] == 0.0


def test_running_jobs_past_their_lease_are_counted_as_expired_leases():
    enqueue()
    enqueue()
    queue.claim("w1", limit=2, job_types=[JobType.OUTBOX])
    assert queue_reads.queue_metrics().expired_leases == 0

    Job.objects.filter(status=JobStatus.RUNNING).update(lease_until=timezone.now() - timedelta(seconds=1))

    assert queue_reads.queue_metrics().expired_leases == 2


def test_past_the_exact_limit_done_and_dead_jobs_are_the_planners_estimates_per_type():
    for _ in range(40):
        enqueue(job_type=JobType.SEARCH)
    claimed = queue.claim("w1", limit=40, job_types=[JobType.SEARCH])
    queue.complete_many([(job, {}) for job in claimed])
    enqueue(job_type=JobType.OUTBOX, max_attempts=1)
    (dying,) = queue.claim("w1", job_types=[JobType.OUTBOX])
    queue.fail(dying, "Boom: for good")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")

    read = queue_reads.queue_metrics(exact_history_limit=10)

    assert read.history_is_estimate is True
    # The planner's estimates from fresh statistics of 41 rows: 40 SEARCH DONE, 1 OUTBOX DEAD.
    assert 30 <= read.jobs[(JobType.SEARCH, JobStatus.DONE)] <= 50
    assert read.jobs[(JobType.OUTBOX, JobStatus.DEAD)] <= 2
    # What alerts read stays exact.
    assert read.dead_last_hour[JobType.OUTBOX] == 1
    assert queue_reads.queue_metrics().history_is_estimate is False
    assert queue_reads.queue_metrics().jobs[(JobType.SEARCH, JobStatus.DONE)] == 40


def test_the_collector_reports_the_queue_as_gauges_and_that_the_database_answered():
    enqueue(job_type=JobType.SEARCH)

    families = {family.name: family for family in QueueCollector().collect()}

    assert [s.value for s in families["lps_queue_up"].samples] == [1]
    jobs = {(s.labels["job_type"], s.labels["status"]): s.value for s in families["lps_queue_jobs"].samples}
    assert jobs[("SEARCH", "PENDING")] == 1
    assert len(jobs) == len(JobType) * len(JobStatus)
    assert families["lps_queue_history_estimated"].samples[0].value == 0
    dead = {s.labels["job_type"]: s.value for s in families["lps_queue_dead_last_hour"].samples}
    assert dead == {"SEARCH": 0, "OUTBOX": 0, "WATCH_EVENT": 0}
    assert families["lps_queue_expired_leases"].samples[0].value == 0
    oldest = {s.labels["job_type"]: s.value for s in families["lps_queue_oldest_due_pending_seconds"].samples}
    assert set(oldest) == {"SEARCH", "OUTBOX", "WATCH_EVENT"}


def test_a_worker_counts_each_run_where_it_happens_by_type_and_outcome(threaded_worker, settings):
    settings.LPS_OUTBOX_DEADLINE_SECONDS = 0.5
    outcomes = ("done", "retried", "dead", "deadline")
    moved = Samples(
        ("lps_job_runs_started_total", {"job_type": "OUTBOX"}),
        *[("lps_job_runs_finished_total", {"job_type": "OUTBOX", "outcome": outcome}) for outcome in outcomes],
        ("lps_job_run_duration_seconds_count", {"job_type": "OUTBOX"}),
        ("lps_job_queue_wait_seconds_count", {"job_type": "OUTBOX"}),
        ("lps_job_runs_started_total", {"job_type": "SEARCH"}),
    )
    enqueue({})
    enqueue({})
    enqueue({"fail_attempts": 1}, max_attempts=3)
    enqueue({"permanent": True})
    enqueue({"spin": 30}, max_attempts=1)

    assert threaded_worker(burst=True, concurrency={JobType.OUTBOX: 2}).join() == 0

    started, done, retried, dead, deadline, durations, waits, searches = moved.moved()
    assert (started, done, retried, dead, deadline) == (5, 2, 1, 1, 1)
    assert durations == 5  # one run duration per finished run
    assert waits == 5  # one queue wait per first attempt
    assert searches == 0


def test_a_retry_is_not_counted_again_as_queue_wait(threaded_worker):
    job = enqueue({"fail_attempts": 1}, max_attempts=2)
    threaded_worker(burst=True).join()
    Job.objects.filter(job_id=job.job_id).update(run_after=timezone.now())
    moved = Samples(
        ("lps_job_queue_wait_seconds_count", {"job_type": "OUTBOX"}),
        ("lps_job_runs_finished_total", {"job_type": "OUTBOX", "outcome": "done"}),
    )

    threaded_worker(burst=True).join()

    assert moved.moved() == [0, 1]


@pytest.fixture
def json_lines():
    """A JSON handler with the job filter on the root logger, as LPS_LOG_FORMAT=json configures the console."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(JobContextFilter())
    handler.setFormatter(JsonFormatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(previous)


def test_every_log_line_of_a_jobs_life_carries_its_id_attempt_type_and_worker(threaded_worker, json_lines):
    job = enqueue({"fail_attempts": 1}, max_attempts=2)
    runner = threaded_worker(burst=True)
    runner.join()

    lines = [line for line in json_lines() if line.get("job_id") == str(job.job_id)]

    messages = [line["message"].split(" ")[0] for line in lines]
    assert messages == ["start", "retry"]
    for line in lines:
        assert line["attempt"] == 1
        assert line["job_type"] == "OUTBOX"
        assert line["worker_id"] == runner.worker.worker_id
    outside = [line for line in json_lines() if "burst done" in line["message"]]
    assert outside
    assert "job_id" not in outside[0]


def test_the_plain_format_appends_the_job_fields_only_on_a_jobs_lines():
    formatter = PlainFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("lps", logging.INFO, __file__, 1, "hello", None, None)
    JobContextFilter().filter(record)
    assert formatter.format(record) == "INFO hello"

    with job_logging(job_id="j-1", attempt=2, job_type="SEARCH", worker_id="host:1:ab"):
        inside = logging.LogRecord("lps", logging.INFO, __file__, 1, "hello", None, None)
        JobContextFilter().filter(inside)

    assert formatter.format(inside) == "INFO hello [job_id=j-1 attempt=2 job_type=SEARCH worker_id=host:1:ab]"
