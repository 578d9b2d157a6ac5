"""What observers read of the queue: one job, counts, the ops snapshot, a metrics scrape's numbers and pages of jobs.

None of it moves a job (jobs/queue.py does that). One job by id (`visible_job`, a client polling its job) is read
from the primary, so that a client reads its own writes; every other read goes to the observing database alias (a
replica when one is configured) and walks index ranges, so that it costs the same on a small or a huge table.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import connections
from django.db.models import Q, QuerySet

from jobs import handlers
from jobs.exceptions import JobDeadlineExceeded
from jobs.models import Job, JobStatus
from jobs.row_counts import count_rows
from jobs.statements import run, with_status_codes
from lps_site.db_router import observing

STUCK_RUNNING_AFTER = timedelta(minutes=10)
# Past this many rows an exact count of DONE jobs costs more than a dashboard view should; use the
# planner's estimate instead (the snapshot says when it did).
EXACT_DONE_COUNT_LIMIT = 200_000

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
# each part to one owner's jobs (a fixed SQL fragment, never a value); the status codes are filled in at import.
_SNAPSHOT = """
SELECT
    (SELECT count(*) FROM job WHERE {mine}status = {PENDING}) AS pending,
    (SELECT count(*) FROM job WHERE {mine}status = {RUNNING}) AS running,
    (SELECT count(*) FROM job WHERE {mine}status = {DEAD}) AS dead,
    (SELECT count(*) FROM job WHERE {mine}status = {DEAD} AND updated_at > now() - interval '1 hour')
        AS dead_last_hour,
    (SELECT count(*) FROM job
      WHERE {mine}status = {RUNNING}
        AND (lease_until < now() OR run_started_at < now() - make_interval(secs => %(stuck_seconds)s)))
        AS stuck,
    (SELECT extract(epoch FROM now() - min(created_at)) FROM job WHERE {mine}status = {PENDING} AND run_after <= now())
        AS oldest_pending_seconds,
    (SELECT count(*) FROM job
      WHERE {mine}status IN ({EVERY_STATUS}) AND updated_at > now() - interval '1 hour'
        AND last_error_kind = %(deadline_kind)s) AS deadline_kills_last_hour,
    (SELECT count(*) FROM job WHERE {mine}status = {DONE} AND updated_at > now() - interval '1 hour')
        AS done_last_hour
"""

# The ops snapshot of the whole queue.
SNAPSHOT_SQL = with_status_codes(_SNAPSHOT, mine="")

# The ops snapshot of one owner's jobs (the owner indexes serve each part).
OWNER_SNAPSHOT_SQL = with_status_codes(_SNAPSHOT, mine="owner_id = %(owner_id)s AND ")


# --- What a /metrics scrape reads (jobs/metrics.py). Each exact part walks one index range of the active rows
# or of the last hour, never the history that retention keeps (DONE 7 days, DEAD 30), so a scrape costs the same
# with ten thousand or ten million jobs in the table.

# Active jobs by type and status, exact: these rows are the backlog.
METRICS_ACTIVE_SQL = with_status_codes(
    """
SELECT job_type, status, count(*) FROM job WHERE status IN ({ACTIVE}) GROUP BY job_type, status
"""
)

# Jobs that went DEAD in the last hour, by type: one range of job_status_updated_idx (a DEAD row changes only
# when it dies or is requeued).
METRICS_DEAD_LAST_HOUR_SQL = with_status_codes(
    """
SELECT job_type, count(*) FROM job WHERE status = {DEAD} AND updated_at > now() - interval '1 hour' GROUP BY job_type
"""
)

# Per job type, seconds since its longest-waiting due PENDING job became claimable (NULL: none is due); one
# descent of job_claim_idx per type, stopping at the first row of that type.
METRICS_OLDEST_DUE_SQL = with_status_codes(
    """
SELECT types.job_type,
       (SELECT extract(epoch FROM now() - job.run_after)::float8
          FROM job
         WHERE job.status = {PENDING} AND job.run_after <= now() AND job.job_type = types.job_type
         ORDER BY job.run_after
         LIMIT 1)
FROM unnest(%(job_types)s::smallint[]) AS types(job_type)
"""
)

# RUNNING jobs whose lease ran out (what the reaper will reclaim): one range of job_lease_idx.
METRICS_EXPIRED_LEASES_SQL = with_status_codes(
    """
SELECT count(*) FROM job WHERE status = {RUNNING} AND lease_until < now()
"""
)

# DONE and DEAD jobs by type, exact (asked only while the table holds at most EXACT_DONE_COUNT_LIMIT rows).
METRICS_HISTORY_SQL = with_status_codes(
    """
