"""The job queue's transitions: every statement that moves a job between states lives here.

Each operation is one SQL statement. Each transition is a compare-and-set: its WHERE clause names the state,
the owner (worker_id) and the attempt it expects, so a caller that lost a race changes nothing and is told
so by a `Lost` result. Parameters are always named; nothing here formats values into SQL (the status codes are
constants, filled into each statement's text once at import: see jobs.statements.with_status_codes). What
observers read (counts, the ops snapshot, metrics, lists) is in jobs/queue_reads.py.
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
from django.db import DatabaseError, DataError, IntegrityError, connections, transaction
from django.utils import timezone
from psycopg import sql
from psycopg.types.json import Jsonb

from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound, QueueDataRefused, QueueUnavailable
from jobs.models import Job, JobStatus, Priority
from jobs.statements import execute as _execute
from jobs.statements import run as _run
from jobs.statements import with_status_codes

NOTIFY_CHANNEL = "lps_jobs"
# The last_error_kind of the transitions that fail an attempt without an exception of their own.
LEASE_EXPIRED = "LeaseExpired"
RELEASED = "Released"

# --- SQL ---------------------------------------------------------------------------------------------------

# Insert jobs from a JSON array; a row whose dedupe_key is already active returns that job's id instead.
# DO UPDATE (a no-op) rather than DO NOTHING so that RETURNING yields the active twin even when it was
# committed by a concurrent transaction after this statement's snapshot. pg_notify fires on commit.
ENQUEUE_SQL = with_status_codes(
    """
WITH input AS (
    SELECT *
    FROM jsonb_to_recordset(%(jobs)s::jsonb) AS x(
        ord int, job_type smallint, priority smallint, payload jsonb, dedupe_key varchar(255),
        max_attempts smallint, delay_seconds double precision, owner_id bigint
    )
),
upserted AS (
    INSERT INTO job (job_type, status, priority, payload, dedupe_key, attempts, max_attempts, run_after, owner_id)
    SELECT job_type, {PENDING}, priority, payload, dedupe_key, 0, max_attempts,
           now() + make_interval(secs => delay_seconds), owner_id
    FROM input
    ORDER BY ord
    ON CONFLICT (dedupe_key) WHERE status IN ({ACTIVE})
    DO UPDATE SET dedupe_key = EXCLUDED.dedupe_key
    RETURNING job_id, dedupe_key, job_type, (xmax = 0) AS inserted
)
SELECT job_id, dedupe_key, inserted,
       CASE WHEN inserted THEN pg_notify(%(channel)s, job_type::text) END
FROM upserted
"""
)

# The parts the claim and complete statements share, so that each rule is written once.
_DUE_JOBS = with_status_codes(
    """
    SELECT job_id
    FROM job
    WHERE status = {PENDING}
      AND run_after <= now()
      AND (%(job_types)s::smallint[] IS NULL OR job_type = ANY(%(job_types)s::smallint[]))
    ORDER BY priority, created_at
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED"""
)
"""Up to %(limit)s due PENDING jobs (of %(job_types)s, or of any type when NULL), by priority then age, locked
(SKIP LOCKED) for the lease below."""

_LEASE_DUE_JOBS = with_status_codes(
    """
    UPDATE job
    SET status = {RUNNING},
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
)
"""PENDING → RUNNING for the rows of `next_jobs`, leased to %(worker_id)s."""

