"""'This price is wrong' without naming a listing: a report on a job, in a queue for operators."""

from __future__ import annotations

import logging
import uuid

from django.utils import timezone

from corrections import metrics
from corrections.exceptions import JobNotCorrectable
from corrections.models import Author, PriceReport, ReportStatus
from jobs.exceptions import JobNotFound
from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from search.result import SearchResult

logger = logging.getLogger(__name__)


def report(
    job_id: uuid.UUID, *, note: str = "", made_by: Author, made_by_client_id: int | None, visible_to: int | None
) -> PriceReport:
    """File a report on a finished search `visible_to` may read (None: an operator, any job)."""
    jobs = Job.objects.filter(job_id=job_id)
    job = (jobs if visible_to is None else jobs.filter(owner_id=visible_to)).first()
    if job is None:
        raise JobNotFound(f"no job {job_id}")
    if job.job_type != JobType.SEARCH or job.status != JobStatus.DONE or not isinstance(job.result, dict):
        raise JobNotCorrectable(f"job {job_id} is not a finished search")
    payload = job.payload if isinstance(job.payload, dict) else {}
    row = PriceReport.objects.create(
        job_id=job.job_id,
        client_id=job.owner_id,
        product_code=str(payload.get("product_code") or "")[:200],
        product_name=str(payload.get("product_name") or "")[:500],
        reported_price=SearchResult.from_json(job.result).price,
        note=note,
        made_by=made_by,
        made_by_client_id=made_by_client_id,
    )
    metrics.record_report(made_by)
    logger.info("price report %d on job %s (%s)", row.pk, job.job_id, made_by)
    return row


def resolve(reports) -> int:
    """Close the given open reports; return how many."""
    return reports.filter(status=ReportStatus.OPEN).update(status=ReportStatus.RESOLVED, resolved_at=timezone.now())
