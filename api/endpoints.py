"""The REST API (SPEC §5, §8) on django-ninja: routes, their documented responses, and the error envelope.

django-ninja derives the OpenAPI document from the same pydantic schemas that validate requests and shape
responses, so the document cannot drift from the behaviour; its exception handlers are replaced so that every
failure, including ninja's own (bad JSON, validation, missing key), comes back as a result-code envelope.
"""

from __future__ import annotations

import inspect
import logging
import re
import uuid
from typing import Annotated

from django.core.exceptions import RequestDataTooBig
from django.db import DataError, InterfaceError, OperationalError
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI, Path, Query
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.views import openapi_json
from ninja.responses import Status

from api import auth, corrections
from api.codes import ResultCode
from api.envelope import CONTENT_TYPE, EnvelopeRenderer, dumps, error_response, failure
from api.exceptions import (
    ApiError,
    EndpointNotFound,
    InvalidRequest,
    JsonParseFailed,
    MethodNotAllowed,
    PayloadTooLarge,
    Unauthorized,
)
from api.models import ApiClient
from api.request_body import StrictJsonParser
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
    job_out,
    job_row_out,
    product_out,
)
from api.submit import submit_search
from jobs import queue, queue_reads
from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound, QueueDataRefused, QueueUnavailable
from jobs.models import Job, JobStatus
from lps_site.db_router import observing
from search import stats
from search.job_lookups import matching_product
from search.models import PriceSnapshot, Product
from search.payload import OBJECT_ERRORS, OPTIONAL_TEXT_PATTERN, error_message

log = logging.getLogger(__name__)

DESCRIPTION = """
Lowest Price Search for commerce clients and operators.

Every response is an envelope `{"result": <code>, ...}`: 0 is success, anything else an error with `error`
(a message) and, for bad input, `field` (e.g. `products[3].price`). Absent values are left out, never null.
Result codes: SUCCESS 0, FAIL 1; DB_RUN_FAILED 10, DB_ALREADY_SAME_KEY 11, DB_INVALID_KEY 12, DB_EMPTY_DATA 13,
DB_INVALID_TYPE 14; JSON_PARSE_ERROR 100, INVALID_REQUEST_DATA 101, INTERNAL_EXCEPTION 102, HTTP_FORBIDDEN 403,
HTTP_NOT_FOUND 404, HTTP_METHOD_NOT_ALLOWED 405, HTTP_PAYLOAD_TOO_LARGE 413, HTTP_UNSUPPORTED_MEDIA_TYPE 415,
HTTP_INVALID_CLIENT_REQUEST 419, HTTP_REQUEST_TIMEOUT 408,
HTTP_TOO_MANY_REQUESTS 429, HTTP_INVALID_CLIENT_ACCESS 433 (no, unknown or revoked key);
LPS_JOB_NOT_FOUND 1500, LPS_JOB_NOT_DEAD 1501, LPS_WATCH_NOT_FOUND 1510, LPS_CORRECTION_NOT_FOUND 1520,
LPS_JOB_NOT_FINISHED 1521.

Authenticate with `X-API-Key: <key>` or `Authorization: Bearer <key>`. Each key has a per-minute request
limit (429 with Retry-After). A body must be sent as `Content-Type: application/json` (a charset parameter is
fine; anything else is 415 naming the header), with a Content-Length or `Transfer-Encoding: chunked`, and may be
`Content-Encoding: gzip` (any other encoding is 415). Bodies are at most 1 MB, decoded (413), on every endpoint,
and must arrive in time (408). JSON is read strictly: UTF-8 only, no NaN or Infinity, no key twice in one
object (400). Unknown request fields are ignored. A request that fails validation writes nothing.

Many shops share LPS: a job belongs to the client whose key created it. A product_code is that client's own
SKU, so two clients posting the same code get two jobs; a client key reads, lists and counts only its own jobs
(another client's job is 404, as if it did not exist), while operator keys see every job.
"""