# (The job_id = ANY(...) beside the unnest join lets the planner reach the rows through the primary key,
# rather than through every RUNNING row of every worker.)
_FINISH_HELD = with_status_codes(
    """
    UPDATE job
    SET status = {DONE}, result = finished.result, lease_until = NULL, updated_at = now()
    FROM unnest(%(job_ids)s::uuid[], %(attempts)s::smallint[], %(results)s::jsonb[])
         AS finished(job_id, attempt, result)
    WHERE job.job_id = finished.job_id
      AND job.job_id = ANY(%(job_ids)s::uuid[])
      AND job.status = {RUNNING}
      AND job.worker_id = %(worker_id)s
      AND job.attempts = finished.attempt
    RETURNING job.job_id"""
)
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
FAIL_SQL = with_status_codes(
    """
UPDATE job
SET status = CASE WHEN %(retryable)s AND attempts < max_attempts THEN {PENDING} ELSE {DEAD} END,
    run_after = CASE WHEN %(retryable)s AND attempts < max_attempts
                     THEN now() + make_interval(secs => %(retry_in_seconds)s) ELSE run_after END,
    lease_until = NULL,
    last_error = %(error)s,
    last_error_kind = %(error_kind)s,
    updated_at = now()
WHERE job_id = %(job_id)s AND status = {RUNNING} AND worker_id = %(worker_id)s AND attempts = %(attempt)s
RETURNING status, run_after
"""
)

# Hand back a held attempt that never ran to its end (shutdown): PENDING at once, the attempt not counted.
RELEASE_SQL = with_status_codes(
    """
UPDATE job
SET status = {PENDING}, attempts = attempts - 1, run_after = now(), lease_until = NULL,
    last_error = %(error_kind)s || ': ' || %(reason)s, last_error_kind = %(error_kind)s, updated_at = now()
WHERE job_id = %(job_id)s AND status = {RUNNING} AND worker_id = %(worker_id)s AND attempts = %(attempt)s
RETURNING pg_notify(%(channel)s, job_type::text)
"""
)

# Extend the leases of the jobs this worker still holds; returns the ones it still holds.
RENEW_LEASES_SQL = with_status_codes(
    """
UPDATE job
SET lease_until = now() + make_interval(secs => %(lease_seconds)s), updated_at = now()
FROM unnest(%(job_ids)s::uuid[], %(attempts)s::smallint[]) AS held(job_id, attempt)
WHERE job.job_id = held.job_id
  AND job.job_id = ANY(%(job_ids)s::uuid[])
  AND job.status = {RUNNING}
  AND job.worker_id = %(worker_id)s
  AND job.attempts = held.attempt
RETURNING job.job_id
"""
)

# Reclaim RUNNING jobs whose lease ran out: PENDING again, or DEAD when their attempts are spent.
REAP_SQL = with_status_codes(
    """
WITH expired AS (
    SELECT job_id
    FROM job
    WHERE status = {RUNNING} AND lease_until < now()
    ORDER BY lease_until
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
UPDATE job
SET status = CASE WHEN job.attempts >= job.max_attempts THEN {DEAD} ELSE {PENDING} END,
    run_after = now(),
    lease_until = NULL,
    last_error = %(error_kind)s || ': reclaimed from worker ' || coalesce(job.worker_id, '?')
                 || ' whose lease ran out during attempt ' || job.attempts,
    last_error_kind = %(error_kind)s,
    updated_at = now()
FROM expired
WHERE job.job_id = expired.job_id
RETURNING job.job_id, job.status, job.job_type, job.attempts, job.worker_id,
          CASE WHEN job.status = {PENDING} THEN pg_notify(%(channel)s, job.job_type::text) END
"""
)

# Operator: a DEAD job back to PENDING with its attempts reset (the partial unique index refuses it
# while a twin with the same dedupe_key is active).
REQUEUE_SQL = with_status_codes(
    """
UPDATE job
SET status = {PENDING}, attempts = 0, run_after = now(), lease_until = NULL, updated_at = now()
WHERE job_id = %(job_id)s AND status = {DEAD}
RETURNING job_id, pg_notify(%(channel)s, job_type::text)
"""
)

# Add keys to the payload of a job that has not started yet (a later caller asks more of a job already queued).
AMEND_PENDING_SQL = with_status_codes(
    """
UPDATE job
SET payload = payload || %(patch)s::jsonb, updated_at = now()
WHERE job_id = %(job_id)s AND status = {PENDING}
RETURNING job_id
"""
)