SELECT job_type, status, count(*) FROM job WHERE status IN ({FINISHED}) GROUP BY job_type, status
"""
)

# The planner's estimate of the jobs of one type in one status: a plan from the table statistics, not a scan.
METRICS_ESTIMATE_SQL = """
EXPLAIN (FORMAT JSON) SELECT 1 FROM job WHERE status = %(status)s AND job_type = %(job_type)s
"""


@dataclass(frozen=True)
class OpsSnapshot:
    """What an operator checks first: is the queue healthy."""

    pending: int
    running: int
    done: int
    dead: int
    dead_last_hour: int
    stuck: int
    oldest_pending_seconds: float | None
    deadline_kills_last_hour: int
    done_last_hour: int
    done_is_estimate: bool = False

    def as_dict(self) -> dict:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {key: value for key, value in data.items() if value is not None}


@dataclass(frozen=True)
class QueueMetrics:
    """What a metrics scrape reports of the queue, read from the database at scrape time."""

    jobs: dict[tuple[int, JobStatus], int]
    """Jobs per (type, status); every pair of a registered type present. DONE and DEAD are the planner's estimates when
    history_is_estimate."""
    dead_last_hour: dict[int, int]
    """Jobs of each type that went DEAD in the last hour (exact)."""
    oldest_due_seconds: dict[int, float]
    """Per type, how long its longest-waiting due PENDING job has been claimable (0 when none is due)."""
    expired_leases: int
    history_is_estimate: bool


@dataclass(frozen=True)
class JobPage:
    total: int
    jobs: list[Job] = field(default_factory=list)
    total_is_estimate: bool = False
    """Past jobs.row_counts.EXACT_COUNT_LIMIT matches, `total` is the planner's estimate."""


# --- Observing ---------------------------------------------------------------------------------------------


def counts(*, owner_id: int | None = None) -> dict[str, int]:
    """Jobs per status name (every status present, zero when empty); only `owner_id`'s jobs when given."""
    with observing() as alias:
        if owner_id is None:
            rows = dict(run(COUNTS_SQL, using=alias))
        else:
            rows = dict(run(OWNER_COUNTS_SQL, {"owner_id": owner_id}, using=alias))
    return {status.label: rows.get(int(status), 0) for status in JobStatus}


def snapshot(*, owner_id: int | None = None) -> OpsSnapshot:
    """The ops snapshot (only `owner_id`'s jobs when given); DONE is estimated on very large tables."""
    params = {
        "stuck_seconds": STUCK_RUNNING_AFTER.total_seconds(),
        "owner_id": owner_id,
        "deadline_kind": JobDeadlineExceeded.__name__,
    }
    with observing() as alias:
        if owner_id is not None:
            row = run(OWNER_SNAPSHOT_SQL, params, using=alias)[0]
            done = count_rows(Job.objects.using(alias).filter(owner_id=owner_id, status=JobStatus.DONE))
            return _ops_snapshot(row, done=done.count, done_is_estimate=done.is_estimate)
        row = run(SNAPSHOT_SQL, params, using=alias)[0]
        pending, running, dead = row[:3]
        estimated_rows = run(ESTIMATED_ROWS_SQL, using=alias)[0][0]
        if estimated_rows > EXACT_DONE_COUNT_LIMIT:
            return _ops_snapshot(row, done=max(0, estimated_rows - pending - running - dead), done_is_estimate=True)
        done = Job.objects.using(alias).filter(status=JobStatus.DONE).count()
    return _ops_snapshot(row, done=done, done_is_estimate=False)


def _ops_snapshot(row: tuple, *, done: int, done_is_estimate: bool) -> OpsSnapshot:
    """An OpsSnapshot from a row of SNAPSHOT_SQL or OWNER_SNAPSHOT_SQL and the DONE count taken beside it."""
    pending, running, dead, dead_last_hour, stuck, oldest, deadline_kills, done_last_hour = row
    return OpsSnapshot(
        pending=pending,
        running=running,
        done=done,
        dead=dead,
        dead_last_hour=dead_last_hour,
        stuck=stuck,
        oldest_pending_seconds=float(oldest) if oldest is not None else None,
        deadline_kills_last_hour=deadline_kills,
        done_last_hour=done_last_hour,
        done_is_estimate=done_is_estimate,
    )


def queue_metrics(*, exact_history_limit: int = EXACT_DONE_COUNT_LIMIT) -> QueueMetrics:
    """The queue's numbers for a metrics scrape; DONE and DEAD are estimated past `exact_history_limit` rows."""
    types = list(handlers.registered())
    with observing() as alias:
        jobs = {(job_type, status): 0 for job_type in types for status in JobStatus}
        for job_type, status, count in run(METRICS_ACTIVE_SQL, using=alias):
            jobs[(job_type, JobStatus(status))] = count
        dead_last_hour = dict.fromkeys(types, 0)
        for job_type, count in run(METRICS_DEAD_LAST_HOUR_SQL, using=alias):
            dead_last_hour[job_type] = count
        oldest = {
            job_type: float(seconds or 0.0)
            for job_type, seconds in run(METRICS_OLDEST_DUE_SQL, {"job_types": [int(t) for t in types]}, using=alias)
        }
        expired = run(METRICS_EXPIRED_LEASES_SQL, using=alias)[0][0]
        estimate = run(ESTIMATED_ROWS_SQL, using=alias)[0][0] > exact_history_limit
        if estimate:
            for job_type in types:
                for status in (JobStatus.DONE, JobStatus.DEAD):
                    params = {"status": int(status), "job_type": int(job_type)}
                    plan = run(METRICS_ESTIMATE_SQL, params, using=alias)[0][0]
                    plan = json.loads(plan) if isinstance(plan, str) else plan
                    jobs[(job_type, status)] = int(plan[0]["Plan"]["Plan Rows"])
        else:
            for job_type, status, count in run(METRICS_HISTORY_SQL, using=alias):
                jobs[(job_type, JobStatus(status))] = count
    return QueueMetrics(
        jobs=jobs,
        dead_last_hour=dead_last_hour,
        oldest_due_seconds=oldest,
        expired_leases=expired,
        history_is_estimate=estimate,
    )


