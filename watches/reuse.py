"""Reuse: a watch's search answered by a fresh found result of the same product, without a browser.

Thousands of shops watch the same products. A found result of a product identity (the negative cache's: the
normalised name, model code and brand, never a client's product_code) finished less than
LPS_RESULT_REUSE_SECONDS ago answers a *watch's* search (a client's own search always runs), marked
`"reused": true`. The whole result is kept, its judged listings (matches, rounds) included, so that a later step (a
client's corrections, §10) can re-judge it.

Nothing of one shop reaches another through it: a result any client's own correction shaped is never kept nor
handed out (search/sharing.py), and `"reused_from"` names the job it came from only when that job is the same
client's (another shop's job id is that shop's; the log line names it for operators).
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from jobs.models import Job
from jobs.queue import ClaimedJob
from negative_cache.cache import key_for
from search.payload import SearchPayload
from search.result import SearchResult
from search.sharing import shareable
from watches import metrics
from watches.models import RecentResult

log = logging.getLogger(__name__)


def identity(payload: SearchPayload) -> str:
    product = payload.product
    return key_for(product_name=product.product_name, model_code=product.model_code, brand=product.brand).key


def reused_result(result: dict, job_id: str | None, payload: SearchPayload | None = None) -> dict:
    """`result` as the answer of another job: marked reused (from `job_id` when given), its cost not paid again."""
    reused = {**result, "reused": True, "cached": False}
    reused.pop("reused_from", None)
    if job_id is not None:
        reused["reused_from"] = job_id
    if payload is not None and "product_code" in reused:
        # The result answers this client's product, under its own code.
        reused["product_code"] = payload.product.product_code
    metrics_in = result.get("metrics") or {}
    reused["metrics"] = {
        **metrics_in,
        "duration_ms": 0,
        "cost": {"ai_usd": 0.0, "proxy_usd": 0.0, "total_usd": 0.0},
    }
    return reused


def answer(job: ClaimedJob, payload: SearchPayload) -> dict | None:
    """The search answerer: a recent found result of the product for a watch's run, else None (search)."""
    if not isinstance(job.payload, dict) or "watch_id" not in job.payload:
        return None
    window = settings.LPS_RESULT_REUSE_SECONDS
    recent = None
    if window > 0:
        recent = RecentResult.objects.filter(
            identity_key=identity(payload), finished_at__gt=timezone.now() - timedelta(seconds=window)
        ).first()
    if recent is None or not shareable(recent.result, payload.product):
        metrics.record_watch_search(reused=False)
        return None
    metrics.record_watch_search(reused=True)
    source_owner = Job.objects.filter(job_id=recent.job_id).values_list("owner_id", flat=True).first()
    own = payload.client_id is not None and source_owner == payload.client_id
    log.info("watch search %s answered by job %s's result", job.job_id, recent.job_id)
    return reused_result(recent.result, str(recent.job_id) if own else None, payload)


def remember(job: ClaimedJob, payload: SearchPayload, result: dict) -> None:
    """The search listener: keep a found result that a browser produced as its identity's latest."""
    answer = SearchResult.from_json(result)
    if not answer.found or answer.reused or answer.cached:
        return
    if not shareable(result, payload.product):
        # A client's own correction shaped it: that client's answer, never another shop's.
        return
    RecentResult.objects.bulk_create(
        [
            RecentResult(
                identity_key=identity(payload),
                job_id=uuid.UUID(str(job.job_id)),
                result=result,
                finished_at=timezone.now(),
            )
        ],
        update_conflicts=True,
        unique_fields=["identity_key"],
        update_fields=["job_id", "result", "finished_at"],
    )


def prune_old(limit: int) -> int:
    """A maintenance unit: delete up to `limit` results older than the reuse window."""
    cutoff = timezone.now() - timedelta(seconds=max(settings.LPS_RESULT_REUSE_SECONDS, 0))
    keys = list(RecentResult.objects.filter(finished_at__lt=cutoff).values_list("identity_key", flat=True)[:limit])
    if not keys:
        return 0
    deleted, _ = RecentResult.objects.filter(identity_key__in=keys, finished_at__lt=cutoff).delete()
    return deleted
