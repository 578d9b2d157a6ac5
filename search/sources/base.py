"""What a marketplace adapter promises the crawler: a search URL for a query and a parser for the page.

An adapter is pure: no browser, no network, no database. The crawler loads `search_url(query)` in Chromium and
hands the rendered HTML to `parse`, which must never raise on any input (malformed, truncated, a block page):
whatever it cannot read as results it reports in `ParsedPage.blocked_kind`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from search.listings import Listing


@dataclass(frozen=True)
class ParsedPage:
    """What a result page says: its listings, or that there are none, or that it is not a result page."""

    listings: list[Listing] = field(default_factory=list)
    empty: bool = False
    """The page says the marketplace found nothing (a healthy page, not a block)."""
    blocked_kind: str | None = None
    """Why this is not a result page: "akamai" (Access Denied … Reference #18…), "captcha", "challenge" (a
    bot-manager check), "rate_limited" (a Too Many Requests page), or "no_result_list" (neither results nor
    the empty-result message). None for a healthy page."""
    unread_cards: int = 0
    """Product cards the parser found but could not read (no title, price or link). Cards with no listing
    read at all mean the markup changed under the parser: the crawler fails the fetch rather than call the
    page an empty result."""

    @property
    def healthy(self) -> bool:
        return self.blocked_kind is None


class MarketplaceSource(ABC):
    """One marketplace: how to ask it for a query and how to read its answer."""

    name: str
    """Short stable name, e.g. "coupang" (used in logs and snapshot file names)."""
    base_url: str

    @abstractmethod
    def search_url(self, query: str) -> str:
        """The absolute URL of the result page for `query`."""

    @abstractmethod
    def parse(self, html: str, *, base_url: str) -> ParsedPage:
        """Read a result page; `base_url` resolves relative links. Never raises."""
