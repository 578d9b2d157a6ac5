"""Every /v1/ request body, read and parsed in one place: the envelope middleware reads it, ninja's parser parses it.

Reading (`read_body`, called by api/middleware.py for every /v1/ request that carries a body, whatever the
endpoint, before the key check or any view):
- a body must be `Content-Type: application/json`, with no charset or a UTF-8 one (415 otherwise); `text/csv` is
  accepted on the endpoints of CSV_BODY_PATHS alone (POST /v1/lps/watches: a spreadsheet of watches), up to
  LPS_API_MAX_CSV_BYTES, and parsed by watches/sheets.py;
- `Transfer-Encoding: chunked` bodies, which carry no Content-Length, are read from the server's input (Django
  would see them as empty), under the same size limit;
- `Content-Encoding: gzip` is decoded, the 1 MB limit applied to the decoded body (a 1 KB gzip bomb passes no
  limit), and anything after the gzip stream is refused; identity is the body as is; any other encoding is 415;
- a body larger than the limit is 413 on every endpoint, whether or not it reads one;
- a body that does not arrive within the web server's body deadline (lps_site/web_worker.py) is 408.

Parsing (`StrictJsonParser`, the NinjaAPI's parser, so every endpoint that takes a body inherits it): UTF-8 only
(a byte-order mark or UTF-16 is refused by name), no NaN or Infinity anywhere, and a key given twice in one
object is refused naming it, rather than silently taking the last value.
"""

from __future__ import annotations

import io
import json
import logging
import math
import zlib
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest
from django.utils.http import parse_header_parameters
from ninja.parser import Parser

from api.exceptions import InvalidRequest, JsonParseFailed, PayloadTooLarge, RequestTimedOut, UnsupportedMediaType
from api.watch_sheets import parse_sheet

log = logging.getLogger(__name__)

JSON_MEDIA_TYPE = "application/json"
CSV_MEDIA_TYPE = "text/csv"
CSV_BODY_PATHS = frozenset({("POST", "/v1/lps/watches")})
"""The (method, path) pairs whose body may be CSV."""
UTF8_CHARSETS = frozenset({"utf-8", "utf8"})
GZIP_ENCODINGS = frozenset({"gzip", "x-gzip"})
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _is_chunked(request: HttpRequest) -> bool:
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def read_body(request: HttpRequest) -> None:
    """Leave the request with its whole body read, as plain JSON bytes with a matching Content-Length, or raise.

    Raises UnsupportedMediaType (not JSON, a charset other than UTF-8, or an unknown encoding), PayloadTooLarge,
    RequestTimedOut, or InvalidRequest (a body that is not the gzip it says it is, or that ended early).
    """
    chunked = _is_chunked(request)
    declared = _declared_length(request)
    if not chunked and declared == 0:
        return
    sheet = _check_media_type(request)
    limit = settings.LPS_API_MAX_CSV_BYTES if sheet else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    if encoding not in ("", "identity") and encoding not in GZIP_ENCODINGS:
        raise UnsupportedMediaType(
            f"Content-Encoding {encoding!r} is not supported: send the body as is or gzip", field="Content-Encoding"
        )
    too_large = f"a CSV sheet is larger than {limit / 2**20:g} MB: split it" if sheet else None
    if declared > limit:
        raise PayloadTooLarge(too_large)
    try:
        # Django wraps the server's input in a stream of Content-Length bytes (none when chunked): read it itself.
        # A sheet may be larger than Django's own limit (request.body enforces it): it is read from the stream.
        if chunked:
            raw = request.environ["wsgi.input"].read(limit + 1)
        else:
            raw = request.read(limit + 1) if sheet else request.body
    except RequestDataTooBig as exc:
        raise PayloadTooLarge() from exc
    except OSError as exc:
        # Django wraps a failed read in UnreadablePostError (twice); the web worker's body deadline is a TimeoutError.
        cause: BaseException | None = exc
        while cause is not None and not isinstance(cause, TimeoutError):
            cause = cause.__cause__
        if cause is not None:
            raise RequestTimedOut(str(cause) or None) from exc
        raise InvalidRequest("the request body ended before its declared length", field="body") from exc
    except Exception as exc:
        # The server's reader of a chunked body refuses its framing (a chunk size "zz" or "-3", a chunk without its
        # CRLF): gunicorn raises its own parse errors, which are no OSError. The client's fault, in the envelope.
        log.warning("API: unreadable request body: %r", exc)
        raise InvalidRequest("the request body is not valid chunked transfer coding", field="body") from exc
    if len(raw) > limit:
        raise PayloadTooLarge(too_large)
    if not chunked and len(raw) < declared:
        raise InvalidRequest("the request body ended before its declared length", field="body")
    body = _gunzip(raw, limit=limit) if encoding in GZIP_ENCODINGS else raw
    request.META["CONTENT_LENGTH"] = str(len(body))
    request.META.pop("HTTP_CONTENT_ENCODING", None)
    request.META.pop("HTTP_TRANSFER_ENCODING", None)
    request._body = body
    request._read_started = False
    request._stream = LimitedStream(io.BytesIO(body), len(body))


