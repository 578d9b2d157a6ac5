"""The crawler: one long-lived Chromium per worker process, driven through Playwright.

    crawler = Crawler()                       # defaults from settings; nothing starts yet
    page = crawler.fetch(CoupangSource(), "삼성 버즈3", timeout=20, cancelled=context.cancelled)
    crawler.close(reason="shutdown")          # at worker shutdown

`fetch` is thread-safe: a worker's handler threads call it at once. It returns a `SearchPage` or raises one of
search.exceptions' `Blocked` (the marketplace refused us), `CrawlFailed` (timeout, navigation error, crash,
unreadable page) or `BrowserUnavailable` (no Chromium could be found or started) — never a Playwright type.

How it works:
- Async Playwright runs on a dedicated event-loop thread owned by the Crawler; the sync methods submit
  coroutines to it and wait with a bound. The Django ORM is only used in the callers' threads (never inside
  the event loop, where Django would raise SynchronousOnlyOperation).
- Chromium is found without downloading anything: `LPS_CHROMIUM`, else `chromium`/`chromium-browser`/
  `google-chrome` on PATH, else a browser Playwright has already installed.
- The browser is launched on first use, recycled after `recycle_after_pages` pages (each browser serves at
  most that many) and relaunched when it disconnects or crashes; a retired browser is closed as soon as its
  last in-flight page is done, so no Chromium process outlives its turn.
- An IP session is a browser context bound to one proxy of `LPS_PROXIES` (round-robin; "direct" without
  any) and one `IpSession` row. A session serves one fetch at a time, in one tab that it keeps (a new tab
  costs a renderer process), and is reused for `request_budget` requests, then ended "budget". A block ends
  it "blocked" (plus a `BotEvent` row), any other failure "error", a browser recycle "recycled", `close()`
  "shutdown". A tab left idle for REST_AFTER_IDLE_SECONDS is sent to about:blank, so the marketplace's
  scripts stop spending; a busy session goes straight to its next page (the navigation ends the old one) and
  pays no extra navigation per fetch.
- A page is read as served: Chromium holds each main-frame document once its response has arrived (CDP
  Fetch, documents only), the crawler takes the body and lets the tab go on, so the read waits for neither
  the tab's parsing nor its scripts (about half the time per page on the fake marketplace). The results are
  server-rendered; the tab still parses the page and runs its scripts until the session's next page.
  LPS_READ_PAGE_AS_SERVED=false reads the page once the tab has parsed it (readyState "interactive")
  instead, so the scripts, a bot manager's sensor among them, have started before a busy session moves on.
  A page whose HTML shows neither results nor an empty-result message is read again from the tab, and
  again as its DOM changes, for up to LATE_RENDER_LIMIT_SECONDS, so a list rendered by the page's script
  is still read.
- Images, media and fonts never leave the browser (proxy bytes are billed): Blink does not load images
  (`--blink-settings=imagesEnabled=false`) and Chromium refuses image, font and media URLs itself (CDP
  `Network.setBlockedURLs`, by extension). Neither costs a round trip to Python per request, as a Playwright
  route would (it intercepts every request: 2.0 s a page against 0.4 s on the fake marketplace). The bytes
  that did travel are counted per page from Chromium's network events (encodedDataLength: headers and
  bodies as received).
- On a block or an error the page's HTML and a screenshot are kept under `settings.LPS_SNAPSHOT_DIR`
  (`<time>-<source>-<kind>-<id>.html` and `.png`); the path is on the exception, the BotEvent and the log.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import functools
import itertools
import logging
import os
import re
import shutil
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.utils import timezone
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from playwright.async_api import async_playwright

from search import metrics
from search.exceptions import Blocked, BrowserUnavailable, CrawlFailed
from search.listings import SearchPage
from search.models import BotEvent, IpSession, SessionEndReason
from search.sources.base import MarketplaceSource, ParsedPage

logger = logging.getLogger(__name__)

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ARGS = (
    # We run as root in containers, where Chromium's sandbox cannot start.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    # Without these Chromium calls public hosts on its own (updates, sync, field trials, QUIC probes).
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-default-apps",
)
IMAGES_OFF = "--blink-settings=imagesEnabled=false"
BLOCKED_EXTENSIONS = (
    # Fonts and media (Blink still requests these), and images that some other path may still request.
    *("woff", "woff2", "ttf", "otf", "eot"),
    *("mp4", "webm", "m3u8", "m4s", "mp3", "m4a", "aac", "ogg", "oga", "wav"),
    *("jpg", "jpeg", "png", "gif", "webp", "avif", "bmp", "ico"),
)
BLOCKED_URL_PATTERNS = tuple(
    # Whole-URL globs anchored at the end or at the query, so a search for "e.gift" is never blocked.
    pattern
    for extension in BLOCKED_EXTENSIONS
    for pattern in (f"*.{extension}", f"*.{extension}?*")
)
BLOCK_STATUSES = frozenset({403, 429})
PAGE_BLOCK_KINDS = frozenset({"akamai", "captcha", "challenge"})
"""Block kinds read from the page that say more than its HTTP status does."""

DOCUMENT_RESPONSES = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}
"""Documents are held by Chromium (CDP Fetch) once their response has arrived, so the crawler reads the page as
served before the tab has parsed it; every other request goes by untouched."""
CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w-]+)", re.IGNORECASE)

LAUNCH_TIMEOUT_SECONDS = 30.0
HOUSEKEEPING_TIMEOUT_SECONDS = 10.0
"""Bound on opening/closing a context or closing a browser."""
SNAPSHOT_TIMEOUT_SECONDS = 3.0
REST_AFTER_IDLE_SECONDS = 2.0
"""How long a session's tab may sit on its last page before it is sent to about:blank."""
LATE_RENDER_LIMIT_SECONDS = 2.0
"""At most this long (and never past the navigation timeout) a page without a result list is watched for one."""
READ_HTML = """new Promise(resolve => {
  const read = () => resolve(document.documentElement ? document.documentElement.outerHTML : "");
  if (document.readyState !== "loading") read();
  else document.addEventListener("readystatechange", read, {once: true});
})"""
"""The document's HTML once the parser has finished it (its deferred scripts may still be to run)."""
NEXT_CHANGE = """new Promise(resolve => {
  const observer = new MutationObserver(() => { observer.disconnect(); setTimeout(resolve, 50); });
  observer.observe(document, {childList: true, subtree: true, characterData: true});
  setTimeout(() => { observer.disconnect(); resolve(); }, %d);
})"""
"""Settles shortly after the DOM next changes (50 ms, to let a render finish), or after the given milliseconds."""
TIMED_OUT_SNAPSHOT_SECONDS = 0.5
"""A tab that timed out is still loading: its content and screenshot wait for the document, so keep it short."""
VISIT_GRACE_SECONDS = 2 * SNAPSHOT_TIMEOUT_SECONDS + 5.0
"""What a fetch may take beyond its navigation timeout: the tab coming to rest, reading the page, a snapshot."""
CANCEL_CHECK_SECONDS = 0.1
CHECKOUT_ATTEMPTS = 10
"""Rounds of retire-and-launch a checkout may go through before it gives up (a browser that keeps dying)."""

USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{major}.0.0.0 Safari/537.36"
)
ACCEPT_LANGUAGE = "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"


def find_chromium(configured: str | None = None) -> str:
    """Path of a Chromium executable: `configured` (default LPS_CHROMIUM), else one on PATH, else one that
    Playwright has installed. Raise BrowserUnavailable when there is none; never download one."""
    configured = settings.LPS_CHROMIUM if configured is None else configured
    if configured:
        path = shutil.which(configured) or configured
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise BrowserUnavailable(f"LPS_CHROMIUM={configured!r} is not an executable file")
        return path
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    installed = playwright_chromium()
    if installed:
        return installed
    raise BrowserUnavailable(
        "no Chromium found: set LPS_CHROMIUM, or install the chromium package (never downloaded at run time)"
    )


def playwright_chromium() -> str | None:
    """A Chromium that `playwright install` has already put on this machine, newest first; None if none."""
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH", "")
    if configured == "0":
        import playwright

        roots = [Path(playwright.__file__).parent / "driver" / "package" / ".local-browsers"]
    elif configured:
        roots = [Path(configured)]
    else:
        roots = [Path.home() / ".cache" / "ms-playwright"]
    patterns = ("chromium-*/chrome-linux*/chrome", "chromium_headless_shell-*/chrome-linux*/headless_shell")
    for root in roots:
        for pattern in patterns:
            found = sorted(root.glob(pattern), reverse=True)
            for path in found:
                if os.access(path, os.X_OK):
                    return str(path)
    return None


@dataclass(frozen=True)
class Proxy:
    """One proxy endpoint of LPS_PROXIES (`scheme://[user:password@]host:port`), or none ("direct")."""

    label: str
    """What operators see: host:port, never the credentials."""
    server: str | None = None
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Proxy:
        """Read one LPS_PROXIES entry; "direct" (or "") means no proxy. Raise ValueError on a bad entry."""
        spec = str(spec).strip()
        if spec.lower() in ("", "direct", "none"):
            return DIRECT
        if "://" not in spec:
            spec = f"http://{spec}"
        parts = urlsplit(spec)
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https", "socks4", "socks5") or not parts.hostname or port == -1:
            # Never echo the entry itself: it may hold a password.
            raise ValueError(f"not a proxy URL (scheme://host:port): {parts.scheme}://{parts.hostname or ''}…")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        label = f"{host}:{port}" if port else host
        return cls(
            label=label,
            server=f"{parts.scheme}://{label}",
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )

    def playwright_settings(self) -> dict | None:
        if self.server is None:
            return None
        proxy = {"server": self.server}
        if self.username:
            proxy["username"] = self.username
            proxy["password"] = self.password or ""
        return proxy


