"""The job queue: every SQL statement of the queue and every state transition lives here.

Each operation is one SQL statement. Each transition is a compare-and-set: its WHERE clause names the state,
the owner (worker_id) and the attempt it expects, so a caller that lost a race changes nothing and is told
so by a `Lost` result. Parameters are always named; nothing here formats values into SQL.
"""

from __future__ import annotations

import contextlib
import json
import random
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import psycopg
from django.db import DatabaseError, IntegrityError, connections, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound, QueueUnavailable
from jobs.models import Job, JobStatus, JobType, Priority
from jobs.row_counts import count_rows
from lps_site.db_router import observing

NOTIFY_CHANNEL = "lps_jobs"
STUCK_RUNNING_AFTER = timedelta(minutes=10)
# Past this many rows an exact count of DONE jobs costs more than a dashboard view should; use the
# planner's estimate instead (the snapshot says when it did).
EXACT_DONE_COUNT_LIMIT = 200_000

# --- SQL ---------------------------------------------------------------------------------------------------

# Insert jobs from a JSON array; a row whose dedupe_key is already active returns that job's id instead.
# DO UPDATE (a no-op) rather than DO NOTHING so that RETURNING yields the active twin even when it was
# committed by a concurrent transaction after this statement's snapshot. pg_notify fires on commit.
ENQUEUE_SQL = """
WITH input AS (
    SELECT *
    FROM jsonb_to_recordset(%(jobs)s::jsonb) AS x(
        ord int, job_type smallint, priority smallint, payload jsonb, dedupe_key varchar(255),
        max_attempts smallint, delay_seconds double precision, owner_id bigint
    )
),
upserted AS (
    INSERT INTO job (job_type, status, priority, payload, dedupe_key, attempts, max_attempts, run_after, owner_id)
    SELECT job_type, 1, priority, payload, dedupe_key, 0, max_attempts,
           now() + make_interval(secs => delay_seconds), owner_id
    FROM input
    ORDER BY ord
    ON CONFLICT (dedupe_key) WHERE status IN (1, 2)
    DO UPDATE SET dedupe_key = EXCLUDED.dedupe_key
    RETURNING job_id, dedupe_key, job_type, (xmax = 0) AS inserted
)
SELECT job_id, dedupe_key, inserted,
       CASE WHEN inserted THEN pg_notify('lps_jobs', job_type::text) END
FROM upserted
"""

# The parts the claim and complete statements share, so that each rule is written once.
_DUE_JOBS = """
    SELECT job_id
    FROM job
    WHERE status = 1
      AND run_after <= now()
      AND job_type = ANY(%(job_types)s::smallint[])
    ORDER BY priority, created_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED"""
"""Up to %(limit)s due PENDING jobs, by priority then age, locked (SKIP LOCKED) for the lease below."""

_LEASE_DUE_JOBS = """
    UPDATE job
    SET status = 2,
        worker_id = %(worker_id)s,
        lease_until = now() + make_interval(secs => %(lease_seconds)s),
        run_started_at = now(),
        attempts = job.attempts + 1,
        updated_at = now()
    FROM next_jobs
    WHERE job.job_id = next_jobs.job_id
    RETURNING job.job_id, job.job_type, job.priority, job.payload, job.dedupe_key, job.attempts,
              job.max_attempts, extract(epoch FROM job.lease_until)::float8 AS lease_until,
              extract(epoch FROM job.created_at)::float8 AS created_at"""
"""PENDING → RUNNING for the rows of `next_jobs`, leased to %(worker_id)s."""

# (The job_id = ANY(...) beside the unnest join lets the planner reach the rows through the primary key,
# rather than through every RUNNING row of every worker.)
_FINISH_HELD = """
    UPDATE job
    SET status = 3, result = finished.result, lease_until = NULL, updated_at = now()
    FROM unnest(%(job_ids)s::uuid[], %(attempts)s::smallint[], %(results)s::jsonb[])
         AS finished(job_id, attempt, result)
    WHERE job.job_id = finished.job_id
      AND job.job_id = ANY(%(job_ids)s::uuid[])
      AND job.status = 2
      AND job.worker_id = %(worker_id)s
      AND job.attempts = finished.attempt
    RETURNING job.job_id"""
"""RUNNING → DONE for the held attempts of the given jobs, with their results (a compare-and-set each)."""

# Lease due PENDING jobs; SKIP LOCKED inside the CTE bounds the UPDATE to exactly the rows this transaction
# locked.
CLAIM_SQL = f"WITH next_jobs AS ({_DUE_JOBS}\n){_LEASE_DUE_JOBS}"

