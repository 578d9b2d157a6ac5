"""The crawler against the fake marketplace, in the real Chromium, with IpSession and BotEvent rows in PostgreSQL.

Most tests share one module-wide crawler (starting Chromium costs a second). Its request budget is 1, so every
fetch opens a fresh IP session whose row belongs to the test that made it (each test's rows roll back).
Tests that need other limits, threads or a dead browser start their own crawler.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from django.db import connections

from search.byte_meter import ByteMeter
from search.crawler import Crawler
from search.exceptions import Blocked, BrowserUnavailable, CrawlFailed
from search.models import BotEvent, IpSession, SessionEndReason
from search.sources.coupang import CoupangSource
from tests.fakes.marketplace import (
    BLOCKING_SCRIPT,
    FONT_BYTES,
    SCRIPTS,
    STYLESHEETS,
    THUMBNAIL_BYTES,
    FakeListing,
    render_current,
)
from tests.processes import descendants, process_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

LISTINGS = [
    {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 189_000, "original_price": 219_000, "rocket": True},
    {"title": "갤럭시 버즈3 프로 케이스", "price": 9_900, "unit_price_text": "(1개당 9,900원)"},
    {"title": "갤럭시 버즈3 프로 SM-R630 세트", "price": 179_000, "ad": True},
    {"title": "갤럭시 버즈3 프로 SM-R630 화이트", "price": 149_000, "sold_out": True},
]
QUERY = "갤럭시 버즈3 프로"
CHROMIUM_EXECUTABLES = {b"chromium", b"chrome", b"chromium-browser", b"google-chrome", b"headless_shell"}


CHROMIUM_EXIT_SECONDS = 30.0
"""How long a closed browser's processes may take to exit: seconds on a quiet machine, more under a full suite on
two shared cores (a bound for the wait, not a timing asserted)."""


def wait_for(predicate, timeout: float = 10.0):
    """Poll `predicate` until it holds (returning its value) or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        pause.wait(0.05)


def chromium_processes(*, main_only: bool = False, besides=()) -> list[int]:
    """Live Chromium processes descended from this test process, read from /proc (no psutil); `main_only`
    keeps the browsers' main processes (no --type= switch), `besides` leaves out other crawlers' ones, with the
    children their browsers start later (a spare renderer, a restarted utility process)."""
    live = {pid: process for pid, process in process_table().items() if process.state != "Z"}
    besides = set(besides).union(*(descendants(pid, live) for pid in besides if pid in live))
    found = []
    for pid in descendants(os.getpid(), live):
        try:
            # Chromium rewrites its children's command lines as one space-separated string.
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        if pid in besides or not argv or os.path.basename(argv[0]) not in CHROMIUM_EXECUTABLES:
            continue
        if main_only and any(arg.startswith(b"--type=") for arg in argv):
            continue
        found.append(pid)
    return found


def left_running(pids: list[int]) -> list[str]:
    """What each process still running is (its pid, its parent and its --type), for a failure's message."""
    table = process_table()
    described = []
    for pid in pids:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        kind = next((arg.decode() for arg in argv if arg.startswith(b"--type=")), "browser")
        described.append(f"{pid} (parent {table[pid].parent if pid in table else '?'}): {kind}")
    return described


@pytest.fixture(autouse=True)
def snapshot_dir(settings, tmp_path):
    settings.LPS_SNAPSHOT_DIR = tmp_path / "snapshots"
    return settings.LPS_SNAPSHOT_DIR


@pytest.fixture(scope="module")
def crawler(django_db_blocker):
    crawler = Crawler(request_budget=1, navigation_timeout=10.0, worker_id="test-crawler")
    yield crawler
    with django_db_blocker.unblock():
        crawler.close()


@pytest.fixture(scope="module")
def parsing_crawler(django_db_blocker):
    """A crawler that reads each page once the tab has parsed it (LPS_READ_PAGE_AS_SERVED=false)."""
    crawler = Crawler(request_budget=1, navigation_timeout=10.0, worker_id="test-parsing", read_as_served=False)
    yield crawler
    with django_db_blocker.unblock():
        crawler.close()


@pytest.fixture
def source(fake_marketplace):
    fake_marketplace.set_results(QUERY, LISTINGS)
    return CoupangSource(fake_marketplace.base_url)


def sessions() -> list[IpSession]:
    return list(IpSession.objects.order_by("id"))


# --- Healthy pages --------------------------------------------------------------------------------------


