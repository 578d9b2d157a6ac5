"""The REST API (SPEC §5, §8) on django-ninja: one NinjaAPI, each resource's Router mounted on it, and the error
envelope.

django-ninja derives the OpenAPI document from the same pydantic schemas that validate requests and shape
responses, so the document cannot drift from the behaviour; its exception handlers are replaced so that every
failure, including ninja's own (bad JSON, validation, missing key), comes back as a result-code envelope.

A resource's routes live on its own Router, in its own module: searches and jobs (api/endpoints.py), watches
(api/watch_endpoints.py), corrections (api/corrections.py). This module mounts them, in that order, and nothing
else adds a route.
"""

from __future__ import annotations

import inspect
import logging
import re

from django.core.exceptions import RequestDataTooBig
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI, Router
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.views import openapi_json

from api import corrections, endpoints, watch_endpoints
from api.codes import ResultCode
from api.envelope import EnvelopeRenderer, error_response, failure
from api.exceptions import (
    ApiError,
    EndpointNotFound,
    InvalidRequest,
    JsonParseFailed,
    MethodNotAllowed,
    PayloadTooLarge,
    Unauthorized,
)
from api.request_body import StrictJsonParser
from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound, QueueDataRefused, QueueUnavailable
from search.payload import OBJECT_ERRORS, error_message

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


def _refuse_other_methods(routers: list[Router]) -> None:
    """Give each path of `routers` the methods it does not take, on its own router (a path is one URL pattern)."""
    index = 0
    for router in routers:
        allowed_by_path = {
            path: [method for operation in path_view.operations for method in operation.methods]
            for path, path_view in router.path_operations.items()
        }
        for path, allowed in allowed_by_path.items():
            others = [method for method in ALL_METHODS if method not in allowed]

            method_not_allowed = _method_not_allowed_view(path, allowed)
            method_not_allowed.__name__ = f"method_not_allowed_{index}"
            index += 1
            router.api_operation(others, path, auth=None, include_in_schema=False)(method_not_allowed)


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


# The order of the OpenAPI document's paths: searches and jobs, corrections, watches.
ROUTERS = [endpoints.router, corrections.router, watch_endpoints.router]
_refuse_other_methods(ROUTERS)
for resource in ROUTERS:
    api.add_router("", resource)