# Finish the held attempts of the given jobs with their results.
COMPLETE_SQL = _FINISH_HELD

# A worker's steady state in one statement (one commit): finish its held attempts with their results and
# lease the next due jobs for the slots they free. The finished rows are RUNNING and the claimed ones
# PENDING, so the two parts never touch the same row; each part keeps its own compare-and-set.
COMPLETE_AND_CLAIM_SQL = f"""
WITH done AS ({_FINISH_HELD}
),
next_jobs AS ({_DUE_JOBS}
),
claimed AS ({_LEASE_DUE_JOBS}
)
SELECT true AS finished, job_id, NULL::smallint, NULL::smallint, NULL::jsonb, NULL::varchar, NULL::smallint,
       NULL::smallint, NULL::float8, NULL::float8
FROM done
UNION ALL
SELECT false, job_id, job_type, priority, payload, dedupe_key, attempts, max_attempts, lease_until, created_at
FROM claimed
"""

# Fail the held attempt: back to PENDING after a backoff while attempts remain and the error is
# retryable, otherwise DEAD.
FAIL_SQL = """
UPDATE job
SET status = CASE WHEN %(retryable)s AND attempts < max_attempts THEN 1 ELSE 4 END,
    run_after = CASE WHEN %(retryable)s AND attempts < max_attempts
                     THEN now() + make_interval(secs => %(retry_in_seconds)s) ELSE run_after END,
    lease_until = NULL,
    last_error = %(error)s,
    updated_at = now()
WHERE job_id = %(job_id)s AND status = 2 AND worker_id = %(worker_id)s AND attempts = %(attempt)s
RETURNING status, run_after
"""

# Hand back a held attempt that never ran to its end (shutdown): PENDING at once, the attempt not counted.
RELEASE_SQL = """
UPDATE job
SET status = 1, attempts = attempts - 1, run_after = now(), lease_until = NULL,
    last_error = %(reason)s, updated_at = now()
WHERE job_id = %(job_id)s AND status = 2 AND worker_id = %(worker_id)s AND attempts = %(attempt)s
RETURNING pg_notify('lps_jobs', job_type::text)
"""

# Extend the leases of the jobs this worker still holds; returns the ones it still holds.
RENEW_LEASES_SQL = """
UPDATE job
SET lease_until = now() + make_interval(secs => %(lease_seconds)s), updated_at = now()
FROM unnest(%(job_ids)s::uuid[], %(attempts)s::smallint[]) AS held(job_id, attempt)
WHERE job.job_id = held.job_id
  AND job.job_id = ANY(%(job_ids)s::uuid[])
  AND job.status = 2
  AND job.worker_id = %(worker_id)s
  AND job.attempts = held.attempt
RETURNING job.job_id
"""

# Reclaim RUNNING jobs whose lease ran out: PENDING again, or DEAD when their attempts are spent.
REAP_SQL = """
WITH expired AS (
    SELECT job_id
    FROM job
    WHERE status = 2 AND lease_until < now()
    ORDER BY lease_until
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
UPDATE job
SET status = CASE WHEN job.attempts >= job.max_attempts THEN 4 ELSE 1 END,
    run_after = now(),
    lease_until = NULL,
    last_error = 'LeaseExpired: reclaimed from worker ' || coalesce(job.worker_id, '?')
                 || ' whose lease ran out during attempt ' || job.attempts,
    updated_at = now()
FROM expired
WHERE job.job_id = expired.job_id
RETURNING job.job_id, job.status, job.job_type, job.attempts, job.worker_id,
          CASE WHEN job.status = 1 THEN pg_notify('lps_jobs', job.job_type::text) END
"""

# Operator: a DEAD job back to PENDING with its attempts reset (the partial unique index refuses it
# while a twin with the same dedupe_key is active).
REQUEUE_SQL = """
UPDATE job
SET status = 1, attempts = 0, run_after = now(), lease_until = NULL, updated_at = now()
WHERE job_id = %(job_id)s AND status = 4
RETURNING job_id, pg_notify('lps_jobs', job_type::text)
"""

# Who holds a dedupe_key now (to name the twin that blocks a requeue).
ACTIVE_TWIN_SQL = """
SELECT job_id FROM job WHERE dedupe_key = %(dedupe_key)s AND status IN (1, 2) LIMIT 1
"""

# Delete finished jobs of one status older than a cut-off, at most %(limit)s rows per call.
PRUNE_SQL = """
DELETE FROM job
WHERE job_id IN (
    SELECT job_id FROM job
    WHERE status = %(status)s AND updated_at < %(before)s
    LIMIT %(limit)s
)
"""

# Job counts by status.
COUNTS_SQL = """
SELECT status, count(*) FROM job GROUP BY status
"""

