"""Watches at scale (not a test): the scheduler's pass as the table grows, how first runs spread, and what reuse
saves.

    .venv/bin/python bench/watch_bench.py [--sizes 1000 100000] [--due 500] [--repeats 7]

It uses its own database (`lps_watchbench` on the same server as DATABASE_URL, or on the embedded PostgreSQL).

1. A scheduler pass (watches.schedule.schedule_due in batches of 500 until none is due: the claim, the enqueue
   of the SEARCH jobs and the link, one transaction per batch) with the same number of watches due, among 1,000
   and then 100,000 watches. Goal: a ratio of at most 2 between the sizes (of the medians).
2. 10,000 watches of one interval (1 h) posted within a minute in batches of 1,000 through watches.store.upsert
   (what POST /v1/lps/watches runs): their first due times per minute of the first interval. Goal: the busiest
   minute at most 2 × the mean.
3. Reuse: 1,000 shops watching 200 products (each shop 20 of them, every 6 h, first runs spread as in 2) for a
   day, replayed in due order with the rule of watches/reuse.py (a run whose product a browser search found
   less than LPS_RESULT_REUSE_SECONDS before is answered by that result; a search takes 10 s). Every product is
   taken as found (not_found is the negative cache's, which already answers every shop).
4. Spreadsheets, through the whole Django stack (middleware, key, parser, view; django.test.Client in process):
   a 5,000-row CSV upload (POST /v1/lps/watches as text/csv: every row validated, one upsert statement), and the
   position report downloaded as CSV (Accept: text/csv) of 10,000 and then 100,000 watches with a found lowest
   each, read piece by piece as a client would. Each is timed, then run again under tracemalloc for its peak
   Python memory. Goal: the upload answered in seconds; the download's peak the same at 10k and 100k (it streams
   through a server-side cursor, CHUNK_ROWS rows at a time).

    .venv/bin/python bench/watch_bench.py --only sheets      # just 4
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

BENCH_DATABASE = "lps_watchbench"
BATCH = 500

# Watches of one client in bulk, every one due in an hour; the scheduler's claim walks the due index only.
SEED_SQL = """
INSERT INTO watch (client_id, product_code, product, identity_key, callback_url, every_seconds, notify_events,
                   min_change_percent, paused, schedule_anchor, next_run_at, last_outcome, last_event_kind,
                   event_seq, runs, created_at, updated_at)
SELECT %(client_id)s, 'P-' || g, jsonb_build_object('product_code', 'P-' || g, 'product_name', '상품 ' || g),
       'product:' || md5(g::text), '', 3600, '["price_down", "price_up"]'::jsonb, 0, false,
       now() + interval '1 hour' * (1 + random()), now() + interval '2 hours', '', '', 0, 0, now(), now()
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g
"""
MAKE_DUE_SQL = """
UPDATE watch SET next_run_at = now() - interval '1 minute', schedule_anchor = now() - interval '1 minute',
                 pending_job_id = NULL
