"""How the admin's job list and dashboard, and a Prometheus scrape of /metrics, answer on a table of 10,000 jobs
and then of 1,000,000 (not a test).

    .venv/bin/python bench/admin_bench.py [--sizes 10000 1000000] [--requests 9]

It uses its own database (`lps_adminbench` on the same server as DATABASE_URL, or on the embedded PostgreSQL),
migrates it, and grows one job table through the sizes. The shape of the data is what the admin meets in
production: a day of recent work that is the same at every size (pending, running, stuck, dead and finished
searches with their SPEC §8 result JSON, webhooks), and behind it a history of finished and dead jobs up to
30 days old that makes the table big. Then, logged in as staff through Django's test client (the whole
request: middleware, admin, templates), it times each page several times and prints the medians and the
ratio of the largest size to the smallest (of the medians). /metrics is asked with an operator key, as
Prometheus asks it. Goal: a ratio of at most 2.

Jobs belong to SHOPS API clients in turn, so one shop's share grows with the table (500 of 10,000 jobs, 50,000
of 1,000,000): "a client's job list" is timed both as the admin's list filtered by that client and as that
client's own `GET /v1/lps/jobs` with its API key. Goal: the same ratio of at most 2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

BENCH_DATABASE = "lps_adminbench"
RECENT_JOBS = 2_000
"""Jobs of the last 24 hours: the same number at every size, so the sizes differ by history only."""
SHOPS = 20
"""API clients that own the jobs, in turn."""
PAGES = {
    "job list": "/admin/jobs/job/",
    "job list, DEAD only": "/admin/jobs/job/?status__exact=4",
    "job list, outcome not found": "/admin/jobs/job/?outcome=not_found",
    "job list, changed last hour": "/admin/jobs/job/?updated_at_within=1h",
    "job search, product code": "/admin/jobs/job/?q=P-4242",
    "job search, name part": "/admin/jobs/job/?q=%EC%97%90%EC%96%B4%EB%9E%A9",
    "dashboard": "/admin/dashboard/",
    "dashboard fragment": "/admin/dashboard/fragment/",
    "metrics scrape": "/metrics",
}
# Pages that need the measured shop's id or key; added at run time.
SHOP_PAGES = {
    "job list, one client": "/admin/jobs/job/?owner={owner}",
    "client job list (API, its key)": "/v1/lps/jobs",
    "client job list (API), DONE only": "/v1/lps/jobs?status=DONE",
}
HEADLINE = (
    "job list",
    "dashboard",
    "metrics scrape",
    "job list, one client",
    "client job list (API, its key)",
)

# History: finished jobs from 1 to 30 days old; one in five a webhook (OUTBOX), one in 33 DEAD, and two in
# ten searches found nothing. Names repeat the way a shop's catalogue does.
HISTORY_SQL = """
WITH spec AS (
    SELECT g,
           CASE WHEN g %% 5 = 0 THEN 2 ELSE 1 END AS job_type,
           CASE WHEN g %% 33 = 0 THEN 4 ELSE 3 END AS status,
           now() - interval '1 day 5 minutes' - random() * interval '29 days' AS created_at,
           'P-' || g AS code,
           (ARRAY['삼성 갤럭시 버즈3 프로', 'LG 그램 16 노트북', '애플 에어팟 프로 2세대',
                  '다이슨 에어랩 멀티 스타일러', '비스포크 큐브 냉장고', '닌텐도 스위치 OLED',
                  '소니 WH-1000XM5 헤드폰', '필립스 소닉케어 전동칫솔']
           )[1 + g %% 8] || ' ' || (g %% 997) AS name,
           g %% 10 < 8 AS found,
           9900 + (g * 37) %% 190000 AS price,
           (%(owners)s::bigint[])[1 + g %% cardinality(%(owners)s::bigint[])] AS owner
    FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g
)
INSERT INTO job (job_type, status, priority, payload, result, dedupe_key, attempts, max_attempts, run_after,
                 lease_until, worker_id, run_started_at, last_error, created_at, updated_at, owner_id)