def is_csv(request: HttpRequest) -> bool:
    """The request's body is a CSV sheet (accepted only where CSV_BODY_PATHS allows it)."""
    media_type, _params = parse_header_parameters(request.META.get("CONTENT_TYPE", ""))
    return media_type.strip().lower() == CSV_MEDIA_TYPE and (request.method, request.path) in CSV_BODY_PATHS


def _check_media_type(request: HttpRequest) -> bool:
    """Refuse a body that is neither JSON nor, where allowed, CSV; True for a CSV sheet."""
    content_type = request.META.get("CONTENT_TYPE", "")
    media_type, params = parse_header_parameters(content_type)
    sheet = is_csv(request)
    if media_type.strip().lower() != JSON_MEDIA_TYPE and not sheet:
        shown = f"{content_type!r}" if content_type else "missing"
        also = " or text/csv" if (request.method, request.path) in CSV_BODY_PATHS else ""
        raise UnsupportedMediaType(
            f"the Content-Type header must be application/json{also} (a charset parameter is fine), not {shown}",
            field="Content-Type",
        )
    charset = params.get("charset", "utf-8").strip().lower()
    if charset not in UTF8_CHARSETS:
        kind = "CSV" if sheet else "JSON"
        raise UnsupportedMediaType(
            f"the body must be UTF-8 {kind}: Content-Type says charset={charset!r}", field="Content-Type"
        )
    return sheet


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
    if decoder.unused_data:
        raise InvalidRequest(
            f"the body has {len(decoder.unused_data)} byte(s) after its gzip stream", field="Content-Encoding"
        )
    return body


# --- Parsing -----------------------------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise JsonParseFailed(f"the request body is not valid JSON: {name} is not a JSON number", field="body")


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise JsonParseFailed(f"the key {key!r} appears twice in one JSON object", field=key)
            seen.add(key)
    return obj


def _text(body: bytes) -> str:
    if body.startswith(UTF8_BOM):
        raise JsonParseFailed("the request body starts with a byte-order mark: send UTF-8 without one", field="body")
    if body.startswith(UTF16_BOMS) or (len(body) >= 2 and (body[0] == 0 or body[1] == 0)):
        raise JsonParseFailed("the request body looks like UTF-16 or UTF-32: send it as UTF-8", field="body")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonParseFailed(f"the request body is not valid UTF-8 (byte {exc.start})", field="body") from exc


def _finite_float(text: str) -> float:
    # 1e999 is a valid JSON number that no float holds: Python reads it as infinity, which JSON cannot say.
    value = float(text)
    if math.isinf(value):
        raise JsonParseFailed(f"the number {text[:40]} is too large", field="body")
    return value


def strict_loads(body: bytes) -> Any:
    """Parse a request body: UTF-8 JSON, no NaN or Infinity, no key twice in one object; raise JsonParseFailed."""
    text = _text(body)
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            object_pairs_hook=_object_without_duplicates,
        )
    except JsonParseFailed:
        raise
    except (ValueError, RecursionError) as exc:
        # ValueError covers JSONDecodeError and an integer too long to convert.
        raise JsonParseFailed(f"the request body is not valid JSON ({type(exc).__name__})") from exc


class StrictJsonParser(Parser):
    """ninja's body parser for every endpoint: `strict_loads`; a CSV sheet of watches where one is accepted."""

    def parse_body(self, request: HttpRequest) -> Any:
        if is_csv(request):
            return parse_sheet(request.body)
        return strict_loads(request.body)