DIRECT = Proxy(label="direct")


def end_reason(reason: str | SessionEndReason) -> SessionEndReason:
    """The SessionEndReason named by `reason` ("budget", "blocked", "error", "recycled", "shutdown")."""
    if isinstance(reason, SessionEndReason):
        return reason
    for member in SessionEndReason:
        if member.label == str(reason).strip().lower():
            return member
    raise ValueError(f"unknown session end reason {reason!r}: one of {[m.label for m in SessionEndReason]}")


@dataclass(eq=False)
class _Browser:
    """One launched Chromium and how much it has served."""

    number: int
    browser: object
    version: str
    pages_started: int = 0
    in_flight: int = 0
    retiring: bool = False
    disconnected: bool = False


@dataclass(eq=False)
class _Session:
    """An IP session: one browser context behind one proxy, its tab, and its IpSession row."""

    record_id: int
    proxy: Proxy
    context: object
    browser: _Browser
    requests: int = 0
    bytes: int = 0
    ended: bool = False
    tab: object = None
    """The Playwright Page this session loads its pages in (opened on its first fetch)."""
    meter: _ByteMeter | None = None
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


class _ByteMeter:
    """Bytes received over the network by a session's tab, from Chromium's network events: encoded bodies
    (gzip as it travelled, not the decoded page) plus headers, as a proxy bills them.

    `take()` hands over what arrived since the last take. A page is read before its deferred scripts and late
    requests are done, so what they bring after the read is taken by the session's next fetch (or its end):
    no byte goes uncounted, and the sum over a session is what it cost. Only http(s) requests count: data:
    URLs never touch the wire, and neither does the error page Chromium shows after a request fails."""

    def __init__(self):
        self.networked: set[str] = set()
        self.finished: dict[str, int] = {}
        self.partial: dict[str, int] = {}
        self.taken: dict[str, int] = {}
        """What an unfinished request had brought when last taken."""
        self.blocked: Counter[str] = Counter()
        """Requests Chromium refused by URL pattern since the last take, by resource type ("font", "media", …)."""
        self.expected: dict[str, int] = {}
        """Bodies known to have arrived before Chromium reports them: a document read as served, by Content-Length."""

    def expect(self, request_id: str, size: int) -> None:
        """`request_id`'s body (`size` bytes on the wire) has arrived: charge it to this take, not a later one."""
        self.networked.add(request_id)
        self.expected[request_id] = size

    def on_failed(self, event: dict) -> None:
        # What arrived before the failure is all this request will ever cost.
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.networked.discard(request_id)
            # A document read as served and then left (the next visit's navigation) did travel in full.
            self.finished[request_id] = max(self.partial.get(request_id, 0), self.expected.get(request_id, 0))
        if event.get("blockedReason"):
            self.blocked[str(event.get("type") or "other").lower()] += 1

    def on_request(self, event: dict) -> None:
        url = (event.get("request") or {}).get("url") or ""
        if url.startswith(("http://", "https://")):
            self.networked.add(event.get("requestId", ""))

    def on_response(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            headers = int((event.get("response") or {}).get("encodedDataLength") or 0)
            self.partial[request_id] = self.partial.get(request_id, 0) + headers

    def on_data(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.partial[request_id] = self.partial.get(request_id, 0) + int(event.get("encodedDataLength") or 0)

    def on_finished(self, event: dict) -> None:
        request_id = event.get("requestId", "")
        if request_id in self.networked:
            self.finished[request_id] = int(event.get("encodedDataLength") or 0)

    def take(self) -> tuple[int, Counter[str]]:
        """Bytes received and requests blocked since the last take; forgets the requests that are done."""
        # A finished request reports its full size; one still under way (or cut off) counts what arrived.
        size = 0
        for request_id, finished in self.finished.items():
            size += max(0, finished - self.taken.pop(request_id, 0))
            self.partial.pop(request_id, None)
            self.expected.pop(request_id, None)
            self.networked.discard(request_id)
        self.finished.clear()
        for request_id in self.partial.keys() | self.expected.keys():
            arrived = max(self.partial.get(request_id, 0), self.expected.get(request_id, 0))
            size += max(0, arrived - self.taken.get(request_id, 0))
            self.taken[request_id] = max(arrived, self.taken.get(request_id, 0))
        blocked, self.blocked = self.blocked, Counter()
        return size, blocked


@dataclass
class _Visit:
    """What one tab saw, decided in the event loop while the tab was still open (for its screenshot)."""

    outcome: str
    """"ok", "blocked" or "error"."""
    url: str
    status: int | None = None
    html: str = ""
    parsed: ParsedPage | None = None
    kind: str = ""
    """The block kind, or a short name of the error ("timeout", "navigation", "http_500", "unreadable")."""
    error: str = ""
    bytes: int = 0
    blocked: Counter[str] = field(default_factory=Counter)
    screenshot: bytes | None = None


def classify(status: int | None, parsed: ParsedPage) -> tuple[str, str, str]:
    """Outcome ("ok", "blocked", "error"), kind and message for a page that loaded with `status`."""
    if status in BLOCK_STATUSES:
        kind = parsed.blocked_kind if parsed.blocked_kind in PAGE_BLOCK_KINDS else f"http_{status}"
        return "blocked", kind, f"HTTP {status}"
    if status is None:
        return "error", "navigation", "the navigation produced no response"
    if status >= 400:
        return "error", f"http_{status}", f"the marketplace answered HTTP {status}"
    if parsed.blocked_kind:
        return "blocked", parsed.blocked_kind, f"HTTP {status}"
    if not parsed.listings and parsed.unread_cards:
        return "error", "unreadable", f"none of the {parsed.unread_cards} product cards could be read"
    return "ok", "", ""


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

        self._lock = threading.Lock()
        """Guards the bookkeeping below; never held while waiting on the browser or the database."""
        self._launch_lock = threading.Lock()
        """Held while starting the driver or launching a browser, so only one thread does it."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright = None
        self._browser: _Browser | None = None
        self._retiring: list[_Browser] = []
        self._idle: list[_Session] = []
        self._open: list[_Session] = []
        self._pending: set[concurrent.futures.Future] = set()
        self._proxy_turn = itertools.count()
        self._browser_numbers = itertools.count(1)
        self._closed = False
        self._counters: Counter[str] = Counter()

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
        with self._lock:
            return dict(self._counters)

    def _count(self, size: int, blocked: Counter[str]) -> None:
        """Add to the byte and blocked-request totals (under the lock)."""
        self._counters["bytes"] += size
        metrics.record_bytes(size, proxy_usd_per_gb=settings.LPS_PROXY_USD_PER_GB)
        for resource_type, count in blocked.items():
            self._counters["blocked_requests"] += count
            self._counters[f"blocked_{resource_type}"] += count

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
        with self._lock:
            self._counters["pages"] += 1
            self._count(visit.bytes, visit.blocked)

        if visit.outcome == "ok":
            self._checkin(session, None)
            return SearchPage(
                query=query,
                url=url,
                listings=visit.parsed.listings,
                empty=visit.parsed.empty,
                bytes=visit.bytes,
                elapsed_ms=int((time.monotonic() - started) * 1000),
                proxy_label=session.proxy.label,
            )

        snapshot_path = self._keep_snapshot(visit, source)
        if visit.outcome == "blocked":
            requests_in_session = session.requests
            self._checkin(session, SessionEndReason.BLOCKED)
            BotEvent.objects.create(
                ip_session_id=session.record_id,
                proxy_label=session.proxy.label,
                kind=visit.kind[:40],
                http_status=visit.status,
                url=url[:2000],
                query=query[:500],
                requests_in_session=requests_in_session,
                snapshot_path=snapshot_path[:500],
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
        self._checkin(session, SessionEndReason.ERROR)
        logger.warning("crawl failed (%s) at %s: %s; snapshot %s", visit.kind, url, visit.error, snapshot_path or "-")
        raise CrawlFailed(
            f"{visit.error} at {url}" + (f"; snapshot {snapshot_path}" if snapshot_path else ""),
            snapshot_path=snapshot_path or None,
        )

    def _load(
        self, source: MarketplaceSource, url: str, timeout: float, cancelled: threading.Event | None
    ) -> tuple[_Session, _Visit]:
        """Visit `url` in a checked-out session. A browser found dead (since its last visit, as a rule) is
        retired and the visit tried once more on a fresh one."""
        for attempt in (1, 2):
            session = self._checkout()
            try:
                visit = self._call(
                    self._visit(session, source, url, timeout),
                    timeout + VISIT_GRACE_SECONDS,
                    cancelled=cancelled,
                    what=f"loading {url}",
                )
            except BaseException:
                session.requests += 1
                self._checkin(session, SessionEndReason.ERROR)
                raise
            if visit.kind != "browser_gone" or attempt == 2:
                return session, visit
            logger.warning("browser #%d is gone (%s); retrying on a new one", session.browser.number, visit.error)
            with self._lock:
                session.browser.disconnected = True
            self._checkin(session, SessionEndReason.ERROR)
        raise AssertionError("unreachable")  # the loop returns on its second attempt

    async def _visit(self, session: _Session, source: MarketplaceSource, url: str, timeout: float) -> _Visit:
        """Load and judge `url` in the session's tab; runs in the event loop."""
        try:
            page = await self._tab(session)
        except PlaywrightError as exc:
            return _Visit("error", url, kind="browser_gone", error=f"no tab could open: {_reason(exc)}")
        meter = session.meter
        try:
            visit = await self._navigate(session, source, url, timeout)
        except PlaywrightError as exc:
            if session.browser.disconnected or not session.browser.browser.is_connected():
                # The browser died (perhaps since the last visit, with this tab still open in it).
                return _Visit("error", url, kind="browser_gone", error=f"the browser is gone: {_reason(exc)}")
            visit = _Visit("error", url, kind="navigation", error=f"the browser failed: {_reason(exc)}")
            await self._capture(page, visit)
        # What is still loading now is cut short below, so what arrived until now is what was billed.
        visit.bytes, visit.blocked = meter.take()
        if visit.outcome == "ok":
            session.rest_timer = asyncio.get_running_loop().call_later(REST_AFTER_IDLE_SECONDS, _rest_idle, session)
        else:
            # The session ends with this failure: stop the tab now rather than when its context closes.
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(page.close(), SNAPSHOT_TIMEOUT_SECONDS)
        return visit

    async def _tab(self, session: _Session):
        """The session's tab, opened on first use with its network events metered; waits until it rests."""
        if session.rest_timer is not None:
            session.rest_timer.cancel()
            session.rest_timer = None
        if session.resting is not None:
            resting, session.resting = session.resting, None
            await resting
        if session.tab is not None and not session.tab.is_closed():
            return session.tab
        page = await session.context.new_page()
        network = await session.context.new_cdp_session(page)
        for event, handler in (
            ("Network.requestWillBeSent", _ByteMeter.on_request),
            ("Network.responseReceived", _ByteMeter.on_response),
            ("Network.dataReceived", _ByteMeter.on_data),
            ("Network.loadingFinished", _ByteMeter.on_finished),
            ("Network.loadingFailed", _ByteMeter.on_failed),
        ):
            network.on(event, functools.partial(_feed, session, handler))
        await network.send("Network.enable")
        if self.block_resources:
            await network.send("Network.setBlockedURLs", {"urls": list(BLOCKED_URL_PATTERNS)})
        if self.read_as_served:
            frame_tree = await network.send("Page.getFrameTree")
            session.main_frame = frame_tree["frameTree"]["frame"]["id"]
            network.on("Fetch.requestPaused", functools.partial(_document_arrived, session, network))
            await network.send("Fetch.enable", {"patterns": [DOCUMENT_RESPONSES]})
        session.tab, session.network = page, network
        if session.meter is None:
            session.meter = _ByteMeter()
        return page

    async def _navigate(self, session: _Session, source: MarketplaceSource, url: str, timeout: float) -> _Visit:
        page, network = session.tab, session.network
        deadline = time.monotonic() + timeout
        document = session.document = asyncio.get_running_loop().create_future()
        try:
            response = await page.goto(url, wait_until="commit", timeout=timeout * 1000)
            if not self.block_resources:
                await page.wait_for_load_state("load", timeout=max(1.0, (deadline - time.monotonic()) * 1000))
            # The document as it arrived (resolved before the tab was let to commit it), else the parsed DOM.
            as_served = document.done() and not document.cancelled()
            html = document.result() if as_served else None
            if html is None:
                as_served = False
                html = await asyncio.wait_for(_evaluate(network, READ_HTML), max(0.0, deadline - time.monotonic()))
        except (PlaywrightTimeoutError, TimeoutError):
            visit = _Visit("error", url, kind="timeout", error=f"the page did not load within {timeout:g}s")
            # The tab is still waiting for the document: what it shows now is all there is to keep.
            await self._capture(page, visit, limit=TIMED_OUT_SNAPSHOT_SECONDS)
            return visit
        finally:
            session.document = None
            document.cancel()
        parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
        status = response.status if response is not None else None
        if parsed.blocked_kind == "no_result_list" and status == 200 and as_served:
            # The document as served has no list: its scripts may have rendered one while the tab parsed it.
            html = await asyncio.wait_for(_evaluate(network, READ_HTML), max(0.0, deadline - time.monotonic()))
            parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
            as_served = False
        late_until = min(deadline, time.monotonic() + LATE_RENDER_LIMIT_SECONDS)
        while parsed.blocked_kind == "no_result_list" and status == 200 and time.monotonic() < late_until:
            # Neither results nor "no results" yet: the page may still render its list. Read it again as it changes.
            wait_ms = int(max(0.0, late_until - time.monotonic()) * 1000)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_evaluate(network, NEXT_CHANGE % wait_ms), wait_ms / 1000 + 1)
            html = await asyncio.wait_for(_evaluate(network, READ_HTML), SNAPSHOT_TIMEOUT_SECONDS)
            parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
        outcome, kind, error = classify(status, parsed)
        visit = _Visit(outcome, url, status=status, html=html, parsed=parsed, kind=kind, error=error)
        if outcome != "ok":
            if as_served:  # the tab may not have parsed, let alone painted, the page yet
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(_evaluate(network, READ_HTML), SNAPSHOT_TIMEOUT_SECONDS)
            await self._capture(page, visit)
        return visit

    async def _capture(self, page, visit: _Visit, *, limit: float = SNAPSHOT_TIMEOUT_SECONDS) -> None:
        """Keep the tab's HTML and a screenshot on `visit`, each within `limit` seconds, for the operator."""
        if not visit.html:
            try:
                visit.html = await asyncio.wait_for(page.content(), limit)
            except (PlaywrightError, TimeoutError):
                return  # a tab that cannot give its HTML cannot paint a screenshot either
        with contextlib.suppress(PlaywrightError, TimeoutError):
            visit.screenshot = await asyncio.wait_for(page.screenshot(type="png", timeout=limit * 1000), limit)

    def _keep_snapshot(self, visit: _Visit, source: MarketplaceSource) -> str:
        """Write the failed page's HTML and screenshot under LPS_SNAPSHOT_DIR; return the HTML's path or ""."""
        directory = Path(settings.LPS_SNAPSHOT_DIR)
        stem = f"{timezone.now():%Y%m%dT%H%M%S}-{source.name}-{visit.kind or visit.outcome}-{uuid.uuid4().hex[:8]}"
        html_path = directory / f"{stem}.html"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            html_path.write_text(f"<!-- {visit.url} HTTP {visit.status} -->\n{visit.html}", encoding="utf-8")
            if visit.screenshot:
                (directory / f"{stem}.png").write_bytes(visit.screenshot)
        except OSError:
            logger.exception("could not keep a snapshot of %s under %s", visit.url, directory)
            return ""
        return str(html_path)

    # --- Sessions ---------------------------------------------------------------------------------------

    def _checkout(self) -> _Session:
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

    def _checkin(self, session: _Session, reason: SessionEndReason | None) -> None:
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
                IpSession.objects.filter(pk=session.record_id).update(requests=session.requests, bytes=session.bytes)
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

    def _open_session(self, browser: _Browser) -> _Session:
        with self._lock:
            proxy = self.proxies[next(self._proxy_turn) % len(self.proxies)]
        context = self._call(self._new_context(browser, proxy), HOUSEKEEPING_TIMEOUT_SECONDS, what="opening a context")
        try:
            record = IpSession.objects.create(proxy_label=proxy.label, worker_id=self.worker_id)
        except BaseException:
            self._close_context(context)
            raise
        session = _Session(record_id=record.pk, proxy=proxy, context=context, browser=browser)
        with self._lock:
            self._open.append(session)
            self._counters["sessions_opened"] += 1
            closed = self._closed
        if closed:
            # close() ran while this session was being opened: end it like the others.
            self._end_session(session, SessionEndReason.SHUTDOWN)
            raise CrawlFailed("the crawler is closed")
        logger.info("ip session %s opened via %s on browser #%d", record.pk, proxy.label, browser.number)
        return session

    async def _new_context(self, browser: _Browser, proxy: Proxy):
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
            raise CrawlFailed(f"could not open a browser context via {proxy.label}: {_reason(exc)}") from exc
        return context

    def _end_session(self, session: _Session, reason: SessionEndReason) -> None:
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
        IpSession.objects.filter(pk=session.record_id, ended_at=None).update(
            ended_at=timezone.now(), end_reason=reason, requests=session.requests, bytes=session.bytes
        )
        logger.info(
            "ip session %s via %s ended (%s) after %d requests, %d bytes",
            session.record_id,
            session.proxy.label,
            reason.label,
            session.requests,
            session.bytes,
        )

    def _close_context(self, context, meter: _ByteMeter | None = None) -> tuple[int, Counter[str]]:
        """Close `context`; return what its tab received and had blocked since `meter` was last taken."""
        try:
            return self._call(_close_metered(context, meter), HOUSEKEEPING_TIMEOUT_SECONDS, what="closing a context")
        except CrawlFailed as exc:
            logger.warning("a browser context did not close cleanly: %s", exc)
            return 0, Counter()

    # --- The browser ------------------------------------------------------------------------------------

    def _due(self, browser: _Browser) -> bool:
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

    def _release_browser(self, browser: _Browser, *, taking: bool = True) -> None:
        """Count a page of `browser` as done (taking=True); close the browser if it is retired and idle."""
        with self._lock:
            if taking:
                browser.in_flight -= 1
            close = browser.retiring and browser.in_flight == 0 and browser in self._retiring
            if close:
                self._retiring.remove(browser)
        if close:
            self._close_browser(browser)

    def _ensure_browser(self) -> _Browser:
        with self._launch_lock:
            with self._lock:
                if self._closed:
                    raise CrawlFailed("the crawler is closed")
                if self._browser is not None:
                    return self._browser
            executable = find_chromium(self.chromium_path)
            if self._loop is None:
                self._start_driver()
            try:
                browser = self._call(
                    self._launch(executable), LAUNCH_TIMEOUT_SECONDS + 5, what=f"launching Chromium at {executable}"
                )
            except CrawlFailed as exc:
                raise BrowserUnavailable(str(exc)) from exc
            with self._lock:
                self._browser = browser
                self._counters["browsers_launched"] += 1
            logger.info("browser #%d launched: Chromium %s at %s", browser.number, browser.version, executable)
            return browser

    async def _launch(self, executable: str) -> _Browser:
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=executable,
                args=[*CHROMIUM_ARGS, IMAGES_OFF] if self.block_resources else list(CHROMIUM_ARGS),
                headless=True,
                timeout=LAUNCH_TIMEOUT_SECONDS * 1000,
            )
        except PlaywrightError as exc:
            raise BrowserUnavailable(f"Chromium at {executable} could not start: {_reason(exc)}") from exc
        handle = _Browser(number=next(self._browser_numbers), browser=browser, version=browser.version)

        def disconnected(_browser) -> None:
            # Called in the event loop; the next checkout sees the flag and relaunches.
            handle.disconnected = True

        browser.on("disconnected", disconnected)
        return handle

    def _close_browser(self, browser: _Browser) -> None:
        try:
            self._call(_close_quietly(browser.browser), HOUSEKEEPING_TIMEOUT_SECONDS, what="closing Chromium")
        except CrawlFailed as exc:
            logger.warning("browser #%d did not close cleanly: %s", browser.number, exc)
        with self._lock:
            self._counters["browsers_closed"] += 1
        logger.info("browser #%d closed after %d pages", browser.number, browser.pages_started)

    # --- The event loop ---------------------------------------------------------------------------------

    def _start_driver(self) -> None:
        """Start the event-loop thread and the Playwright driver (under the launch lock)."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=_run_loop, args=(loop,), name=f"crawler-{self.worker_id}", daemon=True)
        thread.start()
        self._loop, self._thread = loop, thread
        try:
            self._playwright = self._call(_start_playwright(), LAUNCH_TIMEOUT_SECONDS, what="starting Playwright")
        except (CrawlFailed, PlaywrightError, OSError) as exc:
            self._stop_loop()
            raise BrowserUnavailable(f"the Playwright driver could not start: {exc}") from exc

    def _call(self, coroutine, timeout: float, *, cancelled: threading.Event | None = None, what: str = ""):
        """Run `coroutine` in the event loop and wait for it at most `timeout` seconds (or until
        `cancelled` is set); either way a stalled coroutine is cancelled and CrawlFailed raised."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coroutine.close()
            raise CrawlFailed("the crawler is closed")
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        with self._lock:
            self._pending.add(future)
        try:
            finished = threading.Event()
            future.add_done_callback(lambda _future: finished.set())
            deadline = time.monotonic() + timeout
            while not finished.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    future.cancel()
                    raise CrawlFailed(f"{what or 'the browser'} took longer than {timeout:g}s")
                if cancelled is not None:
                    if cancelled.is_set():
                        future.cancel()
                        raise CrawlFailed(f"cancelled while {what or 'waiting for the browser'}")
                    finished.wait(min(remaining, CANCEL_CHECK_SECONDS))
                else:
                    finished.wait(remaining)
            try:
                return future.result()
            except concurrent.futures.CancelledError:
                raise CrawlFailed(f"the crawler closed while {what or 'waiting for the browser'}") from None
        finally:
            with self._lock:
                self._pending.discard(future)

    # --- Shutdown ---------------------------------------------------------------------------------------

    def close(self, reason: str | SessionEndReason = "shutdown") -> None:
        """End every open IP session with `reason`, close the browsers and stop the driver. Idempotent; a
        closed crawler refuses to fetch (CrawlFailed)."""
        reason = end_reason(reason)
        with self._launch_lock:
            with self._lock:
                self._closed = True
                sessions = list(self._open)
                browsers = [browser for browser in (self._browser, *self._retiring) if browser is not None]
                self._browser = None
                self._retiring = []
                pending = list(self._pending)
            # Fetches still waiting on the browser fail now rather than at their timeout.
            for future in pending:
                future.cancel()
            for session in sessions:
                self._end_session(session, reason)
            for browser in browsers:
                self._close_browser(browser)
            if self._playwright is not None:
                try:
                    self._call(self._playwright.stop(), HOUSEKEEPING_TIMEOUT_SECONDS, what="stopping Playwright")
                except (CrawlFailed, PlaywrightError) as exc:
                    logger.warning("the Playwright driver did not stop cleanly: %s", exc)
                self._playwright = None
            self._stop_loop()

    def _stop_loop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None:
            return
        if not loop.is_closed():
            with contextlib.suppress(CrawlFailed):
                self._call(loop.shutdown_default_executor(), HOUSEKEEPING_TIMEOUT_SECONDS, what="stopping threads")
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(HOUSEKEEPING_TIMEOUT_SECONDS)
        if thread is None or not thread.is_alive():
            loop.close()
        self._loop, self._thread = None, None