def test_a_result_page_comes_back_parsed_with_its_bytes_counted(crawler, source, fake_marketplace):
    page = crawler.fetch(source, QUERY)

    assert [(listing.title, listing.price) for listing in page.listings] == [
        (listing["title"], listing["price"]) for listing in LISTINGS
    ]
    assert [listing.title for listing in page.candidates] == [LISTINGS[0]["title"], LISTINGS[1]["title"]]
    assert page.listings[0].rocket
    assert not page.empty
    assert page.proxy_label == "direct"
    # The page is read as it arrived: its HTML counts now (gzipped, as it travelled); its scripts and
    # stylesheets, if the tab gets to ask for them, count on the session's row once it ends.
    assert fake_marketplace.bytes_served_by_kind["search"] <= page.bytes
    [session] = sessions()
    assert page.bytes <= session.bytes < fake_marketplace.bytes_served + 8_000  # plus headers
    assert page.elapsed_ms > 0


def assets_settled(marketplace, crawler) -> bool:
    """Every script and stylesheet asked for, nothing more sent for a moment, and Chromium has reported each
    request done. The server's quiet is not enough: the tab reports a request's end from its renderer, which
    under load may lag the network behind it, and a request the next navigation cuts short is not reported."""
    sent = marketplace.bytes_served
    time.sleep(0.2)
    asked = marketplace.hits("script") >= len(SCRIPTS) and marketplace.hits("stylesheet") >= len(STYLESHEETS)
    return asked and marketplace.bytes_served == sent and crawler.requests_under_way() == 0


def test_a_session_pays_for_gzipped_html_on_the_wire_and_for_the_sites_scripts_once(source, fake_marketplace):
    items = [FakeListing.from_dict(listing) for listing in LISTINGS]
    document = render_current(QUERY, items).encode()

    with Crawler(request_budget=10, worker_id="warm") as crawler:
        first = crawler.fetch(source, QUERY)
        # The page is read as it arrives, before the tab asks for its scripts and stylesheets; let them land
        # in the session's cache (the next navigation would cut them short). A page handed to the tab whole
        # may ask for one twice (its preload scanner and its parser at once): the first page pays for that.
        assert wait_for(lambda: assets_settled(fake_marketplace, crawler)), fake_marketplace.resource_hits
        first_page = fake_marketplace.resource_hits
        second = crawler.fetch(source, QUERY)
        served = fake_marketplace.bytes_served_by_kind
        third = crawler.fetch(source, QUERY)

    hits = fake_marketplace.resource_hits
    assert first_page["script"] <= 2 * len(SCRIPTS)
    assert first_page["stylesheet"] <= 2 * len(STYLESHEETS)
    # The later pages take every script and stylesheet from the session's cache.
    assert (hits["search"], hits["script"], hits["stylesheet"]) == (3, first_page["script"], first_page["stylesheet"])
    html_on_the_wire = fake_marketplace.bytes_served_by_kind["search"] - served["search"]
    assert html_on_the_wire < len(document) / 3  # the marketplace sent it gzipped
    assert fake_marketplace.bytes_served - served.total() == html_on_the_wire  # nothing else was fetched
    # What the crawler counts is what crossed the wire (encoded bodies plus headers), not the decoded pages. A
    # page is read as it arrives, so what a request still reports after the read is charged to the session's
    # next page (search/byte_meter.py, ByteMeter): under load part of one page's bill lands on the next. The
    # promise is the session's sum: every byte served billed once, plus each response's headers.
    billed = first.bytes + second.bytes + third.bytes
    responses = sum(hits.values())
    assert fake_marketplace.bytes_served <= billed < fake_marketplace.bytes_served + 1_000 * responses
    assert third.bytes >= html_on_the_wire


def test_a_document_read_after_its_bill_was_taken_is_not_billed_again():
    # The page's body is read as served by a task of its own; Chromium may report the request finished, and a take
    # bill it, before that task tells the meter the body has arrived.
    meter = ByteMeter()
    meter.on_request({"requestId": "doc", "request": {"url": "https://www.coupang.com/np/search?q=x"}})
    meter.on_response({"requestId": "doc", "response": {"encodedDataLength": 300}})
    meter.on_finished({"requestId": "doc", "encodedDataLength": 20_300})
    assert meter.take()[0] == 20_300

    meter.expect("doc", 20_000)
    meter.on_failed({"requestId": "doc"})  # the next navigation leaves it
    assert meter.take()[0] == 0


