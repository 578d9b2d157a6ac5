"""The session pool and the browser's lifecycle: which Chromium serves, and which IP session a fetch gets.

Separate from the crawler's fetch because this is the part with shared state: several handler threads check
sessions out and in at once, under one lock that is never held while waiting on the browser or the database.
- The browser is launched on first use, recycled after `recycle_after_pages` pages (each browser serves at
  most that many) and relaunched when it disconnects or crashes; a retired browser is closed as soon as its
  last in-flight page is done, so no Chromium process outlives its turn.
- An IP session is a browser context bound to one proxy (round-robin) and one IpSession row. It serves one
  fetch at a time, is kept idle between fetches, and is ended "budget" after `request_budget` requests,
  "recycled" or "error" with its browser, "shutdown" by close() — or by the caller, "blocked" or "error".
Its rows are written through search.crawl_records, in the callers' threads; the browser is driven through the
loop bridge.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright

from search import crawl_records, metrics
from search.byte_meter import ByteMeter
from search.chromium import CHROMIUM_ARGS, IMAGES_OFF, close_quietly, error_summary, find_chromium
from search.exceptions import BrowserUnavailable, CrawlFailed
from search.loop_bridge import LoopBridge
from search.models import SessionEndReason
from search.proxies import Proxy

logger = logging.getLogger(__name__)

LAUNCH_TIMEOUT_SECONDS = 30.0
HOUSEKEEPING_TIMEOUT_SECONDS = 10.0
"""Bound on opening/closing a context or closing a browser."""
CHECKOUT_ATTEMPTS = 10
"""Rounds of retire-and-launch a checkout may go through before it gives up (a browser that keeps dying)."""

USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{major}.0.0.0 Safari/537.36"
)
ACCEPT_LANGUAGE = "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"


@dataclass(eq=False)
class Browser:
    """One launched Chromium and how much it has served."""

    number: int
    browser: object
    version: str
    pages_started: int = 0
    in_flight: int = 0
    retiring: bool = False
    disconnected: bool = False


@dataclass(eq=False)
class Session:
    """An IP session: one browser context behind one proxy, its tab, and its IpSession row."""

    record_id: int
    proxy: Proxy
    context: object
    browser: Browser
    requests: int = 0
    bytes: int = 0
    ended: bool = False
    tab: object = None
    """The Playwright Page this session loads its pages in (opened on its first fetch)."""
    meter: ByteMeter | None = None
    """Meters the session's tab from its first fetch to its end (the tab's network events feed it)."""
    resting: asyncio.Task | None = None
    """The tab's way back to about:blank after it sat idle (the next visit waits for it)."""
    rest_timer: asyncio.TimerHandle | None = None
    """Sends the tab to about:blank once it has been idle for REST_AFTER_IDLE_SECONDS."""
    network: object = None
    """The CDP session of the tab (network events, reading the page)."""
    main_frame: str = ""
    """The CDP id of the tab's main frame, whose documents are read as they arrive."""
    document: asyncio.Future | None = None
    """The HTML of the main-frame document the current visit is loading, resolved when its response has arrived."""


