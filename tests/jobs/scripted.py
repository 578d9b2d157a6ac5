"""Handlers for the worker tests: what each job does is scripted by its payload, and every run is recorded.

Each run appends JSON lines to a record file (one `write` of a short line with O_APPEND, so lines from many
processes never interleave): `start` when the handler begins, then `finish`, `failed`, `cancelled` or
`stopped`. A job that ran twice shows two `start` lines, whichever process ran it.

Payload keys (all optional):
- `sleep`: seconds to wait, cooperatively (returns early when `context.cancelled` is set);
- `sleep_first_run`: like `sleep`, but only when the record holds no earlier start of this job;
- `spin`: seconds of a pure-Python busy loop that ignores `context.cancelled` (only an injected exception
  stops it);
- `fail_attempts`: raise a retryable ScriptedFailure while the attempt number is at most this;
- `permanent`: raise a non-retryable PermanentFailure;
- `bad_result`: return something jsonb cannot hold (`object`, `nul` or `nan`);
- `result`: return this instead of the usual summary.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

from jobs import handlers
from jobs.exceptions import JobDeadlineExceeded, JobsError
from jobs.handlers import JobContext, Registration
from jobs.queue import ClaimedJob
from lps_site.job_types import JobType


class ScriptedFailure(JobsError):
    """The scripted handler failed as asked (a technical failure)."""

    retryable = True


class PermanentFailure(JobsError):
    """The scripted handler failed for good as asked."""

    retryable = False


def record(path: Path, event: str, job: ClaimedJob, context: JobContext, **extra) -> None:
    line = {
        "event": event,
        "job_id": str(job.job_id),
        "attempt": job.attempt,
        "worker_id": context.worker_id,
        "pid": os.getpid(),
        "t": time.time(),
        **extra,
    }
    data = (json.dumps(line) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def starts_by_job(path: Path) -> dict[str, int]:
    """How many times each job's handler started."""
    counts: dict[str, int] = {}
    for line in read_records(path):
        if line["event"] == "start":
            counts[line["job_id"]] = counts.get(line["job_id"], 0) + 1
    return counts


def scripted_handler(record_path: Path):
    """Build a handler that follows its job's payload and records into `record_path`."""

    def handle(job: ClaimedJob, context: JobContext) -> dict | None:
        payload = job.payload
        earlier_starts = starts_by_job(record_path).get(str(job.job_id), 0) if "sleep_first_run" in payload else 0
        record(record_path, "start", job, context, sent_at=payload.get("sent_at"))
        try:
            seconds = payload.get("sleep", 0)
            if "sleep_first_run" in payload and not earlier_starts:
                seconds = payload["sleep_first_run"]
            if seconds and context.cancelled.wait(seconds):
                record(record_path, "cancelled", job, context)
                return {"cancelled": True}
            if payload.get("spin"):
                until = time.monotonic() + payload["spin"]
                spins = 0
                while time.monotonic() < until:
                    spins += 1
            if job.attempt <= payload.get("fail_attempts", 0):
                raise ScriptedFailure(f"scripted failure of attempt {job.attempt}")
            if payload.get("permanent"):
                raise PermanentFailure("this job can never succeed")
        except JobDeadlineExceeded:
            record(record_path, "stopped", job, context)
            raise
        except JobsError:
            record(record_path, "failed", job, context)
            raise
        record(record_path, "finish", job, context)
        bad_results = {"object": {"not json": object()}, "nul": {"title": "a\x00b"}, "nan": {"price": float("nan")}}
        if payload.get("bad_result"):
            return bad_results[payload["bad_result"]]
        if "result" in payload:
            return payload["result"]
        return {"worker_id": context.worker_id, "attempt": job.attempt, "pid": os.getpid()}

    return handle


def scripted_registration(job_type: JobType, handler) -> Registration:
    """`job_type`'s registration (its label, deadline and lane) with `handler` in place of its own."""
    return replace(handlers.get(job_type), handler=handler)


def scripted_registry(record_path: Path) -> dict[JobType, Registration]:
    """Both job types run the scripted handler, under their usual deadline settings."""
    handler = scripted_handler(record_path)
    return {
        JobType.SEARCH: scripted_registration(JobType.SEARCH, handler),
        JobType.OUTBOX: scripted_registration(JobType.OUTBOX, handler),
    }
