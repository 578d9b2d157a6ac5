"""The searches and jobs resource of the REST API (SPEC §5, §8): queue a batch of searches, read and list jobs,
requeue a dead one, and the operators' products and stats, with the health checks; routes on `router`, mounted by
api/rest_api.py.
"""

from __future__ import annotations

import logging

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from ninja import Query, Router
from ninja.responses import Status

from api import auth, parameters
from api.codes import ResultCode
from api.envelope import CONTENT_TYPE, dumps
from api.models import ApiClient
from api.parameters import JobIdPath
from api.schemas import (
    BotStatsOut,
    CostStatsOut,
    ErrorOut,
    HealthOut,
    IpSessionStatsOut,
    JobEnvelopeOut,
    JobPageOut,
    ProductPageOut,
    QueueStatsOut,
    RequeuedOut,
    SearchAcceptedOut,
    SearchIn,
    StatusName,
    job_envelope,
    job_row_out,
    product_out,
)
from api.submit import submit_search
from jobs import queue, queue_reads
from jobs.exceptions import JobNotFound
from jobs.models import JobStatus
from lps_site.db_router import observing
from search import stats
from search.job_lookups import matching_product
from search.models import PriceSnapshot, Product

log = logging.getLogger(__name__)

router = Router()


# --- Client endpoints ----------------------------------------------------------------------------------------


@router.post(
    "/v1/lps/search",
    auth=auth.CLIENT,
    response=parameters.responses(202, SearchAcceptedOut, extra=(413,)),
    summary="Queue a batch of products for a lowest-price search",
    tags=["client"],
)
def search_products(request: HttpRequest, batch: SearchIn):
    """One SEARCH job per product, all in one statement. A product_code with an active job gets that job's id
    and `duplicate: true`. Nothing is written when any product or callback_url is refused."""
    enqueued = submit_search(batch, request.auth)
    jobs = [
        {"product_code": product.product_code, "job_id": str(job.job_id), "duplicate": job.duplicate}
        for product, job in zip(batch.products, enqueued, strict=True)
    ]
    created = [job["job_id"] for job in jobs if not job["duplicate"]]
    log.info(
        "client %s queued %d search job(s) (%d already queued): %s",
        request.auth.name,
        len(created),
        len(jobs) - len(created),
        " ".join(created),
        extra={"client": request.auth.name, "job_ids": created},
    )
    # Rendered here rather than re-validated against SearchAcceptedOut: for a 1,000-product batch that check
    # costs more than the enqueue itself, and this shape is built from values that are already right
    # (tests/api/test_openapi.py holds the response to the document).
    return HttpResponse(dumps({"result": ResultCode.SUCCESS, "jobs": jobs}), status=202, content_type=CONTENT_TYPE)


@router.get(
    "/v1/lps/jobs/{job_id}",
    auth=auth.CLIENT,
    response=parameters.responses(200, JobEnvelopeOut, extra=(404,)),
    summary="A job's state, attempts, result and last error",
    tags=["client"],
)
def job_detail(request: HttpRequest, job_id: JobIdPath):
    """A client key reads only its own jobs; another client's job is 404, exactly like one that does not exist
    (a 403 would tell it the id exists). Operator keys read every job."""
    job = queue_reads.visible_job(job_id, owner_id=_owner_scope(request.auth))
    if job is None:
        raise JobNotFound(f"no job {job_id}")
    # Rendered here, as JobEnvelopeOut's validation would render it (api/schemas.job_envelope), without it.
    return HttpResponse(dumps(job_envelope(job)), content_type=CONTENT_TYPE)


@router.get(
    "/v1/lps/queue/stats",
    auth=auth.CLIENT,
    response=parameters.responses(200, QueueStatsOut),
    summary="Jobs per state and the ops snapshot: a client key's own jobs, or all jobs for an operator key",
    tags=["client"],
)
def queue_stats(request: HttpRequest):
    owner_id = _owner_scope(request.auth)
    return {
        "result": ResultCode.SUCCESS,
        "counts": queue_reads.counts(owner_id=owner_id),
        "snapshot": {
            **queue_reads.snapshot(owner_id=owner_id).as_dict(),
            "cost_last_hour_usd": stats.cost_last_hour_usd(owner_id=owner_id),
        },
    }


