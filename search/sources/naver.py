"""Naver Shopping through its official Search API: `GET /v1/search/shop.json`, JSON over HTTP, no browser.

The adapter asks for one page of up to `display` items per query, sorted by relevance, with used, rental and
cross-border (cbshop) offers excluded by Naver itself, and reads the answer into the same `Listing` values the
Coupang parser makes: the mall as seller, Naver's productType kept (only 1–3, new and current, are candidates;
see `Listing.is_candidate`), the title without its <b> highlights and HTML entities.

It retries nothing itself: a timeout, a 429 or a 5xx raises `NaverFailed` (retryable) and the queue retries the
whole job with its backoff; rejected credentials (401/403) or a request Naver calls malformed (SE01–SE06) raise
`NaverRejected`, which ends the job DEAD at once, since only a change of configuration can help.
"""

from __future__ import annotations

import html
import json
import re
import time
from dataclasses import dataclass

import httpx2

from jobs.client_view import with_operator_detail
from search.exceptions import NaverFailed, NaverRejected
from search.listings import Listing, SearchPage

NAME = "naver"
SEARCH_PATH = "/v1/search/shop.json"
DISPLAY = 40
"""Items asked per query (Naver allows 1–100): the relevant offers of one product fit well within it."""
EXCLUDE = "used:rental:cbshop"
CATALOG_URL = "https://search.shopping.naver.com/catalog/{product_id}"
"""Where a catalog (가격비교, productType 1) is shown, when its item has no link of its own."""
# The codes Naver answers when the request, not the moment, is wrong: retrying the same request cannot help.
REJECTED_CODES = frozenset({"SE01", "SE02", "SE03", "SE04", "SE05", "SE06"})
# What a rental or subscription offer says in its title or category: Naver's exclude=rental misses some of them.
RENTAL = re.compile(r"렌탈|렌트|대여|구독|약정|의무사용|월\s*[\d,]+\s*원")
_TAGS = re.compile(r"<[^>]{0,100}>")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class NaverCredentials:
    client_id: str
    client_secret: str


def clean_title(title: str) -> str:
    """A title as a shopper reads it: Naver's <b> highlights removed, entities (&amp;, &#39;, …) unescaped."""
    return _SPACES.sub(" ", html.unescape(_TAGS.sub("", title))).strip()


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_items(data: object) -> tuple[list[Listing], int]:
    """Read a shop.json answer into listings; return them and how many items could not be read.

    An item without a title, a link (catalogs excepted: their page is known) or a price (lprice 0: none) is
    not a listing. Never raises.
    """
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], 0
    listings, unread = [], 0
    for item in items:
        if not isinstance(item, dict):
            unread += 1
            continue
        title = clean_title(str(item.get("title") or ""))
        price = _int(item.get("lprice"))
        product_id = str(item.get("productId") or "").strip() or None
        product_type = _int(item.get("productType"))
        url = str(item.get("link") or "").strip()
        if not url and product_id and product_type == 1:
            url = CATALOG_URL.format(product_id=product_id)
        if not title or not url or price is None or price <= 0:
            unread += 1
            continue
        seller = clean_title(str(item.get("mallName") or "")) or None
        categories = " ".join(str(item.get(f"category{level}") or "") for level in range(1, 5))
        listings.append(
            Listing(
                title=title,
                price=price,
                url=url,
                product_id=product_id,
                seller=seller,
                marketplace=NAME,
                product_type=product_type,
                rental=bool(RENTAL.search(title) or RENTAL.search(categories)),
            )
        )
    return listings, unread


class NaverSource:
    """The Shopping Search API client: one pooled HTTP client, bounded by timeouts, closed with `close()`."""

    name = NAME

    def __init__(
        self,
        *,
        base_url: str,
        credentials: NaverCredentials,
        timeout: float = 10.0,
        display: int = DISPLAY,
    ):
        if not 1 <= display <= 100:
            raise ValueError("display must be between 1 and 100")
        self.base_url = base_url.rstrip("/")
        self.display = display
        self._timeout = timeout
        self._client = httpx2.Client(
            base_url=self.base_url,
            headers={
                "X-Naver-Client-Id": credentials.client_id,
                "X-Naver-Client-Secret": credentials.client_secret,
                "Accept": "application/json",
                "User-Agent": "LPS (lowest-price search)",
            },
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 5.0)),
            limits=httpx2.Limits(max_connections=8, max_keepalive_connections=4),
            follow_redirects=False,
        )

    def close(self) -> None:
        self._client.close()

    def search_url(self, query: str) -> str:
        return str(self._client.build_request("GET", SEARCH_PATH, params=self._params(query)).url)

    def _params(self, query: str) -> dict:
        return {"query": query, "display": self.display, "start": 1, "sort": "sim", "exclude": EXCLUDE}

    def search(self, query: str, *, timeout: float | None = None) -> SearchPage:
        """One call for `query`: its listings, or NaverFailed / NaverRejected."""
        started = time.monotonic()
        bound = self._timeout if timeout is None else max(0.1, min(self._timeout, timeout))
        try:
            response = self._client.get(
                SEARCH_PATH, params=self._params(query), timeout=httpx2.Timeout(bound, connect=min(bound, 5.0))
            )
        except httpx2.TimeoutException as exc:
            raise NaverFailed(f"Naver's Search API did not answer {query!r} within {bound:.0f} s") from exc
        except httpx2.HTTPError as exc:
            raise NaverFailed(with_operator_detail("Naver's Search API could not be reached", repr(exc))) from exc
        body = response.content
        if response.status_code != 200:
            raise _error(response.status_code, body)
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise NaverFailed("Naver's Search API answered 200 with a body that is not JSON", http_status=200) from exc
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise NaverFailed("Naver's Search API answered 200 without an items list", http_status=200)
        listings, unread = parse_items(data)
        if unread and not listings:
            raise NaverFailed(f"none of Naver's {unread} items could be read: has the answer's shape changed?")
        return SearchPage(
            query=query,
            url=str(response.request.url),
            listings=listings,
            empty=not listings,
            bytes=len(body),
            elapsed_ms=int((time.monotonic() - started) * 1000),
        )


def _error(status: int, body: bytes) -> NaverFailed | NaverRejected:
    """The exception for a non-200 answer, with Naver's errorCode and errorMessage when it sent them."""
    code, message = None, ""
    try:
        data = json.loads(body)
        if isinstance(data, dict):
            code = str(data.get("errorCode") or "") or None
            message = str(data.get("errorMessage") or "")
    except ValueError:
        pass
    said = f" ({code}: {message})" if code or message else ""
    # Naver's own words and what to change in LPS's settings are the operators'; a client reads that the
    # marketplace refused LPS (jobs/client_view.py).
    if status in (401, 403):
        return NaverRejected(
            with_operator_detail(
                f"Naver's Search API refused LPS's credentials (HTTP {status})",
                f"Naver said{said or ' nothing'}: check NAVER_CLIENT_ID and NAVER_CLIENT_SECRET, and that the "
                "application has the Search API enabled",
            ),
            http_status=status,
            error_code=code,
        )
    if code in REJECTED_CODES:
        return NaverRejected(
            with_operator_detail(f"Naver's Search API refused LPS's request (HTTP {status})", f"Naver said{said}"),
            http_status=status,
            error_code=code,
        )
    if status == 429:
        return NaverFailed(
            f"Naver's Search API is rate limiting LPS (HTTP 429{said})", http_status=429, error_code=code
        )
    return NaverFailed(f"Naver's Search API answered HTTP {status}{said}", http_status=status, error_code=code)
