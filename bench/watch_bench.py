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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--due", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
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
    client_id = keys.issue_key("watch-bench").client.pk

    timings = scheduler_pass(options, client_id)
    medians = [statistics.median(timings[size]) for size in options.sizes]
    say(f"scheduler pass ratio {options.sizes[-1]:,} / {options.sizes[0]:,} watches: {medians[-1] / medians[0]:.2f}")
    execute("DELETE FROM job")
    first_run_spread(client_id)
    for window in (settings.LPS_RESULT_REUSE_SECONDS, 3600, 0):
        reuse_share(window)
    execute("DELETE FROM job")
    execute("DELETE FROM watch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