# One owner's job counts by status (an index-only walk of job_owner_status_created_idx).
OWNER_COUNTS_SQL = """
SELECT status, count(*) FROM job WHERE owner_id = %(owner_id)s GROUP BY status
"""

# The planner's estimate of the table's rows (cheap on any size).
ESTIMATED_ROWS_SQL = """
SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'job'::regclass
"""

# The ops snapshot in one round trip; every part walks an index range, never the whole table. {mine} narrows
# each part to one owner's jobs (a fixed SQL fragment, never a value).
_SNAPSHOT = """
SELECT
    (SELECT count(*) FROM job WHERE {mine}status = 1) AS pending,
    (SELECT count(*) FROM job WHERE {mine}status = 2) AS running,
    (SELECT count(*) FROM job WHERE {mine}status = 4) AS dead,
    (SELECT count(*) FROM job WHERE {mine}status = 4 AND updated_at > now() - interval '1 hour')
        AS dead_last_hour,
    (SELECT count(*) FROM job
      WHERE {mine}status = 2
        AND (lease_until < now() OR run_started_at < now() - make_interval(secs => %(stuck_seconds)s)))
        AS stuck,
    (SELECT extract(epoch FROM now() - min(created_at)) FROM job WHERE {mine}status = 1 AND run_after <= now())
        AS oldest_pending_seconds,
    (SELECT count(*) FROM job
      WHERE {mine}status IN (1, 2, 3, 4) AND updated_at > now() - interval '1 hour'
        AND last_error LIKE 'JobDeadlineExceeded%%') AS deadline_kills_last_hour,
    (SELECT coalesce(sum((result -> 'metrics' -> 'cost' ->> 'total_usd')::numeric), 0)
       FROM job WHERE {mine}status = 3 AND job_type = 1 AND updated_at > now() - interval '1 hour')
        AS cost_last_hour_usd,
    (SELECT count(*) FROM job WHERE {mine}status = 3 AND updated_at > now() - interval '1 hour')
        AS done_last_hour
"""

# The ops snapshot of the whole queue.
SNAPSHOT_SQL = _SNAPSHOT.format(mine="")

# The ops snapshot of one owner's jobs (the owner indexes serve each part).
OWNER_SNAPSHOT_SQL = _SNAPSHOT.format(mine="owner_id = %(owner_id)s AND ")

# Search cost, volume and mean duration per hour over the last %(hours)s hours (finished SEARCH jobs).
HOURLY_COSTS_SQL = """
SELECT date_trunc('hour', updated_at) AS hour,
       count(*) AS jobs,
       coalesce(sum((result -> 'metrics' -> 'cost' ->> 'ai_usd')::numeric), 0) AS ai_usd,
       coalesce(sum((result -> 'metrics' -> 'cost' ->> 'proxy_usd')::numeric), 0) AS proxy_usd,
       coalesce(avg((result -> 'metrics' ->> 'duration_ms')::numeric), 0) AS mean_duration_ms
FROM job
WHERE status = 3 AND job_type = 1 AND updated_at > date_trunc('hour', now()) - make_interval(hours => %(hours)s)
GROUP BY 1
ORDER BY 1
"""

# --- What a /metrics scrape reads (jobs/metrics.py). Each exact part walks one index range of the active rows
# or of the last hour, never the history that retention keeps (DONE 7 days, DEAD 30), so a scrape costs the same
# with ten thousand or ten million jobs in the table.

# Active jobs by type and status, exact: these rows are the backlog.
METRICS_ACTIVE_SQL = """
SELECT job_type, status, count(*) FROM job WHERE status IN (1, 2) GROUP BY job_type, status
"""

# Jobs that went DEAD in the last hour, by type: one range of job_status_updated_idx (a DEAD row changes only
# when it dies or is requeued).
METRICS_DEAD_LAST_HOUR_SQL = """
SELECT job_type, count(*) FROM job WHERE status = 4 AND updated_at > now() - interval '1 hour' GROUP BY job_type
"""

# Per job type, seconds since its longest-waiting due PENDING job became claimable (NULL: none is due); one
# descent of job_claim_idx per type, stopping at the first row of that type.
METRICS_OLDEST_DUE_SQL = """
SELECT types.job_type,
       (SELECT extract(epoch FROM now() - job.run_after)::float8
          FROM job
         WHERE job.status = 1 AND job.run_after <= now() AND job.job_type = types.job_type
         ORDER BY job.run_after
         LIMIT 1)
FROM unnest(%(job_types)s::smallint[]) AS types(job_type)
"""