@router.get(
    "/v1/lps/jobs",
    auth=auth.CLIENT,
    response=parameters.responses(200, JobPageOut),
    summary="Jobs, newest first, filtered by status and product code or name: a client key's own, or all",
    tags=["client", "operator"],
)
def job_list(
    request: HttpRequest,
    status: StatusName | None = Query(None, description="Only jobs in this state."),  # noqa: B008
    q: str | None = parameters.search_text(),
    page: int = parameters.page(),
    page_size: int = parameters.page_size(),
):
    """A client key lists the jobs it created (so a shop can find the ids it lost); an operator key lists
    every client's jobs."""
    found = queue_reads.list_jobs(
        status=JobStatus[status] if status else None,
        matching=matching_product(q) if q else None,
        owner_id=_owner_scope(request.auth),
        page=page,
        page_size=page_size,
    )
    return {
        "result": ResultCode.SUCCESS,
        "total": found.total,
        "total_is_estimate": found.total_is_estimate,
        "page": page,
        "page_size": page_size,
        "jobs": [job_row_out(job) for job in found.jobs],
    }


def _owner_scope(client: ApiClient) -> int | None:
    """The owner a key's reads are narrowed to: its own client id, or None (everything) for an operator."""
    return None if client.is_operator else client.pk


# --- Operator endpoints --------------------------------------------------------------------------------------


@router.post(
    "/v1/lps/jobs/{job_id}/requeue",
    auth=auth.OPERATOR,
    response=parameters.responses(200, RequeuedOut, operator=True, extra=(404, 409)),
    summary="Move a DEAD job back to PENDING with its attempts reset",
    tags=["operator"],
)
def requeue_job(request: HttpRequest, job_id: JobIdPath):
    """409 DB_ALREADY_SAME_KEY when another job with the same dedupe key is active; 409 LPS_JOB_NOT_DEAD when
    the job is not DEAD; 404 LPS_JOB_NOT_FOUND when there is no such job."""
    moved = queue.requeue(job_id)
    return {"result": ResultCode.SUCCESS, "job_id": moved.job_id, "status": moved.status.label}


@router.get(
    "/v1/lps/products",
    auth=auth.OPERATOR,
    response=parameters.responses(200, ProductPageOut, operator=True),
    summary="Products with their latest price snapshot and search count, most recently searched first",
    tags=["operator"],
)
def product_list(
    request: HttpRequest,
    q: str | None = parameters.search_text(),
    page: int = parameters.page(),
    page_size: int = parameters.page_size(),
):
    with observing():
        products = Product.objects.all()
        if q:
            products = products.filter(product_code=q) | products.filter(product_name__icontains=q)
        total = products.count()
        offset = (page - 1) * page_size
        rows = list(
            products.order_by(F("last_searched_at").desc(nulls_last=True), "-created_at", "-id")[
                offset : offset + page_size
            ]
        )
        latest = {
            snapshot.product_id: snapshot
            for snapshot in PriceSnapshot.objects.filter(product__in=rows)
            .order_by("product_id", "-captured_at", "-id")
            .distinct("product_id")
        }
    return {
        "result": ResultCode.SUCCESS,
        "total": total,
        "page": page,
        "page_size": page_size,
        "products": [product_out(product, latest.get(product.pk)) for product in rows],
    }


@router.get(
    "/v1/lps/stats/ip-sessions",
    auth=auth.OPERATOR,
    response=parameters.responses(200, IpSessionStatsOut, operator=True),
    summary="IP sessions: end reasons, requests per session, the fewest requests of a blocked one, the last 50",
    tags=["operator"],
)
def ip_session_stats(request: HttpRequest):
    return {"result": ResultCode.SUCCESS, **stats.ip_session_stats()}


@router.get(
    "/v1/lps/stats/bot",
    auth=auth.OPERATOR,
    response=parameters.responses(200, BotStatsOut, operator=True),
    summary="Bot detections per hour and the most recent ones",
    tags=["operator"],
)
def bot_stats(request: HttpRequest, hours: int = parameters.hours()):
    return {"result": ResultCode.SUCCESS, **stats.bot_stats(hours=hours)}


@router.get(
    "/v1/lps/stats/cost",
    auth=auth.OPERATOR,
    response=parameters.responses(200, CostStatsOut, operator=True),
    summary="Search cost per hour (AI and proxy apart), jobs and mean duration",
    tags=["operator"],
)
def cost_stats(request: HttpRequest, hours: int = parameters.hours()):
    return {"result": ResultCode.SUCCESS, **stats.cost_stats(hours=hours)}


# --- Health (no key) -----------------------------------------------------------------------------------------


@router.get("/healthz", response={200: HealthOut}, summary="Liveness: the process answers", tags=["health"])
def healthz(request: HttpRequest):
    return {"result": ResultCode.SUCCESS, "status": "ok"}


@router.get(
    "/readyz",
    response={200: HealthOut, 503: ErrorOut},
    summary="Readiness: the database answers",
    tags=["health"],
)
def readyz(request: HttpRequest):
    if not queue.ping():
        return Status(503, {"result": ResultCode.DB_RUN_FAILED, "error": "the database does not answer"})
    return {"result": ResultCode.SUCCESS, "status": "ok"}
