"""The queue's and the job runs' Prometheus metrics, and the HTTP server of a worker's or reaper's own port.

Two kinds live here:
- the queue as the database holds it (jobs by type and status, the oldest due job, expired leases), read at
  scrape time by `QueueCollector`, which the web process's /metrics registers (one read per scrape, whatever
  the number of worker processes);
- what happens in a process, counted where it happens: job runs in jobs/worker.py, reaper passes in
  jobs/reaper.py. Each worker or reaper serves its own on `--metrics-port`.

Every metric is named `lps_…`; see docs/operations.md for what to alert on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from wsgiref.simple_server import WSGIServer

from django.db import DatabaseError
from prometheus_client import REGISTRY, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from jobs import handlers, queue_reads
from jobs.exceptions import QueueUnavailable
from jobs.models import JobStatus

log = logging.getLogger(__name__)

RUN_OUTCOMES = ("done", "retried", "dead", "deadline", "lost", "released")
"""How a job run ends: DONE; failed and back to PENDING; failed and DEAD; stopped at its deadline (whether it
is then retried or dead); its lease was gone when the outcome was written; handed back at shutdown."""

# From a quick HTTP call to a heavy job that runs into a 300 s deadline.
RUN_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
# From a job claimed at once to a backlog of hours.
WAIT_SECONDS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600)

JOB_RUNS_STARTED = Counter("lps_job_runs_started", "Job runs whose handler started, by job type.", ["job_type"])
JOB_RUNS_FINISHED = Counter(
    "lps_job_runs_finished", "Job runs that ended, by job type and outcome (see RUN_OUTCOMES).", ["job_type", "outcome"]
)
JOB_RUN_SECONDS = Histogram(
    "lps_job_run_duration_seconds",
    "Seconds from a handler's start to its outcome, by job type.",
    ["job_type"],
    buckets=RUN_SECONDS_BUCKETS,
)
JOB_QUEUE_WAIT_SECONDS = Histogram(
    "lps_job_queue_wait_seconds",
    "Seconds from enqueue to the start of a job's first attempt, by job type.",
    ["job_type"],
    buckets=WAIT_SECONDS_BUCKETS,
)
REAPER_RECLAIMED = Counter(
    "lps_reaper_reclaimed_jobs", "Jobs whose lease ran out, reclaimed by the reaper, by new status.", ["status"]
)
REAPER_PRUNED = Counter("lps_reaper_pruned_jobs", "Finished jobs deleted by the reaper's retention.", ["status"])
REAPER_PASSES = Counter("lps_reaper_passes", "Reaper passes, by result (ok, failed: database unavailable).", ["result"])


def count_from_zero(job_type_label: str) -> None:
    """Report the run series of a job type from the start (as 0), so that rate() and alerts see a series before
    its first event (jobs.handlers.register calls it for each type)."""
    JOB_RUNS_STARTED.labels(job_type_label)
    JOB_RUN_SECONDS.labels(job_type_label)
    JOB_QUEUE_WAIT_SECONDS.labels(job_type_label)
    for outcome in RUN_OUTCOMES:
        JOB_RUNS_FINISHED.labels(job_type_label, outcome)


# Every other label value is reported from the start too.
for _status in (JobStatus.PENDING, JobStatus.DEAD):
    REAPER_RECLAIMED.labels(_status.label)
for _status in (JobStatus.DONE, JobStatus.DEAD):
    REAPER_PRUNED.labels(_status.label)
for _result in ("ok", "failed"):
    REAPER_PASSES.labels(_result)


class QueueCollector(Collector):
    """The queue read from the database at each scrape (jobs/queue_reads.py's queue_metrics)."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("lps_queue_up", "1 when the queue's database answered this scrape, else 0.")
        try:
            read = queue_reads.queue_metrics()
        except (QueueUnavailable, DatabaseError) as exc:
            log.warning("metrics: the queue could not be read: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        jobs = GaugeMetricFamily(
            "lps_queue_jobs",
            "Jobs in the table by type and status; DONE and DEAD are the planner's estimates when "
            "lps_queue_history_estimated is 1.",
            labels=["job_type", "status"],
        )
        for (job_type, status), count in read.jobs.items():
            jobs.add_metric([handlers.label(job_type), status.label], count)
        yield jobs
        yield GaugeMetricFamily(
            "lps_queue_history_estimated",
            "1 when the DONE and DEAD counts are the planner's estimate (tables over "
            f"{queue_reads.EXACT_DONE_COUNT_LIMIT:,} rows), 0 when exact.",
            value=int(read.history_is_estimate),
        )
        dead = GaugeMetricFamily(
            "lps_queue_dead_last_hour",
            "Jobs of each type that went DEAD in the last hour (exact).",
            labels=["job_type"],
        )
        for job_type, count in read.dead_last_hour.items():
            dead.add_metric([handlers.label(job_type)], count)
        yield dead
        oldest = GaugeMetricFamily(
            "lps_queue_oldest_due_pending_seconds",
            "Seconds the longest-waiting due PENDING job of each type has been claimable (0: none is due).",
            labels=["job_type"],
        )
        for job_type, seconds in read.oldest_due_seconds.items():
            oldest.add_metric([handlers.label(job_type)], seconds)
        yield oldest
        yield GaugeMetricFamily(
            "lps_queue_expired_leases",
            "RUNNING jobs whose lease has run out (their worker is gone or stuck; the reaper reclaims them).",
            value=read.expired_leases,
        )


def serve(port: int, *, address: str) -> tuple[WSGIServer, threading.Thread]:
    """Serve this process's metrics on `address:port` from a daemon thread (prometheus_client's server)."""
    server, thread = start_http_server(port, addr=address, registry=REGISTRY)
    log.info("metrics on http://%s:%d/metrics", address, server.server_port)
    return server, thread