# RUNNING jobs whose lease ran out (what the reaper will reclaim): one range of job_lease_idx.
METRICS_EXPIRED_LEASES_SQL = """
SELECT count(*) FROM job WHERE status = 2 AND lease_until < now()
"""

# DONE and DEAD jobs by type, exact (asked only while the table holds at most EXACT_DONE_COUNT_LIMIT rows).
METRICS_HISTORY_SQL = """
SELECT job_type, status, count(*) FROM job WHERE status IN (3, 4) GROUP BY job_type, status
"""

# The planner's estimate of the jobs of one type in one status: a plan from the table statistics, not a scan.
METRICS_ESTIMATE_SQL = """
EXPLAIN (FORMAT JSON) SELECT 1 FROM job WHERE status = %(status)s AND job_type = %(job_type)s
"""

# Is the database there?
PING_SQL = "SELECT 1"

# Subscribe a dedicated connection to the wake-ups that enqueue, release, reap and requeue send.
LISTEN_SQL = "LISTEN lps_jobs"


# --- Values ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewJob:
    """A job to enqueue."""

    job_type: JobType
    payload: dict
    priority: int = Priority.NORMAL
    dedupe_key: str | None = None
    max_attempts: int = 3
    delay_seconds: float = 0.0
    owner_id: int | None = None
    """Who the job belongs to (the enqueuing app's id for it); lists and counts can be narrowed to it."""


@dataclass(frozen=True)
class Enqueued:
    """The id a NewJob got; `duplicate` when an active job already held its dedupe_key."""

    job_id: uuid.UUID
    dedupe_key: str | None
    duplicate: bool


@dataclass(frozen=True)
class ClaimedJob:
    """One attempt of a job, leased to `worker_id`; (job_id, attempt) identifies it in every transition."""

    job_id: uuid.UUID
    job_type: JobType
    priority: int
    payload: dict
    dedupe_key: str | None
    attempt: int
    max_attempts: int
    lease_until: datetime
    created_at: datetime
    worker_id: str


@dataclass(frozen=True)
class Moved:
    """The transition happened; the job is now in `status`."""

    job_id: uuid.UUID
    status: JobStatus
    run_after: datetime | None = None


@dataclass(frozen=True)
class Lost:
    """The job was no longer held by this worker and attempt (reaped, released, re-claimed): nothing changed."""

    job_id: uuid.UUID


Transition = Moved | Lost


@dataclass(frozen=True)
class Reaped:
    job_id: uuid.UUID
    status: JobStatus
    # Which attempt of which worker lost its lease: for the reaper's log line, not part of what was reaped.
    job_type: JobType | None = field(default=None, compare=False)
    attempt: int | None = field(default=None, compare=False)
    worker_id: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class OpsSnapshot:
    """What an operator checks first: is the queue healthy, and what does searching cost."""

    pending: int
    running: int
    done: int
    dead: int
    dead_last_hour: int
    stuck: int
    oldest_pending_seconds: float | None
    deadline_kills_last_hour: int
    cost_last_hour_usd: float
    done_last_hour: int
    done_is_estimate: bool = False

    def as_dict(self) -> dict:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {key: value for key, value in data.items() if value is not None}


@dataclass(frozen=True)
class QueueMetrics:
    """What a metrics scrape reports of the queue, read from the database at scrape time."""

    jobs: dict[tuple[JobType, JobStatus], int]
    """Jobs per (type, status); every pair present. DONE and DEAD are the planner's estimates when
    history_is_estimate."""
    dead_last_hour: dict[JobType, int]
    """Jobs of each type that went DEAD in the last hour (exact)."""
    oldest_due_seconds: dict[JobType, float]
    """Per type, how long its longest-waiting due PENDING job has been claimable (0 when none is due)."""
    expired_leases: int
    history_is_estimate: bool


@dataclass(frozen=True)
class HourlyCost:
    hour: datetime
    jobs: int
    ai_usd: float
    proxy_usd: float
    mean_duration_ms: float

    @property
    def total_usd(self) -> float:
        return self.ai_usd + self.proxy_usd


@dataclass(frozen=True)
class JobPage:
    total: int
    jobs: list[Job] = field(default_factory=list)
    total_is_estimate: bool = False
    """Past jobs.row_counts.EXACT_COUNT_LIMIT matches, `total` is the planner's estimate."""


# --- Pure helpers ------------------------------------------------------------------------------------------


def backoff(attempts: int, *, base: float = 5.0, cap: float = 600.0, rng: random.Random | None = None) -> float:
    """Seconds to wait before the next try after `attempts` failed tries (exponential, capped, jittered).

    Half of the delay is fixed and half is random ("equal jitter"): retries of jobs that failed together
    spread out, yet each wait still grows with the number of failures.
    """
    if attempts < 1:
        return 0.0
    ceiling = min(cap, base * 2 ** (attempts - 1))
    return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)