# --- One job by id --------------------------------------------------------------------------------------------
# GET /v1/lps/jobs/{id} is what clients call most (they poll their jobs), and compiling its query was the largest
# share of its CPU. So its statement is compiled by the ORM once per process, from `job_query`'s queryset with
# stand-in values, and each read only binds the two values and builds the Job from the row as the ORM does. The
# statement is prepared once per connection (lps_site/postgres_backend's prepared_cursor), not planned on each read.
# tests/jobs/test_queue_reads.py holds what is executed to what the ORM produces for the same values.

# Stand-ins the statement is compiled with: each placeholder of the compiled statement is told apart by its value.
_COMPILE_JOB_ID = uuid.UUID(int=0)
_COMPILE_OWNER_ID = -1


def job_query(job_id: uuid.UUID, *, owner_id: int | None) -> QuerySet[Job]:
    """The ORM's read of job `job_id`, narrowed to `owner_id`'s jobs unless it is None: what visible_job runs."""
    jobs = Job.objects.using("default")
    if owner_id is not None:
        jobs = jobs.filter(owner_id=owner_id)
    return jobs.filter(job_id=job_id)[:1]


@dataclass(frozen=True)
class _CompiledRead:
    sql: str
    parameters: tuple[str, ...]
    """What each placeholder takes, in order: "job_id" or "owner_id"."""
    fields: tuple[str, ...]
    """The attribute names of the row's columns, in order (Job.from_db's `field_names`)."""
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]
    """(column, the ORM's converters of its value, the expression they are called with), as the compiler has them."""


@functools.cache
def _compiled_read(*, owner_scoped: bool) -> _CompiledRead:
    queryset = job_query(_COMPILE_JOB_ID, owner_id=_COMPILE_OWNER_ID if owner_scoped else None)
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    names = {_COMPILE_JOB_ID: "job_id", _COMPILE_OWNER_ID: "owner_id"}
    parameters = tuple(names.get(value, "?") for value in params)
    if sorted(parameters) != (["job_id", "owner_id"] if owner_scoped else ["job_id"]):
        # Another Django may bind other values: fail at the first read rather than read the wrong job.
        raise RuntimeError(f"the job read compiled to unexpected parameters {params!r}")
    columns = [column for column, _, _ in compiler.select]
    converters = compiler.get_converters(columns)
    return _CompiledRead(
        sql=sql,
        parameters=parameters,
        fields=tuple(column.target.attname for column in columns),
        converters=tuple(
            (index, tuple(functions), expression) for index, (functions, expression) in converters.items()
        ),
    )


def visible_job(job_id: uuid.UUID, *, owner_id: int | None) -> Job | None:
    """Job `job_id` when it exists and belongs to `owner_id` (None: whoever owns it), else None; from the primary."""
    read = _compiled_read(owner_scoped=owner_id is not None)
    values = {"job_id": job_id, "owner_id": owner_id}
    connection = connections["default"]
    with connection.prepared_cursor() as cursor:
        cursor.execute(read.sql, [values[name] for name in read.parameters])
        row = cursor.fetchone()
    if row is None:
        return None
    row = list(row)
    for index, functions, expression in read.converters:
        for function in functions:
            row[index] = function(row[index], expression, connection)
    return Job.from_db("default", read.fields, row)


def list_jobs(
    *,
    status: JobStatus | None = None,
    matching: Q | None = None,
    owner_id: int | None = None,
    page: int = 1,
    page_size: int = 50,
) -> JobPage:
    """Newest jobs first, filtered by status, by owner and by `matching` (the caller's own predicate, e.g. a
    lookup in the payload); with the total count."""
    with observing() as alias:
        jobs = Job.objects.using(alias).order_by("-created_at")
        if owner_id is not None:
            jobs = jobs.filter(owner_id=owner_id)
        if status is not None:
            jobs = jobs.filter(status=status)
        if matching is not None:
            jobs = jobs.filter(matching)
        total = count_rows(jobs)
        offset = (max(page, 1) - 1) * page_size
        return JobPage(
            total=total.count, jobs=list(jobs[offset : offset + page_size]), total_is_estimate=total.is_estimate
        )