_DOCUMENT_READS: set[asyncio.Task] = set()


def _document_arrived(session: _Session, network, event: dict) -> None:
    """A document's response is held (Fetch.requestPaused): read it if it is the visit's page, then let it go."""
    task = asyncio.get_running_loop().create_task(_read_document(session, network, event))
    _DOCUMENT_READS.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_DOCUMENT_READS.discard)


async def _read_document(session: _Session, network, event: dict) -> None:
    request_id = event["requestId"]
    try:
        document, status = session.document, event.get("responseStatusCode")
        wanted = document is not None and not document.done() and event.get("frameId") == session.main_frame
        # A redirect has no body (its target is held in turn); a failed response has no status.
        if wanted and status is not None and not 300 <= status < 400:
            answer = await network.send("Fetch.getResponseBody", {"requestId": request_id})
            headers = {h.get("name", "").lower(): h.get("value", "") for h in event.get("responseHeaders") or []}
            if not document.done():
                document.set_result(_decode_document(answer, headers.get("content-type", "")))
                # Chromium reports the body's bytes as the tab takes it in, after this visit is read.
                if session.meter is not None and event.get("networkId") and headers.get("content-length", "").isdigit():
                    session.meter.expect(event["networkId"], int(headers["content-length"]))
    except (PlaywrightError, ValueError, LookupError):
        pass  # the visit reads the parsed DOM instead
    finally:
        with contextlib.suppress(PlaywrightError):
            await network.send("Fetch.continueRequest", {"requestId": request_id})


