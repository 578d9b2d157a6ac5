"""The reaper: reclaim jobs whose lease ran out, prune old finished jobs, purge expired negative-cache rows,
end IP sessions a dead worker left open and delete old failure snapshots.

Every step works in bounded batches, so one pass never holds long locks or one huge transaction, and a stop
request is honoured between batches. Any number of reapers may run at once: reap() skips rows another one
has locked, and prunes of the same rows simply find them gone.
"""

from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError

from console.formatting import short_duration
from jobs import metrics, queue
from jobs.exceptions import QueueUnavailable
from jobs.log_context import job_logging
from jobs.models import JobStatus, JobType
from negative_cache import cache as negative_cache
from search import retention

log = logging.getLogger(__name__)

BATCH_SIZE = 500
# One pass handles at most this many batches per step; what remains waits for the next pass.
MAX_BATCHES_PER_PASS = 200


@dataclass
class ReaperPass:
    """What one pass did."""

    requeued: int = 0
    """Expired leases handed back to PENDING."""
    dead: int = 0
    """Expired leases whose attempts were spent (now DEAD)."""
    pruned_done: int = 0
    pruned_dead: int = 0
    purged_negative: int = 0
    abandoned_sessions: int = 0
    """IP sessions left open by a worker that died, now ended as `error`."""
    pruned_snapshots: int = 0

    def __str__(self) -> str:
        return (
            f"reclaimed {self.requeued} (dead {self.dead}), pruned {self.pruned_done} done and {self.pruned_dead} "
            f"dead, purged {self.purged_negative} negative-cache rows, ended {self.abandoned_sessions} abandoned "
            f"IP sessions, deleted {self.pruned_snapshots} snapshot files"
        )


def _log_reclaimed(job: queue.Reaped) -> None:
    """One line per reclaimed job, tagged like the worker's lines about it (the attempt that lost its lease)."""
    with job_logging(
        job_id=job.job_id, attempt=job.attempt, job_type=JobType(job.job_type).label, worker_id=job.worker_id or "?"
    ):
        log.warning(
            "reclaimed %s %s attempt %s from worker %s: its lease ran out; now %s",
            JobType(job.job_type).label,
            job.job_id,
            job.attempt,
            job.worker_id,
            job.status.label,
        )


class Reaper:
    """Run reaper passes every `interval` seconds until stopped."""

    def __init__(
        self,
        *,
        interval: float | None = None,
        done_retention: timedelta | None = None,
        dead_retention: timedelta | None = None,
        batch_size: int = BATCH_SIZE,
    ):
        self.interval = float(settings.LPS_REAPER_INTERVAL if interval is None else interval)
        self.done_retention = done_retention or timedelta(days=settings.LPS_DONE_RETENTION_DAYS)
        self.dead_retention = dead_retention or timedelta(days=settings.LPS_DEAD_RETENTION_DAYS)
        if self.interval <= 0 or batch_size < 1:
            raise ValueError("the interval must be positive and the batch size at least 1")
        self.batch_size = batch_size
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    def install_signal_handlers(self) -> None:
        """SIGTERM/SIGINT end the loop after the batch in progress."""
        signal.signal(signal.SIGTERM, lambda *_: self.stop())
        signal.signal(signal.SIGINT, lambda *_: self.stop())

    def run(self) -> int:
        """Run passes until stopped; return the exit code (0)."""
        log.info(
            "reaper: every %.0f s, keeping DONE %s and DEAD %s",
            self.interval,
            short_duration(self.done_retention.total_seconds()),
            short_duration(self.dead_retention.total_seconds()),
        )
        while not self._stop.is_set():
            try:
                outcome = self.run_once()
            except (QueueUnavailable, DatabaseError) as exc:
                metrics.REAPER_PASSES.labels("failed").inc()
                log.warning("reaper: database unavailable, next pass in %.0f s: %s", self.interval, exc)
            else:
                metrics.REAPER_PASSES.labels("ok").inc()
                if outcome != ReaperPass():
                    log.info("reaper: %s", outcome)
            self._stop.wait(self.interval)
        log.info("reaper: stopped")
        return 0

    def run_once(self) -> ReaperPass:
        """One pass: reclaim every expired lease, then prune and purge in bounded batches."""
        outcome = ReaperPass()
        for _ in range(MAX_BATCHES_PER_PASS):
            reaped = queue.reap(limit=self.batch_size)
            for job in reaped:
                _log_reclaimed(job)
            outcome.requeued += sum(1 for job in reaped if job.status == JobStatus.PENDING)
            outcome.dead += sum(1 for job in reaped if job.status == JobStatus.DEAD)
            if len(reaped) < self.batch_size or self._stop.is_set():
                break
        outcome.pruned_done = self._drain(
            lambda: queue.prune(status=JobStatus.DONE, older_than=self.done_retention, limit=self.batch_size)
        )
        outcome.pruned_dead = self._drain(
            lambda: queue.prune(status=JobStatus.DEAD, older_than=self.dead_retention, limit=self.batch_size)
        )
        metrics.REAPER_RECLAIMED.labels(JobStatus.PENDING.label).inc(outcome.requeued)
        metrics.REAPER_RECLAIMED.labels(JobStatus.DEAD.label).inc(outcome.dead)
        metrics.REAPER_PRUNED.labels(JobStatus.DONE.label).inc(outcome.pruned_done)
        metrics.REAPER_PRUNED.labels(JobStatus.DEAD.label).inc(outcome.pruned_dead)
        outcome.purged_negative = self._drain(lambda: negative_cache.purge_expired(limit=self.batch_size))
        outcome.abandoned_sessions = retention.end_abandoned_sessions(
            older_than=timedelta(hours=settings.LPS_ABANDONED_SESSION_HOURS)
        )
        # Snapshots are files of the machine the reaper runs on (share LPS_SNAPSHOT_DIR between machines).
        outcome.pruned_snapshots = self._drain(
            lambda: retention.prune_snapshots(
                Path(settings.LPS_SNAPSHOT_DIR),
                older_than=timedelta(days=settings.LPS_SNAPSHOT_RETENTION_DAYS),
                limit=self.batch_size,
            )
        )
        return outcome

    def _drain(self, step) -> int:
        """Repeat a bounded delete until it comes up short (or the pass's budget or a stop ends it)."""
        total = 0
        for _ in range(MAX_BATCHES_PER_PASS):
            deleted = step()
            total += deleted
            if deleted < self.batch_size or self._stop.is_set():
                break
        return total