def new_worker_id() -> str:
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _jsonb(value: dict | None) -> Jsonb | None:
    """A result for a jsonb[] parameter: no result is SQL NULL, not JSON null."""
    return None if value is None else Jsonb(value)


def _cursor(using: str = "default"):
    return connections[using].cursor()


def _run(sql: str, params: dict | None = None, *, using: str = "default") -> list[tuple]:
    """Execute one statement and return its rows; database outages surface as QueueUnavailable."""
    return _execute(sql, params, using=using)[0]


def _execute(sql: str, params: dict | None = None, *, using: str = "default") -> tuple[list[tuple], int]:
    """Execute one statement; return its rows and its row count. Outages surface as QueueUnavailable."""
    try:
        with _cursor(using) as cursor:
            cursor.execute(sql, params or {})
            return (cursor.fetchall() if cursor.description else []), cursor.rowcount
    except IntegrityError:
        raise
    except DatabaseError as exc:
        if connections[using].in_atomic_block:
            raise
        # A broken connection is dropped so that the next call opens a fresh one.
        connections[using].close_if_unusable_or_obsolete()
        raise QueueUnavailable(f"QueueUnavailable: {exc}") from exc


@contextlib.contextmanager
def one_transaction(using: str = "default") -> Iterator[None]:
    """Run several operations in one transaction, so that they cost one commit; all or none take effect.

    A worker writes its outcomes, renews its leases and claims new jobs in one of these: on a durable server
    the commit's WAL flush costs far more than the statements. Outages surface as QueueUnavailable.
    """
    try:
        with transaction.atomic(using=using):
            yield
    except IntegrityError:
        raise
    except DatabaseError as exc:
        connections[using].close_if_unusable_or_obsolete()
        raise QueueUnavailable(f"QueueUnavailable: {exc}") from exc


# --- Operations --------------------------------------------------------------------------------------------


def enqueue(job: NewJob) -> Enqueued:
    """Enqueue one job (see enqueue_many)."""
    return enqueue_many([job])[0]


def enqueue_many(jobs: Sequence[NewJob]) -> list[Enqueued]:
    """Enqueue many jobs in one statement; return one Enqueued per input, in input order.

    A job whose dedupe_key is held by an active job (or by an earlier job of the same batch) is not
    inserted: its Enqueued carries the active job's id and duplicate=True.
    """
    if not jobs:
        return []
    first_of_key: dict[str, int] = {}
    rows = []
    for index, job in enumerate(jobs):
        if job.dedupe_key is not None:
            if job.dedupe_key in first_of_key:
                continue
            first_of_key[job.dedupe_key] = index
        rows.append(
            {
                "ord": index,
                "job_type": int(job.job_type),
                "priority": int(job.priority),
                "payload": job.payload,
                "dedupe_key": job.dedupe_key,
                "max_attempts": job.max_attempts,
                "delay_seconds": max(0.0, float(job.delay_seconds)),
                "owner_id": job.owner_id,
            }
        )
    returned = _run(ENQUEUE_SQL, {"jobs": Jsonb(rows)})
    by_key: dict[str, tuple[uuid.UUID, bool]] = {}
    unkeyed: list[uuid.UUID] = []
    for job_id, dedupe_key, inserted, _notified in returned:
        if dedupe_key is None:
            unkeyed.append(job_id)
        else:
            by_key[dedupe_key] = (job_id, inserted)
    # RETURNING follows the INSERT's ORDER BY ord; keyed rows are matched by key regardless.
    unkeyed_iter = iter(unkeyed)
    results = []
    for index, job in enumerate(jobs):
        if job.dedupe_key is None:
            results.append(Enqueued(next(unkeyed_iter), None, duplicate=False))
        else:
            job_id, inserted = by_key[job.dedupe_key]
            results.append(
                Enqueued(job_id, job.dedupe_key, duplicate=not inserted or first_of_key[job.dedupe_key] != index)
            )
    return results


def claim(
    worker_id: str,
    *,
    limit: int = 1,
    job_types: Iterable[JobType] | None = None,
    lease_seconds: float = 60.0,
) -> list[ClaimedJob]:
    """Lease up to `limit` due jobs (optionally only of `job_types`) to `worker_id`."""
    types = [int(t) for t in (job_types or JobType)]
    rows = _run(
        CLAIM_SQL,
        {"worker_id": worker_id, "limit": limit, "job_types": types, "lease_seconds": float(lease_seconds)},
    )
    return _claimed_jobs(rows, worker_id)


