"""The SEARCH job handler: a payload in, the pipeline run with the real crawler and judge, the outcome recorded.

Each worker process keeps one Crawler (one long-lived browser), created by the first search it runs and
closed when the worker stops (search/apps.py registers `close_shared_crawler` as a shutdown hook).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import transaction

from jobs import queue
from jobs.exceptions import JobDeadlineExceeded
from jobs.handlers import JobContext
from lps_site.job_types import JobType
from search import metrics, pipeline
from search.crawler import Crawler
from search.exceptions import InvalidProduct
from search.judge import judge_listings
from search.keywords import refine_queries
from search.listings import ProductQuery
from search.llm import LlmClient
from search.products import record_search
from search.sources.coupang import CoupangSource

logger = logging.getLogger(__name__)

_crawler: Crawler | None = None
_crawler_lock = threading.Lock()


def shared_crawler() -> Crawler:
    """This process's crawler, started on first use."""
    global _crawler
    with _crawler_lock:
        if _crawler is None:
            _crawler = Crawler()
        return _crawler


def close_shared_crawler() -> None:
    """Close this process's crawler, if one was started (a worker shutdown hook)."""
    global _crawler
    with _crawler_lock:
        crawler, _crawler = _crawler, None
    if crawler is not None:
        crawler.close(reason="shutdown")


def _text(payload: dict, name: str, *, required: bool, max_length: int) -> str | None:
    value = payload.get(name)
    if value is None or (not required and value == ""):
        if required:
            raise InvalidProduct(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise InvalidProduct(f"{name} must be a string, not {type(value).__name__}")
    value = value.strip()
    if required and not value:
        raise InvalidProduct(f"{name} must not be blank")
    if len(value) > max_length:
        raise InvalidProduct(f"{name} is longer than {max_length} characters")
    return value or None


def callback_url_from_payload(payload: dict) -> str | None:
    """The payload's callback_url, if any; raise InvalidProduct when it is not an http(s) URL.

    The API vets the host when the job is submitted and the OUTBOX handler again at delivery.
    """
    callback_url = _text(payload, "callback_url", required=False, max_length=2000)
    if callback_url and not callback_url.lower().startswith(("http://", "https://")):
        raise InvalidProduct("callback_url must be an http(s) URL")
    return callback_url


def product_from_payload(payload: object) -> ProductQuery:
    """Check a SEARCH payload and turn it into a ProductQuery; raise InvalidProduct naming the bad field."""
    if not isinstance(payload, dict):
        raise InvalidProduct(f"the payload must be a JSON object, not {type(payload).__name__}")
    price = payload.get("price")
    if price is not None and (isinstance(price, bool) or not isinstance(price, int) or price < 0):
        raise InvalidProduct("price must be a whole number of won, zero or more")
    callback_url_from_payload(payload)
    return ProductQuery(
        product_code=_text(payload, "product_code", required=True, max_length=200),
        product_name=_text(payload, "product_name", required=True, max_length=500),
        brand=_text(payload, "brand", required=False, max_length=200),
        model_code=_text(payload, "model_code", required=False, max_length=200),
        price=price,
    )


def run_pipeline(
    product: ProductQuery,
    *,
    crawler: Crawler,
    llm: LlmClient | None,
    remaining: Callable[[], float] | None = None,
    cancelled: threading.Event | None = None,
) -> dict:
    """Run the search pipeline for `product` on the Coupang adapter, judging with `llm` (rules when None).

    `remaining` (seconds left before the caller's deadline) bounds every page load.
    """
    source = CoupangSource(base_url=settings.LPS_COUPANG_URL)

    def fetch(query: str):
        timeout = settings.LPS_NAVIGATION_TIMEOUT_SECONDS
        if remaining is not None:
            left = remaining()
            if left <= 0:
                raise JobDeadlineExceeded(f"JobDeadlineExceeded: no time left to search {query!r}")
            timeout = min(timeout, left)
        return crawler.fetch(source, query, timeout=timeout, cancelled=cancelled)

    return pipeline.search_product(
        product,
        fetch=fetch,
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=llm),
        refine=lambda product, tried: refine_queries(product, llm=llm, tried=list(tried)),
        cancelled=cancelled,
    )


def run_search(job: queue.ClaimedJob, context: JobContext) -> dict:
    """Search one product: the pipeline, then a price snapshot, then the webhook's OUTBOX job when asked."""
    product = product_from_payload(job.payload)
    callback_url = callback_url_from_payload(job.payload)
    client_id = job.payload.get("client_id")
    if client_id is not None and (isinstance(client_id, bool) or not isinstance(client_id, int)):
        raise InvalidProduct(f"client_id must be an API client's id, not {client_id!r}")
    llm = LlmClient.from_settings()
    try:
        result = run_pipeline(
            product, crawler=shared_crawler(), llm=llm, remaining=context.remaining, cancelled=context.cancelled
        )
    finally:
        if llm is not None:
            llm.close()
    metrics.record_search(result, default_source="llm" if llm is not None else "rules")
    with transaction.atomic():
        record_search(product, result, job_id=job.job_id, client_id=client_id)
        if callback_url:
            delivery = {
                "search_job_id": str(job.job_id),
                "product_code": product.product_code,
                "callback_url": callback_url,
                "result": result,
            }
            if client_id is not None:
                delivery["client_id"] = client_id
            queue.enqueue(
                queue.NewJob(
                    JobType.OUTBOX,
                    delivery,
                    dedupe_key=f"outbox:{job.job_id}",
                    max_attempts=settings.LPS_OUTBOX_MAX_ATTEMPTS,
                    # The delivery belongs to whoever owns the search: the client reads it, its lists count it.
                    owner_id=client_id,
                )
            )
    logger.info(
        "search %s job %s: %s in %d round(s)",
        product.product_code,
        job.job_id,
        result["outcome"],
        result["metrics"]["rounds"],
    )
    return result
