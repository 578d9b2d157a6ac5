"""Failure snapshots: the HTML and a screenshot of a page that was blocked or failed, kept for the operator.

Separate from the crawler because it is the one place that writes files: a snapshot is taken from the tab in
the event loop (while the tab is still open), and written under LPS_SNAPSHOT_DIR by the caller's thread
(`<time>-<source>-<kind>-<id>.html` and `.png`), whose path then goes on the exception, the BotEvent and the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone
from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from search.page_reading import Visit
    from search.sources.base import MarketplaceSource

logger = logging.getLogger(__name__)

SNAPSHOT_TIMEOUT_SECONDS = 3.0
TIMED_OUT_SNAPSHOT_SECONDS = 0.5
"""A tab that timed out is still loading: its content and screenshot wait for the document, so keep it short."""


async def capture(page, visit: Visit, *, limit: float = SNAPSHOT_TIMEOUT_SECONDS) -> None:
    """Keep the tab's HTML and a screenshot on `visit`, each within `limit` seconds, for the operator."""
    if not visit.html:
        try:
            visit.html = await asyncio.wait_for(page.content(), limit)
        except (PlaywrightError, TimeoutError):
            return  # a tab that cannot give its HTML cannot paint a screenshot either
    with contextlib.suppress(PlaywrightError, TimeoutError):
        visit.screenshot = await asyncio.wait_for(page.screenshot(type="png", timeout=limit * 1000), limit)


def keep_snapshot(visit: Visit, source: MarketplaceSource) -> str:
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
