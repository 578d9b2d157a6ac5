"""A shop's catalogue as a spreadsheet: watches read from CSV, and the position report written as CSV.

The sheet a pricing manager works from has one row a product. Its columns, in this order:
- the watch, as posted: product_code, product_name, model_code, brand, price (the shop's own, won), every (1h … 7d),
  notify_events (space-separated; `none` for none; empty: the default), min_change_percent, callback_url,
  marketplaces (space-separated; empty: every configured one);
- the position report, written by LPS and ignored when posted back: market_price, marketplace, url,
  shipping_fee, price_with_delivery, gap_won, gap_percent (of the market's lowest; above 0 the shop is dearer),
  last_checked.

So a downloaded report posted back changes nothing. Files are UTF-8 with a byte-order mark, which Excel needs to
read Korean as Korean (a posted file may carry one or not). A cell left empty is a field left out. Rows are read
all or nothing: every row is checked as a JSON watch is (its callback host too), and a refusal names each bad row
(the spreadsheet's row number, the header being row 1) and column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from django.db.models import QuerySet
from pydantic import ValidationError

from search.payload import error_message
from search.result import Lowest, SearchResult
from watches import callbacks, position
from watches.exceptions import SheetInvalid
from watches.models import Watch
from watches.spec import WatchProduct, every_text

BOM = "\ufeff"
WATCH_COLUMNS = (
    "product_code",
    "product_name",
    "model_code",
    "brand",
    "price",
    "every",
    "notify_events",
    "min_change_percent",
    "callback_url",
    "marketplaces",
)
REPORT_COLUMNS = (
    "market_price",
    "marketplace",
    "url",
    "shipping_fee",
    "price_with_delivery",
    "gap_won",
    "gap_percent",
    "last_checked",
)
REQUIRED_COLUMNS = ("product_code", "product_name", "every")
MAX_ERRORS = 20
CHUNK_ROWS = 2000
"""Rows read from the database and written out at a time: the download's memory is bounded by it."""


# --- Reading --------------------------------------------------------------------------------------------------


def _text(body: bytes) -> str:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SheetInvalid(
            f"the sheet is not UTF-8 (byte {exc.start}): save it as CSV UTF-8",
            errors=[{"row": None, "column": None, "error": "not UTF-8"}],
        ) from exc
    return text[1:] if text.startswith(BOM) else text


def _header(reader) -> list[str]:
    try:
        header = next(reader)
    except StopIteration:
        raise SheetInvalid("the sheet is empty: its first row must name the columns") from None
    header = [name.strip() for name in header]
    known = set(WATCH_COLUMNS) | set(REPORT_COLUMNS)
    unknown = [name for name in header if name and name not in known]
    if unknown:
        raise SheetInvalid(
            f"unknown column(s) {', '.join(map(repr, unknown))}: the columns are {', '.join(WATCH_COLUMNS)}",
            errors=[{"row": 1, "column": name, "error": "unknown column"} for name in unknown],
        )
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise SheetInvalid(
            f"the header has no {', '.join(missing)} column: {', '.join(REQUIRED_COLUMNS)} are required",
            errors=[{"row": 1, "column": name, "error": "missing column"} for name in missing],
        )
    repeated = sorted({name for name in header if name and header.count(name) > 1})
    if repeated:
        raise SheetInvalid(
            f"column(s) {', '.join(map(repr, repeated))} appear twice in the header",
            errors=[{"row": 1, "column": name, "error": "repeated column"} for name in repeated],
        )
    return header


# A text cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return before one): the report
# writes it behind an apostrophe, which Excel and LibreOffice show as text and do not print, and a sheet posted back
# has that apostrophe taken off again, so a shop's own "-5도 냉풍기" or a hostile "=HYPERLINK(…)" round-trips as
# written and never runs (OWASP's CSV injection advice).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _as_text_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _from_text_cell(cell: str) -> str:
    if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def _whole_number(text: str) -> int:
    digits = text.replace(",", "")
    if not digits.isdigit() or not digits.isascii():
        raise ValueError("must be a whole number of won")
    return int(digits)


def _watch_fields(cells: dict[str, str]) -> tuple[dict, list[tuple[str, str]]]:
    """A row's cells as a JSON watch, and the (column, error) of cells that are no value of their column."""
    fields: dict = {}
    errors: list[tuple[str, str]] = []
    for name in ("product_code", "product_name", "model_code", "brand", "every", "callback_url"):
        if cells.get(name):
            fields[name] = cells[name]
    if cells.get("price"):
        try:
            fields["price"] = _whole_number(cells["price"])
        except ValueError as exc:
            errors.append(("price", str(exc)))
    if cells.get("marketplaces"):
        fields["marketplaces"] = cells["marketplaces"].replace(",", " ").split()
    notify: dict = {}
    if cells.get("notify_events"):
        events = cells["notify_events"].replace(",", " ").split()
        notify["events"] = [] if events == ["none"] else events
    if cells.get("min_change_percent"):
        try:
            notify["min_change_percent"] = float(cells["min_change_percent"].rstrip("%").strip())
        except ValueError:
            errors.append(("min_change_percent", "must be a number"))
    if notify:
        fields["notify"] = notify
    return fields, errors


