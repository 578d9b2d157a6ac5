"""Failures of searching. Vendor errors (Playwright, OpenAI) are translated into these at the boundary."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from search.listings import TokenUsage


class SearchError(Exception):
    """A search failure."""

    retryable = True

    def __init__(self, message: str | None = None):
        super().__init__(message or (self.__doc__ or "").strip())


class Blocked(SearchError):
    """The marketplace blocked the crawler (HTTP 403/429, a challenge or captcha page, or no result list)."""

    def __init__(
        self,
        message: str | None = None,
        *,
        kind: str = "blocked",
        http_status: int | None = None,
        snapshot_path: str | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.http_status = http_status
        self.snapshot_path = snapshot_path
        """The page's HTML kept for the operator (a screenshot lies beside it as .png), if one was kept."""


class CrawlFailed(SearchError):
    """The browser could not load the search page (navigation error, timeout, crash)."""

    def __init__(self, message: str | None = None, *, snapshot_path: str | None = None):
        super().__init__(message)
        self.snapshot_path = snapshot_path
        """The page's HTML kept for the operator (a screenshot lies beside it as .png), if one was kept."""


class BrowserUnavailable(SearchError):
    """No Chromium could be found or started."""

    retryable = False


class LlmUnavailable(SearchError):
    """The LLM could not be reached or answered with an error (timeout, 429, 5xx)."""


class LlmBadResponse(SearchError):
    """The LLM answered with something that is not the structured output asked for."""

    def __init__(self, message: str | None = None, *, usage: TokenUsage | None = None):
        super().__init__(message)
        # An unusable answer is still billed: the caller may want to count it.
        self.usage = usage


class LlmRejected(SearchError):
    """The LLM endpoint refused the request itself (bad key, unknown model, bad request): retrying cannot help."""

    retryable = False


class InvalidProduct(SearchError):
    """The SEARCH payload is not a product that can be searched."""

    retryable = False


class NaverRejected(SearchError):
    """Naver's Search API refused LPS's request itself (401/403: the client id or secret is wrong, or the Search API
    is not enabled for the application; or an SE01–SE06 code): retrying cannot help, the configuration must change."""

    retryable = False

    def __init__(self, message: str | None = None, *, http_status: int | None = None, error_code: str | None = None):
        super().__init__(message)
        self.http_status = http_status
        self.error_code = error_code


class NaverFailed(SearchError):
    """Naver's Search API could not answer (timeout, connection error, 429, 5xx or an unreadable body)."""

    def __init__(self, message: str | None = None, *, http_status: int | None = None, error_code: str | None = None):
        super().__init__(message)
        self.http_status = http_status
        self.error_code = error_code


class MarketplacesSkipped(SearchError):
    """Every marketplace the search covers was skipped (Naver's daily quota is spent): retried once it resets."""

    def __init__(self, message: str | None = None, *, retry_in_seconds: float | None = None):
        super().__init__(message)
        self.retry_in_seconds = retry_in_seconds
        """When to try again (the worker passes it to the queue instead of the usual backoff)."""