SELECT job_type, status, 100,
       CASE WHEN job_type = 1
            THEN jsonb_build_object('product_code', code, 'product_name', name, 'brand', '삼성', 'price', price + 1000,
                                    'client_id', owner)
            ELSE jsonb_build_object('job_id', gen_random_uuid(), 'product_code', code,
                                    'callback_url', 'https://shop.example/lps/hook') END,
       CASE WHEN status = 4 THEN NULL
            WHEN job_type = 2 THEN jsonb_build_object('http_status', 200, 'attempt', 1)
            WHEN found THEN jsonb_build_object(
                'outcome', 'found',
                'lowest', jsonb_build_object('price', price, 'title', name || ' 정품 무료배송',
                                             'url', 'https://www.coupang.com/vp/products/' || g,
                                             'product_id', g::text, 'seller', '쿠팡', 'rocket', true),
                'matches', jsonb_build_array(
                    jsonb_build_object('price', price, 'title', name || ' 정품 무료배송',
                                       'url', 'https://www.coupang.com/vp/products/' || g, 'rocket', true),
                    jsonb_build_object('price', price + 1100, 'title', name || ' 정품',
                                       'url', 'https://www.coupang.com/vp/products/' || (g + 1), 'rocket', false)),
                'rounds', jsonb_build_array(jsonb_build_object(
                    'query', name, 'kind', 'original', 'candidates', 3, 'matches', 2,
                    'verdicts', jsonb_build_array(
                        jsonb_build_object('index', 0, 'same_product', true, 'confidence', 0.96,
                                           'reason', 'model code and brand match', 'price', price),
                        jsonb_build_object('index', 1, 'same_product', true, 'confidence', 0.88,
                                           'reason', 'same model, other seller', 'price', price + 1100),
                        jsonb_build_object('index', 2, 'same_product', false, 'confidence', 0.83,
                                           'reason', '케이스 액세서리, 본품 아님', 'price', 4900)))),
                'cached', false,
                'metrics', jsonb_build_object('duration_ms', 6000 + g %% 9000, 'rounds', 1, 'tokens', 1800,
                    'bytes', 900000, 'cost', jsonb_build_object('ai_usd', 0.0021, 'proxy_usd', 0.0084,
                                                                'total_usd', 0.0105)))
            ELSE jsonb_build_object(
                'outcome', 'not_found', 'matches', '[]'::jsonb,
                'rounds', jsonb_build_array(
                    jsonb_build_object('query', name, 'kind', 'original', 'candidates', 0, 'matches', 0,
                                       'verdicts', '[]'::jsonb),
                    jsonb_build_object('query', name || ' 정품', 'kind', 'precise', 'candidates', 1, 'matches', 0,
                                       'verdicts', jsonb_build_array(jsonb_build_object(
                                           'index', 0, 'same_product', false, 'confidence', 0.7,
                                           'reason', 'other brand')))),
                'cached', false,
                'metrics', jsonb_build_object('duration_ms', 14000, 'rounds', 2, 'tokens', 900, 'bytes', 1500000,
                    'cost', jsonb_build_object('ai_usd', 0.001, 'proxy_usd', 0.014, 'total_usd', 0.015)))
       END,
       CASE WHEN job_type = 1 THEN 'search:' || owner || ':' || code END,
       CASE WHEN status = 4 THEN 3 ELSE 1 END, 3, created_at, NULL, 'web-1:4242:bench', created_at,
       CASE WHEN status = 4 THEN 'CrawlBlocked: HTTP 403 from www.coupang.com (challenge page)' END,
       created_at, created_at + interval '12 seconds', owner
