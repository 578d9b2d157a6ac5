"""Running one statement of the queue: rows back, and a database outage turned into QueueUnavailable.

The queue's transitions (jobs/queue.py) and its observing reads (jobs/queue_reads.py) both go through here, so
that an outage looks the same to every caller and a broken connection is always dropped.
"""

from __future__ import annotations

from django.db import DatabaseError, DataError, IntegrityError, connections

from jobs.exceptions import QueueDataRefused, QueueUnavailable
from jobs.models import ACTIVE_STATUSES, JobStatus

# The status codes as the queue's SQL spells them: {PENDING}, {RUNNING}, {DONE}, {DEAD}, and the lists {ACTIVE}
# (PENDING, RUNNING), {FINISHED} (DONE, DEAD) and {EVERY_STATUS}.
STATUS_CODES = {
    **{status.name: str(status.value) for status in JobStatus},
    "ACTIVE": ", ".join(str(status.value) for status in ACTIVE_STATUSES),
    "FINISHED": ", ".join(str(status.value) for status in (JobStatus.DONE, JobStatus.DEAD)),
    "EVERY_STATUS": ", ".join(str(status.value) for status in JobStatus),
}


def with_status_codes(sql: str, **fragments: str) -> str:
    """`sql` with its status placeholders (and the fixed `fragments`) filled in; called once per statement, at import.

    What is filled in are constants of jobs.models and fixed SQL fragments, never a value a caller sends (those
    are always named parameters). The codes stay literals in the statement's text on purpose: the planner matches a
    partial index (job_pending_order_idx WHERE status = 1, job_dedupe_active_uq WHERE status IN (1, 2)) only
    against literals it can see, and ON CONFLICT names the unique index by that same predicate.
    """
    return sql.format(**STATUS_CODES, **fragments)


def run(sql: str, params: dict | None = None, *, using: str = "default") -> list[tuple]:
    """Execute one statement and return its rows; database outages surface as QueueUnavailable."""
    return execute(sql, params, using=using)[0]


def execute(sql: str, params: dict | None = None, *, using: str = "default") -> tuple[list[tuple], int]:
    """Execute one statement; return its rows and its row count. Outages surface as QueueUnavailable."""
    try:
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params or {})
            return (cursor.fetchall() if cursor.description else []), cursor.rowcount
    except IntegrityError:
        raise
    except DataError as exc:
        # A value the database refused is the caller's fault, not an outage (a 400, never a 503 retried for ever).
        if connections[using].in_atomic_block:
            raise
        raise QueueDataRefused(str(exc)) from exc
    except DatabaseError as exc:
        if connections[using].in_atomic_block:
            raise
        # A broken connection is dropped so that the next call opens a fresh one.
        connections[using].close_if_unusable_or_obsolete()
        raise QueueUnavailable(str(exc)) from exc
