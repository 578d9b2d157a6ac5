"""The review items of finished searches as rows (SPEC §4 step 3, §10): written when a search finishes, closed by
the corrections that settle them, read by the operators' review queue and the jobs-awaiting-review metric.

A search's result carries its `review` (search/review.py); this app keeps each item with a product id as an open
ReviewItem, written by a listener search/handler.py calls inside the transaction that records the search
(search/hooks.py), so search imports nothing of this app. An item is closed when a correction names its listing
(the client's for that client's product, an operator's global one for every client's) or when a re-answer of its
job no longer lists it. A listing without a product id cannot be named by a correction: it stays in the result's
`review` but never in the queue.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import Q
from django.utils import timezone

from corrections.lookup import identity_of
from corrections.models import Correction, ReviewItem, Scope
from jobs.queue import ClaimedJob
from search.payload import SearchPayload
from search.result import SearchResult


def record_finished_search(job: ClaimedJob, payload: SearchPayload, result: dict) -> None:
    """The search listener: one open ReviewItem per review item of `result` that a correction can name."""
    product = payload.product
    identity = identity_of(product)
    rows = [
        ReviewItem(
            job_id=job.job_id,
            client_id=payload.client_id,
            product_code=product.product_code[:200],
            product_name=product.product_name[:500],
            identity=identity[:400],
            marketplace=(item.marketplace or "coupang")[:40],
            product_id=item.product_id[:200],
            title=(item.title or "")[:1000],
            price=item.price,
            url=(item.url or "")[:2000],
            reason=(item.reason or "")[:1000],
        )
        for item in SearchResult.from_json(result).review
        if item.product_id and item.price is not None
    ]
    # A job run twice (a retry after its result was recorded) keeps the items of its first run.
    ReviewItem.objects.bulk_create(rows, ignore_conflicts=True)


def close_settled(correction: Correction, job_id, result: Mapping) -> int:
    """Close the open items `correction` names (every job's of its product) and those of `job_id` its re-answered
    `result` no longer lists; how many were closed."""
    now = timezone.now()
    listing = Q(marketplace=correction.marketplace, product_id=correction.product_id)
    if correction.scope == Scope.GLOBAL:
        listing &= Q(identity=correction.identity)
    else:
        listing &= Q(client_id=correction.client_id, product_code=correction.product_code)
    open_items = ReviewItem.objects.filter(closed_at__isnull=True)
    closed = open_items.filter(listing).update(closed_at=now, closed_by=correction)
    review = SearchResult.from_json(result).review
    still = {(item.marketplace or "coupang", str(item.product_id)) for item in review}
    for item in open_items.filter(job_id=job_id).only("pk", "marketplace", "product_id"):
        if (item.marketplace, item.product_id) not in still:
            closed += ReviewItem.objects.filter(pk=item.pk, closed_at__isnull=True).update(closed_at=now)
    return closed


def open_items():
    """The queue: open review items, oldest first (served by review_item_open_idx)."""
    return ReviewItem.objects.filter(closed_at__isnull=True).order_by("created_at", "pk")
