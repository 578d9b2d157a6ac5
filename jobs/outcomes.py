"""The recording of outcomes: what became of each attempt, held until the queue has it, then counted and logged.

A handler's return or raise becomes an `Outcome`. The worker's loop writes outcomes with the claim that
refills their slots (one commit a turn); those that cannot be written (the database is down) stay in
`PendingOutcomes` and are tried again until they land or the lease is known to be lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from jobs import handlers, queue
from jobs import metrics as job_metrics
from jobs.exceptions import JobDeadlineExceeded
from jobs.log_context import job_logging
from jobs.models import JobStatus

# One logger for the whole worker: its lines read as one process's, wherever in jobs/ they are written.
log = logging.getLogger("jobs.worker")

ERROR_MAX_CHARS = 4000


@dataclass(eq=False)
class Outcome:
    """What became of one attempt, waiting to be written to the queue."""

    job: queue.ClaimedJob
    result: dict | None = None
    error: str | None = None
    """What last_error will say: "Kind: message"."""
    error_kind: str | None = None
    """The exception class name of a failure (last_error_kind)."""
    retryable: bool = True
    retry_in_seconds: float | None = None
    """When the failure itself says when to try again (its `retry_in_seconds`), instead of the backoff."""
    elapsed: float = 0.0

    @property
    def succeeded(self) -> bool:
        return self.error is None


def retry_in(exc: BaseException) -> float | None:
    """A failure's own `retry_in_seconds` (a quota that resets at a known time), when it is a sane number."""
    value = getattr(exc, "retry_in_seconds", None)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 7 * 24 * 3600:
        return float(value)
    return None


def format_error(exc: BaseException) -> str:
    """`ExcClass: message`, truncated (messages never name their own class: the kind is written here)."""
    message = str(exc).replace("\x00", "")  # PostgreSQL text cannot hold NUL
    return f"{type(exc).__name__}: {message}"[:ERROR_MAX_CHARS]


def job_log_context(job: queue.ClaimedJob):
    """Tag this thread's log lines with `job` (see jobs/log_context.py)."""
    return job_logging(
        job_id=job.job_id, attempt=job.attempt, job_type=handlers.label(job.job_type), worker_id=job.worker_id
    )


def count_finished(job: queue.ClaimedJob, outcome: str, *, elapsed: float | None = None) -> None:
    """Count an attempt that ended as `outcome` (see jobs.metrics.RUN_OUTCOMES)."""
    job_metrics.JOB_RUNS_FINISHED.labels(handlers.label(job.job_type), outcome).inc()
    if elapsed is not None:
        job_metrics.JOB_RUN_SECONDS.labels(handlers.label(job.job_type)).observe(elapsed)


def write(outcomes: list[Outcome]) -> list[tuple[Outcome, queue.Transition]]:
    """Write outcomes (inside the caller's transaction): the successes in one statement, each failure in its own."""
    successes = [outcome for outcome in outcomes if outcome.succeeded]
    written = []
    if successes:
        transitions = queue.complete_many([(outcome.job, outcome.result) for outcome in successes])
        written += zip(successes, transitions, strict=True)
    for outcome in outcomes:
        if not outcome.succeeded:
            transition = queue.fail(
                outcome.job,
                outcome.error,
                kind=outcome.error_kind,
                retryable=outcome.retryable,
                retry_in_seconds=outcome.retry_in_seconds,
            )
            written.append((outcome, transition))
    return written


class PendingOutcomes:
    """The outcomes not yet written to the queue, in the order they finished."""

    def __init__(self) -> None:
        self._outcomes: list[Outcome] = []

    def __bool__(self) -> bool:
        return bool(self._outcomes)

    def __len__(self) -> int:
        return len(self._outcomes)

    def __iter__(self) -> Iterator[Outcome]:
        return iter(self._outcomes)

    def add(self, outcome: Outcome) -> None:
        self._outcomes.append(outcome)

    def copy(self) -> list[Outcome]:
        """A list of them that the caller may hold while this one changes (a single step under the GIL)."""
        return self._outcomes.copy()

    def drop(self, job_id) -> None:
        """Forget the outcome of `job_id`: its lease is gone, so it can no longer be written."""
        self._outcomes = [outcome for outcome in self._outcomes if outcome.job.job_id != job_id]

    def record(self, outcomes: list[Outcome]) -> None:
        """Write `outcomes` in a transaction of their own (at shutdown)."""
        if not outcomes:
            return
        with queue.one_transaction():
            written = write(outcomes)
        self.written(written)

    def written(self, written: list[tuple[Outcome, queue.Transition]]) -> None:
        """Once committed: the outcomes leave memory, and each is counted and gets its log line."""
        if not written:
            return
        done = {id(outcome) for outcome, _ in written}
        self._outcomes = [outcome for outcome in self._outcomes if id(outcome) not in done]
        for outcome, transition in written:
            count_finished(outcome.job, _run_outcome(outcome, transition), elapsed=outcome.elapsed)
            with job_log_context(outcome.job):
                _log_transition(outcome, transition)


def _run_outcome(outcome: Outcome, transition: queue.Transition) -> str:
    """The lps_job_runs_finished outcome of a written attempt (see jobs.metrics.RUN_OUTCOMES)."""
    if isinstance(transition, queue.Lost):
        return "lost"
    if transition.status is JobStatus.DONE:
        return "done"
    if outcome.error_kind == JobDeadlineExceeded.__name__:
        return "deadline"
    return "dead" if transition.status is JobStatus.DEAD else "retried"


def _log_transition(outcome: Outcome, transition: queue.Transition) -> None:
    job = outcome.job
    label, elapsed_ms = handlers.label(job.job_type), outcome.elapsed * 1000
    if isinstance(transition, queue.Lost):
        log.warning("lost %s %s attempt %d: the lease was gone, outcome not written", label, job.job_id, job.attempt)
    elif transition.status is JobStatus.DONE:
        log.info("done %s %s attempt %d in %.0f ms", label, job.job_id, job.attempt, elapsed_ms)
    elif transition.status is JobStatus.DEAD:
        log.warning(
            "dead %s %s attempt %d/%d after %.0f ms: %s",
            label,
            job.job_id,
            job.attempt,
            job.max_attempts,
            elapsed_ms,
            outcome.error,
        )
    else:
        log.warning(
            "retry %s %s attempt %d/%d failed after %.0f ms, next at %s: %s",
            label,
            job.job_id,
            job.attempt,
            job.max_attempts,
            elapsed_ms,
            transition.run_after,
            outcome.error,
        )
