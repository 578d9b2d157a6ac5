"""Watches as a spreadsheet over the API: a CSV body of POST /v1/lps/watches, and the position report that
GET /v1/lps/watches streams for `Accept: text/csv` (the sheet's columns and rules are watches/sheets.py's)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest, StreamingHttpResponse

from api.exceptions import InvalidRequest
from watches import sheets
from watches.exceptions import SheetInvalid
from watches.models import Watch

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"


def parse_sheet(body: bytes) -> dict:
    """A CSV body as the JSON batch it stands for (every row checked); raise InvalidRequest naming row and column."""
    try:
        specs = sheets.read_watches(body, max_rows=settings.LPS_API_MAX_CSV_WATCHES)
    except SheetInvalid as exc:
        first = exc.errors[0] if exc.errors else {}
        field = f"row {first['row']}" if first.get("row") else "body"
        if first.get("column"):
            field += f".{first['column']}"
        raise InvalidRequest(exc.message, field=field, errors=exc.errors or None) from exc
    return {"watches": [spec.model_dump(exclude_none=True) for spec in specs]}


def wants_csv(request: HttpRequest) -> bool:
    """The client asked for the CSV report (`Accept: text/csv`)."""
    return "text/csv" in request.META.get("HTTP_ACCEPT", "").lower()


def report_response(watches: QuerySet[Watch], *, filename: str = "lps-watches.csv") -> StreamingHttpResponse:
    """The position report of `watches`, streamed as it is read (memory does not grow with the number of rows)."""
    response = StreamingHttpResponse(sheets.report_csv(sheets.report_rows(watches)), content_type=CSV_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
