"""Queue benchmark (not a test): how fast jobs/queue.py and jobs/worker.py enqueue, drain and wake up.

    .venv/bin/python bench/queue_bench.py [--jobs 20000] [--anchors]

It uses its own database (`lps_bench`) on the server of DATABASE_URL (the embedded one when unset),
migrated and emptied between phases, and prints:
- enqueue rate, one statement per job and one statement for all;
- drain rate of --jobs no-op jobs with the queue primitives (claim 1 + complete, claim 100 + complete_many)
  and with the real Worker (threads, LISTEN, burst mode);
- wake-up latency p50/p95/p99 at 200 jobs/s: enqueue → handler start, through a Worker in another process
  that only LISTENs (its slow poll is a minute); again on a private fsync=off server, to show the disk's share.
With --anchors it installs pgqueuer and procrastinate into a side venv (/tmp/lps-bench-anchors), drains
the same number of no-op jobs with each on the same server (own databases), and prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

ANCHOR_VENV = Path(os.environ.get("LPS_BENCH_ANCHOR_VENV", "/tmp/lps-bench-anchors"))
ANCHOR_PACKAGES = ["pgqueuer", "procrastinate", "psycopg[binary]", "asyncpg"]
LATENCY_RATE = 200
LATENCY_JOBS = 1000
LATENCY_WARMUP = 20


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def recreate_database(url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(url, name)


# --- This project's queue --------------------------------------------------------------------------------


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()


def empty_queue() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE job")
        cursor.execute("VACUUM ANALYZE job")


def noop_registry():
    from dataclasses import replace

    from jobs import handlers
    from lps_site.job_types import JobType

    def noop(job, context):
        return None

    return {JobType.OUTBOX: replace(handlers.get(JobType.OUTBOX), handler=noop)}


def enqueue_jobs(count: int, payload: dict | None = None) -> float:
    from jobs import queue
    from lps_site.job_types import JobType

    started = time.perf_counter()
    for offset in range(0, count, 5000):
        queue.enqueue_many([queue.NewJob(JobType.OUTBOX, payload or {}) for _ in range(min(5000, count - offset))])
    return time.perf_counter() - started


def bench_enqueue(jobs: int) -> dict:
    from jobs import queue
    from lps_site.job_types import JobType

    empty_queue()
    row_count = min(jobs, 2000)
    started = time.perf_counter()
    for _ in range(row_count):
        queue.enqueue(queue.NewJob(JobType.OUTBOX, {}))
    row_by_row = row_count / (time.perf_counter() - started)
    empty_queue()
    new_jobs = [queue.NewJob(JobType.OUTBOX, {}) for _ in range(jobs)]
    started = time.perf_counter()
    queue.enqueue_many(new_jobs)
    one_statement = jobs / (time.perf_counter() - started)
    return {"row_by_row": row_by_row, "row_count": row_count, "one_statement": one_statement}


def bench_drain_primitives(jobs: int, batch: int) -> float:
    """Drain with complete_and_claim in a loop: one statement, so one commit, per `batch` jobs."""
    from jobs import queue
    from lps_site.job_types import JobType

    empty_queue()
    enqueue_jobs(jobs)
    done = 0
    started = time.perf_counter()
    claimed = queue.claim("bench", limit=batch, job_types=[JobType.OUTBOX])
    while claimed:
        done += len(claimed)
        _, claimed = queue.complete_and_claim(
            [(job, None) for job in claimed], "bench", limit=batch, job_types=[JobType.OUTBOX]
        )
    elapsed = time.perf_counter() - started
    assert done == jobs, f"drained {done} of {jobs}"
    return jobs / elapsed


def bench_drain_worker(jobs: int, concurrency: int) -> float:
    from jobs import queue_reads
    from jobs.worker import Worker
    from lps_site.job_types import JobType

    empty_queue()
    enqueue_jobs(jobs)
    worker = Worker(
        noop_registry(), concurrency={JobType.SEARCH: 0, JobType.OUTBOX: concurrency}, burst=True, shutdown_hooks=[]
    )
    started = time.perf_counter()
    worker.run()
    elapsed = time.perf_counter() - started
    done = queue_reads.counts()["DONE"]
    assert done == jobs, f"the worker finished {done} of {jobs}"
    return jobs / elapsed


LATENCY_WORKER = """
import os, sys, time
sys.path.insert(0, {project!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
os.environ["LOG_LEVEL"] = "WARNING"
import django
django.setup()
from dataclasses import replace
from jobs import handlers
from lps_site.job_types import JobType
from jobs.worker import Worker

def measure(job, context):
    return {{"started": time.time()}}

worker = Worker({{JobType.OUTBOX: replace(handlers.get(JobType.OUTBOX), handler=measure)}},
                concurrency={{JobType.SEARCH: 0, JobType.OUTBOX: 8}}, poll_interval=60.0, shutdown_hooks=[])
worker.install_signal_handlers()
import threading
threading.Thread(target=lambda: worker.ready.wait(30) and print("ready", flush=True), daemon=True).start()
sys.exit(worker.run())
"""


def bench_wakeup_latency() -> dict:
    from jobs import queue, queue_reads
    from jobs.models import Job, JobStatus
    from lps_site.job_types import JobType

    empty_queue()
    sent: dict[int, float] = {}
    committed: dict[int, float] = {}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(LATENCY_WORKER.format(project=str(PROJECT_DIR)))
    worker = subprocess.Popen(
        [sys.executable, script.name], stdout=subprocess.PIPE, text=True, env=dict(os.environ), cwd=PROJECT_DIR
    )
    try:
        assert worker.stdout.readline().strip() == "ready", "the latency worker did not start"
        pace = threading.Event()
        interval = 1 / LATENCY_RATE
        next_at = time.perf_counter()
        for n in range(LATENCY_WARMUP + LATENCY_JOBS):
            next_at += interval
            sent[n] = time.time()
            queue.enqueue(queue.NewJob(JobType.OUTBOX, {"n": n}))
            committed[n] = time.time()
            pace.wait(max(0.0, next_at - time.perf_counter()))
        deadline = time.monotonic() + 30
        while queue_reads.counts()["DONE"] < LATENCY_WARMUP + LATENCY_JOBS and time.monotonic() < deadline:
            pace.wait(0.05)
    finally:
        worker.terminate()
        worker.wait(30)
        Path(script.name).unlink()
    started = {
        payload["n"]: result["started"]
        for payload, result in Job.objects.filter(status=JobStatus.DONE).values_list("payload", "result")
        if payload["n"] >= LATENCY_WARMUP
    }
    assert len(started) == LATENCY_JOBS, f"only {len(started)} of {LATENCY_JOBS} jobs finished"
    return {
        "from_call": percentiles([(started[n] - sent[n]) * 1000 for n in started]),
        "from_commit": percentiles([(started[n] - committed[n]) * 1000 for n in started]),
        "enqueue_call": percentiles([(committed[n] - sent[n]) * 1000 for n in started]),
    }


def percentiles(values: list[float]) -> dict:
    cuts = statistics.quantiles(values, n=100)
    return {"p50": cuts[49], "p95": cuts[94], "p99": cuts[98], "max": max(values)}


# --- Anchors ---------------------------------------------------------------------------------------------

PGQUEUER_DRAIN = """
import asyncio, json, sys, time
import asyncpg
from pgqueuer import QueueManager, Queries
from pgqueuer.db import AsyncpgDriver
from pgqueuer.types import QueueExecutionMode

async def main(dsn, jobs):
    conn = await asyncpg.connect(dsn)
    queries = Queries(AsyncpgDriver(conn))
    await queries.install()
    for offset in range(0, jobs, 5000):
        n = min(5000, jobs - offset)
        await queries.enqueue(["noop"] * n, [None] * n, [0] * n)
    await conn.close()
    conn = await asyncpg.connect(dsn)
    qm = QueueManager(Queries(AsyncpgDriver(conn)))

    @qm.entrypoint("noop")
    async def noop(job):
        return None

    started = time.perf_counter()
    await qm.run(mode=QueueExecutionMode.drain)
    elapsed = time.perf_counter() - started
    left = await conn.fetchval("SELECT count(*) FROM pgqueuer")
    print(json.dumps({"elapsed": elapsed, "left": left}))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""

PROCRASTINATE_DRAIN = """
import asyncio, json, logging, sys, time
import procrastinate

app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=sys.argv[1]))

@app.task(name="noop")
async def noop():
    return None

async def main(jobs):
    async with app.open_async():
        await app.schema_manager.apply_schema_async()
        for offset in range(0, jobs, 5000):
            await noop.batch_defer_async(*[{}] * min(5000, jobs - offset))
        started = time.perf_counter()
        await app.run_worker_async(wait=False, concurrency=8, install_signal_handlers=False)
        elapsed = time.perf_counter() - started
        left = await app.connector.execute_query_one_async(
            "SELECT count(*) AS n FROM procrastinate_jobs WHERE status = 'todo'"
        )
    print(json.dumps({"elapsed": elapsed, "left": left["n"]}))

logging.disable(logging.WARNING)
asyncio.run(main(int(sys.argv[2])))
"""


def anchor_python() -> Path:
    python = ANCHOR_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(ANCHOR_VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import pgqueuer, procrastinate, asyncpg"], capture_output=True)
    if probe.returncode:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *ANCHOR_PACKAGES], check=True)
    return python


def anchor_versions(python: Path) -> str:
    code = (
        "from importlib.metadata import version as v; "
        "print(f\"pgqueuer {v('pgqueuer')}, procrastinate {v('procrastinate')}\")"
    )
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def run_anchor(python: Path, code: str, url: str, jobs: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(code)
    try:
        done = subprocess.run([str(python), script.name, url, str(jobs)], capture_output=True, text=True, timeout=1800)
    finally:
        Path(script.name).unlink()
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["left"] == 0, f"{outcome['left']} jobs left undone"
    return jobs / outcome["elapsed"]


# --- Main ------------------------------------------------------------------------------------------------


def engine_part(url: str, jobs: int) -> int:
    """In a child process: the wake-up latency against `url`, printed as JSON."""
    setup_django(url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    print(json.dumps({"latency": bench_wakeup_latency()}))
    return 0


def engine_without_disk(jobs: int) -> dict:
    from tests.jobs.private_postgres import running_private_postgres

    with running_private_postgres(fsync=False) as server:
        url = recreate_database(server.url(), "lps_bench")
        done = subprocess.run(
            [sys.executable, __file__, "--engine-part", url, "--jobs", str(jobs)],
            capture_output=True,
            text=True,
            timeout=1800,
            env={key: value for key, value in os.environ.items() if key != "DATABASE_URL"},
        )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(label: str, value: str) -> None:
    print(f"  {label:<62} {value}")


def cuts(cut: dict) -> str:
    return f"p50 {cut['p50']:6.2f} ms  p95 {cut['p95']:6.2f} ms  p99 {cut['p99']:6.2f} ms  max {cut['max']:6.2f} ms"


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--anchors", action="store_true", help="also drain with pgqueuer and procrastinate")
    parser.add_argument("--rounds", type=int, default=5, help="paired LPS/pgqueuer drains (median ratio kept)")
    parser.add_argument("--no-private", action="store_true", help="skip the private fsync=off server")
    parser.add_argument("--engine-part", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.engine_part:
        return engine_part(args.engine_part, args.jobs)

    from lps_site import embedded_pg

    with embedded_pg.running() as url:
        return bench(args, url)


def bench(args: argparse.Namespace, url: str) -> int:
    """Every measurement, on the server at `url` (its own database, lps_bench)."""
    bench_url = recreate_database(url, "lps_bench")
    setup_django(bench_url)
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server_version = cursor.fetchone()[0]
        cursor.execute("SHOW fsync")
        fsync = cursor.fetchone()[0]
        cursor.execute("SHOW synchronous_commit")
        synchronous_commit = cursor.fetchone()[0]

    print(f"LPS queue bench — {args.jobs:,} no-op jobs")
    print(
        f"python {platform.python_version()}, PostgreSQL {server_version} at {urlsplit(url).hostname}:"
        f"{urlsplit(url).port} (fsync={fsync}, synchronous_commit={synchronous_commit}), "
        f"{os.cpu_count()} CPUs shared with other work, {load()}"
    )
    print()
    print("enqueue")
    enqueue = bench_enqueue(args.jobs)
    line(
        f"row by row (a statement and a commit each; {enqueue['row_count']:,} jobs)",
        f"{enqueue['row_by_row']:>8,.0f} jobs/s",
    )
    line(f"one statement ({args.jobs:,} jobs)", f"{enqueue['one_statement']:>8,.0f} jobs/s")
    print()
    print(f"drain ({args.jobs:,} jobs each)")
    single = bench_drain_primitives(args.jobs, 1)
    line("single claim: complete_and_claim(limit=1) in a loop", f"{single:>8,.0f} jobs/s   {load()}")
    batch = bench_drain_primitives(args.jobs, 100)
    line("batch claim: complete_and_claim(limit=100) in a loop", f"{batch:>8,.0f} jobs/s   {load()}")
    worker_rates = {}
    for concurrency in (8, 32):
        worker_rates[concurrency] = bench_drain_worker(args.jobs, concurrency)
        label = f"Worker (burst), {concurrency} handler threads + {4 * concurrency} claimed ahead"
        line(
            label + (" [defaults]" if concurrency == 8 else ""), f"{worker_rates[concurrency]:>8,.0f} jobs/s   {load()}"
        )
    print()
    latency = bench_wakeup_latency()
    print(f"wake-up latency at {LATENCY_RATE} jobs/s ({LATENCY_JOBS:,} jobs; a Worker in another process on LISTEN)")
    for key, label in [
        ("from_call", "enqueue() called → handler start"),
        ("from_commit", "enqueue committed → handler start"),
        ("enqueue_call", "(the enqueue() call itself)"),
    ]:
        line(label, cuts(latency[key]))
    print(f"  ({load()})")

    if not args.no_private:
        print()
        engine = engine_without_disk(args.jobs)
        print("wake-up latency again on a private PostgreSQL with fsync=off (the engine's share, without the disk)")
        for key, label in [
            ("from_call", "enqueue() called → handler start"),
            ("from_commit", "enqueue committed → handler start"),
        ]:
            line(label, cuts(engine["latency"][key]))
        print(f"  ({load()})")

    if args.anchors:
        python = anchor_python()
        print()
        print(f"anchors: {anchor_versions(python)} (side venv {ANCHOR_VENV}); same server, own databases")
        print(
            f"  LPS Worker at its defaults (8 threads) vs pgqueuer at its defaults (batch 10): {args.rounds} paired "
            "rounds, who goes first alternating"
        )
        ours, theirs, ratios = [], [], []
        for round_number in range(1, args.rounds + 1):
            pgqueuer_url = recreate_database(url, "lps_bench_pgqueuer")
            if round_number % 2:
                lps = bench_drain_worker(args.jobs, 8)
                pgqueuer = run_anchor(python, PGQUEUER_DRAIN, pgqueuer_url, args.jobs)
            else:
                pgqueuer = run_anchor(python, PGQUEUER_DRAIN, pgqueuer_url, args.jobs)
                lps = bench_drain_worker(args.jobs, 8)
            ours.append(lps)
            theirs.append(pgqueuer)
            ratios.append(lps / pgqueuer)
            line(
                f"round {round_number}: LPS {lps:,.0f} jobs/s, pgqueuer {pgqueuer:,.0f} jobs/s → {lps / pgqueuer:.2f}×",
                load(),
            )
        procrastinate = run_anchor(
            python, PROCRASTINATE_DRAIN, recreate_database(url, "lps_bench_procrastinate"), args.jobs
        )
        line(f"procrastinate (async no-op task, concurrency 8) {procrastinate:,.0f} jobs/s", load())
        print()
        print("drain ratios (goals: ≥ 1.5× pgqueuer, ≥ 3× procrastinate)")
        line(
            f"LPS ÷ pgqueuer, median of the paired rounds (medians {statistics.median(ours):,.0f} ÷ "
            f"{statistics.median(theirs):,.0f})",
            f"{statistics.median(ratios):5.2f}×",
        )
        line(
            f"LPS ÷ procrastinate ({statistics.median(ours):,.0f} ÷ {procrastinate:,.0f})",
            f"{statistics.median(ours) / procrastinate:5.2f}×",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