def _claimed_jobs(rows: Iterable[tuple], worker_id: str) -> list[ClaimedJob]:
    # Times come back as epoch seconds: turning a float into a datetime costs a tenth of parsing the text.
    return [
        ClaimedJob(
            job_id=job_id,
            job_type=JobType(job_type),
            priority=priority,
            # Django's connections load jsonb as text (JSONField decodes it itself).
            payload=json.loads(payload) if isinstance(payload, str) else payload,
            dedupe_key=dedupe_key,
            attempt=attempts,
            max_attempts=max_attempts,
            lease_until=datetime.fromtimestamp(lease_until, UTC),
            created_at=datetime.fromtimestamp(created_at, UTC),
            worker_id=worker_id,
        )
        for job_id, job_type, priority, payload, dedupe_key, attempts, max_attempts, lease_until, created_at in rows
    ]


def complete_and_claim(
    finished: Sequence[tuple[ClaimedJob, dict | None]],
    worker_id: str,
    *,
    limit: int,
    job_types: Iterable[JobType],
    lease_seconds: float = 60.0,
) -> tuple[list[Transition], list[ClaimedJob]]:
    """Finish `worker_id`'s attempts and lease up to `limit` due jobs of `job_types`, in one statement.

    Returns one Transition per finished attempt (in order) and the jobs now leased.
    """
    if any(job.worker_id != worker_id for job, _ in finished):
        raise ValueError("complete_and_claim takes the jobs of one worker")
    rows = _run(
        COMPLETE_AND_CLAIM_SQL,
        {
            "worker_id": worker_id,
            "job_ids": [job.job_id for job, _ in finished],
            "attempts": [job.attempt for job, _ in finished],
            "results": [_jsonb(result) for _, result in finished],
            "limit": max(0, limit),
            "job_types": [int(t) for t in job_types],
            "lease_seconds": float(lease_seconds),
        },
    )
    moved = {row[1] for row in rows if row[0]}
    transitions = [
        Moved(job.job_id, JobStatus.DONE) if job.job_id in moved else Lost(job.job_id) for job, _ in finished
    ]
    return transitions, _claimed_jobs((row[1:] for row in rows if not row[0]), worker_id)


def complete(job: ClaimedJob, result: dict | None) -> Transition:
    """Finish the attempt: RUNNING → DONE with its result."""
    return complete_many([(job, result)])[0]


def complete_many(finished: Sequence[tuple[ClaimedJob, dict | None]]) -> list[Transition]:
    """Finish many attempts of one worker in one statement; one Transition per input, in order."""
    if not finished:
        return []
    worker_ids = {job.worker_id for job, _ in finished}
    if len(worker_ids) != 1:
        raise ValueError("complete_many takes the jobs of one worker")
    moved = {
        row[0]
        for row in _run(
            COMPLETE_SQL,
            {
                "worker_id": worker_ids.pop(),
                "job_ids": [job.job_id for job, _ in finished],
                "attempts": [job.attempt for job, _ in finished],
                "results": [_jsonb(result) for _, result in finished],
            },
        )
    }
    return [Moved(job.job_id, JobStatus.DONE) if job.job_id in moved else Lost(job.job_id) for job, _ in finished]


def fail(job: ClaimedJob, error: str, *, retryable: bool = True, retry_in_seconds: float | None = None) -> Transition:
    """Fail the attempt: PENDING after a backoff while attempts remain (and the error is retryable), else DEAD."""
    delay = backoff(job.attempt) if retry_in_seconds is None else retry_in_seconds
    rows = _run(
        FAIL_SQL,
        {
            "job_id": job.job_id,
            "worker_id": job.worker_id,
            "attempt": job.attempt,
            "retryable": retryable,
            "retry_in_seconds": float(delay),
            "error": error[:10_000],
        },
    )
    if not rows:
        return Lost(job.job_id)
    status, run_after = rows[0]
    return Moved(job.job_id, JobStatus(status), run_after)


def release(job: ClaimedJob, reason: str = "Released: the worker shut down before the job finished") -> Transition:
    """Hand a held job back at once (shutdown): PENDING, the attempt not counted, workers woken."""
    rows = _run(
        RELEASE_SQL,
        {"job_id": job.job_id, "worker_id": job.worker_id, "attempt": job.attempt, "reason": reason},
    )
    return Moved(job.job_id, JobStatus.PENDING) if rows else Lost(job.job_id)


