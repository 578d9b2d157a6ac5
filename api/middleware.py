"""The API's outer guard, first in MIDDLEWARE, for /v1/ paths only: every answer is the JSON envelope, and a
request body reaches the views as plain JSON bytes or not at all.

- The Host header is checked here, before any other middleware asks for it: a bad one would otherwise be
  Django's HTML 400.
- A body must be `Content-Type: application/json` (any parameters, e.g. charset); anything else is 415 before
  a view, an API key check or the database sees the request, so nothing is written. (A browser sends
  text/plain, form and multipart bodies cross-site without a preflight; JSON needs one.)
- `Transfer-Encoding: chunked` bodies, which carry no Content-Length, are read from the server's input
  (Django would see them as empty), under the same size limit.
- `Content-Encoding: gzip` is decoded, the size limit applied to the decoded body (a 1 MB limit that a 1 KB
  gzip bomb could pass is no limit); identity is the body as is; any other encoding is 415.
- A response that is not JSON by the time it leaves (Django's HTML pages for errors raised before or around
  the API's own handlers) is replaced by the envelope with the same status and headers that matter.
"""

from __future__ import annotations

import io
import logging
import zlib
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest, HttpResponse
from django.utils.http import parse_header_parameters

from api.codes import ResultCode
from api.envelope import error_response, failure
from api.exceptions import ApiError, InvalidRequest, PayloadTooLarge, UnsupportedMediaType

log = logging.getLogger(__name__)

API_PREFIX = "/v1/"
JSON_MEDIA_TYPE = "application/json"
GZIP_ENCODINGS = frozenset({"gzip", "x-gzip"})
# Headers of an error page that still mean something once the body is an envelope.
KEPT_HEADERS = ("Allow", "Retry-After", "Location", "WWW-Authenticate")
CODE_BY_STATUS = {
    400: ResultCode.INVALID_REQUEST_DATA,
    403: ResultCode.HTTP_FORBIDDEN,
    404: ResultCode.HTTP_NOT_FOUND,
    405: ResultCode.HTTP_METHOD_NOT_ALLOWED,
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
            prepare_body(request)
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


def _is_chunked(request: HttpRequest) -> bool:
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def prepare_body(request: HttpRequest) -> None:
    """Leave the request with its body as plain JSON bytes and a matching Content-Length, or raise.

    Raises UnsupportedMediaType (not JSON, or an unknown encoding), PayloadTooLarge, or InvalidRequest (a body
    that is not the gzip it says it is).
    """
    chunked = _is_chunked(request)
    if not chunked and _declared_length(request) == 0:
        return
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    _check_media_type(request)
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    if encoding not in ("", "identity") and encoding not in GZIP_ENCODINGS:
        raise UnsupportedMediaType(
            f"Content-Encoding {encoding!r} is not supported: send the body as is or gzip", field="Content-Encoding"
        )
    if not chunked and encoding not in GZIP_ENCODINGS:
        return  # Django reads and limits a plain body with a Content-Length itself.
    if chunked:
        # Django wraps the server's input in a stream of Content-Length bytes (none here): read the input itself.
        raw = request.environ["wsgi.input"].read(limit + 1)
    else:
        try:
            raw = request.body
        except RequestDataTooBig as exc:
            raise PayloadTooLarge() from exc
    if len(raw) > limit:
        raise PayloadTooLarge()
    body = _gunzip(raw, limit=limit) if encoding in GZIP_ENCODINGS else raw
    request.META["CONTENT_LENGTH"] = str(len(body))
    request.META.pop("HTTP_CONTENT_ENCODING", None)
    request.META.pop("HTTP_TRANSFER_ENCODING", None)
    if hasattr(request, "_body"):
        del request._body
    request._read_started = False
    request._stream = LimitedStream(io.BytesIO(body), len(body))


def _check_media_type(request: HttpRequest) -> None:
    content_type = request.META.get("CONTENT_TYPE", "")
    media_type, _params = parse_header_parameters(content_type)
    if media_type.strip().lower() != JSON_MEDIA_TYPE:
        shown = f"{content_type!r}" if content_type else "missing"
        raise UnsupportedMediaType(
            f"the Content-Type header must be application/json (a charset parameter is fine), not {shown}",
            field="Content-Type",
        )


def _gunzip(raw: bytes, *, limit: int) -> bytes:
    """Decode a gzip body, stopping as soon as the decoded bytes pass `limit` (so a bomb costs nothing)."""
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        body = decoder.decompress(raw, limit + 1)
    except zlib.error as exc:
        raise InvalidRequest("the body is not valid gzip", field="Content-Encoding") from exc
    if len(body) > limit:
        raise PayloadTooLarge("the request body is larger than 1 MB once decoded")
    if not decoder.eof:
        raise InvalidRequest("the body is not complete gzip", field="Content-Encoding")
    return body


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
