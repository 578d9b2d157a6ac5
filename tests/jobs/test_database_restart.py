"""A database restart in the middle of a run: the worker rides it out and every job still finishes once.

The test starts its own PostgreSQL (the embedded binaries, on a free port, data in a temporary folder) so
that it can stop and start it without disturbing the shared server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import psycopg
import pytest

from tests.jobs.conftest import PROJECT_DIR, wait_until
from tests.jobs.private_postgres import PrivatePostgres, running_private_postgres
from tests.jobs.scripted import read_records, starts_by_job

pytestmark = pytest.mark.slow


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    with running_private_postgres() as server:
        yield server


def _manage(url: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=PROJECT_DIR,
        env={**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "lps_site.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _enqueue(url: str, count: int, payload: dict) -> list[str]:
    out = _manage(
        url, "-m", "tests.jobs.worker_process", "enqueue", "--count", str(count), "--payload", json.dumps(payload)
    )
    return json.loads(out)


def _statuses(url: str) -> dict[int, int]:
    try:
        with psycopg.connect(url, connect_timeout=2) as conn:
            return dict(conn.execute("SELECT status, count(*) FROM job GROUP BY status").fetchall())
    except psycopg.OperationalError:
        return {}


def test_a_database_restart_during_a_run_leaves_every_job_finished_exactly_once(
    private_postgres, worker_process, record_path
):
    with psycopg.connect(private_postgres.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE lps_restart")
    url = private_postgres.url("lps_restart")
    _manage(url, "manage.py", "migrate", "--verbosity", "0")
    worker = worker_process("--poll-interval", "60", "--outbox-concurrency", "4", url=url)
    worker.wait_ready()
    job_ids = _enqueue(url, 8, {"sleep": 1.0})
    wait_until(lambda: _statuses(url).get(2) == 4, timeout=10, message="four jobs to run")

    private_postgres.stop()
    wait_until(lambda: "database unavailable" in worker.log(), timeout=10, message="the worker to notice the outage")
    # The four handlers finish while the database is down; their outcomes wait in the worker.
    wait_until(
        lambda: sum(line["event"] == "finish" for line in read_records(record_path)) >= 4,
        timeout=10,
        message="the running handlers to finish during the outage",
    )
    private_postgres.start()

    wait_until(lambda: _statuses(url) == {3: 8}, timeout=30, interval=0.2, message="all eight jobs to be done")
    assert "database back" in worker.log()
    # LISTEN came back too: a new job starts long before the one-minute poll.
    sent = time.time()
    [late_id] = _enqueue(url, 1, {"sent_at": sent})
    wait_until(lambda: _statuses(url) == {3: 9}, timeout=15, interval=0.1, message="the new job to be done")
    late_start = next(line["t"] for line in read_records(record_path) if line["job_id"] == late_id)
    assert late_start - sent < 15  # the poll is a minute away; the listener retries every 2 s at most

    worker.signal(signal.SIGTERM)
    assert worker.wait() == 0
    assert starts_by_job(record_path) == dict.fromkeys([*job_ids, late_id], 1)
