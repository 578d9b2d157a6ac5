"""Turn a validated search request into SEARCH jobs: callback URLs checked, then one multi-row enqueue."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from api.callbacks import CachingResolver, check_callback_url
from api.exceptions import UnsafeCallbackUrl
from api.models import ApiClient
from api.schemas import PRIORITIES, SearchIn
from jobs import queue
from lps_site.job_types import JobType
from search.payload import SearchPayload

# Each distinct host name is a DNS lookup (up to a few seconds); address literals and localhost cost nothing.
MAX_RESOLVED_CALLBACK_HOSTS = 10
MAX_REPORTED_ERRORS = 20

Key = TypeVar("Key")


class _CountingResolver(CachingResolver):
    """Refuse a request that names more distinct callback hosts than it is worth resolving."""

    def __call__(self, host: str, port: int) -> list[str]:
        if (host, port) not in self._answers and len(self._answers) >= MAX_RESOLVED_CALLBACK_HOSTS:
            raise UnsafeCallbackUrl(
                f"a request may name at most {MAX_RESOLVED_CALLBACK_HOSTS} distinct callback host names"
            )
        return super().__call__(host, port)


def search_dedupe_key(product_code: str, client: ApiClient) -> str:
    """The key that keeps one active SEARCH per (client, product_code): a product_code is one shop's own SKU."""
    return f"search:{client.pk}:{product_code}"


def callback_refusals(callback_urls: Iterable[tuple[Key, str | None]]) -> list[tuple[Key, str]]:
    """The (key, why) of each refused callback URL, in order, up to MAX_REPORTED_ERRORS; empty ones pass.

    One resolver serves the whole batch, so a host named by many products is looked up once. The one check of a
    batch's callback hosts: JSON searches and watches here, sheets of watches through watches/callbacks.py.
    """
    resolver = _CountingResolver()
    refused: list[tuple[Key, str]] = []
    for key, callback_url in callback_urls:
        if not callback_url:
            continue
        try:
            check_callback_url(callback_url, resolver=resolver)
        except UnsafeCallbackUrl as exc:
            refused.append((key, exc.message))
            if len(refused) >= MAX_REPORTED_ERRORS:
                break
    return refused


def check_callback_urls(callback_urls: Iterable[tuple[str, str | None]]) -> None:
    """Raise UnsafeCallbackUrl naming every refused (field, callback URL) pair, the first one as `field`."""
    errors = [{"field": field, "error": error} for field, error in callback_refusals(callback_urls)]
    if errors:
        raise UnsafeCallbackUrl(errors[0]["error"], field=errors[0]["field"], errors=errors)


def check_callbacks(search: SearchIn) -> None:
    """Raise UnsafeCallbackUrl naming every refused products[i].callback_url (the first one as `field`)."""
    check_callback_urls(
        (f"products[{index}].callback_url", product.callback_url) for index, product in enumerate(search.products)
    )


def submit_search(search: SearchIn, client: ApiClient) -> list[queue.Enqueued]:
    """Enqueue one SEARCH job per product in one statement; nothing is written when a callback is refused."""
    check_callbacks(search)
    priority = PRIORITIES[search.priority]
    return queue.enqueue_many(
        [
            queue.NewJob(
                JobType.SEARCH,
                SearchPayload.from_product(product, client_id=client.pk).as_payload(),
                priority=priority,
                dedupe_key=search_dedupe_key(product.product_code, client),
                owner_id=client.pk,
            )
            for product in search.products
        ]
    )
