"""The SEARCH job handler: a payload in, the pipeline run with the real crawler and judge, the outcome recorded.

Each worker process keeps one Crawler (one long-lived browser), created by the first search it runs and
closed when the worker stops (search/apps.py registers `close_shared_crawler` as a shutdown hook).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import transaction

from jobs import queue
from jobs.handlers import JobContext
from search import hooks, metrics, overrides, pipeline, stage_timings, trust
from search import marketplaces as search_marketplaces
from search.crawler import Crawler
from search.judge import judge_listings
from search.keywords import refine_queries
from search.listings import ProductQuery
from search.llm import LlmClient
from search.payload import SearchPayload
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


def run_pipeline(
    product: ProductQuery,
    *,
    crawler: Crawler,
    llm: LlmClient | None,
    remaining: Callable[[], float] | None = None,
    cancelled: threading.Event | None = None,
    client_id: int | None = None,
    marketplaces: Sequence[str] | None = None,
    fresh: bool = False,
) -> dict:
    """Run the search pipeline for `product` on `marketplaces` (None: every configured one), judging with `llm`
    (rules when None).

    `remaining` (seconds left before the caller's deadline) bounds every page load; `client_id`'s corrections
    of the product apply (an operator's shared ones apply to every search). Coupang alone, not asked for by name,
    gives the single-marketplace result of §8; otherwise each listing names its marketplace and the result has
    `by_marketplace` (search/marketplaces.py). `fresh` searches even a product the negative cache holds.
    """
    source = CoupangSource(base_url=settings.LPS_COUPANG_URL)

    def fetch(query: str):
        timeout = search_marketplaces.page_timeout(settings.LPS_NAVIGATION_TIMEOUT_SECONDS, remaining, repr(query))
        return crawler.fetch(source, query, timeout=timeout, cancelled=cancelled)

    offered = search_marketplaces.configured()
    names = list(marketplaces) if marketplaces is not None else offered
    by_name = {
        "coupang": lambda: pipeline.Marketplace("coupang", fetch),
        "naver": lambda: search_marketplaces.naver_marketplace(remaining),
    }
    named = marketplaces is not None or names != ["coupang"]
    return pipeline.search_product(
        product,
        fetch=None if named else fetch,
        marketplaces=[by_name[name]() for name in names] if named else None,
        configured=offered,
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=llm),
        refine=lambda product, tried: refine_queries(product, llm=llm, tried=list(tried)),
        cancelled=cancelled,
        client_id=client_id,
        fresh=fresh,
    )


def run_search(job: queue.ClaimedJob, context: JobContext) -> dict:
    """Search one product: the pipeline, then a price snapshot, then the apps' listeners (search/hooks.py: the
    watches' record, the review queue, the API's webhook when a callback_url was given).

    The result's metrics.stages_ms says where the search's time went until its recording (search/stage_timings.py).
    """
    with stage_timings.measuring() as clock:
        return _run_search(job, context, clock)


def _run_search(job: queue.ClaimedJob, context: JobContext, clock: stage_timings.StageClock) -> dict:
    payload = SearchPayload.from_payload(job.payload)
    product, client_id = payload.product, payload.client_id
    # An app may answer without a browser (watches reuse a fresh result of the same product: search/hooks.py).
    with stage_timings.timed("database"):
        result = None if payload.fresh else hooks.answer(job, payload)
    if result is not None:
        # A reused result was judged for another search: this client's corrections (SPEC §10) still apply to it.
        corrections = overrides.for_product(product, client_id)
        if corrections.by_listing:
            result = overrides.rejudge(result, corrections.by_listing)
    else:
        llm = LlmClient.from_settings()
        try:
            result = run_pipeline(
                product,
                crawler=shared_crawler(),
                llm=llm,
                remaining=context.remaining,
                cancelled=context.cancelled,
                client_id=client_id,
                marketplaces=payload.marketplaces,
                fresh=payload.fresh,
            )
        finally:
            if llm is not None:
                llm.close()
        metrics.record_search(result, default_source="llm" if llm is not None else "rules")
    trust.describe(result, product)
    # Before the rows that carry the result (the webhook's copy among them): the recording is not in it.
    result.setdefault("metrics", {})["stages_ms"] = clock.as_json()
    with stage_timings.timed("database"), transaction.atomic():
        record_search(product, result, job_id=job.job_id, client_id=client_id)
        hooks.finished(job, payload, result)
    logger.info(
        "search %s job %s: %s in %d round(s)",
        product.product_code,
        job.job_id,
        result["outcome"],
        result["metrics"]["rounds"],
    )
    return result
