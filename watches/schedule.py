"""The scheduler: turn due watches into low-priority SEARCH jobs, each due time once, with any number of processes.

It runs as a maintenance unit of the reaper (watches/apps.py), not as a process of its own: the reaper already
runs every LPS_REAPER_INTERVAL on every deployment, any number of reapers may run at once, and its passes are
bounded batches that stop cleanly on SIGTERM; a watch's interval is at least an hour, so a 30 s pass is precise
enough, and one process kind fewer is one fewer thing to deploy, supervise and alert on.

One pass's batch is one transaction of three statements:
1. CLAIM_DUE_SQL locks up to `limit` due, unpaused watches with SKIP LOCKED (another scheduler takes the next
   ones) and moves each one's next_run_at in the same UPDATE to the next due time *after now* on its own grid
   (anchor + k × every) plus a small jitter: a watch that missed several due times is searched once and keeps
   its schedule;
2. jobs.queue.enqueue_many inserts their SEARCH jobs (low priority; a watch late by more than
   LPS_WATCH_CATCHUP_AFTER_SECONDS gets a run_after spread over LPS_WATCH_CATCHUP_SPREAD_SECONDS, so that
   catching up after an outage is no thundering herd). A client's active search of the same product_code
   (the shared dedupe key) is linked instead of a second job;
3. LINK_SQL records each watch's job.
A process killed anywhere in it rolls the whole batch back: no due time is lost, none is enqueued twice.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from jobs import queue
from jobs.models import Priority
from lps_site.job_types import JobType
from watches import metrics
from watches.store import search_dedupe_key

# Lock due watches (SKIP LOCKED inside the CTE bounds the UPDATE to the rows locked) and move each to the next due
# time after now on its grid, plus a jitter of at most LPS_WATCH_JITTER_FRACTION of its interval (≤ 60 s).
CLAIM_DUE_SQL = """
WITH due AS (
    SELECT id, next_run_at AS due_at
    FROM watch
    WHERE paused = false AND next_run_at <= now()
    ORDER BY next_run_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
UPDATE watch
SET next_run_at = watch.schedule_anchor
        + make_interval(secs => watch.every_seconds::float8
                        * (floor(extract(epoch FROM now() - watch.schedule_anchor) / watch.every_seconds) + 1))
        + make_interval(secs => random() * least(watch.every_seconds * %(jitter_fraction)s, 60.0)),
    updated_at = now()
FROM due
WHERE watch.id = due.id
RETURNING watch.id, watch.client_id, watch.product_code, watch.product, watch.every_seconds,
          extract(epoch FROM now() - due.due_at)::float8 AS late_seconds
"""

# Record the SEARCH job of each watch's run (its own, or the linked active search of its code).
LINK_SQL = """
UPDATE watch
SET pending_job_id = linked.job_id
FROM unnest(%(watch_ids)s::bigint[], %(job_ids)s::uuid[]) AS linked(watch_id, job_id)
WHERE watch.id = linked.watch_id AND watch.id = ANY(%(watch_ids)s::bigint[])
"""


@dataclass(frozen=True)
class Scheduled:
    watch_id: int
    job_id: str
    linked: bool
    """True when the client's active search of the code answers this run (no new job)."""
    late_seconds: float


def catch_up_delay(watch_id: int, late_seconds: float, every_seconds: int) -> float:
    """Seconds to hold back the run of a watch that is `late_seconds` late: none while on time; after an outage a
    stable share of LPS_WATCH_CATCHUP_SPREAD_SECONDS (by watch id), at most half its interval, so that the backlog
    arrives spread out and every run still comes before the watch's next due time."""
    if late_seconds <= settings.LPS_WATCH_CATCHUP_AFTER_SECONDS:
        return 0.0
    window = min(float(settings.LPS_WATCH_CATCHUP_SPREAD_SECONDS), every_seconds / 2)
    share = int.from_bytes(hashlib.blake2b(str(watch_id).encode(), digest_size=4).digest()) / 2**32
    return share * window


def schedule_due(limit: int) -> list[Scheduled]:
    """Enqueue the runs of up to `limit` due watches in one transaction; return what was scheduled."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                CLAIM_DUE_SQL, {"limit": limit, "jitter_fraction": float(settings.LPS_WATCH_JITTER_FRACTION)}
            )
            claimed = cursor.fetchall()
        if not claimed:
            return []
        jobs = []
        for watch_id, client_id, product_code, product, every_seconds, late_seconds in claimed:
            payload = product if isinstance(product, dict) else json.loads(product)
            jobs.append(
                queue.NewJob(
                    JobType.SEARCH,
                    {**payload, "client_id": client_id, "watch_id": watch_id},
                    priority=Priority.LOW,
                    dedupe_key=search_dedupe_key(client_id, product_code),
                    owner_id=client_id,
                    delay_seconds=catch_up_delay(watch_id, late_seconds, every_seconds),
                )
            )
        enqueued = queue.enqueue_many(jobs)
        with connection.cursor() as cursor:
            cursor.execute(
                LINK_SQL,
                {"watch_ids": [row[0] for row in claimed], "job_ids": [job.job_id for job in enqueued]},
            )
    scheduled = [
        Scheduled(row[0], str(job.job_id), job.duplicate, max(0.0, row[5]))
        for row, job in zip(claimed, enqueued, strict=True)
    ]
    metrics.record_scheduled(scheduled)
    return scheduled


def scheduler_step(limit: int) -> int:
    """The maintenance unit: one bounded batch; how many due watches it scheduled."""
    return len(schedule_due(limit))