def test_a_script_the_tab_takes_from_its_memory_cache_costs_nothing_whenever_the_bill_is_taken():
    # Chromium reports a cached response with the size it had when it travelled, and its end with 0; a take that
    # falls between the two (the page was read meanwhile) once billed a cached 33 kB script to the next page.
    meter = ByteMeter()
    meter.on_request({"requestId": "js", "request": {"url": "https://www.coupang.com/_next/static/chunks/main.js"}})
    meter.on_served_from_cache({"requestId": "js"})
    meter.on_response({"requestId": "js", "response": {"encodedDataLength": 32_842}})
    assert meter.take()[0] == 0
    meter.on_finished({"requestId": "js", "encodedDataLength": 0})
    assert meter.take()[0] == 0
    assert meter.under_way == 0


def test_a_list_the_page_renders_after_it_loads_is_still_read(crawler, source, fake_marketplace):
    fake_marketplace.set_behaviour(QUERY, "late_list", delay_seconds=0.5)

    page = crawler.fetch(source, QUERY)

    assert [listing.title for listing in page.listings] == [listing["title"] for listing in LISTINGS]


def test_a_query_the_marketplace_does_not_know_gives_a_healthy_empty_page(crawler, source, fake_marketplace):
    page = crawler.fetch(source, "없는 상품 XYZ-000")

    assert page.empty
    assert page.listings == []
    assert fake_marketplace.search_queries == ["없는 상품 XYZ-000"]


def test_the_adapter_follows_the_coupang_url_setting(crawler, fake_coupang):
    fake_coupang.set_results("버즈", LISTINGS[:1])

    page = crawler.fetch(CoupangSource(), "버즈")

    assert page.url.startswith(f"{fake_coupang.base_url}/np/search?q=")
    assert page.listings[0].url.startswith(f"{fake_coupang.base_url}/vp/products/")


def test_images_fonts_and_media_never_reach_the_marketplace(parsing_crawler, source, fake_marketplace):
    # A page read as served may be left before the tab asks for anything; one read once parsed has asked.
    crawler = parsing_crawler
    before = crawler.counters

    crawler.fetch(source, QUERY)

    hits = fake_marketplace.resource_hits
    assert (hits["image"], hits["font"], hits["media"]) == (0, 0, 0)
    assert hits["search"] == 1
    after = crawler.counters
    # Blink never asked for an image (a request refused in the browser is two events to Python each), and the
    # favicon the browser itself asks for was refused there.
    assert after.get("blocked_image", 0) - before.get("blocked_image", 0) == 0
    assert after["blocked_requests"] > before.get("blocked_requests", 0)


def test_a_page_that_stays_open_has_its_video_and_audio_refused_in_the_browser(crawler, source, fake_marketplace):
    # A <video> asks for its file a moment after it is parsed, and the crawler reads a ready page at once:
    # the list arriving late keeps the page open long enough for the request to be made, and refused.
    fake_marketplace.set_behaviour(QUERY, "late_list", delay_seconds=0.5)
    before = crawler.counters

    page = crawler.fetch(source, QUERY)

    assert len(page.listings) == len(LISTINGS)
    assert fake_marketplace.resource_hits["media"] == 0
    assert crawler.counters["blocked_media"] - before.get("blocked_media", 0) >= 2  # the video and the audio


def test_a_page_is_read_as_served_without_waiting_for_the_tab_to_parse_it(crawler, source, fake_marketplace):
    # The page ends with a synchronous script that the server holds for 30 s: the tab's parser waits on it.
    fake_marketplace.set_behaviour(QUERY, "blocking_script", delay_seconds=30.0)
    started = time.monotonic()

    page = crawler.fetch(source, QUERY)

    assert time.monotonic() - started < 10.0  # the navigation timeout: nothing waited for the script
    assert [listing.title for listing in page.listings] == [listing["title"] for listing in LISTINGS]
    assert page.bytes >= fake_marketplace.bytes_served_by_kind["search"]


def test_a_crawler_that_reads_parsed_pages_waits_for_the_parser_and_reads_the_same(
    crawler, parsing_crawler, source, fake_marketplace
):
    fake_marketplace.set_behaviour(QUERY, "blocking_script", delay_seconds=1.0)
    started = time.monotonic()

    parsed = parsing_crawler.fetch(source, QUERY)

    assert time.monotonic() - started >= 1.0
    assert BLOCKING_SCRIPT in [request.path for request in fake_marketplace.requests]
    fake_marketplace.set_behaviour(QUERY, "normal")
    assert parsed.listings == crawler.fetch(source, QUERY).listings


