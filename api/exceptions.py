"""Failures of the API and of webhook delivery; each API failure carries its HTTP status and result code."""

from __future__ import annotations

from api.codes import ResultCode


class ApiError(Exception):
    """An API failure."""

    status = 500
    code = ResultCode.FAIL
    retryable = False

    def __init__(self, message: str | None = None, *, field: str | None = None):
        self.message = message or (self.__doc__ or "").strip()
        self.field = field
        super().__init__(self.message)


class JsonParseFailed(ApiError):
    """The request body is not valid JSON."""

    status = 400
    code = ResultCode.JSON_PARSE_ERROR


class InvalidRequest(ApiError):
    """The request data is invalid."""

    status = 400
    code = ResultCode.INVALID_REQUEST_DATA

    def __init__(self, message: str | None = None, *, field: str | None = None, errors: list[dict] | None = None):
        super().__init__(message, field=field)
        self.errors = errors or []


class UnsafeCallbackUrl(InvalidRequest):
    """The callback_url is not allowed: it must be http(s) and must not reach link-local, metadata, loopback or
    private addresses."""


class CallbackUnresolvable(UnsafeCallbackUrl):
    """The callback_url's host could not be resolved."""

    # At delivery a DNS hiccup is worth another try; at submission it is a 400 like any unsafe URL.
    retryable = True


class DuplicateClientName(ApiError):
    """An API client with that name already exists."""

    status = 409
    code = ResultCode.DB_ALREADY_SAME_KEY


class PayloadTooLarge(ApiError):
    """The request body is larger than 1 MB."""

    status = 413
    code = ResultCode.HTTP_PAYLOAD_TOO_LARGE


class RequestTimedOut(ApiError):
    """The request body did not arrive in time: send it at once, or through a proxy that buffers it."""

    status = 408
    code = ResultCode.HTTP_REQUEST_TIMEOUT


class UnsupportedMediaType(ApiError):
    """A request body must be JSON: send it with Content-Type: application/json."""

    status = 415
    code = ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE


class Unauthorized(ApiError):
    """A valid API key is required (X-API-Key: <key> or Authorization: Bearer <key>)."""

    status = 401
    code = ResultCode.HTTP_INVALID_CLIENT_ACCESS


class OperatorOnly(ApiError):
    """This endpoint needs an operator key."""

    status = 403
    code = ResultCode.HTTP_FORBIDDEN


class RateLimited(ApiError):
    """Too many requests for this API key; retry after the number of seconds in Retry-After."""

    status = 429
    code = ResultCode.HTTP_TOO_MANY_REQUESTS

    def __init__(self, message: str | None = None, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class EndpointNotFound(ApiError):
    """No endpoint at this path."""

    status = 404
    code = ResultCode.HTTP_NOT_FOUND


class MethodNotAllowed(ApiError):
    """This endpoint does not accept that method."""

    status = 405
    code = ResultCode.HTTP_METHOD_NOT_ALLOWED

    def __init__(self, message: str | None = None, *, allowed: list[str]):
        super().__init__(message)
        self.allowed = allowed


class WebhookRejected(ApiError):
    """The callback_url answered with a status other than 2xx."""

    retryable = True


class WebhookUnreachable(ApiError):
    """The callback_url could not be reached (connection refused or reset, timeout, TLS failure)."""

    retryable = True


class WebhookUndeliverable(ApiError):
    """The webhook can never be delivered: it carries no result, or its API client is gone."""
