"""Deciding what a loaded page is: the results (or an honest "no results"), a block, or an error.

Separate from the crawler because the decision is pure (an HTTP status and a parsed page in, a verdict out)
and is the rule operators ask about when a session ends "blocked": it reads the status first, the content next.
"""

from __future__ import annotations

from search.sources.base import ParsedPage

BLOCK_STATUSES = frozenset({403, 429})
PAGE_BLOCK_KINDS = frozenset({"akamai", "captcha", "challenge"})
"""Block kinds read from the page that say more than its HTTP status does."""


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