api = NinjaAPI(
    title="LPS — Lowest Price Search",
    version="1",
    description=DESCRIPTION.strip(),
    openapi_url="/v1/lps/openapi.json",
    # Swagger UI would load its scripts from a CDN; the JSON document is what clients and tools use.
    docs_url=None,
    renderer=EnvelopeRenderer(),
    # Every body of every endpoint is parsed strictly (api/request_body.py).
    parser=StrictJsonParser(),
    urls_namespace="lps-api",
)

ALL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
# The failures every keyed endpoint may answer with, documented on each operation.
CLIENT_ERRORS = (400, 401, 415, 429, 500, 503)
OPERATOR_ERRORS = (*CLIENT_ERRORS, 403)


def _responses(ok_status: int, ok_schema, *, operator: bool = False, extra: tuple[int, ...] = ()) -> dict:
    errors = OPERATOR_ERRORS if operator else CLIENT_ERRORS
    return {ok_status: ok_schema, frozenset({*errors, *extra}): ErrorOut}


JobIdPath = Annotated[uuid.UUID, Path(description="The job's id (a UUID).")]


def _page():
    return Query(1, ge=1, le=100_000, description="1-based page number.")


def _page_size():
    return Query(50, ge=1, le=200, description="Rows per page.")


def _hours():
    return Query(24, ge=1, le=24 * 31, description="How many past hours.")


def _search_text():
    return Query(None, max_length=200, pattern=OPTIONAL_TEXT_PATTERN, description="Product code, or part of a name.")


# --- Client endpoints ----------------------------------------------------------------------------------------