FROM spec
"""

# The last 24 hours: 150 pending (the oldest 10 minutes old), 20 running (3 of them stuck), 50 dead (2 in the
# last hour) and the rest finished, spread over the day.
RECENT_SQL = """
WITH spec AS (
    SELECT g,
           CASE WHEN g <= 150 THEN 1 WHEN g <= 170 THEN 2 WHEN g <= 220 THEN 4 ELSE 3 END AS status,
           CASE WHEN g <= 150 THEN now() - (g / 150.0) * interval '10 minutes'
                WHEN g <= 170 THEN now() - interval '2 minutes'
                WHEN g <= 172 THEN now() - interval '20 minutes'
                ELSE now() - ((g - 170) / %(count)s::float) * interval '23 hours 50 minutes' END AS created_at,
           'R-' || g AS code,
           (ARRAY['삼성 갤럭시 버즈3 프로', 'LG 그램 16 노트북', '다이슨 에어랩 멀티 스타일러', '닌텐도 스위치 OLED']
           )[1 + g %% 4] || ' ' || g AS name,
           g %% 10 < 8 AS found,
           9900 + (g * 37) %% 190000 AS price,
           (%(owners)s::bigint[])[1 + g %% cardinality(%(owners)s::bigint[])] AS owner
    FROM generate_series(1, %(count)s) AS g
)
INSERT INTO job (job_type, status, priority, payload, result, dedupe_key, attempts, max_attempts, run_after,
                 lease_until, worker_id, run_started_at, last_error, created_at, updated_at, owner_id)
SELECT 1, status, 100,
       jsonb_build_object('product_code', code, 'product_name', name, 'brand', '삼성', 'price', price + 1000,
                          'client_id', owner),
       CASE WHEN status <> 3 THEN NULL
            WHEN found THEN jsonb_build_object(
                'outcome', 'found',
                'lowest', jsonb_build_object('price', price, 'title', name || ' 정품',
                                             'url', 'https://www.coupang.com/vp/products/' || g, 'rocket', true),
                'matches', '[]'::jsonb,
                'rounds', jsonb_build_array(jsonb_build_object('query', name, 'kind', 'original', 'candidates', 3,
                                                               'matches', 1, 'verdicts', '[]'::jsonb)),
                'cached', false,
                'metrics', jsonb_build_object('duration_ms', 7000, 'rounds', 1, 'tokens', 1800, 'bytes', 900000,
                    'cost', jsonb_build_object('ai_usd', 0.0021, 'proxy_usd', 0.0084, 'total_usd', 0.0105)))
            ELSE jsonb_build_object(
                'outcome', 'not_found', 'matches', '[]'::jsonb, 'rounds', '[]'::jsonb, 'cached', g %% 3 = 0,
                'metrics', jsonb_build_object('duration_ms', 14000, 'rounds', 3, 'tokens', 900, 'bytes', 1500000,
                    'cost', jsonb_build_object('ai_usd', 0.001, 'proxy_usd', 0.014, 'total_usd', 0.015)))
       END,
       'search:' || owner || ':' || code,
       CASE WHEN status = 4 THEN 3 WHEN status = 1 THEN 0 ELSE 1 END, 3, created_at,
       CASE WHEN status = 2 THEN (CASE WHEN g <= 153 THEN now() - interval '5 minutes'
                                       ELSE now() + interval '60 seconds' END) END,
       CASE WHEN status = 1 THEN NULL ELSE 'web-1:4242:bench' END,
       CASE WHEN status = 1 THEN NULL ELSE created_at END,
       CASE WHEN status = 4 THEN 'JobDeadlineExceeded: SEARCH ran past 300 s' END,
       created_at,
       CASE WHEN status = 4 AND g <= 172 THEN now() - interval '10 minutes'
            WHEN status IN (3, 4) THEN least(now(), created_at + interval '12 seconds')
            ELSE created_at END,
       owner