def renew_leases(worker_id: str, jobs: Sequence[ClaimedJob], *, lease_seconds: float = 60.0) -> set[uuid.UUID]:
    """Extend the leases of `jobs`; return the ids this worker still holds (the rest were lost)."""
    if not jobs:
        return set()
    rows = _run(
        RENEW_LEASES_SQL,
        {
            "worker_id": worker_id,
            "job_ids": [job.job_id for job in jobs],
            "attempts": [job.attempt for job in jobs],
            "lease_seconds": float(lease_seconds),
        },
    )
    return {row[0] for row in rows}


def reap(*, limit: int = 500) -> list[Reaped]:
    """Reclaim up to `limit` RUNNING jobs whose lease ran out."""
    return [
        Reaped(job_id, JobStatus(status), JobType(job_type), attempts, worker_id)
        for job_id, status, job_type, attempts, worker_id, _ in _run(REAP_SQL, {"limit": limit})
    ]


def requeue(job_id: uuid.UUID | str) -> Moved:
    """Operator: move a DEAD job back to PENDING with its attempts reset, waking workers.

    Raises JobNotFound, JobNotDead, or DuplicateActiveJob when an active job holds its dedupe_key.
    """
    try:
        with transaction.atomic():
            rows = _run(REQUEUE_SQL, {"job_id": job_id})
    except IntegrityError as exc:
        dedupe_key = Job.objects.filter(job_id=job_id).values_list("dedupe_key", flat=True).first()
        twin = _run(ACTIVE_TWIN_SQL, {"dedupe_key": dedupe_key})
        raise DuplicateActiveJob(
            f"job {twin[0][0] if twin else '?'} with the same dedupe_key {dedupe_key!r} is active",
            active_job_id=twin[0][0] if twin else None,
        ) from exc
    if rows:
        return Moved(rows[0][0], JobStatus.PENDING)
    status = Job.objects.filter(job_id=job_id).values_list("status", flat=True).first()
    if status is None:
        raise JobNotFound(f"no job {job_id}")
    raise JobNotDead(f"job {job_id} is {JobStatus(status).label}; only DEAD jobs can be requeued")


def prune(*, status: JobStatus, older_than: timedelta, limit: int = 1000) -> int:
    """Delete up to `limit` jobs in `status` last changed before `older_than` ago; return how many."""
    if status not in (JobStatus.DONE, JobStatus.DEAD):
        raise ValueError("only finished jobs are pruned")
    _rows, deleted = _execute(PRUNE_SQL, {"status": int(status), "before": timezone.now() - older_than, "limit": limit})
    return deleted


# --- Observing ---------------------------------------------------------------------------------------------


def counts(*, owner_id: int | None = None) -> dict[str, int]:
    """Jobs per status name (every status present, zero when empty); only `owner_id`'s jobs when given."""
    with observing() as alias:
        if owner_id is None:
            rows = dict(_run(COUNTS_SQL, using=alias))
        else:
            rows = dict(_run(OWNER_COUNTS_SQL, {"owner_id": owner_id}, using=alias))
    return {status.label: rows.get(int(status), 0) for status in JobStatus}


def snapshot(*, owner_id: int | None = None) -> OpsSnapshot:
    """The ops snapshot (only `owner_id`'s jobs when given); DONE is estimated on very large tables."""
    params = {"stuck_seconds": STUCK_RUNNING_AFTER.total_seconds(), "owner_id": owner_id}
    with observing() as alias:
        if owner_id is not None:
            row = _run(OWNER_SNAPSHOT_SQL, params, using=alias)[0]
            done = count_rows(Job.objects.using(alias).filter(owner_id=owner_id, status=JobStatus.DONE))
            return _ops_snapshot(row, done=done.count, done_is_estimate=done.is_estimate)
        row = _run(SNAPSHOT_SQL, params, using=alias)[0]
        pending, running, dead = row[:3]
        estimated_rows = _run(ESTIMATED_ROWS_SQL, using=alias)[0][0]
        if estimated_rows > EXACT_DONE_COUNT_LIMIT:
            return _ops_snapshot(row, done=max(0, estimated_rows - pending - running - dead), done_is_estimate=True)
        done = Job.objects.using(alias).filter(status=JobStatus.DONE).count()
    return _ops_snapshot(row, done=done, done_is_estimate=False)


def _ops_snapshot(row: tuple, *, done: int, done_is_estimate: bool) -> OpsSnapshot:
    """An OpsSnapshot from a row of SNAPSHOT_SQL or OWNER_SNAPSHOT_SQL and the DONE count taken beside it."""
    pending, running, dead, dead_last_hour, stuck, oldest, deadline_kills, cost, done_last_hour = row
    return OpsSnapshot(
        pending=pending,
        running=running,
        done=done,
        dead=dead,
        dead_last_hour=dead_last_hour,
        stuck=stuck,
        oldest_pending_seconds=float(oldest) if oldest is not None else None,
        deadline_kills_last_hour=deadline_kills,
        cost_last_hour_usd=float(cost),
        done_last_hour=done_last_hour,
        done_is_estimate=done_is_estimate,
    )