# Who holds a dedupe_key now (to name the twin that blocks a requeue).
ACTIVE_TWIN_SQL = with_status_codes(
    """
SELECT job_id FROM job WHERE dedupe_key = %(dedupe_key)s AND status IN ({ACTIVE}) LIMIT 1
"""
)

# Delete finished jobs of one status older than a cut-off, at most %(limit)s rows per call.
PRUNE_SQL = """
DELETE FROM job
WHERE job_id IN (
    SELECT job_id FROM job
    WHERE status = %(status)s AND updated_at < %(before)s
    LIMIT %(limit)s
)
"""


# Is the database there?
PING_SQL = "SELECT 1"

# Subscribe a dedicated connection to the wake-ups that enqueue, release, reap and requeue send (LISTEN takes
# no parameter: the channel is quoted as an identifier, once, here).
LISTEN_SQL = sql.SQL("LISTEN {}").format(sql.Identifier(NOTIFY_CHANNEL)).as_string()


# --- Values ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewJob:
    """A job to enqueue."""

    job_type: int
    """The number job.job_type stores (the apps' catalogue; jobs.handlers names it)."""
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
    job_type: int
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
    job_type: int | None = field(default=None, compare=False)
    attempt: int | None = field(default=None, compare=False)
    worker_id: str | None = field(default=None, compare=False)


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
    except DataError as exc:
        raise QueueDataRefused(str(exc)) from exc
    except DatabaseError as exc:
        connections[using].close_if_unusable_or_obsolete()
        raise QueueUnavailable(str(exc)) from exc


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
    returned = _run(ENQUEUE_SQL, {"jobs": Jsonb(rows), "channel": NOTIFY_CHANNEL})
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
    job_types: Iterable[int] | None = None,
    lease_seconds: float = 60.0,
) -> list[ClaimedJob]:
    """Lease up to `limit` due jobs (optionally only of `job_types`) to `worker_id`.

    CLAIM_SQL is built from the pieces it shares with COMPLETE_AND_CLAIM_SQL; whole, it reads (1 is PENDING,
    2 RUNNING; tests/jobs/test_queue.py checks that this text is what runs)::

        WITH next_jobs AS (
            SELECT job_id
            FROM job
            WHERE status = 1
              AND run_after <= now()
              AND (%(job_types)s::smallint[] IS NULL OR job_type = ANY(%(job_types)s::smallint[]))
            ORDER BY priority, created_at
            LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED
        )
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
                  extract(epoch FROM job.created_at)::float8 AS created_at
    """
    types = None if job_types is None else [int(t) for t in job_types]
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
            job_type=job_type,
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
    job_types: Iterable[int],
    lease_seconds: float = 60.0,
) -> tuple[list[Transition], list[ClaimedJob]]:
    """Finish `worker_id`'s attempts and lease up to `limit` due jobs of `job_types`, in one statement.

    Returns one Transition per finished attempt (in order) and the jobs now leased.

    COMPLETE_AND_CLAIM_SQL is built from the pieces it shares with CLAIM_SQL and COMPLETE_SQL. Whole, it reads as
    below (1 is PENDING, 2 RUNNING, 3 DONE; tests/jobs/test_queue.py checks that this text is what runs). The
    finished rows come back as (true, job_id, NULLs…); the claimed ones as (false, …). The NULL columns are
    typed so that the two halves of the UNION ALL agree::

        WITH done AS (
            UPDATE job
            SET status = 3, result = finished.result, lease_until = NULL, updated_at = now()
            FROM unnest(%(job_ids)s::uuid[], %(attempts)s::smallint[], %(results)s::jsonb[])
                 AS finished(job_id, attempt, result)
            WHERE job.job_id = finished.job_id
              AND job.job_id = ANY(%(job_ids)s::uuid[])
              AND job.status = 2
              AND job.worker_id = %(worker_id)s
              AND job.attempts = finished.attempt
            RETURNING job.job_id
        ),
        next_jobs AS (
            SELECT job_id
            FROM job
            WHERE status = 1
              AND run_after <= now()
              AND (%(job_types)s::smallint[] IS NULL OR job_type = ANY(%(job_types)s::smallint[]))
            ORDER BY priority, created_at
            LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED
        ),
        claimed AS (
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
                      extract(epoch FROM job.created_at)::float8 AS created_at
        )
        SELECT true AS finished, job_id, NULL::smallint, NULL::smallint, NULL::jsonb, NULL::varchar, NULL::smallint,
               NULL::smallint, NULL::float8, NULL::float8
        FROM done
        UNION ALL
        SELECT false, job_id, job_type, priority, payload, dedupe_key, attempts, max_attempts, lease_until, created_at
        FROM claimed
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


def fail(
    job: ClaimedJob,
    error: str,
    *,
    kind: str | None = None,
    retryable: bool = True,
    retry_in_seconds: float | None = None,
) -> Transition:
    """Fail the attempt: PENDING after a backoff while attempts remain (and the error is retryable), else DEAD.

    `error` is what last_error says ("Kind: message"); `kind` (an exception class name) is kept beside it as
    last_error_kind, so that failures are counted by kind without reading the text.
    """
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
            "error_kind": kind[:100] if kind else None,
        },
    )
    if not rows:
        return Lost(job.job_id)
    status, run_after = rows[0]
    return Moved(job.job_id, JobStatus(status), run_after)


def release(job: ClaimedJob, reason: str = "the worker shut down before the job finished") -> Transition:
    """Hand a held job back at once (shutdown): PENDING, the attempt not counted, workers woken."""
    rows = _run(
        RELEASE_SQL,
        {
            "job_id": job.job_id,
            "worker_id": job.worker_id,
            "attempt": job.attempt,
            "reason": reason,
            "error_kind": RELEASED,
            "channel": NOTIFY_CHANNEL,
        },
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
        Reaped(job_id, JobStatus(status), job_type, attempts, worker_id)
        for job_id, status, job_type, attempts, worker_id, _ in _run(
            REAP_SQL, {"limit": limit, "error_kind": LEASE_EXPIRED, "channel": NOTIFY_CHANNEL}
        )
    ]


def requeue(job_id: uuid.UUID | str) -> Moved:
    """Operator: move a DEAD job back to PENDING with its attempts reset, waking workers.

    Raises JobNotFound, JobNotDead, or DuplicateActiveJob when an active job holds its dedupe_key.
    """
    try:
        with transaction.atomic():
            rows = _run(REQUEUE_SQL, {"job_id": job_id, "channel": NOTIFY_CHANNEL})
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


def amend_pending(job_id: uuid.UUID | str, patch: dict) -> bool:
    """Merge `patch` into the payload of a PENDING job; False when it has started or ended (then it runs as it was)."""
    return bool(_run(AMEND_PENDING_SQL, {"job_id": job_id, "patch": Jsonb(patch)}))


def prune(*, status: JobStatus, older_than: timedelta, limit: int = 1000) -> int:
    """Delete up to `limit` jobs in `status` last changed before `older_than` ago; return how many."""
    if status not in (JobStatus.DONE, JobStatus.DEAD):
        raise ValueError("only finished jobs are pruned")
    _rows, deleted = _execute(PRUNE_SQL, {"status": int(status), "before": timezone.now() - older_than, "limit": limit})
    return deleted


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
        raise QueueUnavailable(f"cannot LISTEN: {exc}") from exc
    try:
        conn.execute(LISTEN_SQL)
    except psycopg.Error as exc:
        conn.close()
        raise QueueUnavailable(f"cannot LISTEN: {exc}") from exc
    return conn


def ping() -> bool:
    """Tell whether the primary database answers."""
    try:
        return _run(PING_SQL) == [(1,)]
    except QueueUnavailable:
        return False
