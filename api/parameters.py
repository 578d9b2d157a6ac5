"""What every resource's routes share: the documented error responses and the path and query parameters.

Each resource's module (api/endpoints.py, api/watch_endpoints.py, api/corrections.py) builds its routes on its own
django-ninja Router from these; api/rest_api.py mounts the routers.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from ninja import Path, Query

from api.schemas import ErrorOut
from search.payload import OPTIONAL_TEXT_PATTERN

# The failures every keyed endpoint may answer with, documented on each operation.
CLIENT_ERRORS = (400, 401, 415, 429, 500, 503)
OPERATOR_ERRORS = (*CLIENT_ERRORS, 403)

JobIdPath = Annotated[uuid.UUID, Path(description="The job's id (a UUID).")]


def responses(ok_status: int, ok_schema, *, operator: bool = False, extra: tuple[int, ...] = ()) -> dict:
    """An operation's documented responses: `ok_schema` on success, the error envelope on each failure."""
    errors = OPERATOR_ERRORS if operator else CLIENT_ERRORS
    return {ok_status: ok_schema, frozenset({*errors, *extra}): ErrorOut}


def page():
    return Query(1, ge=1, le=100_000, description="1-based page number.")


def page_size():
    return Query(50, ge=1, le=200, description="Rows per page.")


def hours():
    return Query(24, ge=1, le=24 * 31, description="How many past hours.")


def search_text():
    return Query(None, max_length=200, pattern=OPTIONAL_TEXT_PATTERN, description="Product code, or part of a name.")