FROM spec
"""


def bench_database_url(base: str) -> str:
    """The server's URL with the bench's own database name."""
    return urlunsplit(urlsplit(base)._replace(path=f"/{BENCH_DATABASE}"))


def ensure_database(url: str) -> None:
    import psycopg

    server = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(server, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DATABASE,)).fetchone():
            connection.execute(f'CREATE DATABASE "{BENCH_DATABASE}"')


def say(message: str) -> None:
    print(message, flush=True)


def execute(sql: str, params: dict | None = None) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or {})
        return cursor.rowcount


def job_count() -> int:
    return execute_one("SELECT count(*) FROM job")


def execute_one(sql: str):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


def grow_history(target: int, owners: list[int], chunk: int = 100_000) -> None:
    """Add history jobs until the table holds `target` jobs (RECENT_JOBS of them recent)."""
    have = execute_one("SELECT count(*) FROM job WHERE created_at < now() - interval '1 day'")
    want = target - RECENT_JOBS
    started = time.monotonic()
    while have < want:
        last = min(want, have + chunk)
        execute(HISTORY_SQL, {"first": have + 1, "last": last, "owners": owners})
        have = last
        say(f"  seeded {have:,} history jobs ({time.monotonic() - started:.0f} s)")


def reset_recent(owners: list[int]) -> None:
    """Replace the last day's jobs, so every size is measured against the same fresh day of work."""
    execute("DELETE FROM job WHERE created_at >= now() - interval '1 day'")
    execute(RECENT_SQL, {"count": RECENT_JOBS, "owners": owners})


def bench_shops() -> list:
    """SHOPS API clients (made once), each with a fresh key: the bench keeps no key between runs."""
    from api import keys
    from api.models import ApiClient

    shops = []
    for number in range(SHOPS):
        name = f"bench-shop-{number:02d}"
        ApiClient.objects.filter(name=name).update(name=f"{name}-retired-{time.time_ns()}", is_active=False)
        shops.append(keys.issue_key(name))
    return shops


def seed_sessions_and_blocks() -> None:
    """A week of IP sessions and bot detections (the same at every size)."""
    from datetime import timedelta

    from django.utils import timezone

    from search.models import BotEvent, IpSession, SessionEndReason

    if IpSession.objects.exists():
        return
    now = timezone.now()
    sessions = []
    for number in range(5_000):
        started = now - timedelta(minutes=2 * number)
        blocked = number % 9 == 0
        requests = 12 + number % 38 if blocked else 50
        sessions.append(
            IpSession(
                proxy_label=f"kr-proxy-{number % 12}",
                worker_id=f"web-{number % 4}:4242:bench",
                started_at=started,
                ended_at=started + timedelta(minutes=6),
                requests=requests,
                bytes=requests * 320_000,
                end_reason=SessionEndReason.BLOCKED if blocked else SessionEndReason.BUDGET,
            )
        )
    IpSession.objects.bulk_create(sessions, batch_size=1000)
    blocked_sessions = list(IpSession.objects.filter(end_reason=SessionEndReason.BLOCKED).order_by("-started_at"))
    BotEvent.objects.bulk_create(
        [
            BotEvent(
                ip_session=session,
                proxy_label=session.proxy_label,
                kind="http_403" if index % 3 else "captcha",
                http_status=403 if index % 3 else 200,
                url="https://www.coupang.com/np/search?q=x",
                query="다이슨 에어랩 멀티 스타일러",
                requests_in_session=session.requests,
                snapshot_path=f"2026-11-30/block-{session.pk}.html",
                detected_at=session.ended_at,
            )
            for index, session in enumerate(blocked_sessions)
        ],
        batch_size=1000,
    )


def vacuum_analyze() -> None:
    # What autovacuum does to a table this size in production: statistics and visibility map up to date.
    for table in ("job", "search_ip_session", "search_bot_event"):
        execute(f"VACUUM (ANALYZE) {table}")


