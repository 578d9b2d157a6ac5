"""Reading a result page in a session's tab over CDP, in the crawler's event loop: one visit, one Visit.

Separate from the session pool because it is the part that talks to the page: it opens the session's tab
(its network events metered, images, media and fonts refused by Chromium itself), holds the main-frame
document once its response has arrived (CDP Fetch) to read the page as served, falls back to the parsed DOM,
watches a page without a result list for a late render, judges what it read, and sends an idle tab to
about:blank. It touches neither the database nor the files; a failed visit carries its snapshot.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from search.block_detection import classify
from search.byte_meter import ByteMeter
from search.chromium import BLOCKED_URL_PATTERNS, error_summary
from search.snapshots import SNAPSHOT_TIMEOUT_SECONDS, TIMED_OUT_SNAPSHOT_SECONDS, capture
from search.sources.base import MarketplaceSource, ParsedPage

if TYPE_CHECKING:
    from search.browser_sessions import Session

DOCUMENT_RESPONSES = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}
"""Documents are held by Chromium (CDP Fetch) once their response has arrived, so the crawler reads the page as
served before the tab has parsed it; every other request goes by untouched."""
CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w-]+)", re.IGNORECASE)

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


@dataclass
class Visit:
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
    stages: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of search/stage_timings.py (browser_page, navigation, result_list_wait, dom_read, parse)."""