def test_a_naive_crawler_that_blocks_nothing_pulls_images_and_media_and_many_more_bytes(
    crawler, source, fake_marketplace
):
    lean = crawler.fetch(source, QUERY)
    fake_marketplace.reset()
    fake_marketplace.set_results(QUERY, LISTINGS)

    with Crawler(block_resources=False, request_budget=1, worker_id="naive") as naive:
        heavy = naive.fetch(source, QUERY)

    hits = fake_marketplace.resource_hits
    assert hits["image"] > 0
    assert hits["media"] > 0
    assert heavy.listings == lean.listings
    # Both fetched the page, scripts and stylesheets into an empty cache; only the naive one the rest.
    assert heavy.bytes > lean.bytes + len(LISTINGS) * THUMBNAIL_BYTES + FONT_BYTES


def test_the_crawler_presents_itself_as_a_korean_desktop_chrome(crawler, source, fake_marketplace):
    crawler.fetch(source, QUERY)

    [request] = [request for request in fake_marketplace.requests if request.kind == "search"]
    assert "HeadlessChrome" not in request.headers["user-agent"]
    assert "Chrome/" in request.headers["user-agent"]
    assert request.headers["accept-language"].startswith("ko-KR")


def test_a_malformed_page_still_yields_its_whole_listings(crawler, source, fake_marketplace):
    fake_marketplace.set_behaviour(QUERY, "malformed")

    page = crawler.fetch(source, QUERY)

    assert [listing.title for listing in page.listings] == [listing["title"] for listing in LISTINGS[:-1]]


# --- Blocks and failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("behaviour", "kind", "status"),
    [
        ("http_403", "akamai", 403),
        ("http_429", "http_429", 429),
        ("captcha", "captcha", 200),
        ("challenge", "challenge", 200),
        ("no_result_list", "no_result_list", 200),
    ],
)
def test_a_block_ends_the_session_as_blocked_records_a_bot_event_and_keeps_the_page(
    crawler, source, fake_marketplace, snapshot_dir, behaviour, kind, status
):
    fake_marketplace.set_behaviour(QUERY, behaviour)

    with pytest.raises(Blocked) as caught:
        crawler.fetch(source, QUERY)

    assert (caught.value.kind, caught.value.http_status) == (kind, status)
    [session] = sessions()
    assert session.end_reason == SessionEndReason.BLOCKED
    assert session.ended_at is not None
    assert session.requests == 1
    assert session.bytes > 0
    [event] = BotEvent.objects.all()
    assert (event.kind, event.http_status, event.query) == (kind, status, QUERY)
    assert (event.ip_session_id, event.proxy_label, event.requests_in_session) == (session.pk, "direct", 1)
    assert event.url == source.search_url(QUERY)
    kept = Path(event.snapshot_path)
    assert kept.parent == snapshot_dir
    assert caught.value.snapshot_path == event.snapshot_path
    assert "<html" in kept.read_text().lower()
    assert kept.with_suffix(".png").read_bytes().startswith(b"\x89PNG")


def test_pages_and_blocks_by_kind_and_bytes_are_counted_in_the_crawlers_metrics(crawler, source, fake_marketplace):
    from prometheus_client import REGISTRY

    def counted() -> list[float]:
        names = [
            ("lps_crawler_pages_total", {"result": "ok"}),
            ("lps_crawler_pages_total", {"result": "blocked"}),
            ("lps_crawler_blocks_total", {"kind": "captcha"}),
            ("lps_crawler_bytes_total", {}),
        ]
        return [REGISTRY.get_sample_value(name, labels) or 0.0 for name, labels in names]

    before = counted()
    page = crawler.fetch(source, QUERY)
    fake_marketplace.set_behaviour(QUERY, "captcha")
    with pytest.raises(Blocked):
        crawler.fetch(source, QUERY)

    ok, blocked, captchas, received = (after - was for after, was in zip(counted(), before, strict=True))
    assert (ok, blocked, captchas) == (1, 1, 1)
    # Both pages' bytes, and whatever the ended sessions' tabs took in after their reads.
    assert received >= page.bytes + 1
    assert received == sum(session.bytes for session in sessions())