def _column(loc: tuple) -> str:
    if loc and loc[0] == "notify":
        return "min_change_percent" if "min_change_percent" in loc else "notify_events"
    return str(loc[0]) if loc else "row"


def read_watches(body: bytes, *, max_rows: int) -> list[WatchProduct]:
    """The watches of a CSV sheet, every row checked; raise SheetInvalid naming each bad row and column."""
    reader = csv.reader(io.StringIO(_text(body), newline=""))
    header = _header(reader)
    specs: list[WatchProduct] = []
    rows: list[int] = []
    errors: list[dict] = []
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line, as spreadsheets leave at the end
        if len(specs) + len(errors) >= max_rows:
            raise SheetInvalid(
                f"the sheet has more than {max_rows:,} rows: split it",
                errors=[{"row": number, "column": None, "error": f"more than {max_rows:,} rows"}],
            )
        if len(row) > len(header):
            errors.append({"row": number, "column": None, "error": f"{len(row)} cells, the header has {len(header)}"})
            continue
        cells = {name: _from_text_cell(cell.strip()) for name, cell in zip(header, row, strict=False) if name}
        fields, cell_errors = _watch_fields(cells)
        for column, error in cell_errors:
            errors.append({"row": number, "column": column, "error": error})
        if cell_errors:
            continue
        try:
            specs.append(WatchProduct.model_validate(fields))
            rows.append(number)
        except ValidationError as exc:
            for error in exc.errors():
                column = _column(tuple(error.get("loc", ())))
                errors.append({"row": number, "column": column, "error": error_message(error, column)})
        if len(errors) >= MAX_ERRORS:
            break
    # The hosts are vetted as the API vets a JSON watch's (watches/callbacks.py), here where each row's number is
    # known: the admin's import refuses what the API refuses, and either names the sheet's row and column.
    refused = callbacks.refusals([(number, spec.callback_url) for number, spec in zip(rows, specs, strict=True)])
    errors += [{"row": number, "column": "callback_url", "error": error} for number, error in refused]
    if errors:
        errors.sort(key=lambda error: error["row"])
        first = errors[0]
        where = f"row {first['row']}" + (f", column {first['column']}" if first["column"] else "")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SheetInvalid(f"{where}: {first['error']}{more}; nothing was written", errors=errors[:MAX_ERRORS])
    if not specs:
        raise SheetInvalid("the sheet has a header and no rows")
    return specs


# --- Writing --------------------------------------------------------------------------------------------------

_FIELDS = ("product_code", "product", "every_seconds", "notify_events", "min_change_percent", "callback_url")
_FIELDS += ("last_outcome", "last_price", "last_result", "last_run_at", "gap_won", "gap_percent")


def _row(watch: dict) -> list:
    product = watch["product"] or {}
    events = watch["notify_events"]
    found = SearchResult.from_json(watch["last_result"]).lowest if watch["last_outcome"] == "found" else None
    lowest = found or Lowest()
    fee, market = lowest.shipping_fee, lowest.price
    gap_percent = watch["gap_percent"]
    return [
        watch["product_code"],
        product.get("product_name", ""),
        product.get("model_code", ""),
        product.get("brand", ""),
        product.get("price", ""),
        every_text(watch["every_seconds"]),
        " ".join(events) if events else "none",
        f"{watch['min_change_percent']:g}",
        watch["callback_url"],
        " ".join(product.get("marketplaces") or ()),
        market if market is not None else "",
        (lowest.marketplace or "coupang") if market is not None else "",
        lowest.url or "",
        fee if fee is not None else "",
        market + fee if market is not None and fee is not None else "",
        watch["gap_won"] if watch["gap_won"] is not None else "",
        round(gap_percent, 2) if gap_percent is not None else "",
        watch["last_run_at"].isoformat(timespec="seconds") if watch["last_run_at"] else "",
    ]


def report_rows(watches: QuerySet[Watch]) -> Iterator[dict]:
    """The rows `report_csv` writes, read from the database CHUNK_ROWS at a time (a server-side cursor)."""
    rows = position.with_position(watches).order_by("client_id", "product_code").values(*_FIELDS)
    return rows.iterator(chunk_size=CHUNK_ROWS)


def report_csv(rows: Iterable[dict]) -> Iterator[bytes]:
    """The position report as UTF-8 CSV with a byte-order mark, in pieces of CHUNK_ROWS rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    buffer.write(BOM)
    writer.writerow(WATCH_COLUMNS + REPORT_COLUMNS)
    for written, watch in enumerate(rows, start=1):
        writer.writerow([_as_text_cell(cell) for cell in _row(watch)])
        if written % CHUNK_ROWS == 0:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8")
