"""The marketplaces a deployment offers and how a search reaches each: Coupang through the browser, Naver Shopping
through its Search API (on exactly when NAVER_CLIENT_ID and NAVER_CLIENT_SECRET are set), within its daily quota.

A job that names Naver alone while the quota is spent is not answered not_found: the pipeline raises
MarketplacesSkipped with the time left until 00:00 KST, and the worker retries the job then (one attempt spent).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from django.conf import settings

from jobs.client_view import with_operator_detail
from jobs.exceptions import JobDeadlineExceeded
from search import metrics, naver_quota
from search.exceptions import NaverFailed, NaverRejected
from search.pipeline import Marketplace, Skip
from search.sources.naver import NaverCredentials, NaverSource
from search.titles import compact

logger = logging.getLogger(__name__)

KNOWN = ("coupang", "naver")
"""Every marketplace LPS has an adapter for, in the order a search lists them."""
RESET_SLACK_SECONDS = 60.0
"""A skipped job is retried this long after Naver's midnight, so that clocks a little apart still find a new day."""

_naver: NaverSource | None = None
_naver_config: tuple | None = None
_naver_lock = threading.Lock()


def naver_credentials() -> NaverCredentials | None:
    """Naver's credentials from the environment, or None when either is unset (Naver is then not configured)."""
    client_id, secret = settings.NAVER_CLIENT_ID.strip(), settings.NAVER_CLIENT_SECRET.strip()
    if not client_id or not secret:
        return None
    return NaverCredentials(client_id, secret)


def configured() -> list[str]:
    """The marketplaces this deployment searches: Coupang always, Naver when its credentials are set."""
    return [name for name in KNOWN if name == "coupang" or naver_credentials() is not None]


def shared_naver() -> NaverSource:
    """This process's Naver client (one connection pool), rebuilt when its settings change."""
    global _naver, _naver_config
    credentials = naver_credentials()
    if credentials is None:
        raise NaverRejected(
            with_operator_detail(
                "Naver is not available on this deployment", "set NAVER_CLIENT_ID and NAVER_CLIENT_SECRET"
            )
        )
    config = (settings.LPS_NAVER_URL, credentials, settings.LPS_NAVER_TIMEOUT_SECONDS)
    with _naver_lock:
        if _naver is None or _naver_config != config:
            if _naver is not None:
                _naver.close()
            _naver = NaverSource(
                base_url=settings.LPS_NAVER_URL, credentials=credentials, timeout=settings.LPS_NAVER_TIMEOUT_SECONDS
            )
            _naver_config = config
        return _naver


def close_shared_naver() -> None:
    """Close this process's Naver client, if one was made (a worker shutdown hook)."""
    global _naver, _naver_config
    with _naver_lock:
        source, _naver, _naver_config = _naver, None, None
    if source is not None:
        source.close()


def admit_naver() -> Skip | None:
    """Take one call of Naver's daily quota, or say why Naver is skipped for the rest of the search."""
    taken = naver_quota.take_call()
    if isinstance(taken, naver_quota.Spent):
        metrics.record_naver_call("quota_spent")
        return Skip(taken.reason, retry_in_seconds=taken.seconds_left() + RESET_SLACK_SECONDS)
    return None


def naver_may_find_more(query: str, found_nothing: Sequence[str]) -> bool:
    """Whether Naver may find anything for `query` after `found_nothing` found nothing there.

    Naver's Search API answers the offers that hold every word of a query: a query with all the words of one that
    found nothing (the same words reordered, respaced, re-hyphenated, or more of them) finds nothing either, and
    is not worth a call of the day's quota. A query with fewer words, or other ones, may find more.
    """
    words = _words(query)
    return not any(_words(earlier) and _words(earlier) <= words for earlier in found_nothing)


def _words(query: str) -> frozenset[str]:
    return frozenset(word for word in map(compact, query.split()) if word)


def page_timeout(limit: float, remaining: Callable[[], float] | None, searching: str) -> float:
    """How long one page of `searching` may take: `limit`, or less when the job's deadline (`remaining` seconds
    left) comes first; JobDeadlineExceeded when no time is left."""
    if remaining is None:
        return limit
    left = remaining()
    if left <= 0:
        raise JobDeadlineExceeded(f"no time left to search {searching}")
    return min(limit, left)


def naver_marketplace(remaining: Callable[[], float] | None = None) -> Marketplace:
    """Naver as a search reaches it: one quota call taken per query, then one HTTP call bounded by `remaining`."""
    source = shared_naver()

    def fetch(query: str):
        timeout = page_timeout(settings.LPS_NAVER_TIMEOUT_SECONDS, remaining, f"{query!r} on Naver")
        try:
            page = source.search(query, timeout=timeout)
        except NaverRejected:
            metrics.record_naver_call("rejected")
            raise
        except NaverFailed as exc:
            metrics.record_naver_call("rate_limited" if exc.http_status == 429 else "error")
            raise
        metrics.record_naver_call("ok")
        return page

    # Naver's bytes come over a direct HTTPS call, not through the crawler's proxy: they are not billed.
    return Marketplace(
        "naver", fetch, admit=admit_naver, concurrent=True, billed_bytes=False, may_find_more=naver_may_find_more
    )