def test_a_page_slower_than_the_timeout_fails_the_fetch_in_time_and_ends_the_session_as_error(
    crawler, source, fake_marketplace
):
    fake_marketplace.set_behaviour(QUERY, "slow", delay_seconds=30)
    started = time.monotonic()

    with pytest.raises(CrawlFailed, match="did not load within 1s") as caught:
        crawler.fetch(source, QUERY, timeout=1.0)

    assert time.monotonic() - started < 4
    [session] = sessions()
    assert session.end_reason == SessionEndReason.ERROR
    assert not BotEvent.objects.exists()
    assert Path(caught.value.snapshot_path).exists()


def test_a_server_error_is_a_crawl_failure_not_a_block(crawler, source, fake_marketplace):
    fake_marketplace.set_behaviour(QUERY, "http_500")

    with pytest.raises(CrawlFailed, match="HTTP 500") as caught:
        crawler.fetch(source, QUERY)

    assert not isinstance(caught.value, Blocked)
    assert [session.end_reason for session in sessions()] == [SessionEndReason.ERROR]
    assert not BotEvent.objects.exists()
    assert "일시적인 오류" in Path(caught.value.snapshot_path).read_text()


def test_a_marketplace_that_cannot_be_reached_is_a_crawl_failure_with_no_bytes_billed(crawler):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    unreachable = CoupangSource(f"http://127.0.0.1:{closed_port}")

    with pytest.raises(CrawlFailed, match="ERR_CONNECTION_REFUSED") as caught:
        crawler.fetch(unreachable, QUERY)

    assert "Call log" not in str(caught.value)
    [session] = sessions()
    assert session.end_reason == SessionEndReason.ERROR
    assert session.bytes == 0  # Chromium's own error page never crossed the network


def test_setting_the_cancel_event_abandons_a_fetch_at_once(crawler, source, fake_marketplace):
    fake_marketplace.set_behaviour(QUERY, "slow", delay_seconds=30)
    cancelled = threading.Event()
    timer = threading.Timer(0.5, cancelled.set)
    timer.start()
    started = time.monotonic()

    with pytest.raises(CrawlFailed, match="cancelled"):
        crawler.fetch(source, QUERY, cancelled=cancelled)

    timer.join()
    assert time.monotonic() - started < 2
    assert [session.end_reason for session in sessions()] == [SessionEndReason.ERROR]


def test_a_missing_chromium_is_reported_as_browser_unavailable(settings):
    settings.LPS_CHROMIUM = "/nonexistent/chromium"
    crawler = Crawler(worker_id="no-browser")

    with pytest.raises(BrowserUnavailable, match="/nonexistent/chromium"):
        crawler.fetch(CoupangSource("http://127.0.0.1:1"), QUERY)

    crawler.close()
    assert not IpSession.objects.exists()


# --- IP sessions and the browser's life -----------------------------------------------------------------


def test_a_session_serves_its_request_budget_then_a_new_one_starts(source):
    with Crawler(request_budget=2, worker_id="budget") as crawler:
        pages = [crawler.fetch(source, QUERY) for _ in range(3)]

        rows = sessions()
        assert [(row.requests, row.end_reason) for row in rows] == [(2, SessionEndReason.BUDGET), (1, None)]
        # A page's late requests are billed to the session's next fetch, or to the session when it ends.
        assert sum(row.bytes for row in rows) >= sum(page.bytes for page in pages) > 0
        assert {row.worker_id for row in rows} == {"budget"}

    [last] = IpSession.objects.filter(pk=rows[-1].pk)
    assert last.end_reason == SessionEndReason.SHUTDOWN


def test_the_browser_is_recycled_after_its_pages_without_leaking_chromium_processes(source):
    others = chromium_processes()
    with Crawler(recycle_after_pages=2, worker_id="recycle") as crawler:
        for _ in range(3):
            crawler.fetch(source, QUERY)
            assert wait_for(lambda: len(chromium_processes(main_only=True, besides=others)) == 1)

        assert crawler.counters["browsers_launched"] == 2
        assert crawler.counters["browsers_closed"] == 1
        assert [row.end_reason for row in sessions()] == [SessionEndReason.RECYCLED, None]

    assert wait_for(lambda: chromium_processes(besides=others) == [], timeout=CHROMIUM_EXIT_SECONDS), left_running(
        chromium_processes(besides=others)
    )
    assert sessions()[-1].end_reason == SessionEndReason.SHUTDOWN


