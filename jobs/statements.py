"""Running one statement of the queue: rows back, and a database outage turned into QueueUnavailable.

The queue's transitions (jobs/queue.py) and its observing reads (jobs/queue_reads.py) both go through here, so
that an outage looks the same to every caller and a broken connection is always dropped.
"""

from __future__ import annotations

from django.db import DatabaseError, IntegrityError, connections

from jobs.exceptions import QueueUnavailable


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
    except DatabaseError as exc:
        if connections[using].in_atomic_block:
            raise
        # A broken connection is dropped so that the next call opens a fresh one.
        connections[using].close_if_unusable_or_obsolete()
        raise QueueUnavailable(str(exc)) from exc
