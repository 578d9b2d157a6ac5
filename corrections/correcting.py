"""Make, list and delete corrections (SPEC §10), and re-answer the job a correction was made on.

A correction is kept per (client, product_code, marketplace, product id), or for an operator's global one per
(product identity, marketplace, product id); posting again updates it. The job it was made on is re-answered at
once from the listings its rounds already judged (no new search): when its outcome or lowest changes, the job's
result takes the new answer, records the change under `corrections`, and a shop that gave a callback_url is
told of the change through search/hooks.py (the API sends the signed `"event": "corrected"` webhook from it).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.db import transaction
from django.db.models.functions import Now
from django.utils import timezone

from corrections import metrics, review_queue
from corrections.exceptions import CorrectionNotFound, JobNotCorrectable, ListingNotJudged
from corrections.lookup import identity_of, overrides_for
from corrections.models import Author, Correction, Scope
from jobs.exceptions import JobNotFound
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from negative_cache import cache
from search import hooks
from search.exceptions import InvalidProduct
from search.listings import ProductQuery
from search.overrides import answer, judged_listings, rejudge
from search.payload import SearchPayload
from search.products import record_reanswer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Made:
    """A correction as stored, and what it did to its job's answer."""

    correction: Correction
    created: bool
    previous: dict
    """The job's answer before: {"outcome", "lowest"?}."""
    current: dict

    @property
    def changed(self) -> bool:
        return self.previous != self.current


def correct(
    job_id: uuid.UUID,
    *,
    marketplace: str,
    product_id: str,
    same_product: bool,
    note: str = "",
    made_by: Author,
    made_by_client_id: int | None,
    visible_to: int | None,
    scope: Scope = Scope.CLIENT,
) -> Made:
    """Store a correction of one listing `job_id` judged and re-answer the job.

    `visible_to` is the client whose jobs may be corrected (None: an operator, any job); another client's job
    raises JobNotFound as if it did not exist. Raises JobNotCorrectable or ListingNotJudged, writing nothing.
    """
    with transaction.atomic():
        # The job row is locked so that two corrections of one job re-answer it one after the other.
        jobs = Job.objects.select_for_update().filter(job_id=job_id)
        job = (jobs if visible_to is None else jobs.filter(owner_id=visible_to)).first()
        if job is None:
            raise JobNotFound(f"no job {job_id}")
        product = searched_product(job)
        verdict = judged_listings(job.result).get((marketplace, product_id))
        if verdict is None:
            raise ListingNotJudged(f"job {job_id} judged no {marketplace} listing with product_id {product_id!r}")
        listing = {
            "title": str(verdict.get("title") or "")[:1000],
            "price": verdict.get("price") if isinstance(verdict.get("price"), int) else None,
        }
        said = {
            "same_product": same_product,
            "note": note,
            "made_by": made_by,
            "made_by_client_id": made_by_client_id,
            "job_id": job.job_id,
            "product_name": product.product_name[:500],
            "brand": (product.brand or "")[:200],
            "model_code": (product.model_code or "")[:200],
            "client_id": job.owner_id,
            "product_code": product.product_code,
            "identity": identity_of(product),
            **listing,
        }
        if scope == Scope.GLOBAL:
            named = {"scope": scope, "identity": said["identity"]}
        else:
            named = {"scope": scope, "client_id": job.owner_id, "product_code": product.product_code}
        row, created = Correction.objects.update_or_create(
            **named, marketplace=marketplace, product_id=product_id, defaults={**said, "updated_at": Now()}
        )
        if same_product:
            # A listing of the product exists: a not_found remembered for it would hide it from the next search.
            cache.forget(identity_of(product))
        previous, current = _reanswer(job, product, row)
        review_queue.close_settled(row, job.job_id, job.result)
    metrics.record_correction(row, changed=previous != current)
    logger.info(
        "correction %d (%s, %s): %s %s %s for job %s%s",
        row.pk,
        row.scope,
        row.made_by,
        marketplace,
        product_id,
        "is" if same_product else "is not",
        job.job_id,
        f": answer {previous} → {current}" if previous != current else "",
    )
    row.refresh_from_db()
    return Made(row, created, previous, current)


def searched_product(job: Job) -> ProductQuery:
    """The product a finished search looked for; JobNotCorrectable for any other job."""
    if job.job_type != JobType.SEARCH or job.status != JobStatus.DONE or not isinstance(job.result, dict):
        raise JobNotCorrectable(f"job {job.job_id} is not a finished search")
    try:
        return SearchPayload.from_payload(job.payload).product
    except InvalidProduct as exc:
        raise JobNotCorrectable(f"job {job.job_id} carries no product: {exc}") from exc


def _reanswer(job: Job, product: ProductQuery, row: Correction) -> tuple[dict, dict]:
    """Apply the product's corrections to the job's judged listings; store and announce a changed answer."""
    before = job.result
    after = rejudge(before, overrides_for(product, job.owner_id))
    previous, current = answer(before), answer(after)
    if previous != current:
        change = {
            "correction_id": row.pk,
            "at": timezone.now().isoformat(),
            "previous": previous,
            "current": current,
        }
        after["corrections"] = [*(before.get("corrections") or []), change]
        row.answer_change = change
        row.save(update_fields=["answer_change"])
        # The product's price history shows the corrected price for this search, not the rejected one.
        record_reanswer(job.job_id, after)
        # The API sends the shop its signed `corrected` webhook (api/outbox.py listens): this app names no API.
        hooks.answer_changed(
            hooks.AnswerChange(
                job_id=job.job_id,
                payload=SearchPayload.from_payload(job.payload),
                owner_id=job.owner_id,
                result=after,
                previous=previous,
                number=len(after["corrections"]),
            )
        )
    if after != before:
        Job.objects.filter(job_id=job.job_id, status=JobStatus.DONE).update(result=after)
        job.result = after
    return previous, current


def visible_corrections(visible_to: int | None):
    """The corrections a client may read and delete (those of its products), or all for an operator (None)."""
    rows = Correction.objects.all()
    return rows if visible_to is None else rows.filter(scope=Scope.CLIENT, client_id=visible_to)


def delete(correction_id: int, *, visible_to: int | None) -> None:
    """Delete a correction; later searches no longer apply it (answers already corrected stay as they are)."""
    deleted, _ = visible_corrections(visible_to).filter(pk=correction_id).delete()
    if not deleted:
        raise CorrectionNotFound(f"no correction {correction_id}")
    logger.info("correction %d deleted", correction_id)
