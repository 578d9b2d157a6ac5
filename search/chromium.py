"""Finding Chromium, the switches it runs with and how its errors read.

Separate from the crawler because the operators' browser check (and the search bench) find and start the
same Chromium, the same way, without a crawler: one place says where the browser is, what it is told never
to fetch, and how a Playwright error is shortened to what an operator needs to read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from django.conf import settings
from playwright.async_api import Error as PlaywrightError

from search.exceptions import BrowserUnavailable

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
    # Fonts and media, which Blink requests with images off, and the favicon, which the browser asks for outside
    # Blink. Never an image's: a URL on this list is requested and then refused (two network events to Python
    # each, about 110 a result page), where IMAGES_OFF keeps Blink from asking for it at all.
    *("woff", "woff2", "ttf", "otf", "eot"),
    *("mp4", "webm", "m3u8", "m4s", "mp3", "m4a", "aac", "ogg", "oga", "wav"),
    "ico",
)
BLOCKED_URL_PATTERNS = tuple(
    # Whole-URL globs anchored at the end or at the query, so a search for "e.gift" is never blocked.
    pattern
    for extension in BLOCKED_EXTENSIONS
    for pattern in (f"*.{extension}", f"*.{extension}?*")
)


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


def error_summary(exc: PlaywrightError) -> str:
    """The first part of a Playwright error (net::ERR_…, "Target closed"), without its call and browser logs."""
    message = exc.message or str(exc) or repr(exc)
    for appendix in ("Call log:", "Browser logs:", "====="):
        message = message.split(appendix)[0]
    return " ".join(message.split())[:300]


async def close_quietly(closable) -> None:
    """Close a context or browser that may already be gone."""
    with contextlib.suppress(PlaywrightError):
        await closable.close()