@api.post(
    "/v1/lps/search",
    auth=auth.CLIENT,
    response=_responses(202, SearchAcceptedOut, extra=(413,)),
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


@api.get(
    "/v1/lps/jobs/{job_id}",
    auth=auth.CLIENT,
    response=_responses(200, JobEnvelopeOut, extra=(404,)),
    summary="A job's state, attempts, result and last error",
    tags=["client"],
)
def job_detail(request: HttpRequest, job_id: JobIdPath):
    """A client key reads only its own jobs; another client's job is 404, exactly like one that does not exist
    (a 403 would tell it the id exists). Operator keys read every job."""
    job = _visible_jobs(request.auth).filter(job_id=job_id).first()
    if job is None:
        raise JobNotFound(f"no job {job_id}")
    return {"result": ResultCode.SUCCESS, "job": job_out(job)}


@api.get(
    "/v1/lps/queue/stats",
    auth=auth.CLIENT,
    response=_responses(200, QueueStatsOut),
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


@api.get(
    "/v1/lps/jobs",
    auth=auth.CLIENT,
    response=_responses(200, JobPageOut),
    summary="Jobs, newest first, filtered by status and product code or name: a client key's own, or all",
    tags=["client", "operator"],
)
def job_list(
    request: HttpRequest,
    status: StatusName | None = Query(None, description="Only jobs in this state."),  # noqa: B008
    q: str | None = _search_text(),
    page: int = _page(),
    page_size: int = _page_size(),
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


def _visible_jobs(client: ApiClient):
    owner_id = _owner_scope(client)
    return Job.objects.all() if owner_id is None else Job.objects.filter(owner_id=owner_id)


# --- Operator endpoints --------------------------------------------------------------------------------------


@api.post(
    "/v1/lps/jobs/{job_id}/requeue",
    auth=auth.OPERATOR,
    response=_responses(200, RequeuedOut, operator=True, extra=(404, 409)),
    summary="Move a DEAD job back to PENDING with its attempts reset",
    tags=["operator"],
)
def requeue_job(request: HttpRequest, job_id: JobIdPath):
    """409 DB_ALREADY_SAME_KEY when another job with the same dedupe key is active; 409 LPS_JOB_NOT_DEAD when
    the job is not DEAD; 404 LPS_JOB_NOT_FOUND when there is no such job."""
    moved = queue.requeue(job_id)
    return {"result": ResultCode.SUCCESS, "job_id": moved.job_id, "status": moved.status.label}


@api.get(
    "/v1/lps/products",
    auth=auth.OPERATOR,
    response=_responses(200, ProductPageOut, operator=True),
    summary="Products with their latest price snapshot and search count, most recently searched first",
    tags=["operator"],
)
def product_list(
    request: HttpRequest,
    q: str | None = _search_text(),
    page: int = _page(),
    page_size: int = _page_size(),
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


@api.get(
    "/v1/lps/stats/ip-sessions",
    auth=auth.OPERATOR,
    response=_responses(200, IpSessionStatsOut, operator=True),
    summary="IP sessions: end reasons, requests per session, the fewest requests of a blocked one, the last 50",
    tags=["operator"],
)
def ip_session_stats(request: HttpRequest):
    return {"result": ResultCode.SUCCESS, **stats.ip_session_stats()}


@api.get(
    "/v1/lps/stats/bot",
    auth=auth.OPERATOR,
    response=_responses(200, BotStatsOut, operator=True),
    summary="Bot detections per hour and the most recent ones",
    tags=["operator"],
)
def bot_stats(request: HttpRequest, hours: int = _hours()):
    return {"result": ResultCode.SUCCESS, **stats.bot_stats(hours=hours)}


@api.get(
    "/v1/lps/stats/cost",
    auth=auth.OPERATOR,
    response=_responses(200, CostStatsOut, operator=True),
    summary="Search cost per hour (AI and proxy apart), jobs and mean duration",
    tags=["operator"],
)
def cost_stats(request: HttpRequest, hours: int = _hours()):
    return {"result": ResultCode.SUCCESS, **stats.cost_stats(hours=hours)}


# --- Health (no key) -----------------------------------------------------------------------------------------


@api.get("/healthz", response={200: HealthOut}, summary="Liveness: the process answers", tags=["health"])
def healthz(request: HttpRequest):
    return {"result": ResultCode.SUCCESS, "status": "ok"}


@api.get(
    "/readyz",
    response={200: HealthOut, 503: ErrorOut},
    summary="Readiness: the database answers",
    tags=["health"],
)
def readyz(request: HttpRequest):
    if not queue.ping():
        return Status(503, {"result": ResultCode.DB_RUN_FAILED, "error": "the database does not answer"})
    return {"result": ResultCode.SUCCESS, "status": "ok"}


# --- Methods that the paths above do not take: 405 in the envelope, whatever the key ----------------------------


def _method_not_allowed_view(path: str, allowed: list[str]):
    """A view that refuses every method but `allowed` on `path`, taking the path's parameters as Ninja reads them."""

    def method_not_allowed(request: HttpRequest, **path_parameters: str):
        raise MethodNotAllowed(allowed=allowed)

    # Ninja reads a view's path parameters from its signature: name the ones this path has.
    parameters = [inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=HttpRequest)]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)
        for name in re.findall(r"\{(\w+)\}", path)
    ]
    method_not_allowed.__signature__ = inspect.Signature(parameters)
    return method_not_allowed


def _refuse_other_methods() -> None:
    allowed_by_path = {
        path: [method for operation in path_view.operations for method in operation.methods]
        for path, path_view in api.default_router.path_operations.items()
    }
    for index, (path, allowed) in enumerate(allowed_by_path.items()):
        others = [method for method in ALL_METHODS if method not in allowed]

        method_not_allowed = _method_not_allowed_view(path, allowed)
        method_not_allowed.__name__ = f"method_not_allowed_{index}"
        api.api_operation(others, path, auth=None, include_in_schema=False)(method_not_allowed)


# --- Errors in the envelope ------------------------------------------------------------------------------------


def _field_path(loc: tuple) -> str:
    """`("body", "search", "products", 3, "price")` → `products[3].price`; the body's own name is dropped."""
    parts = list(loc)
    source = str(parts.pop(0)) if parts else ""
    if source == "body" and parts:
        parts.pop(0)
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or ("body" if source == "body" else source)


def _message(error: dict, field: str) -> str:
    if field == "body":
        kind = error.get("type", "")
        if kind == "missing":
            return "the request body is required"
        if kind in OBJECT_ERRORS:
            return "the request body must be a JSON object"
    return error_message(error, field)


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = []
    for error in exc.errors[:20]:
        field = _field_path(tuple(error.get("loc", ())))
        errors.append({"field": field, "error": _message(error, field)})
    first = errors[0] if errors else {"field": "body", "error": "invalid request"}
    return error_response(
        InvalidRequest(first["error"], field=first["field"], errors=errors if len(errors) > 1 else None)
    )


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc, AuthenticationError):
        return error_response(Unauthorized())
    if isinstance(exc.__cause__, ApiError):
        # The strict parser's own refusal (a duplicated key, NaN, a byte-order mark), which ninja wraps.
        return error_response(exc.__cause__)
    if exc.status_code == 400 and exc.__cause__ is not None:
        # ninja reports a body that json.loads refused this way.
        return error_response(JsonParseFailed(f"the request body is not valid JSON ({type(exc.__cause__).__name__})"))
    return failure(ResultCode.FAIL, str(exc), status=exc.status_code)


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(PayloadTooLarge())


