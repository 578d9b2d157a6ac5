"""The crawler: one long-lived Chromium per worker process, driven through Playwright.

    crawler = Crawler()                       # defaults from settings; nothing starts yet
    page = crawler.fetch(CoupangSource(), "삼성 버즈3", timeout=20, cancelled=context.cancelled)
    crawler.close(reason="shutdown")          # at worker shutdown

`fetch` is thread-safe: a worker's handler threads call it at once. It returns a `SearchPage` or raises one of
search.exceptions' `Blocked` (the marketplace refused us), `CrawlFailed` (timeout, navigation error, crash,
unreadable page) or `BrowserUnavailable` (no Chromium could be found or started) — never a Playwright type.

This module is the public entry and the fetch itself (check out a session, visit, check it in, record the
outcome); each part it stands on is a module of its own, named below.

How it works:
- Async Playwright runs on a dedicated event-loop thread owned by the Crawler (search/loop_bridge.py); the
  sync methods submit coroutines to it and wait with a bound. The Django ORM is only used in the callers'
  threads (never inside the event loop, where Django would raise SynchronousOnlyOperation); every row the
  crawler writes is written by search/crawl_records.py.
- Chromium is found without downloading anything (search/chromium.py): `LPS_CHROMIUM`, else `chromium`/
  `chromium-browser`/`google-chrome` on PATH, else a browser Playwright has already installed.
- The browser is launched on first use, recycled after `recycle_after_pages` pages (each browser serves at
  most that many) and relaunched when it disconnects or crashes; a retired browser is closed as soon as its
  last in-flight page is done, so no Chromium process outlives its turn (search/browser_sessions.py).
- An IP session is a browser context bound to one proxy of `LPS_PROXIES` (search/proxies.py; round-robin;
  "direct" without any) and one `IpSession` row. A session serves one fetch at a time, in one tab that it
  keeps (a new tab costs a renderer process), and is reused for `request_budget` requests, then ended
  "budget". A block ends it "blocked" (plus a `BotEvent` row), any other failure "error", a browser recycle
  "recycled", `close()` "shutdown". A tab left idle for REST_AFTER_IDLE_SECONDS is sent to about:blank, so
  the marketplace's scripts stop spending; a busy session goes straight to its next page (the navigation
  ends the old one) and pays no extra navigation per fetch.
- A page is read as served (search/page_reading.py): Chromium holds each main-frame document once its
  response has arrived (CDP Fetch, documents only), the crawler takes the body and lets the tab go on, so
  the read waits for neither the tab's parsing nor its scripts (about half the time per page on the fake
  marketplace). The results are server-rendered; the tab still parses the page and runs its scripts until
  the session's next page. LPS_READ_PAGE_AS_SERVED=false reads the page once the tab has parsed it
  (readyState "interactive") instead, so the scripts, a bot manager's sensor among them, have started before
  a busy session moves on. A page whose HTML shows neither results nor an empty-result message is read again
  from the tab, and again as its DOM changes, for up to LATE_RENDER_LIMIT_SECONDS, so a list rendered by the
  page's script is still read; search/block_detection.py says whether what was read is results, a block or
  an error.
- Images, media and fonts never leave the browser (proxy bytes are billed): Blink does not ask for images
  (`--blink-settings=imagesEnabled=false`) and Chromium refuses font, media and favicon URLs itself (CDP
  `Network.setBlockedURLs`, by extension; never an image's, which it would request first and then refuse, two
  network events each). Neither costs a round trip to Python per request, as a Playwright route would (it
  intercepts every request: 2.0 s a page against 0.4 s on the fake marketplace). The bytes
  that did travel are counted per page from Chromium's network events (encodedDataLength: headers and
  bodies as received; search/byte_meter.py).
- On a block or an error the page's HTML and a screenshot are kept under `settings.LPS_SNAPSHOT_DIR`
  (`<time>-<source>-<kind>-<id>.html` and `.png`; search/snapshots.py); the path is on the exception, the
  BotEvent and the log.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

from django.conf import settings

from search import crawl_records, metrics, stage_timings
from search.browser_sessions import Session, SessionPool
from search.exceptions import Blocked, CrawlFailed
from search.listings import SearchPage
from search.loop_bridge import LoopBridge
from search.models import SessionEndReason
from search.page_reading import PageReader, Visit
from search.proxies import DIRECT, Proxy
from search.snapshots import SNAPSHOT_TIMEOUT_SECONDS, keep_snapshot
from search.sources.base import MarketplaceSource

logger = logging.getLogger(__name__)

VISIT_GRACE_SECONDS = 2 * SNAPSHOT_TIMEOUT_SECONDS + 5.0
"""What a fetch may take beyond its navigation timeout: the tab coming to rest, reading the page, a snapshot."""


class Crawler:
    """One long-lived Chromium for this process, IP sessions, resource blocking and block detection.

    Arguments default to settings: chromium_path (LPS_CHROMIUM, else found), proxies (LPS_PROXIES),
    request_budget (LPS_SESSION_REQUEST_BUDGET), recycle_after_pages (LPS_BROWSER_RECYCLE_PAGES),
    navigation_timeout in seconds (LPS_NAVIGATION_TIMEOUT_SECONDS), read_as_served (LPS_READ_PAGE_AS_SERVED).
    worker_id is written on IpSession rows (default host:pid). block_resources=False loads images, media and
    fonts too and reads each page only after its load event (a naive crawler, for comparisons only).
    """

    def __init__(
        self,
        *,
        chromium_path: str | None = None,
        proxies: list[str] | None = None,
        request_budget: int | None = None,
        recycle_after_pages: int | None = None,
        navigation_timeout: float | None = None,
        worker_id: str = "",
        block_resources: bool = True,
        read_as_served: bool | None = None,
    ):
        self.chromium_path = chromium_path or None
        self.proxies = [Proxy.parse(spec) for spec in (settings.LPS_PROXIES if proxies is None else proxies)]
        if not self.proxies:
            self.proxies = [DIRECT]
        self.request_budget = int(settings.LPS_SESSION_REQUEST_BUDGET if request_budget is None else request_budget)
        self.recycle_after_pages = int(
            settings.LPS_BROWSER_RECYCLE_PAGES if recycle_after_pages is None else recycle_after_pages
        )
        self.navigation_timeout = float(
            settings.LPS_NAVIGATION_TIMEOUT_SECONDS if navigation_timeout is None else navigation_timeout
        )
        if self.request_budget < 1:
            raise ValueError("request_budget must be at least 1")
        if self.recycle_after_pages < 1:
            raise ValueError("recycle_after_pages must be at least 1")
        if self.navigation_timeout <= 0:
            raise ValueError("navigation_timeout must be positive")
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
        self.block_resources = block_resources
        self.read_as_served = block_resources and bool(
            settings.LPS_READ_PAGE_AS_SERVED if read_as_served is None else read_as_served
        )

        self._bridge = LoopBridge(f"crawler-{self.worker_id}")
        self._pool = SessionPool(
            self._bridge,
            proxies=self.proxies,
            request_budget=self.request_budget,
            recycle_after_pages=self.recycle_after_pages,
            worker_id=self.worker_id,
            chromium_path=self.chromium_path,
            block_resources=self.block_resources,
        )
        self._reader = PageReader(block_resources=self.block_resources, read_as_served=self.read_as_served)

    def __repr__(self) -> str:
        return f"<Crawler {self.worker_id} proxies={[proxy.label for proxy in self.proxies]}>"

    def __enter__(self) -> Crawler:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def counters(self) -> dict[str, int]:
        """Totals since start: pages, bytes, blocked_requests (refused inside Chromium; by type as well:
        blocked_image, blocked_font, blocked_media…), browsers_launched, browsers_closed, sessions_opened,
        sessions_ended."""
        return self._pool.counters

    def requests_under_way(self) -> int:
        """Requests the live sessions' tabs started that Chromium has not yet reported done: a page's late
        scripts, which the session's next page would cut short (and leave unbilled; ByteMeter.under_way)."""
        return self._pool.requests_under_way()

    # --- Fetching ---------------------------------------------------------------------------------------

    def fetch(
        self,
        source: MarketplaceSource,
        query: str,
        *,
        timeout: float | None = None,
        cancelled: threading.Event | None = None,
    ) -> SearchPage:
        """Load `source`'s result page for `query` and parse it.

        `timeout` bounds the navigation in seconds (default and ceiling: the crawler's navigation timeout);
        `cancelled`, when set, abandons the fetch within a tenth of a second. Raise Blocked, CrawlFailed or
        BrowserUnavailable; a blank query is a ValueError.
        """
        url = source.search_url(query)
        navigation_timeout = (
            self.navigation_timeout if timeout is None else min(float(timeout), self.navigation_timeout)
        )
        if navigation_timeout <= 0:
            raise CrawlFailed(f"no time left to load {url}")
        if cancelled is not None and cancelled.is_set():
            raise CrawlFailed(f"cancelled before loading {url}")
        started = time.monotonic()
        session, visit = self._load(source, url, navigation_timeout, cancelled)
        metrics.record_page(visit.outcome, block_kind=visit.kind if visit.outcome == "blocked" else None)
        session.requests += 1
        session.bytes += visit.bytes
        self._pool.count_page(visit.bytes, visit.blocked)

        if visit.outcome == "ok":
            with stage_timings.timed("database"):  # the session's progress, on its row
                self._pool.checkin(session, None)
            return SearchPage(
                query=query,
                url=url,
                listings=visit.parsed.listings,
                empty=visit.parsed.empty,
                bytes=visit.bytes,
                elapsed_ms=int((time.monotonic() - started) * 1000),
                proxy_label=session.proxy.label,
            )

        snapshot_path = keep_snapshot(visit, source)
        if visit.outcome == "blocked":
            requests_in_session = session.requests
            self._pool.checkin(session, SessionEndReason.BLOCKED)
            crawl_records.record_block(
                record_id=session.record_id,
                proxy_label=session.proxy.label,
                kind=visit.kind,
                http_status=visit.status,
                url=url,
                query=query,
                requests_in_session=requests_in_session,
                snapshot_path=snapshot_path,
            )
            logger.warning(
                "blocked (%s, HTTP %s) at %s via %s after %d requests in the session; snapshot %s",
                visit.kind,
                visit.status,
                url,
                session.proxy.label,
                requests_in_session,
                snapshot_path or "-",
            )
            raise Blocked(
                f"blocked by the marketplace ({visit.kind}, {visit.error}) at {url} via {session.proxy.label}"
                + (f"; snapshot {snapshot_path}" if snapshot_path else ""),
                kind=visit.kind,
                http_status=visit.status,
                snapshot_path=snapshot_path or None,
            )
        self._pool.checkin(session, SessionEndReason.ERROR)
        logger.warning("crawl failed (%s) at %s: %s; snapshot %s", visit.kind, url, visit.error, snapshot_path or "-")
        raise CrawlFailed(
            f"{visit.error} at {url}" + (f"; snapshot {snapshot_path}" if snapshot_path else ""),
            snapshot_path=snapshot_path or None,
        )

    def _load(
        self, source: MarketplaceSource, url: str, timeout: float, cancelled: threading.Event | None
    ) -> tuple[Session, Visit]:
        """Visit `url` in a checked-out session. A browser found dead (since its last visit, as a rule) is
        retired and the visit tried once more on a fresh one."""
        for attempt in (1, 2):
            with stage_timings.timed("browser_page"):
                session = self._pool.checkout()
            try:
                visit = self._bridge.call(
                    self._reader.visit(session, source, url, timeout),
                    timeout + VISIT_GRACE_SECONDS,
                    cancelled=cancelled,
                    what=f"loading {url}",
                )
            except BaseException:
                session.requests += 1
                self._pool.checkin(session, SessionEndReason.ERROR)
                raise
            stage_timings.add_all(visit.stages)
            if visit.kind != "browser_gone" or attempt == 2:
                return session, visit
            logger.warning("browser #%d is gone (%s); retrying on a new one", session.browser.number, visit.error)
            self._pool.browser_gone(session.browser)
            self._pool.checkin(session, SessionEndReason.ERROR)
        raise AssertionError("unreachable")  # the loop returns on its second attempt

    # --- Shutdown ---------------------------------------------------------------------------------------

    def close(self, reason: str | SessionEndReason = "shutdown") -> None:
        """End every open IP session with `reason`, close the browsers and stop the driver. Idempotent; a
        closed crawler refuses to fetch (CrawlFailed)."""
        self._pool.close(crawl_records.end_reason(reason))
