"""Bench the search pipeline against a naive crawler on the local fake marketplace.

    .venv/bin/python bench/search_bench.py [--searches 1000] [--naive-searches 10] [--listings 36]

Both sides run the same pipeline function (search.pipeline.search_product) with the rules judge and keyword
rules (no LLM), on the same products and pages; only `fetch` differs:
- pipeline: the project's Crawler as a worker runs it — one long-lived Chromium, IP sessions reused for a
  request budget, images, media and fonts blocked, pages read as served (settings as configured:
  LPS_SESSION_REQUEST_BUDGET, LPS_BROWSER_RECYCLE_PAGES, LPS_READ_PAGE_AS_SERVED);
- naive: a new Chromium per search, nothing blocked, the page read at the load event (what a first scraper
  does).
The fake marketplace serves like the real one (tests/fakes/marketplace.py): HTML, JS and CSS gzipped, hashed
scripts and stylesheets cacheable for a year, real asset weights. Bytes are counted where a proxy would bill
them, at the marketplace: response bodies as sent on the wire, gzip-encoded where they were (the crawler's own
wire count, headers included, is shown beside it). RSS is the sum over this process and every
descendant (Playwright's driver and all Chromium processes), read from /proc, after 100 and after all
searches. Goals: ≥ 10× faster, ≤ 10 % of the bytes, RSS growth ≤ 20 %.

Then both marketplaces (`--both N` searches, 0 to skip; `--only-both` skips the comparison above): the same
products searched on Coupang alone, on Naver alone (the fake Naver Search API, tests/fakes/naver_api.py, with
its daily quota counted in the database) and on both, Naver's call beside Coupang's page or after it: the time
per search and what Naver adds to it.

`--profile` times each pipeline search as a worker runs it, from the claim of its SEARCH job to its recorded
result (the job enqueued before the clock starts, claimed, run by the SEARCH handler with its shared crawler, and
completed), and prints where the time went, stage by stage: the handler's own stages are the ones a job's
metrics.stages_ms shows operators (search/stage_timings.py), with the queue's claim and outcome statements
around them, and "other" for what no stage names (Python between them, the loop bridge, thread hand-offs).

The bench runs on its own throwaway database (test_lps_bench), never on the development data.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lps_site.settings")
os.environ["LPS_TEST_DB_SUFFIX"] = "_bench"
os.environ.setdefault("LOG_LEVEL", "WARNING")
from lps_site import embedded_pg  # noqa: E402

# Entered here because django.setup() below needs the URL; left (the server stopped, if started) by __main__.
DATABASE_SERVER = contextlib.ExitStack()
os.environ["DATABASE_URL"] = DATABASE_SERVER.enter_context(embedded_pg.running())

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from jobs import queue  # noqa: E402
from jobs.handlers import JobContext  # noqa: E402
from lps_site.job_types import JobType  # noqa: E402
from search import handler as search_handler  # noqa: E402
from search import stage_timings  # noqa: E402
from search.chromium import CHROMIUM_ARGS, find_chromium  # noqa: E402
from search.crawler import Crawler  # noqa: E402
from search.judge import judge_listings  # noqa: E402
from search.keywords import refine_queries  # noqa: E402
from search.listings import ProductQuery, RefinedQueries, SearchPage  # noqa: E402
from search.marketplaces import admit_naver, naver_may_find_more  # noqa: E402
from search.pipeline import Marketplace, search_product  # noqa: E402
from search.sources.coupang import CoupangSource  # noqa: E402
from search.sources.naver import NaverCredentials, NaverSource  # noqa: E402
from tests.fakes.marketplace import FakeMarketplace  # noqa: E402
from tests.fakes.naver_api import CLIENT_ID, CLIENT_SECRET, FakeNaver  # noqa: E402
from tests.processes import descendants, process_table  # noqa: E402

BRANDS = ("삼성전자", "LG전자", "로지텍", "다이슨", "필립스", "소니", "애플", "샤오미")
KINDS = ("무선 이어폰", "게이밍 마우스", "무선청소기", "전동칫솔", "블루투스 스피커", "공기청정기", "모니터", "키보드")
PRODUCTS = 50


def catalogue(listings_per_page: int) -> list[tuple[ProductQuery, list[dict]]]:
    """PRODUCTS products, each with a result page of `listings_per_page` cards (ads, sold-out, accessories)."""
    products = []
    for number in range(PRODUCTS):
        brand, kind = BRANDS[number % len(BRANDS)], KINDS[number // len(BRANDS) % len(KINDS)]
        code = f"BX-{1000 + number}"
        name = f"{brand} {kind} {code}"
        listings = []
        for slot in range(listings_per_page):
            price = 50_000 + 1_000 * ((slot * 7919 + number * 104729) % 300)
            product_id = str(7_000_000_000 + number * 1_000 + slot)  # a result page lists distinct products
            if slot % 9 == 4:
                listings.append({"title": f"{name} 전용 케이스", "price": 9_900 + slot})
            elif slot % 9 == 7:
                listings.append({"title": f"{name} (광고)", "price": price // 2, "ad": True})
            elif slot % 11 == 5:
                listings.append({"title": f"{name} 일시품절", "price": price // 3, "sold_out": True})
            else:
                listings.append(
                    {
                        "title": f"{name} {('블랙', '화이트', '실버')[slot % 3]}",
                        "price": price,
                        "original_price": price + 20_000,
                        "rocket": slot % 2 == 0,
                        "seller": f"판매자{slot}",
                    }
                )
            listings[-1]["product_id"] = product_id
        products.append((ProductQuery(product_code=code, product_name=name, brand=brand, model_code=code), listings))
    return products


def process_tree_memory(root_pid: int) -> tuple[int, int, int]:
    """(RSS bytes, PSS bytes, process count) of `root_pid` and all its descendants (PostgreSQL excluded)."""
    table = process_table()
    rss = pss = count = 0
    for pid in [root_pid, *descendants(root_pid, table)]:
        if pid in table and table[pid].name.startswith("postgres"):
            continue
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1]) * 1024
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1]) * 1024
            count += 1
        except OSError:
            continue
    return rss, pss, count


class NaiveCrawler:
    """A first scraper: a new Chromium per search, nothing blocked, the page read once everything loaded.

    Playwright's sync API runs its own event loop, which Django's ORM refuses to share a thread with: the
    browser work happens on one dedicated thread.
    """

    def __init__(self):
        self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="naive")
        self._playwright = self._thread.submit(lambda: sync_playwright().start()).result()
        self._chromium = find_chromium()

    def fetch(self, source: CoupangSource, query: str) -> SearchPage:
        return self._thread.submit(self._fetch, source, query).result(timeout=120)

    def _fetch(self, source: CoupangSource, query: str) -> SearchPage:
        url = source.search_url(query)
        browser = self._playwright.chromium.launch(executable_path=self._chromium, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.goto(url, wait_until="load", timeout=60_000)
            parsed = source.parse(page.content(), base_url=page.url)
        finally:
            browser.close()
        return SearchPage(query=query, url=url, listings=parsed.listings, empty=parsed.empty)

    def close(self) -> None:
        self._thread.submit(self._playwright.stop).result(timeout=60)
        self._thread.shutdown()


def search(product: ProductQuery, fetch) -> dict:
    return search_product(
        product,
        fetch=fetch,
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=None),
        refine=lambda product, tried: refine_queries(product, llm=None, tried=list(tried)),
    )


def timed_search(product: ProductQuery, crawler, source: CoupangSource, marketplace) -> tuple[float, int, dict]:
    """One search through `crawler` (the naive one or the pipeline's): its seconds, the bytes the marketplace
    served for it, and its result (which must have found the product)."""
    served = marketplace.bytes_served
    started = time.perf_counter()
    result = search(product, lambda query: crawler.fetch(source, query))
    seconds = time.perf_counter() - started
    assert result["outcome"] == "found", result
    return seconds, marketplace.bytes_served - served, result


class QueuedSearches:
    """Searches as a worker runs them: a SEARCH job claimed, the SEARCH handler, the job completed; each timed.

    The handler uses its process's shared crawler (the settings' Coupang URL pointed at the fake marketplace)."""

    WORKER = "bench-profile"

    def __init__(self, source: CoupangSource):
        settings.LPS_COUPANG_URL = source.base_url
        self.stages: list[dict[str, float]] = []
        self.statements: list[int] = []
        self.last_statements: list[str] = []

    @property
    def crawler(self) -> Crawler:
        return search_handler.shared_crawler()

    def search(self, product: ProductQuery) -> tuple[float, dict]:
        """One search, claim to recorded result: its seconds and its result; its stages kept in self.stages."""
        payload = {"product_code": product.product_code, "product_name": product.product_name}
        payload.update({"brand": product.brand, "model_code": product.model_code})
        queue.enqueue(queue.NewJob(JobType.SEARCH, payload))
        statements: list[str] = []

        def count(execute, sql, params, many, context):
            statements.append(" ".join(sql.split())[:100])
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            started = time.perf_counter()
            (job,) = queue.claim(self.WORKER, limit=1, job_types=[JobType.SEARCH])
            claimed = time.perf_counter()
            context = JobContext(self.WORKER, deadline=time.monotonic() + settings.LPS_SEARCH_DEADLINE_SECONDS)
            # Around the handler's own clock: the recording of the result, after its stages_ms, is counted too.
            with stage_timings.measuring() as clock:
                result = search_handler.run_search(job, context)
            ran = time.perf_counter()
            queue.complete(job, result)
            ended = time.perf_counter()
        self.statements.append(len(statements))
        self.last_statements = statements
        stages = dict(clock.seconds)
        stages["claim"], stages["outcome"] = claimed - started, ended - ran
        stages["other"] = (ended - started) - sum(stages.values())
        self.stages.append(stages)
        return ended - started, result

    def close(self) -> None:
        search_handler.close_shared_crawler()


def print_profile(stages: list[dict[str, float]]) -> None:
    """The stage table: mean milliseconds per search, share of the whole, and p50/p95 of each stage."""
    total = statistics.mean(sum(one.values()) for one in stages)
    names = [*stage_timings.STAGES, *sorted({name for one in stages for name in one} - {*stage_timings.STAGES})]
    print(f"profile of {len(stages):,} searches, claim to recorded result (ms per search)")
    print(f"{'stage':20}{'mean':>9}{'share':>8}{'p50':>9}{'p95':>9}")
    for name in names:
        values = [one.get(name, 0.0) * 1000 for one in stages]
        if not any(values):
            continue
        quantiles = statistics.quantiles(values, n=100) if len(values) > 1 else values * 99
        print(
            f"{name:20}{statistics.mean(values):>9.1f}{statistics.mean(values) / (total * 1000):>8.1%}"
            f"{quantiles[49]:>9.1f}{quantiles[94]:>9.1f}"
        )
    print(f"{'total':20}{total * 1000:>9.1f}{1:>8.0%}")


def mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=1000, help="pipeline searches (RSS read at 100 and here)")
    parser.add_argument("--naive-searches", type=int, default=10)
    parser.add_argument("--listings", type=int, default=36, help="product cards per result page")
    parser.add_argument("--both", type=int, default=200, help="searches per set-up on both marketplaces (0: skip)")
    parser.add_argument("--only-both", action="store_true", help="only the both-marketplaces part")
    parser.add_argument(
        "--profile", action="store_true", help="time pipeline searches claim to recorded result, stage by stage"
    )
    options = parser.parse_args()
    if options.only_both:
        old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
        try:
            return both_marketplaces(catalogue(options.listings), options.both)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)
    if options.searches < 100:
        parser.error("--searches must be at least 100 (RSS is read after 100 searches)")

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    marketplace = FakeMarketplace().start()
    source = CoupangSource(base_url=marketplace.base_url)
    products = catalogue(options.listings)
    for product, listings in products:
        marketplace.set_results(product.product_name, listings)
    try:
        return run(options, marketplace, source, products)
    finally:
        marketplace.stop()
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run(options, marketplace: FakeMarketplace, source: CoupangSource, products) -> int:
    chromium = find_chromium()
    load_at_start = os.getloadavg()[0]
    print(
        f"LPS search bench: fake marketplace {marketplace.base_url}, {options.listings} cards per page, "
        f"{PRODUCTS} products, Chromium {chromium}, {os.cpu_count()} CPUs; pages read "
        + ("as served" if settings.LPS_READ_PAGE_AS_SERVED else "once parsed (LPS_READ_PAGE_AS_SERVED=false)")
    )

    # --- naive ---------------------------------------------------------------------------------------------
    naive = NaiveCrawler()
    naive_times, naive_bytes = [], []
    naive_hits: Counter[str] = Counter()
    naive_served: Counter[str] = Counter()

    def naive_search(number: int) -> None:
        hits, by_kind = marketplace.resource_hits, marketplace.bytes_served_by_kind
        seconds, served, _result = timed_search(products[number % len(products)][0], naive, source, marketplace)
        naive_hits.update(marketplace.resource_hits - hits)
        naive_served.update(marketplace.bytes_served_by_kind - by_kind)
        naive_times.append(seconds)
        naive_bytes.append(served)
        print(f"  {number + 1} naive searches, mean {statistics.mean(naive_times) * 1000:,.0f} ms", file=sys.stderr)

    # A profile spreads the naive searches among the pipeline's, so that the machine's load weighs on both alike.
    naive_every = max(1, options.searches // max(1, options.naive_searches)) if options.profile else 0
    if not naive_every:
        try:
            for number in range(options.naive_searches):
                naive_search(number)
        finally:
            naive.close()

    # --- pipeline ------------------------------------------------------------------------------------------
    queued = QueuedSearches(source) if options.profile else None
    crawler = queued.crawler if queued else Crawler(worker_id="bench")
    root = os.getpid()
    times, served_bytes, wire_bytes = [], [], []
    rss_at: dict[int, tuple[int, int, int]] = {}
    try:
        # The first search launches the browser: a worker pays that once, not per search.
        warm_started = time.perf_counter()
        search(products[-1][0], lambda query: crawler.fetch(source, query))
        launch_seconds = time.perf_counter() - warm_started
        for number in range(1, options.searches + 1):
            product = products[number % len(products)][0]
            if queued is not None:
                served = marketplace.bytes_served
                seconds, result = queued.search(product)
                served = marketplace.bytes_served - served
                assert result["outcome"] == "found", result
            else:
                seconds, served, result = timed_search(product, crawler, source, marketplace)
            times.append(seconds)
            served_bytes.append(served)
            wire_bytes.append(result["metrics"]["bytes"])
            if number in (100, options.searches):
                rss_at[number] = process_tree_memory(root)
            if naive_every and number % naive_every == 0 and len(naive_times) < options.naive_searches:
                naive_search(len(naive_times))
            if number % 100 == 0:
                print(f"  {number:,} pipeline searches, mean {statistics.mean(times) * 1000:,.0f} ms", file=sys.stderr)
        counters = crawler.counters
    finally:
        if queued is not None:
            queued.close()
        else:
            crawler.close()
        if naive_every:
            naive.close()
    pipeline_hits = marketplace.resource_hits - naive_hits
    pipeline_served = marketplace.bytes_served_by_kind - naive_served

    naive_ms, pipeline_ms = statistics.mean(naive_times) * 1000, statistics.mean(times) * 1000
    naive_b, pipeline_b = statistics.mean(naive_bytes), statistics.mean(served_bytes)
    speedup = naive_ms / pipeline_ms
    byte_share = pipeline_b / naive_b
    (rss_100, pss_100, procs_100), (rss_n, pss_n, procs_n) = rss_at[100], rss_at[options.searches]
    growth = (rss_n - rss_100) / rss_100
    pss_growth = (pss_n - pss_100) / pss_100

    def p(values, q):
        return statistics.quantiles(values, n=100)[q - 1] * 1000 if len(values) > 1 else values[0] * 1000

    print()
    print(f"{'':34}{'pipeline':>14}{'naive':>14}  ratio")
    print(f"{'searches timed':34}{len(times):>14,}{len(naive_times):>14,}")
    print(f"{'time per search, mean (ms)':34}{pipeline_ms:>14,.1f}{naive_ms:>14,.1f}  {speedup:,.1f}x faster")
    print(
        f"{'time per search, p50 / p95 (ms)':34}{p(times, 50):>7,.0f}/{p(times, 95):<6,.0f}"
        f"{p(naive_times, 50):>7,.0f}/{p(naive_times, 95):<6,.0f}"
    )
    print(f"{'bytes per search (served)':34}{pipeline_b:>14,.0f}{naive_b:>14,.0f}  {byte_share:.1%} of naive")
    print(f"{'bytes per search (crawler, wire)':34}{statistics.mean(wire_bytes):>14,.0f}{'-':>14}")
    print(
        f"{'requests per search by kind':34}  pipeline: "
        + ", ".join(f"{kind} {count / (options.searches + 1):.1f}" for kind, count in sorted(pipeline_hits.items()))
    )
    print(
        f"{'':34}  naive:    "
        + ", ".join(
            f"{kind} {count / max(1, options.naive_searches):.1f}" for kind, count in sorted(naive_hits.items())
        )
    )
    print(
        f"{'bytes per search by kind (served)':34}  pipeline: "
        + ", ".join(f"{kind} {size / (options.searches + 1):,.0f}" for kind, size in sorted(pipeline_served.items()))
    )
    print(
        f"{'':34}  naive:    "
        + ", ".join(
            f"{kind} {size / max(1, options.naive_searches):,.0f}" for kind, size in sorted(naive_served.items())
        )
    )
    print(
        f"browser launch (first search, once per worker): {launch_seconds * 1000:,.0f} ms; "
        f"crawler counters: {dict(sorted(counters.items()))}"
    )
    print(f"worker RSS (process tree) after 100 searches:   {mib(rss_100)} ({procs_100} processes; PSS {mib(pss_100)})")
    print(
        f"worker RSS (process tree) after {options.searches:,} searches: {mib(rss_n)} ({procs_n} processes; "
        f"PSS {mib(pss_n)})"
    )
    print(f"RSS growth 100 → {options.searches:,}: {growth:+.1%} (PSS {pss_growth:+.1%})")
    print(
        f"load average (1 min) at the start {load_at_start:.1f}, at the end {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs (other work on the machine slows both sides)"
    )
    if queued is not None:
        print()
        print_profile(queued.stages)
        print(
            f"database statements per search (claim and outcome included): {statistics.mean(queued.statements):.1f}; "
            "the last search's:"
        )
        for statement in queued.last_statements:
            print(f"  {statement}")
    print()
    goals = [
        ("≥ 10x faster", speedup >= 10, f"{speedup:,.1f}x"),
        ("≤ 10 % of the bytes", byte_share <= 0.10, f"{byte_share:.1%}"),
        ("RSS growth ≤ 20 %", growth <= 0.20, f"{growth:+.1%}"),
    ]
    for goal, met, value in goals:
        print(f"goal {goal:22} {value:>10}  {'MET' if met else 'MISSED'}")
    if options.both:
        print()
        both_marketplaces(products, options.both)
    return 0 if all(met for _, met, _ in goals) else 1


def naver_items(product: ProductQuery, number: int, coupang: list[dict]) -> list[dict]:
    """A Naver answer for `product`: a catalog, matched offers (half the products cheaper than on Coupang), a used
    unit, a discontinued one and an accessory, as the Search API lists them."""
    name = product.product_name
    genuine = [c["price"] for c in coupang if not c.get("ad") and not c.get("sold_out") and "케이스" not in c["title"]]
    base = min(genuine) + (-3_000 if number % 2 == 0 else 10_000)
    return [
        {"title": name, "price": base, "product_type": 1, "hprice": base + 90_000},
        {"title": f"{name} 정품", "price": base + 2_000, "mall": "하이마트쇼핑몰"},
        {"title": f"[중고] {name}", "price": base // 2, "product_type": 5, "mall": "중고나라"},
        {"title": f"{name} 구형", "price": base // 3, "product_type": 8},
        {"title": f"{name} 전용 파우치 &amp; 필름", "price": 9_900, "mall": "케이스마켓"},
    ]


def both_marketplaces(products, searches: int) -> int:
    """Time searches on Coupang alone, Naver alone and both (concurrent and sequential); print what Naver adds."""
    marketplace, naver = FakeMarketplace().start(), FakeNaver().start()
    for number, (product, listings) in enumerate(products):
        marketplace.set_results(product.product_name, listings)
        naver.set_results(product.product_name, naver_items(product, number, listings))
    source = CoupangSource(base_url=marketplace.base_url)
    naver_source = NaverSource(base_url=naver.base_url, credentials=NaverCredentials(CLIENT_ID, CLIENT_SECRET))
    crawler = Crawler(worker_id="bench-both")

    def setups():
        coupang = Marketplace("coupang", lambda query: crawler.fetch(source, query))
        beside = Marketplace("naver", naver_source.search, admit=admit_naver, concurrent=True, billed_bytes=False)
        after = Marketplace("naver", naver_source.search, admit=admit_naver, concurrent=False, billed_bytes=False)
        return {
            "coupang alone": [coupang],
            "naver alone": [beside],
            "both, naver beside": [coupang, beside],
            "both, naver after": [coupang, after],
        }

    def one(product, markets) -> tuple[float, dict]:
        started = time.perf_counter()
        result = search_product(
            product,
            marketplaces=markets,
            configured=["coupang", "naver"],
            judge=lambda product, candidates: judge_listings(product, list(candidates), llm=None),
            refine=lambda product, tried: refine_queries(product, llm=None, tried=list(tried)),
        )
        return time.perf_counter() - started, result

    try:
        one(products[-1][0], setups()["coupang alone"])  # the browser's launch, paid once by a worker
        timings: dict[str, list[float]] = {label: [] for label in setups()}
        results: dict[str, list[dict]] = {label: [] for label in setups()}
        # Interleaved, so that the machine's load and the browser's warm-up weigh on every set-up alike.
        for number in range(searches):
            for label, markets in setups().items():
                seconds, result = one(products[number % len(products)][0], markets)
                timings[label].append(seconds)
                results[label].append(result)
            if (number + 1) % 25 == 0:
                print(f"  {number + 1} searches per set-up", file=sys.stderr)
    finally:
        crawler.close()
        naver_source.close()
        marketplace.stop()
        naver.stop()

    def p(values, q):
        return statistics.quantiles(values, n=100)[q - 1] * 1000

    print(f"both marketplaces: {searches} searches per set-up, {len(products)} products, rules judge")
    print(f"{'':26}{'mean ms':>10}{'p50':>9}{'p95':>9}{'found':>8}{'naver lowest':>14}{'naver calls':>13}")
    for label, values in timings.items():
        of_label = results[label]
        found = sum(r["outcome"] == "found" for r in of_label)
        naver_won = sum((r.get("lowest") or {}).get("marketplace") == "naver" for r in of_label)
        calls = sum(r["metrics"]["by_marketplace"].get("naver", {}).get("calls", 0) for r in of_label)
        print(
            f"{label:26}{statistics.mean(values) * 1000:>10,.1f}{p(values, 50):>9,.1f}{p(values, 95):>9,.1f}"
            f"{found:>8}{naver_won:>14}{calls / len(of_label):>13.2f}"
        )
    alone, beside, after = (
        statistics.mean(timings[k]) * 1000 for k in ("coupang alone", "both, naver beside", "both, naver after")
    )
    naver_ms = statistics.mean(
        [r["metrics"]["by_marketplace"]["naver"]["fetch_ms"] for r in results["both, naver beside"]]
    )
    print(
        f"naver adds {beside - alone:+,.1f} ms per search beside coupang ({after - alone:+,.1f} ms after it); "
        f"its own call takes {naver_ms:,.1f} ms; it reports the lowest price on "
        f"{sum((r.get('lowest') or {}).get('marketplace') == 'naver' for r in results['both, naver beside'])}"
        f" of {searches} searches"
    )
    naver_quota_per_search(products, min(searches, 50))
    return 0


def naver_quota_per_search(products, searches: int) -> None:
    """Naver's quota spent per search of a product Coupang has and Naver does not: every Naver call answered as
    before, and with Naver sitting out the queries that cannot find more than one that found nothing."""
    marketplace, naver = FakeMarketplace().start(), FakeNaver().start()  # this Naver knows no product
    for product, listings in products:
        marketplace.set_results(product.product_name, listings)
    source = CoupangSource(base_url=marketplace.base_url)
    naver_source = NaverSource(base_url=naver.base_url, credentials=NaverCredentials(CLIENT_ID, CLIENT_SECRET))
    crawler = Crawler(worker_id="bench-quota")

    def as_an_llm_writes_them(product, tried):
        # The model's habit: the name's words again, the model code first (precise), and the name less its code.
        words = [word for word in product.product_name.split() if word != product.model_code]
        return RefinedQueries(precise=" ".join([product.model_code, *words]), broad=" ".join(words))

    refines = {"rules": lambda product, tried: refine_queries(product, llm=None, tried=list(tried))}
    refines["llm-like"] = as_an_llm_writes_them
    print(f"naver quota per search, {searches} products Coupang has and Naver does not (calls per search)")
    print(f"{'refined queries by':22}{'every call':>12}{'sits out':>12}")
    try:
        for label, refine in refines.items():
            calls = {}
            for sits_out in (None, naver_may_find_more):
                markets = [
                    Marketplace("coupang", lambda query: crawler.fetch(source, query)),
                    Marketplace(
                        "naver", naver_source.search, concurrent=True, billed_bytes=False, may_find_more=sits_out
                    ),
                ]
                spent = []
                for number in range(searches):
                    result = search_product(
                        products[number % len(products)][0],
                        marketplaces=markets,
                        configured=["coupang", "naver"],
                        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=None),
                        refine=refine,
                    )
                    spent.append(result["metrics"]["by_marketplace"]["naver"]["calls"])
                calls[sits_out is not None] = statistics.mean(spent)
            print(f"{label:22}{calls[False]:>12.2f}{calls[True]:>12.2f}")
    finally:
        crawler.close()
        naver_source.close()
        marketplace.stop()
        naver.stop()


if __name__ == "__main__":
    with DATABASE_SERVER:
        sys.exit(main())
