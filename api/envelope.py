"""The response envelope: `{"result": <code>, ...}` with absent values left out, never sent as null."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja.renderers import JSONRenderer
from ninja.responses import NinjaJSONEncoder

from api.codes import ResultCode
from api.exceptions import ApiError, MethodNotAllowed, RateLimited

CONTENT_TYPE = "application/json; charset=utf-8"


def without_none(value: Any) -> Any:
    """Return `value` with every None dropped from its dicts and lists, at any depth."""
    if isinstance(value, dict):
        return {key: without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [without_none(item) for item in value if item is not None]
    return value


def dumps(data: Any) -> str:
    """Serialise a response or webhook body: UTF-8 JSON with no nulls."""
    return json.dumps(without_none(data), cls=NinjaJSONEncoder, ensure_ascii=False, separators=(",", ":"))


class EnvelopeRenderer(JSONRenderer):
    """Render every response without null values."""

    def render(self, request: HttpRequest, data: Any, *, response_status: int) -> Any:
        return dumps(data)


def error_body(error: ApiError) -> dict:
    """The envelope of a failure: its code, message and, when known, the offending field."""
    body: dict[str, Any] = {"result": int(error.code), "error": error.message, "field": error.field}
    if getattr(error, "errors", None):
        body["errors"] = error.errors
    return body


def error_response(error: ApiError) -> HttpResponse:
    """An HttpResponse for `error`, with Retry-After or Allow where the status calls for it."""
    response = HttpResponse(dumps(error_body(error)), status=error.status, content_type=CONTENT_TYPE)
    if isinstance(error, RateLimited):
        response["Retry-After"] = str(error.retry_after)
    if isinstance(error, MethodNotAllowed):
        response["Allow"] = ", ".join(error.allowed)
    return response


def failure(code: ResultCode, message: str, *, status: int, field: str | None = None, **extra: Any) -> HttpResponse:
    """An error envelope for a failure that is not one of the API's own exceptions."""
    body = {"result": int(code), "error": message, "field": field, **extra}
    return HttpResponse(dumps(body), status=status, content_type=CONTENT_TYPE)