def queue_metrics(*, exact_history_limit: int = EXACT_DONE_COUNT_LIMIT) -> QueueMetrics:
    """The queue's numbers for a metrics scrape; DONE and DEAD are estimated past `exact_history_limit` rows."""
    types = list(JobType)
    with observing() as alias:
        jobs = {(job_type, status): 0 for job_type in types for status in JobStatus}
        for job_type, status, count in _run(METRICS_ACTIVE_SQL, using=alias):
            jobs[(JobType(job_type), JobStatus(status))] = count
        dead_last_hour = dict.fromkeys(types, 0)
        for job_type, count in _run(METRICS_DEAD_LAST_HOUR_SQL, using=alias):
            dead_last_hour[JobType(job_type)] = count
        oldest = {
            JobType(job_type): float(seconds or 0.0)
            for job_type, seconds in _run(METRICS_OLDEST_DUE_SQL, {"job_types": [int(t) for t in types]}, using=alias)
        }
        expired = _run(METRICS_EXPIRED_LEASES_SQL, using=alias)[0][0]
        estimate = _run(ESTIMATED_ROWS_SQL, using=alias)[0][0] > exact_history_limit
        if estimate:
            for job_type in types:
                for status in (JobStatus.DONE, JobStatus.DEAD):
                    params = {"status": int(status), "job_type": int(job_type)}
                    plan = _run(METRICS_ESTIMATE_SQL, params, using=alias)[0][0]
                    plan = json.loads(plan) if isinstance(plan, str) else plan
                    jobs[(job_type, status)] = int(plan[0]["Plan"]["Plan Rows"])
        else:
            for job_type, status, count in _run(METRICS_HISTORY_SQL, using=alias):
                jobs[(JobType(job_type), JobStatus(status))] = count
    return QueueMetrics(
        jobs=jobs,
        dead_last_hour=dead_last_hour,
        oldest_due_seconds=oldest,
        expired_leases=expired,
        history_is_estimate=estimate,
    )


def hourly_costs(hours: int = 24) -> list[HourlyCost]:
    """Cost (AI and proxy apart), volume and mean duration of finished searches per hour."""
    with observing() as alias:
        rows = _run(HOURLY_COSTS_SQL, {"hours": hours}, using=alias)
    return [
        HourlyCost(hour=hour, jobs=jobs, ai_usd=float(ai), proxy_usd=float(proxy), mean_duration_ms=float(duration))
        for hour, jobs, ai, proxy, duration in rows
    ]


def list_jobs(
    *,
    status: JobStatus | None = None,
    q: str | None = None,
    owner_id: int | None = None,
    page: int = 1,
    page_size: int = 50,
) -> JobPage:
    """Newest jobs first, filtered by status, by product code or name and by owner; with the total count."""
    with observing() as alias:
        jobs = Job.objects.using(alias).order_by("-created_at")
        if owner_id is not None:
            jobs = jobs.filter(owner_id=owner_id)
        if status is not None:
            jobs = jobs.filter(status=status)
        if q:
            jobs = jobs.filter(payload__product_code=q) | jobs.filter(payload__product_name__icontains=q)
        total = count_rows(jobs)
        offset = (max(page, 1) - 1) * page_size
        return JobPage(
            total=total.count, jobs=list(jobs[offset : offset + page_size]), total_is_estimate=total.is_estimate
        )


def listen_connection(using: str = "default") -> psycopg.Connection:
    """Open a dedicated autocommit connection that LISTENs on NOTIFY_CHANNEL (read it with .notifies()).

    It is not Django's connection: it must stay in autocommit and idle between notifications, and it
    cannot go through a pooler in transaction mode (use a poll-only worker there).
    """
    params = connections[using].get_connection_params()
    params.pop("cursor_factory", None)
    try:
        conn = psycopg.connect(**params, autocommit=True)
    except psycopg.Error as exc:
        raise QueueUnavailable(f"QueueUnavailable: cannot LISTEN: {exc}") from exc
    try:
        conn.execute(LISTEN_SQL)
    except psycopg.Error as exc:
        conn.close()
        raise QueueUnavailable(f"QueueUnavailable: cannot LISTEN: {exc}") from exc
    return conn


def ping() -> bool:
    """Tell whether the primary database answers."""
    try:
        return _run(PING_SQL) == [(1,)]
    except QueueUnavailable:
        return False
