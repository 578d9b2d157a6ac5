"""Helpers of the watch tests: watches made in bulk and made due, scheduler processes, and a worker that drains."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

from jobs import handlers
from jobs.worker import Worker
from lps_site.job_types import JobType
from tests.addresses import database_url
from watches import store
from watches.spec import WatchProduct

ROOT = Path(__file__).resolve().parents[2]

# A scheduler process: says it is ready, waits for a line on stdin (so that several start together), then runs
# passes of `batch` watches until one comes back empty and prints how many it scheduled.
SCHEDULER_SCRIPT = """
import django, sys
django.setup()
from watches.schedule import schedule_due
from django.db import connection
connection.ensure_connection()
batch = int(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
total = 0
while True:
    scheduled = len(schedule_due(batch))
    total += scheduled
    if scheduled == 0:
        break
print(total, flush=True)
"""


def make_watches(client_id: int, count: int, *, every: str = "1h", prefix: str = "W", **fields) -> None:
    """`count` watches of `client_id`, upserted in batches as the API does."""
    specs = [
        WatchProduct(product_code=f"{prefix}{index}", product_name=f"상품 {index}", every=every, **fields)
        for index in range(count)
    ]
    for start in range(0, count, 1000):
        store.upsert(client_id, specs[start : start + 1000])


def make_due(seconds_ago: float = 60.0, **filters) -> None:
    """Move the watches' due time (and grid) into the past: as if their time came while the test waited."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE watch SET next_run_at = now() - make_interval(secs => %(ago)s),"
            " schedule_anchor = now() - make_interval(secs => %(ago)s)",
            {"ago": seconds_ago},
        )


def scheduler_process(batch: int = 50) -> subprocess.Popen:
    """A scheduler process, ready to go (see start_schedulers)."""
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "lps_site.settings"}
    process = subprocess.Popen(
        [sys.executable, "-c", SCHEDULER_SCRIPT, str(batch)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the scheduler did not start: {process.stderr.read()[-2000:]}")
    return process


def start_schedulers(*processes: subprocess.Popen) -> None:
    """Let the ready scheduler processes run their passes, all at once."""
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in processes:
        process.stdin.close()


def run_worker() -> None:
    """Drain every due SEARCH, OUTBOX and WATCH_EVENT job with a real worker, then return."""
    types = (JobType.SEARCH, JobType.OUTBOX, JobType.WATCH_EVENT)
    worker = Worker(
        {job_type: handlers.get(job_type) for job_type in types},
        concurrency={JobType.SEARCH: 2, JobType.OUTBOX: 2, JobType.WATCH_EVENT: 2},
        burst=True,
        poll_only=True,
        poll_interval=0.2,
        shutdown_hooks=[],
    )
    assert worker.run() == 0


def finish(process: subprocess.Popen, *, timeout: float = 300) -> tuple[str, str]:
    """Wait for a started scheduler process; return its stdout and stderr (its pipes closed)."""
    try:
        out, err = process.stdout.read(), process.stderr.read()
        process.wait(timeout=timeout)
        return out, err
    finally:
        process.stdout.close()
        process.stderr.close()


class HttpCaller:
    """A client of a live server over real HTTP (pytest-django's live_server), with one API key."""

    def __init__(self, base_url: str, api_key: str):
        self.base_url = base_url
        self.api_key = api_key

    def request(self, method: str, path: str, body=None, **params):
        import requests

        return requests.request(
            method,
            self.base_url + path,
            params=params or None,
            json=body,
            headers={"X-API-Key": self.api_key},
            timeout=30,
        )

    def get(self, path: str, **params):
        return self.request("GET", path, **params)

    def post(self, path: str, body=None, **params):
        return self.request("POST", path, body if body is not None else {}, **params)

    def delete(self, path: str, **params):
        return self.request("DELETE", path, **params)