WHERE id IN (SELECT id FROM watch ORDER BY id LIMIT %(due)s)
"""


def say(message: str) -> None:
    print(message, flush=True)


def bench_database_url(base: str) -> str:
    return urlunsplit(urlsplit(base)._replace(path=f"/{BENCH_DATABASE}"))


def ensure_database(url: str) -> None:
    import psycopg

    server = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(server, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DATABASE,)).fetchone():
            connection.execute(f'CREATE DATABASE "{BENCH_DATABASE}"')


def execute(sql: str, params: dict | None = None) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or {})


def scheduler_pass(options: argparse.Namespace, client_id: int) -> dict[int, list[float]]:
    from watches.models import Watch
    from watches.schedule import schedule_due

    timings: dict[int, list[float]] = {}
    for size in options.sizes:
        present = Watch.objects.count()
        if present < size:
            execute(SEED_SQL, {"client_id": client_id, "first": present, "last": size - 1})
        execute("VACUUM ANALYZE watch")
        runs = []
        for _ in range(options.repeats):
            execute("DELETE FROM job")
            execute(MAKE_DUE_SQL, {"due": options.due})
            started = time.perf_counter()
            scheduled = 0
            while batch := len(schedule_due(BATCH)):
                scheduled += batch
            runs.append((time.perf_counter() - started) * 1000)
            assert scheduled == options.due, (scheduled, options.due)
        timings[size] = runs
        say(
            f"scheduler pass, {options.due:,} due of {size:,} watches: median {statistics.median(runs):.1f} ms "
            f"({min(runs):.1f}–{max(runs):.1f} ms over {len(runs)} passes)"
        )
    return timings


def first_run_spread(client_id: int) -> tuple[int, float]:
    from django.utils import timezone

    from watches import store
    from watches.models import Watch
    from watches.spec import WatchProduct

    Watch.objects.all().delete()
    started = timezone.now()
    for batch in range(10):
        store.upsert(
            client_id,
            [
                WatchProduct(product_code=f"S-{batch}-{index}", product_name=f"상품 {batch} {index}", every="1h")
                for index in range(1000)
            ],
        )
    took = (timezone.now() - started).total_seconds()
    minutes = Counter(int((watch.next_run_at - started).total_seconds() // 60) for watch in Watch.objects.all())
    per_minute = [minutes.get(minute, 0) for minute in range(61) if minute < 60 or minutes.get(minute)]
    busiest, mean = max(per_minute), 10_000 / 60
    say(
        f"first runs of 10,000 watches (1h) posted in {took:.1f} s: busiest minute {busiest}, mean {mean:.1f} "
        f"per minute, ratio {busiest / mean:.2f}; quietest minute {min(per_minute[:60])}"
    )
    return busiest, mean


def reuse_share(window: int, *, shops: int = 1000, products: int = 200, per_shop: int = 20) -> None:
    rng = random.Random(16)
    every, day, search_seconds = 6 * 3600, 86400, 10
    runs = []
    for _shop in range(shops):
        for product in rng.sample(range(products), per_shop):
            first = rng.uniform(0, every)  # store.upsert's offset
            runs.extend((first + k * every, product) for k in range(int((day - first) // every) + 1))
    runs.sort()
    last_found: dict[int, float] = {}
    reused = 0
    for at, product in runs:
        found_at = last_found.get(product)
        # A search still running has no result to share yet: the run searches too.
        if found_at is not None and found_at <= at and at - found_at < window:
            reused += 1
        else:
            last_found[product] = at + search_seconds
    say(
        f"reuse: {shops:,} shops watching {products} products ({per_shop} each, every 6h) for a day: {len(runs):,} "
        f"runs, {reused:,} answered by reuse ({reused / len(runs):.1%}), {len(runs) - reused:,} browser searches "
        f"instead of {len(runs):,} (window {window} s)"
    )


# Watches of one client with a found lowest each (price, url, shipping fee): what the position report reads.
SEED_FOUND_SQL = """
INSERT INTO watch (client_id, product_code, product, identity_key, callback_url, every_seconds, notify_events,
                   min_change_percent, paused, schedule_anchor, next_run_at, last_outcome, last_price, last_result,
                   last_run_at, last_event_kind, event_seq, runs, created_at, updated_at)