def test_a_browser_that_dies_is_relaunched_and_its_session_ends_as_error(source):
    others = chromium_processes()
    with Crawler(worker_id="crash") as crawler:
        crawler.fetch(source, QUERY)
        [browser_pid] = chromium_processes(main_only=True, besides=others)

        os.kill(browser_pid, signal.SIGKILL)
        assert wait_for(lambda: browser_pid not in chromium_processes())
        page = crawler.fetch(source, QUERY)

        assert len(page.listings) == len(LISTINGS)
        assert crawler.counters["browsers_launched"] == 2
        assert sessions()[0].end_reason == SessionEndReason.ERROR
        assert len(chromium_processes(main_only=True, besides=[*others, browser_pid])) == 1


def test_sessions_take_the_proxies_in_turn_and_the_requests_go_through_them(fake_marketplace):
    fake_marketplace.set_results(QUERY, LISTINGS)
    proxies = [f"http://127.0.0.1:{fake_marketplace.port}", f"http://user:secret@localhost:{fake_marketplace.port}"]
    # The fake also answers as a forward proxy, so any host name reaches it through a proxy.
    source = CoupangSource("http://www.coupang.test")

    with Crawler(proxies=proxies, request_budget=1, worker_id="proxied") as crawler:
        pages = [crawler.fetch(source, QUERY) for _ in range(3)]

    labels = [f"127.0.0.1:{fake_marketplace.port}", f"localhost:{fake_marketplace.port}"]  # never the password
    assert [page.proxy_label for page in pages] == [labels[0], labels[1], labels[0]]
    assert [row.proxy_label for row in sessions()] == [labels[0], labels[1], labels[0]]
    assert all(request.via_proxy for request in fake_marketplace.requests)
    assert pages[0].listings[0].url.startswith("http://www.coupang.test/vp/products/")


@pytest.mark.parametrize("read_as_served", [True, False])
def test_a_proxy_that_demands_credentials_gets_them_and_the_page_is_read(fake_marketplace, read_as_served):
    fake_marketplace.set_results(QUERY, LISTINGS)
    fake_marketplace.require_proxy_auth("user", "secret")
    source = CoupangSource("http://www.coupang.test")

    with Crawler(
        proxies=[f"http://user:secret@localhost:{fake_marketplace.port}"],
        request_budget=2,
        navigation_timeout=10.0,
        worker_id="authenticated",
        read_as_served=read_as_served,
    ) as crawler:
        pages = [crawler.fetch(source, QUERY) for _ in range(2)]

    assert [len(page.listings) for page in pages] == [len(LISTINGS)] * 2
    assert fake_marketplace.search_queries == [QUERY, QUERY]
    assert all(request.via_proxy for request in fake_marketplace.requests)


def test_a_closed_crawler_refuses_to_fetch(source):
    crawler = Crawler(worker_id="closed")
    crawler.close()

    with pytest.raises(CrawlFailed, match="closed"):
        crawler.fetch(source, QUERY)


@pytest.mark.django_db(transaction=True)
def test_fetches_from_several_threads_run_at_once_and_close_ends_their_sessions_as_shutdown(fake_marketplace):
    queries = [f"버즈 {n}" for n in range(6)]
    for n, query in enumerate(queries):
        fake_marketplace.set_results(query, [{"title": f"버즈 모델 {n}", "price": 10_000 + n}])
    source = CoupangSource(fake_marketplace.base_url)
    others = chromium_processes()
    crawler = Crawler(request_budget=100, worker_id="threads")
    results: dict[str, int] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    def search(mine: list[str]) -> None:
        start.wait(timeout=10)
        try:
            for query in mine:
                results[query] = crawler.fetch(source, query).listings[0].price
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()  # this thread's own database connection

    threads = [threading.Thread(target=search, args=(queries[n::3],)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert results == {query: 10_000 + n for n, query in enumerate(queries)}
    open_sessions = sessions()
    assert 2 <= len(open_sessions) <= 3  # one per thread that found no idle session
    assert sum(row.requests for row in open_sessions) == 6
    assert all(row.end_reason is None for row in open_sessions)

    crawler.close()

    assert {row.end_reason for row in sessions()} == {SessionEndReason.SHUTDOWN}
    assert wait_for(lambda: chromium_processes(besides=others) == [], timeout=CHROMIUM_EXIT_SECONDS), left_running(
        chromium_processes(besides=others)
    )