@dataclass(frozen=True)
class PageReader:
    """How a crawler's tabs load and read pages. block_resources=False loads images, media and fonts too and
    reads each page only after its load event; read_as_served=False reads the page once the tab has parsed it."""

    block_resources: bool = True
    read_as_served: bool = True

    async def visit(self, session: Session, source: MarketplaceSource, url: str, timeout: float) -> Visit:
        """Load and judge `url` in the session's tab; runs in the event loop."""
        stages: dict[str, float] = {}
        started = time.perf_counter()
        try:
            page = await self._tab(session)
        except PlaywrightError as exc:
            return Visit("error", url, kind="browser_gone", error=f"no tab could open: {error_summary(exc)}")
        _lap(stages, "browser_page", started)
        meter = session.meter
        try:
            visit = await self._navigate(session, source, url, timeout, stages)
        except PlaywrightError as exc:
            if session.browser.disconnected or not session.browser.browser.is_connected():
                # The browser died (perhaps since the last visit, with this tab still open in it).
                return Visit("error", url, kind="browser_gone", error=f"the browser is gone: {error_summary(exc)}")
            visit = Visit("error", url, kind="navigation", error=f"the browser failed: {error_summary(exc)}")
            await capture(page, visit)
        visit.stages = stages
        # What is still loading now is cut short below, so what arrived until now is what was billed.
        visit.bytes, visit.blocked = meter.take()
        if visit.outcome == "ok":
            session.rest_timer = asyncio.get_running_loop().call_later(REST_AFTER_IDLE_SECONDS, _rest_idle, session)
        else:
            # The session ends with this failure: stop the tab now rather than when its context closes.
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(page.close(), SNAPSHOT_TIMEOUT_SECONDS)
        return visit

    async def _tab(self, session: Session):
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
            ("Network.requestWillBeSent", ByteMeter.on_request),
            ("Network.requestServedFromCache", ByteMeter.on_served_from_cache),
            ("Network.responseReceived", ByteMeter.on_response),
            ("Network.dataReceived", ByteMeter.on_data),
            ("Network.loadingFinished", ByteMeter.on_finished),
            ("Network.loadingFailed", ByteMeter.on_failed),
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
            session.meter = ByteMeter()
        return page

    async def _navigate(
        self, session: Session, source: MarketplaceSource, url: str, timeout: float, stages: dict[str, float]
    ) -> Visit:
        page, network = session.tab, session.network
        deadline = time.monotonic() + timeout
        document = session.document = asyncio.get_running_loop().create_future()
        started = time.perf_counter()
        try:
            response = await page.goto(url, wait_until="commit", timeout=timeout * 1000)
            started = _lap(stages, "navigation", started)
            if not self.block_resources:
                await page.wait_for_load_state("load", timeout=max(1.0, (deadline - time.monotonic()) * 1000))
                started = _lap(stages, "result_list_wait", started)
            # The document as it arrived (resolved before the tab was let to commit it), else the parsed DOM.
            as_served = document.done() and not document.cancelled()
            html = document.result() if as_served else None
            if html is None:
                as_served = False
                html = await asyncio.wait_for(_evaluate(network, READ_HTML), max(0.0, deadline - time.monotonic()))
                started = _lap(stages, "dom_read", started)
        except (PlaywrightTimeoutError, TimeoutError):
            visit = Visit("error", url, kind="timeout", error=f"the page did not load within {timeout:g}s")
            # The tab is still waiting for the document: what it shows now is all there is to keep.
            await capture(page, visit, limit=TIMED_OUT_SNAPSHOT_SECONDS)
            return visit
        finally:
            session.document = None
            document.cancel()
        started = time.perf_counter()
        parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
        started = _lap(stages, "parse", started)
        status = response.status if response is not None else None
        if parsed.blocked_kind == "no_result_list" and status == 200 and as_served:
            # The document as served has no list: its scripts may have rendered one while the tab parsed it.
            html = await asyncio.wait_for(_evaluate(network, READ_HTML), max(0.0, deadline - time.monotonic()))
            started = _lap(stages, "result_list_wait", started)
            parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
            started = _lap(stages, "parse", started)
            as_served = False
        late_until = min(deadline, time.monotonic() + LATE_RENDER_LIMIT_SECONDS)
        while parsed.blocked_kind == "no_result_list" and status == 200 and time.monotonic() < late_until:
            # Neither results nor "no results" yet: the page may still render its list. Read it again as it changes.
            wait_ms = int(max(0.0, late_until - time.monotonic()) * 1000)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_evaluate(network, NEXT_CHANGE % wait_ms), wait_ms / 1000 + 1)
            html = await asyncio.wait_for(_evaluate(network, READ_HTML), SNAPSHOT_TIMEOUT_SECONDS)
            started = _lap(stages, "result_list_wait", started)
            parsed = await asyncio.to_thread(source.parse, html, base_url=page.url)
            started = _lap(stages, "parse", started)
        outcome, kind, error = classify(status, parsed)
        visit = Visit(outcome, url, status=status, html=html, parsed=parsed, kind=kind, error=error)
        if outcome != "ok":
            if as_served:  # the tab may not have parsed, let alone painted, the page yet
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(_evaluate(network, READ_HTML), SNAPSHOT_TIMEOUT_SECONDS)
            await capture(page, visit)
        return visit


def _lap(stages: dict[str, float], stage: str, started: float) -> float:
    """Add the time since `started` to `stage`; return now, the next stage's start."""
    now = time.perf_counter()
    stages[stage] = stages.get(stage, 0.0) + now - started
    return now


_DOCUMENT_READS: set[asyncio.Task] = set()


def _document_arrived(session: Session, network, event: dict) -> None:
    """A document's response is held (Fetch.requestPaused): read it if it is the visit's page, then let it go."""
    task = asyncio.get_running_loop().create_task(_read_document(session, network, event))
    _DOCUMENT_READS.add(task)  # the loop keeps only a weak reference to a task
    task.add_done_callback(_DOCUMENT_READS.discard)


async def _read_document(session: Session, network, event: dict) -> None:
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


def _feed(session: Session, handler, event: dict) -> None:
    """Hand a network event of the session's tab to the meter of its current visit."""
    if session.meter is not None:
        handler(session.meter, event)


async def _rest(page) -> None:
    """Send a tab to about:blank: the page's scripts, beacons and late requests stop costing bytes."""
    with contextlib.suppress(PlaywrightError):
        await page.goto("about:blank", timeout=SNAPSHOT_TIMEOUT_SECONDS * 1000)


def _rest_idle(session: Session) -> None:
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