SELECT %(client_id)s, 'R-' || g,
       jsonb_build_object('product_code', 'R-' || g, 'product_name', '삼성전자 갤럭시 버즈3 프로 SM-R630 ' || g,
                          'model_code', 'SM-R630', 'brand', '삼성전자', 'price', 200000 + g %% 1000),
       'product:' || md5(g::text), '', 86400, '["price_down", "price_up", "undercut"]'::jsonb, 5, false, now(),
       now() + interval '1 day', 'found', 195000 + g %% 9000,
       jsonb_build_object('outcome', 'found', 'lowest', jsonb_build_object(
           'price', 195000 + g %% 9000, 'title', '삼성전자 갤럭시 버즈3 프로 SM-R630 화이트',
           'url', 'https://www.coupang.com/vp/products/' || (8000000000 + g) || '?itemId=' || (20000000000 + g),
           'rocket', false, 'shipping_fee', (g %% 3) * 1500)),
       now() - interval '1 hour', '', 0, 1, now(), now()
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g
"""


def _peak(run) -> tuple[float, int]:
    """(seconds of one plain run, peak bytes of Python memory in a second run under tracemalloc)."""
    import gc
    import tracemalloc

    gc.collect()
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    gc.collect()
    tracemalloc.start()
    try:
        run()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return seconds, peak


def sheets(client_id: int, api_key: str, *, upload_rows: int = 5000, sizes=(10_000, 100_000)) -> None:
    from django.test import Client

    from watches.models import Watch

    client = Client(HTTP_HOST="127.0.0.1", HTTP_X_API_KEY=api_key)
    header = "product_code,product_name,model_code,brand,price,every,notify_events,min_change_percent\r\n"
    body = (
        "\ufeff"
        + header
        + "".join(
            f"CSV-{index:05d},삼성전자 갤럭시 버즈3 프로 SM-R630 {index},SM-R630,삼성전자,{200_000 + index},1d,"
            f"price_down undercut,5\r\n"
            for index in range(upload_rows)
        )
    ).encode("utf-8")
    answers = []

    def upload() -> None:
        execute("DELETE FROM watch")  # outside the request, as a first upload of the sheet
        response = client.generic("POST", "/v1/lps/watches", body, content_type="text/csv; charset=utf-8")
        answers.append(response.status_code)

    seconds, peak = _peak(upload)
    say(
        f"CSV upload of {upload_rows:,} rows ({len(body) / 2**20:.2f} MB): {seconds:.2f} s, peak Python memory "
        f"{peak / 2**20:.1f} MB (answers {sorted(set(answers))})"
    )
    Watch.objects.filter(client_id=client_id).delete()
    seeded = 0
    for size in sizes:
        execute(SEED_FOUND_SQL, {"client_id": client_id, "first": seeded + 1, "last": size})
        seeded = size
        downloaded: list[tuple[int, int]] = []

        def download(downloaded=downloaded) -> None:
            response = client.get("/v1/lps/watches", HTTP_ACCEPT="text/csv")
            total = rows = 0
            for piece in response.streaming_content:
                total += len(piece)
                rows += piece.count(b"\r\n")
            response.close()
            downloaded.append((total, rows - 1))

        seconds, peak = _peak(download)
        total, rows = downloaded[0]
        say(
            f"CSV download of {rows:,} watches ({total / 2**20:.1f} MB): {seconds:.2f} s "
            f"({rows / seconds:,.0f} rows/s), peak Python memory {peak / 2**20:.1f} MB"
        )
    execute("DELETE FROM watch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--due", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", choices=["all", "sheets"], default="all")
    options = parser.parse_args(argv)
    from lps_site import embedded_pg

    with embedded_pg.running() as server:
        return measure(options, bench_database_url(server))


def measure(options: argparse.Namespace, url: str) -> int:
    ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from api import keys
    from api.models import ApiClient

    call_command("migrate", verbosity=0)
    execute("DELETE FROM job")
    execute("DELETE FROM watch")
    ApiClient.objects.filter(name="watch-bench").delete()
    issued = keys.issue_key("watch-bench")
    client_id = issued.client.pk

    if options.only == "sheets":
        sheets(client_id, issued.api_key)
        return 0
    timings = scheduler_pass(options, client_id)
    medians = [statistics.median(timings[size]) for size in options.sizes]
    say(f"scheduler pass ratio {options.sizes[-1]:,} / {options.sizes[0]:,} watches: {medians[-1] / medians[0]:.2f}")
    execute("DELETE FROM job")
    first_run_spread(client_id)
    for window in (settings.LPS_RESULT_REUSE_SECONDS, 3600, 0):
        reuse_share(window)
    execute("DELETE FROM job")
    execute("DELETE FROM watch")
    sheets(client_id, issued.api_key)
    execute("DELETE FROM watch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