def _decode_document(answer: dict, content_type: str) -> str:
    """The text of a Fetch.getResponseBody answer, in the charset `content_type` names (UTF-8 if none)."""
    body = answer.get("body") or ""
    if not answer.get("base64Encoded"):
        return body
    match = CHARSET.search(content_type)
    return base64.b64decode(body).decode(match.group(1) if match else "utf-8", errors="replace")


def _feed(session: _Session, handler, event: dict) -> None:
    """Hand a network event of the session's tab to the meter of its current visit."""
    if session.meter is not None:
        handler(session.meter, event)


async def _rest(page) -> None:
    """Send a tab to about:blank: the page's scripts, beacons and late requests stop costing bytes."""
    with contextlib.suppress(PlaywrightError):
        await page.goto("about:blank", timeout=SNAPSHOT_TIMEOUT_SECONDS * 1000)


def _rest_idle(session: _Session) -> None:
    """Start sending an idle session's tab to about:blank (a timer callback in the event loop)."""
    session.rest_timer = None
    if not session.ended and session.resting is None and session.tab is not None and not session.tab.is_closed():
        session.resting = asyncio.ensure_future(_rest(session.tab))


async def _evaluate(network, expression: str):
    """The value of `expression` (awaited if a promise) in the tab's page, through its CDP session.

    One round trip to the renderer, where page.content() costs several (it goes through Playwright's
    utility world). Reading the DOM's HTML and observing it are invisible to the page's scripts."""
    answer = await network.send(
        "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
    )
    if "exceptionDetails" in answer:
        raise PlaywrightError(f"reading the page failed: {answer['exceptionDetails'].get('text', '')}")
    return answer["result"].get("value")


def _reason(exc: PlaywrightError) -> str:
    """The first part of a Playwright error (net::ERR_…, "Target closed"), without its call and browser logs."""
    message = exc.message or str(exc) or repr(exc)
    for appendix in ("Call log:", "Browser logs:", "====="):
        message = message.split(appendix)[0]
    return " ".join(message.split())[:300]


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()


async def _start_playwright():
    return await async_playwright().start()


async def _close_metered(context, meter: _ByteMeter | None) -> tuple[int, Counter[str]]:
    """Close a context and take what its tab received until then (in the event loop, where the meter lives)."""
    await _close_quietly(context)
    return meter.take() if meter is not None else (0, Counter())


async def _close_quietly(closable) -> None:
    """Close a context or browser that may already be gone."""
    with contextlib.suppress(PlaywrightError):
        await closable.close()
