"""Benchmark the REST API under gunicorn: products enqueued per second, and GET /v1/lps/jobs/{id} latency.

    .venv/bin/python bench/api_bench.py [--workers 4] [--post-clients 4] [--posts 40] [--products 500]
                                        [--get-clients 50] [--gets 5000]

It makes its own database (`lps_apibench` on the server of DATABASE_URL, else the embedded PostgreSQL), migrates
it, issues a fresh API key, starts gunicorn as the Procfile does (its config module: the deadline gthread worker,
LPS_WEB_THREADS threads per process) on a free 127.0.0.1 port, and:
1. POSTs `--posts` batches of `--products` distinct products from `--post-clients` concurrent clients and
   reports products enqueued per second (goal: 5,000);
2. GETs the jobs just made from `--get-clients` concurrent clients (processes × threads, so that the clients'
   own GIL does not add to the latency) and reports p50/p99, and the CPU time the web workers and their
   PostgreSQL connections spent per GET (Linux), which a shared machine's other work does not inflate.
Every request goes through the whole stack: key check, rate limit upsert, validation, one multi-row enqueue.
The database is dropped at the end (unless --keep). Not a test: it asserts only that the requests succeeded.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
PYTHON = sys.executable
BENCH_DATABASE = "lps_apibench"


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def recreate_database(url: str) -> None:
    import psycopg

    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{BENCH_DATABASE}"')


def drop_database(url: str) -> None:
    import psycopg

    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DATABASE}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_ready(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        pause.wait(0.2)
    raise SystemExit(f"gunicorn did not become ready on port {port} within {timeout:.0f} s")


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds the processes `pids` have used so far, all threads (Linux /proc; 0 elsewhere)."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers), from /proc; empty elsewhere."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def backend_pids(database_url: str) -> list[int]:
    """The PostgreSQL server processes connected to the bench database (the web workers' connections)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows]


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


# --- Load ------------------------------------------------------------------------------------------------------


def post_batches(port: int, api_key: str, bodies: list[bytes], clients: int) -> tuple[float, list[float], list[dict]]:
    """POST every body from `clients` threads; return the wall time, the latencies and the answers."""
    pending = list(reversed(bodies))
    lock = threading.Lock()
    latencies: list[float] = []
    answers: list[dict] = []
    start = threading.Barrier(clients + 1)
    headers = {"Content-Type": "application/json", "X-API-Key": api_key}

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        start.wait()
        while True:
            with lock:
                if not pending:
                    return
                body = pending.pop()
            began = time.perf_counter()
            connection.request("POST", "/v1/lps/search", body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            elapsed = time.perf_counter() - began
            if response.status != 202:
                raise SystemExit(f"POST answered {response.status}: {payload[:300]!r}")
            with lock:
                latencies.append(elapsed)
                answers.append(json.loads(payload))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began, latencies, answers


def _get_jobs_process(port: int, api_key: str, job_ids: list[str], threads: int, requests_per_thread: int, out):
    """One client process: `threads` clients, each GETting `requests_per_thread` jobs; send back latencies."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client(offset: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"X-API-Key": api_key}
        mine = []
        for i in range(requests_per_thread):
            job_id = job_ids[(offset + i * 7919) % len(job_ids)]
            began = time.perf_counter()
            connection.request("GET", f"/v1/lps/jobs/{job_id}", headers=headers)
            response = connection.getresponse()
            payload = response.read()
            mine.append(time.perf_counter() - began)
            if response.status != 200:
                with lock:
                    failures.append(f"{response.status}: {payload[:200]!r}")
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=client, args=(index * 104_729,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    out.send((latencies, failures))
    out.close()


def get_jobs(port: int, api_key: str, job_ids: list[str], clients: int, total: int) -> tuple[float, list[float]]:
    """GET jobs from `clients` concurrent clients spread over processes; return the wall time and latencies."""
    processes_count = min(clients, max(1, os.cpu_count() or 1) * 2, 5)
    per_process = [
        clients // processes_count + (1 if i < clients % processes_count else 0) for i in range(processes_count)
    ]
    requests_per_thread = max(1, total // clients)
    context = multiprocessing.get_context("fork")
    pipes, processes = [], []
    began = time.perf_counter()
    for threads in per_process:
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(
            target=_get_jobs_process, args=(port, api_key, job_ids, threads, requests_per_thread, sender)
        )
        process.start()
        sender.close()
        pipes.append(receiver)
        processes.append(process)
    latencies: list[float] = []
    failures: list[str] = []
    for receiver in pipes:
        got, failed = receiver.recv()
        latencies.extend(got)
        failures.extend(failed)
    wall = time.perf_counter() - began
    for process in processes:
        process.join(timeout=30)
    if failures:
        raise SystemExit(f"{len(failures)} GETs failed, e.g. {failures[0]}")
    return wall, latencies


# --- Main ------------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes (default 4)")
    parser.add_argument("--post-clients", type=int, default=4)
    parser.add_argument("--posts", type=int, default=40)
    parser.add_argument("--products", type=int, default=500, help="products per POST (default 500)")
    parser.add_argument("--get-clients", type=int, default=50)
    parser.add_argument("--gets", type=int, default=5000)
    parser.add_argument("--keep", action="store_true", help="keep the lps_apibench database")
    options = parser.parse_args()
    from lps_site import embedded_pg

    with embedded_pg.running() as base_url:
        return measure(options, base_url)


def measure(options: argparse.Namespace, base_url: str) -> int:
    """Every measurement, against gunicorn on the server at `base_url` (its own database, lps_apibench)."""
    database_url = with_database(base_url, BENCH_DATABASE)
    recreate_database(base_url)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        # The bench measures the whole request path, the rate-limit upsert included, without tripping it.
        "LPS_API_RATE_LIMIT_PER_MINUTE": "100000000",
        "LOG_LEVEL": "WARNING",
        "DEBUG": "false",
        "PYTHONUNBUFFERED": "1",
    }
    gunicorn = None
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=PROJECT_DIR, env=env, check=True)
        issued = subprocess.run(
            [PYTHON, "manage.py", "createapikey", f"bench-{uuid.uuid4().hex[:8]}"],
            cwd=PROJECT_DIR,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        api_key = json.loads(issued.stdout.strip().splitlines()[-1])["api_key"]
        port = free_port()
        # gunicorn's own output goes to a file, shown only if it never becomes ready.
        server_log = Path(tempfile.mkdtemp(prefix="lps-apibench-")) / "gunicorn.log"
        gunicorn = subprocess.Popen(
            [
                str(Path(PYTHON).parent / "gunicorn"),
                "lps_site.wsgi",
                "--config",
                "python:lps_site.gunicorn_conf",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(options.workers),
                "--graceful-timeout",
                "5",
                "--log-level",
                "warning",
            ],
            cwd=PROJECT_DIR,
            env=env,
            start_new_session=True,
            stdout=server_log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            wait_ready(port, timeout=60)
        except SystemExit:
            print(server_log.read_text(errors="replace")[-3000:], file=sys.stderr)
            raise

        threads = int(os.environ.get("LPS_WEB_THREADS", "16"))
        run = uuid.uuid4().hex[:6]
        bodies = [
            json.dumps(
                {
                    "products": [
                        {
                            "product_code": f"{run}-{batch}-{i}",
                            "product_name": f"벤치 상품 {batch}-{i} 2L 6개입",
                            "brand": "LPS",
                            "price": 10_000 + i,
                        }
                        for i in range(options.products)
                    ]
                }
            ).encode()
            for batch in range(options.posts + options.workers * 2)
        ]
        # Warm every worker (imports, URL map, connections) before the clock starts.
        post_batches(port, api_key, bodies[: options.workers * 2], clients=options.workers)
        wall, latencies, answers = post_batches(
            port, api_key, bodies[options.workers * 2 :], clients=options.post_clients
        )
        products = sum(len(answer["jobs"]) for answer in answers)
        duplicates = sum(job["duplicate"] for answer in answers for job in answer["jobs"])
        job_ids = [job["job_id"] for answer in answers for job in answer["jobs"]]
        latencies.sort()
        print(
            f"LPS API bench — gunicorn {options.workers} gthread workers × {threads} threads (deadline worker), "
            f"PostgreSQL at {urlsplit(base_url).netloc}, "
            f"{os.cpu_count()} CPUs"
        )
        print(
            f"POST /v1/lps/search: {len(answers)} requests × {options.products} products from "
            f"{options.post_clients} concurrent clients in {wall:.2f} s"
        )
        print(
            f"  enqueued {products} products ({duplicates} duplicates): {products / wall:,.0f} products/s "
            f"(goal 5,000) — {len(answers) / wall:.1f} requests/s, latency p50 "
            f"{percentile(latencies, 0.5) * 1000:.0f} ms, p99 {percentile(latencies, 0.99) * 1000:.0f} ms"
        )

        web = children_of(gunicorn.pid)
        database = backend_pids(database_url)
        cpu_before = cpu_seconds(web), cpu_seconds(database)
        wall, latencies = get_jobs(port, api_key, job_ids, options.get_clients, options.gets)
        # Connections opened during the GETs count from their start; those closed during them are lost (few: the
        # web workers keep theirs for CONN_MAX_AGE).
        database = sorted(set(database) | set(backend_pids(database_url)))
        web_cpu, database_cpu = cpu_seconds(web) - cpu_before[0], cpu_seconds(database) - cpu_before[1]
        latencies.sort()
        print(
            f"GET /v1/lps/jobs/{{id}}: {len(latencies)} requests from {options.get_clients} concurrent clients "
            f"in {wall:.2f} s — {len(latencies) / wall:,.0f} requests/s"
        )
        print(
            f"  latency p50 {percentile(latencies, 0.5) * 1000:.1f} ms, p90 {percentile(latencies, 0.9) * 1000:.1f}"
            f" ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms, mean "
            f"{statistics.fmean(latencies) * 1000:.1f} ms"
        )
        # CPU time, unlike latency, does not grow with what else the machine runs: the figure to compare across
        # runs on a shared machine.
        print(
            f"  server CPU per GET: web workers {web_cpu / len(latencies) * 1000:.2f} ms, PostgreSQL "
            f"{database_cpu / len(latencies) * 1000:.2f} ms ({len(database)} connections)"
        )
    finally:
        if gunicorn is not None:
            os.killpg(gunicorn.pid, signal.SIGTERM)
            try:
                gunicorn.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(gunicorn.pid, signal.SIGKILL)
                gunicorn.wait(timeout=5)
        if not options.keep:
            drop_database(base_url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
