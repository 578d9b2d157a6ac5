"""The API's outer guard, first in MIDDLEWARE, for /v1/ paths only: every answer is the JSON envelope, and a
request body reaches the views as plain JSON bytes or not at all.

- The Host header is checked here, before any other middleware asks for it: a bad one would otherwise be
  Django's HTML 400; and a path that decodes to a control character (%00, %0a) is a 404 naming `path`.
- A body is read whole here, whatever the endpoint, by api/request_body.py: it must be `Content-Type:
  application/json`, is decoded from gzip or chunked, and is refused (415, 413, 408, 400) before a view, an API
  key check or the database sees the request, so nothing is written. (A browser sends text/plain, form and
  multipart bodies cross-site without a preflight; JSON needs one.)
- A response that is not JSON by the time it leaves (Django's HTML pages for errors raised before or around
  the API's own handlers) is replaced by the envelope with the same status and headers that matter.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

from api.codes import ResultCode
from api.envelope import error_response, failure
from api.exceptions import ApiError, EndpointNotFound, InvalidRequest
from api.request_body import JSON_MEDIA_TYPE, read_body
from lps_site.browser_middleware import API_PREFIX

log = logging.getLogger(__name__)

# C0 and C1 control characters and DEL: none is in any path of the API.
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Headers of an error page that still mean something once the body is an envelope.
KEPT_HEADERS = ("Allow", "Retry-After", "Location", "WWW-Authenticate")
CODE_BY_STATUS = {
    400: ResultCode.INVALID_REQUEST_DATA,
    403: ResultCode.HTTP_FORBIDDEN,
    404: ResultCode.HTTP_NOT_FOUND,
    405: ResultCode.HTTP_METHOD_NOT_ALLOWED,
    408: ResultCode.HTTP_REQUEST_TIMEOUT,
    413: ResultCode.HTTP_PAYLOAD_TOO_LARGE,
    415: ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE,
    429: ResultCode.HTTP_TOO_MANY_REQUESTS,
    500: ResultCode.INTERNAL_EXCEPTION,
}


class ApiEnvelopeMiddleware:
    """Guard /v1/ requests (Host, body media type, encoding) and answer everything there as the envelope."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        try:
            check_host(request)
            check_path(request)
            read_body(request)
        except ApiError as exc:
            return error_response(exc)
        return as_envelope(self.get_response(request))


def check_host(request: HttpRequest) -> None:
    """Raise InvalidRequest naming the Host header when Django would refuse it (ALLOWED_HOSTS)."""
    try:
        request.get_host()
    except DisallowedHost as exc:
        log.warning("API: refused Host header: %s", exc)
        raise InvalidRequest("the Host header names a host this service does not answer for", field="Host") from exc


def check_path(request: HttpRequest) -> None:
    """Raise EndpointNotFound naming the path when, decoded, it holds a control character (%00, %0a): no
    identifier of the API holds one, so nothing is at such a path, and PostgreSQL refuses NUL in a query (it was a
    500)."""
    if CONTROL_CHARACTER.search(request.path):
        raise EndpointNotFound("nothing is at a path with control characters in it", field="path")


def as_envelope(response: HttpResponse) -> HttpResponse:
    """`response` itself when it is JSON or a success; otherwise the envelope for its status."""
    content_type = response.get("Content-Type", "")
    if response.status_code < 300 or content_type.startswith(JSON_MEDIA_TYPE):
        return response
    status = response.status_code
    message = response.reason_phrase or "error"
    if status in (301, 302, 307, 308) and response.get("Location"):
        message = f"{message}: {response['Location']}"
    envelope = failure(CODE_BY_STATUS.get(status, ResultCode.FAIL), message, status=status)
    for header in KEPT_HEADERS:
        if header in response:
            envelope[header] = response[header]
    return envelope