class SessionPool:
    """The browsers and IP sessions of one crawler, driven through `bridge` (the crawler's event loop)."""

    def __init__(
        self,
        bridge: LoopBridge,
        *,
        proxies: list[Proxy],
        request_budget: int,
        recycle_after_pages: int,
        worker_id: str,
        chromium_path: str | None,
        block_resources: bool,
    ):
        self.bridge = bridge
        self.proxies = proxies
        self.request_budget = request_budget
        self.recycle_after_pages = recycle_after_pages
        self.worker_id = worker_id
        self.chromium_path = chromium_path
        self.block_resources = block_resources

        self._lock = threading.Lock()
        """Guards the bookkeeping below; never held while waiting on the browser or the database."""
        self._launch_lock = threading.Lock()
        """Held while starting the driver or launching a browser, so only one thread does it."""
        self._playwright = None
        self._browser: Browser | None = None
        self._retiring: list[Browser] = []
        self._idle: list[Session] = []
        self._open: list[Session] = []
        self._proxy_turn = itertools.count()
        self._browser_numbers = itertools.count(1)
        self._closed = False
        self._counters: Counter[str] = Counter()

    @property
    def counters(self) -> dict[str, int]:
        """Totals since start (see Crawler.counters)."""
        with self._lock:
            return dict(self._counters)

    def requests_under_way(self) -> int:
        """Requests the open sessions' tabs started that Chromium has not reported done (ByteMeter.under_way)."""
        with self._lock:
            meters = [session.meter for session in self._open if session.meter is not None]
        return self.bridge.call(_under_way(meters), HOUSEKEEPING_TIMEOUT_SECONDS, what="reading the meters")

    def count_page(self, size: int, blocked: Counter[str]) -> None:
        """Count a page fetched, the bytes it cost and the requests Chromium refused for it."""
        with self._lock:
            self._counters["pages"] += 1
            self._count(size, blocked)

    def _count(self, size: int, blocked: Counter[str]) -> None:
        """Add to the byte and blocked-request totals (under the lock)."""
        self._counters["bytes"] += size
        metrics.record_bytes(size, proxy_usd_per_gb=settings.LPS_PROXY_USD_PER_GB)
        for resource_type, count in blocked.items():
            self._counters["blocked_requests"] += count
            self._counters[f"blocked_{resource_type}"] += count

    # --- Sessions ---------------------------------------------------------------------------------------

    def checkout(self) -> Session:
        """An IP session for one fetch, on a browser that is not due for recycling."""
        for _attempt in range(CHECKOUT_ATTEMPTS):
            self._retire_if_due()
            browser = self._ensure_browser()
            with self._lock:
                if self._closed:
                    raise CrawlFailed("the crawler is closed")
                if browser is not self._browser or self._due(browser):
                    continue
                browser.pages_started += 1
                browser.in_flight += 1
                session = next((idle for idle in self._idle if idle.browser is browser), None)
                if session is not None:
                    self._idle.remove(session)
                    return session
            try:
                return self._open_session(browser)
            except BaseException:
                self._release_browser(browser)
                raise
        raise CrawlFailed(f"no usable browser after {CHECKOUT_ATTEMPTS} tries (it keeps disconnecting)")

    def checkin(self, session: Session, reason: SessionEndReason | None) -> None:
        """Give a session back after a fetch: end it for `reason`, its budget or its browser's retirement,
        else record its progress and keep it for the next fetch."""
        with self._lock:
            browser = session.browser
            if reason is None and not session.ended:
                if session.requests >= self.request_budget:
                    reason = SessionEndReason.BUDGET
                elif browser.disconnected:
                    reason = SessionEndReason.ERROR
                elif browser.retiring:
                    reason = SessionEndReason.RECYCLED
        try:
            if reason is not None:
                self._end_session(session, reason)
            elif not session.ended:
                crawl_records.record_progress(session.record_id, requests=session.requests, size=session.bytes)
                with self._lock:
                    keep = not (session.ended or self._closed or browser.retiring or browser.disconnected)
                    if keep:
                        self._idle.append(session)
                if not keep:
                    self._end_session(
                        session, SessionEndReason.ERROR if browser.disconnected else SessionEndReason.RECYCLED
                    )
        finally:
            # Even when the database fails here, the browser must learn that this page is done.
            self._release_browser(browser)

    def _open_session(self, browser: Browser) -> Session:
        with self._lock:
            proxy = self.proxies[next(self._proxy_turn) % len(self.proxies)]
        context = self.bridge.call(
            self._new_context(browser, proxy), HOUSEKEEPING_TIMEOUT_SECONDS, what="opening a context"
        )
        try:
            record_id = crawl_records.open_ip_session(proxy.label, self.worker_id)
        except BaseException:
            self._close_context(context)
            raise
        session = Session(record_id=record_id, proxy=proxy, context=context, browser=browser)
        with self._lock:
            self._open.append(session)
            self._counters["sessions_opened"] += 1
            closed = self._closed
        if closed:
            # close() ran while this session was being opened: end it like the others.
            self._end_session(session, SessionEndReason.SHUTDOWN)
            raise CrawlFailed("the crawler is closed")
        logger.info("ip session %s opened via %s on browser #%d", record_id, proxy.label, browser.number)
        return session

    async def _new_context(self, browser: Browser, proxy: Proxy):
        try:
            context = await browser.browser.new_context(
                proxy=proxy.playwright_settings(),
                user_agent=USER_AGENT.format(major=browser.version.split(".", 1)[0]),
                locale="ko-KR",
                timezone_id="Asia/Seoul",
                viewport={"width": 1280, "height": 900},
                extra_http_headers={"Accept-Language": ACCEPT_LANGUAGE},
                service_workers="block",
            )
        except PlaywrightError as exc:
            raise CrawlFailed(f"could not open a browser context via {proxy.label}: {error_summary(exc)}") from exc
        return context

    def _end_session(self, session: Session, reason: SessionEndReason) -> None:
        """Close the session's context and end its IpSession row with `reason` (once)."""
        with self._lock:
            if session.ended:
                return
            session.ended = True
            if session in self._open:
                self._open.remove(session)
            if session in self._idle:
                self._idle.remove(session)
            self._counters["sessions_ended"] += 1
        trailing, blocked = self._close_context(session.context, session.meter)
        session.bytes += trailing
        with self._lock:
            self._count(trailing, blocked)
        crawl_records.end_ip_session(session.record_id, reason, requests=session.requests, size=session.bytes)
        logger.info(
            "ip session %s via %s ended (%s) after %d requests, %d bytes",
            session.record_id,
            session.proxy.label,
            reason.label,
            session.requests,
            session.bytes,
        )

    def _close_context(self, context, meter: ByteMeter | None = None) -> tuple[int, Counter[str]]:
        """Close `context`; return what its tab received and had blocked since `meter` was last taken."""
        try:
            return self.bridge.call(
                _close_metered(context, meter), HOUSEKEEPING_TIMEOUT_SECONDS, what="closing a context"
            )
        except CrawlFailed as exc:
            logger.warning("a browser context did not close cleanly: %s", exc)
            return 0, Counter()

    # --- The browser ------------------------------------------------------------------------------------

    def browser_gone(self, browser: Browser) -> None:
        """Mark `browser` dead (a visit found it so): the next checkout retires it and launches another."""
        with self._lock:
            browser.disconnected = True

    def _due(self, browser: Browser) -> bool:
        return browser.disconnected or browser.pages_started >= self.recycle_after_pages

    def _retire_if_due(self) -> None:
        """Retire the current browser when it has served its pages or died; close it once it is idle."""
        with self._lock:
            browser = self._browser
            if browser is None or not self._due(browser):
                return
            self._browser = None
            browser.retiring = True
            idle = [session for session in self._idle if session.browser is browser]
            self._retiring.append(browser)
        reason = SessionEndReason.ERROR if browser.disconnected else SessionEndReason.RECYCLED
        logger.info(
            "retiring browser #%d (%s) after %d pages",
            browser.number,
            "disconnected" if browser.disconnected else "recycled",
            browser.pages_started,
        )
        for session in idle:
            self._end_session(session, reason)
        self._release_browser(browser, taking=False)

    def _release_browser(self, browser: Browser, *, taking: bool = True) -> None:
        """Count a page of `browser` as done (taking=True); close the browser if it is retired and idle."""
        with self._lock:
            if taking:
                browser.in_flight -= 1
            close = browser.retiring and browser.in_flight == 0 and browser in self._retiring
            if close:
                self._retiring.remove(browser)
        if close:
            self._close_browser(browser)

    def _ensure_browser(self) -> Browser:
        with self._launch_lock:
            with self._lock:
                if self._closed:
                    raise CrawlFailed("the crawler is closed")
                if self._browser is not None:
                    return self._browser
            executable = find_chromium(self.chromium_path)
            if not self.bridge.started:
                self._start_driver()
            try:
                browser = self.bridge.call(
                    self._launch(executable), LAUNCH_TIMEOUT_SECONDS + 5, what=f"launching Chromium at {executable}"
                )
            except CrawlFailed as exc:
                raise BrowserUnavailable(str(exc)) from exc
            with self._lock:
                self._browser = browser
                self._counters["browsers_launched"] += 1
            logger.info("browser #%d launched: Chromium %s at %s", browser.number, browser.version, executable)
            return browser

    async def _launch(self, executable: str) -> Browser:
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=executable,
                args=[*CHROMIUM_ARGS, IMAGES_OFF] if self.block_resources else list(CHROMIUM_ARGS),
                headless=True,
                timeout=LAUNCH_TIMEOUT_SECONDS * 1000,
            )
        except PlaywrightError as exc:
            raise BrowserUnavailable(f"Chromium at {executable} could not start: {error_summary(exc)}") from exc
        handle = Browser(number=next(self._browser_numbers), browser=browser, version=browser.version)

        def disconnected(_browser) -> None:
            # Called in the event loop; the next checkout sees the flag and relaunches.
            handle.disconnected = True

        browser.on("disconnected", disconnected)
        return handle

    def _close_browser(self, browser: Browser) -> None:
        try:
            self.bridge.call(close_quietly(browser.browser), HOUSEKEEPING_TIMEOUT_SECONDS, what="closing Chromium")
        except CrawlFailed as exc:
            logger.warning("browser #%d did not close cleanly: %s", browser.number, exc)
        with self._lock:
            self._counters["browsers_closed"] += 1
        logger.info("browser #%d closed after %d pages", browser.number, browser.pages_started)

    def _start_driver(self) -> None:
        """Start the event-loop thread and the Playwright driver (under the launch lock)."""
        self.bridge.start()
        try:
            self._playwright = self.bridge.call(_start_playwright(), LAUNCH_TIMEOUT_SECONDS, what="starting Playwright")
        except (CrawlFailed, PlaywrightError, OSError) as exc:
            self.bridge.stop(HOUSEKEEPING_TIMEOUT_SECONDS)
            raise BrowserUnavailable(f"the Playwright driver could not start: {exc}") from exc

    # --- Shutdown ---------------------------------------------------------------------------------------

    def close(self, reason: SessionEndReason) -> None:
        """End every open IP session with `reason`, close the browsers and stop the driver. Idempotent; a
        closed pool refuses to check out (CrawlFailed)."""
        with self._launch_lock:
            with self._lock:
                self._closed = True
                sessions = list(self._open)
                browsers = [browser for browser in (self._browser, *self._retiring) if browser is not None]
                self._browser = None
                self._retiring = []
            # Fetches still waiting on the browser fail now rather than at their timeout.
            self.bridge.cancel_pending()
            for session in sessions:
                self._end_session(session, reason)
            for browser in browsers:
                self._close_browser(browser)
            if self._playwright is not None:
                try:
                    self.bridge.call(self._playwright.stop(), HOUSEKEEPING_TIMEOUT_SECONDS, what="stopping Playwright")
                except (CrawlFailed, PlaywrightError) as exc:
                    logger.warning("the Playwright driver did not stop cleanly: %s", exc)
                self._playwright = None
            self.bridge.stop(HOUSEKEEPING_TIMEOUT_SECONDS)


async def _start_playwright():
    return await async_playwright().start()


async def _under_way(meters: list[ByteMeter]) -> int:
    """The meters' requests under way, read in the event loop where they are fed."""
    return sum(meter.under_way for meter in meters)


async def _close_metered(context, meter: ByteMeter | None) -> tuple[int, Counter[str]]:
    """Close a context and take what its tab received until then (in the event loop, where the meter lives)."""
    await close_quietly(context)
    return meter.take() if meter is not None else (0, Counter())
