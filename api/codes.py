"""The result codes of every API response: stable integers that clients already rely on.

Ranges: 0–9 general, 10–99 database, 100–1499 request and HTTP, 1500+ LPS. Existing values never change;
new codes are added inside their range.
"""

from enum import IntEnum


class ResultCode(IntEnum):
    SUCCESS = 0
    """The request did what it asked."""
    FAIL = 1
    """A failure with no more precise code."""

    DB_RUN_FAILED = 10
    """The database could not be reached or failed to run the statement (HTTP 503)."""
    DB_ALREADY_SAME_KEY = 11
    """Another active job holds the same dedupe key (HTTP 409)."""
    DB_INVALID_KEY = 12
    DB_EMPTY_DATA = 13
    DB_INVALID_TYPE = 14

    JSON_PARSE_ERROR = 100
    """The body is not JSON (HTTP 400)."""
    INVALID_REQUEST_DATA = 101
    """A field is missing, of the wrong type or out of bounds; `field` names it (HTTP 400)."""
    INTERNAL_EXCEPTION = 102
    """An unexpected server error (HTTP 500)."""
    HTTP_FORBIDDEN = 403
    """The key is valid but may not use this endpoint (operator endpoints; HTTP 403)."""
    HTTP_NOT_FOUND = 404
    """No endpoint at this path (HTTP 404)."""
    HTTP_METHOD_NOT_ALLOWED = 405
    """The endpoint exists but not for this method (HTTP 405, see Allow)."""
    HTTP_REQUEST_TIMEOUT = 408
    """The request (its headers or body) did not arrive within the web server's deadline (HTTP 408)."""
    HTTP_PAYLOAD_TOO_LARGE = 413
    """The body is larger than 1 MB (HTTP 413)."""
    HTTP_UNSUPPORTED_MEDIA_TYPE = 415
    """A body that is not `Content-Type: application/json`, or in a Content-Encoding other than identity or gzip
    (HTTP 415; `field` names the header)."""
    HTTP_INVALID_CLIENT_REQUEST = 419
    HTTP_TOO_MANY_REQUESTS = 429
    """The key's rate limit is spent for this minute (HTTP 429, see Retry-After)."""
    HTTP_INVALID_CLIENT_ACCESS = 433
    """No API key, an unknown key or a revoked key (HTTP 401)."""

    LPS_JOB_NOT_FOUND = 1500
    """No job has that id (HTTP 404)."""
    LPS_JOB_NOT_DEAD = 1501
    """Only a DEAD job can be requeued (HTTP 409)."""
    LPS_CORRECTION_NOT_FOUND = 1520
    """No correction has that id, or it is another client's (HTTP 404)."""
    LPS_JOB_NOT_FINISHED = 1521
    """Only a finished SEARCH job can be corrected or reported (HTTP 409)."""
    LPS_WATCH_NOT_FOUND = 1510
    """No watch of this client has that product_code (HTTP 404)."""