def time_pages(client, requests: int, pages: dict[str, str], api_key: str, metrics_key: str) -> dict[str, list[float]]:
    """Milliseconds of each request to each page, pages taken in turn (so that a burst of load from elsewhere
    on the machine lands on every page alike), after warming every page up (templates, caches, connections).
    API paths are asked with the measured shop's key, /metrics with an operator key as Prometheus asks it."""

    def get(url: str):
        if url.startswith("/v1/"):
            headers = {"X-API-Key": api_key}
        elif url == "/metrics":
            headers = {"Authorization": f"Bearer {metrics_key}"}
        else:
            headers = {}
        return client.get(url, headers=headers)

    for _ in range(3):
        for url in pages.values():
            assert get(url).status_code == 200, url
    samples: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(requests):
        for name, url in pages.items():
            started = time.perf_counter()
            response = get(url)
            samples[name].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, url
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--requests", type=int, default=21)
    options = parser.parse_args(argv)
    from lps_site import embedded_pg

    with embedded_pg.running() as server:
        return measure(options, bench_database_url(server))


def measure(options: argparse.Namespace, url: str) -> int:
    """Every measurement, on the bench's own database at `url`."""
    ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings

    from jobs.models import Job

    call_command("migrate", verbosity=0)
    user_model = get_user_model()
    staff = user_model.objects.filter(username="bench").first() or user_model.objects.create_superuser(
        "bench", "bench@example.test", None
    )
    from api import keys
    from api.models import ApiClient

    ApiClient.objects.filter(name="bench-prometheus").delete()
    scraper = keys.issue_key("bench-prometheus", operator=True)
    static_root = tempfile.mkdtemp(prefix="lps-adminbench-static-")
    plain_static = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    say(f"database {BENCH_DATABASE}; {options.requests} timed requests per page, Django test client, staff user")
    results: dict[int, dict[str, list[float]]] = {}
    shops = bench_shops()
    owners = [shop.client.pk for shop in shops]
    measured = shops[7]
    pages = {**PAGES, **{name: url.format(owner=measured.client.pk) for name, url in SHOP_PAGES.items()}}
    settings = {"STATIC_ROOT": static_root, "STORAGES": plain_static, "DEBUG": False}
    with override_settings(**settings, LPS_API_RATE_LIMIT_PER_MINUTE=0):
        execute("TRUNCATE job")
        seed_sessions_and_blocks()
        for size in sorted(options.sizes):
            say(f"growing the job table to {size:,} jobs")
            grow_history(size, owners)
            reset_recent(owners)
            vacuum_analyze()
            mine = Job.objects.filter(owner_id=measured.client.pk).count()
            say(f"  {job_count():,} jobs in the table, {mine:,} of them the measured client's")
            client = Client()
            client.force_login(staff)
            results[size] = time_pages(client, options.requests, pages, measured.api_key, scraper.api_key)

    sizes = sorted(results)
    smallest, largest = sizes[0], sizes[-1]
    medians = {size: {name: statistics.median(results[size][name]) for name in pages} for size in sizes}
    fastest = {size: {name: min(results[size][name]) for name in pages} for size in sizes}
    width = max(len(name) for name in pages)
    say("")
    say("median of the requests (the fastest in brackets)")
    say(f"{'page':<{width}}" + "".join(f"{f'{size:,} jobs':>24}" for size in sizes) + f"{'ratio':>8}")
    for name in pages:
        ratio = medians[largest][name] / medians[smallest][name]
        cells = "".join(f"{medians[size][name]:>11.1f} ms ({fastest[size][name]:>6.1f})" for size in sizes)
        say(f"{name:<{width}}{cells}{ratio:>8.2f}")
    say("")
    worst = max(medians[largest][name] / medians[smallest][name] for name in HEADLINE)
    verdict = "met" if worst <= 2 else "NOT met"
    say(f"goal ratio <= 2 for {', '.join(HEADLINE)}: {verdict} (worst {worst:.2f})")
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