@api.exception_handler(JobNotFound)
def _job_not_found(request: HttpRequest, exc: JobNotFound) -> HttpResponse:
    return failure(ResultCode.LPS_JOB_NOT_FOUND, str(exc), status=404, field="job_id")


@api.exception_handler(JobNotDead)
def _job_not_dead(request: HttpRequest, exc: JobNotDead) -> HttpResponse:
    return failure(ResultCode.LPS_JOB_NOT_DEAD, str(exc), status=409, field="job_id")


@api.exception_handler(DuplicateActiveJob)
def _duplicate(request: HttpRequest, exc: DuplicateActiveJob) -> HttpResponse:
    return failure(
        ResultCode.DB_ALREADY_SAME_KEY, str(exc), status=409, field="job_id", active_job_id=exc.active_job_id
    )


@api.exception_handler(QueueDataRefused)
@api.exception_handler(DataError)
def _data_refused(request: HttpRequest, exc: Exception) -> HttpResponse:
    # A value the checks let through but a column cannot hold: the request's fault, so a 400 a client will not retry.
    log.warning("API: the database refused a value on %s %s: %s", request.method, request.path, exc)
    return failure(
        ResultCode.INVALID_REQUEST_DATA,
        "a value is too long or out of range for what LPS stores",
        status=400,
        field="body",
    )


@api.exception_handler(QueueUnavailable)
@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def _database_down(request: HttpRequest, exc: Exception) -> HttpResponse:
    log.warning("API: database unavailable: %s", exc)
    return failure(ResultCode.DB_RUN_FAILED, "the database is unavailable; try again shortly", status=503)


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(EndpointNotFound())


@api.exception_handler(Exception)
def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    log.exception("API: unexpected error on %s %s", request.method, request.path)
    return failure(ResultCode.INTERNAL_EXCEPTION, "internal error", status=500)


@csrf_exempt  # The document's path, whatever the method: a 405 for any but GET and HEAD, never the CSRF check's 403.
def openapi_document(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    """`GET /v1/lps/openapi.json` (ninja's view); any other method is 405 with `Allow: GET, HEAD`."""
    if request.method not in ("GET", "HEAD"):
        return error_response(MethodNotAllowed(allowed=["GET", "HEAD"]))
    return openapi_json(request, api=api)


@csrf_exempt  # An API path, whatever the method: a 404, never the CSRF check's 403.
def endpoint_not_found(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    """Any other path under /v1/lps/."""
    return error_response(EndpointNotFound())


corrections.add_routes(api, auth=auth, responses=_responses)
# The watch endpoints register on `api` too (imported here, before the other methods are refused).
from api import watch_endpoints  # noqa: E402, F401

_refuse_other_methods()
