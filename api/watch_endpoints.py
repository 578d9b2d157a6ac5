"""The watch endpoints (SPEC §8, §9): upsert a batch, list, read with history, run now, pause, resume, delete.

A client key addresses its own watches by product_code. An operator key lists every client's, and addresses
another client's watch with `?client_id=<id>` (without it, the operator's own); a client key's `client_id` other
than its own is a 404, as if the watch did not exist. Routes on `router`, mounted by api/rest_api.py.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from ninja import Query, Router, Schema
from pydantic import BaseModel, ConfigDict, Field

from api import auth, parameters
from api.codes import ResultCode
from api.exceptions import ApiError, InvalidRequest
from api.models import ApiClient
from api.request_body import is_csv
from api.schemas import Omitted
from api.submit import check_callback_urls
from api.watch_sheets import report_response, wants_csv
from jobs.client_view import client_text
from watches import position, store
from watches.models import EventState, Watch, WatchEvent, WatchPoint
from watches.spec import WatchProduct, every_text

log = logging.getLogger(__name__)

router = Router()

MAX_HISTORY_POINTS = 1000
DEFAULT_HISTORY_DAYS = 30
RECENT_EVENTS = 20


class WatchNotFound(ApiError):
    """No watch of this client has that product_code."""

    status = 404
    code = ResultCode.LPS_WATCH_NOT_FOUND


# --- Shapes ---------------------------------------------------------------------------------------------------


class WatchesIn(BaseModel):
    """A batch of watches, upserted by (client, product_code). Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    # The cap is the format's: LPS_API_MAX_WATCHES for JSON (documented here), LPS_API_MAX_CSV_WATCHES for a CSV
    # sheet (checked as it is read, api/watch_sheets.py); upsert_watches holds JSON to its own.
    watches: list[WatchProduct] = Field(..., min_length=1, json_schema_extra={"maxItems": settings.LPS_API_MAX_WATCHES})


class WatchUpsertedOut(Schema):
    product_code: str
    created: bool = Field(..., description="False when a watch of this code existed and was updated.")


class WatchesUpsertedOut(Schema):
    result: int = 0
    watches: list[WatchUpsertedOut]


class LowestOut(Schema):
    price: int
    title: str | Omitted = None
    url: str | Omitted = None
    product_id: str | Omitted = None
    seller: str | Omitted = None
    rocket: bool | Omitted = None
    marketplace: str | Omitted = None
    shipping_fee: int | Omitted = Field(None, description="Delivery of one unit as the card states it (0: free).")


class SummaryOut(Schema):
    outcome: Literal["found", "not_found"]
    lowest: LowestOut | Omitted = None
    reused: bool | Omitted = None


class PointLowestOut(Schema):
    price: int
    marketplace: str | Omitted = None


class PointOut(Schema):
    at: datetime
    outcome: Literal["found", "not_found"]
    lowest: PointLowestOut | Omitted = None
    job_id: str
    reused: bool | Omitted = None


class EventOut(Schema):
    seq: int
    event: str
    state: Literal["pending", "delivered", "given up", "no callback"]
    job_id: str
    created_at: datetime
    delivered_at: datetime | Omitted = None
    attempts: int
    last_error: str | Omitted = None


class PositionOut(Schema):
    own_price: int = Field(..., description="The product's own price (the shop's).")
    market_price: int = Field(..., description="The market's lowest of the last run.")
    gap_won: int = Field(..., description="own_price - market_price: above 0 the shop is undercut.")
    gap_percent: float = Field(..., description="The gap in per cent of the market's lowest.")
    undercut: bool
    marketplace: str | Omitted = None
    since: datetime | Omitted = Field(None, description="Since when the shop has stood so (undercut or not).")


class NotifyOut(Schema):
    events: list[str]
    min_change_percent: float


class WatchOut(Schema):
    product_code: str
    client_id: int | Omitted = Field(None, description="The owning client (operator keys only).")
    product_name: str
    model_code: str | Omitted = None
    brand: str | Omitted = None
    price: int | Omitted = None
    callback_url: str | Omitted = None
    every: str
    notify: NotifyOut
    paused: bool
    next_run_at: datetime
    pending_job_id: str | Omitted = None
    last_run_at: datetime | Omitted = None
    last_change_at: datetime | Omitted = None
    last: SummaryOut | Omitted = None
    position: PositionOut | Omitted = Field(
        None, description="The shop's own price against the market's lowest (with a price and a found last run)."
    )
    runs: int
    created_at: datetime
    updated_at: datetime


class WatchDetailOut(WatchOut):
    history: list[PointOut]
    events: list[EventOut] = Field(..., description=f"The {RECENT_EVENTS} most recent events, newest first.")


class WatchEnvelopeOut(Schema):
    result: int = 0
    watch: WatchDetailOut


class WatchPageOut(Schema):
    result: int = 0
    total: int
    page: int
    page_size: int
    watches: list[WatchOut]


class WatchRunOut(Schema):
    result: int = 0
    product_code: str
    job_id: str
    duplicate: bool = Field(..., description="True when an active search of this code answers the run.")


class WatchStateOut(Schema):
    result: int = 0
    product_code: str
    paused: bool


class WatchDeletedOut(Schema):
    result: int = 0
    product_code: str
    deleted: bool


def watch_out(watch: Watch, *, operator: bool) -> dict[str, Any]:
    product = watch.product
    out: dict[str, Any] = {
        "product_code": watch.product_code,
        "product_name": product.get("product_name", ""),
        "every": every_text(watch.every_seconds),
        "notify": {"events": list(watch.notify_events), "min_change_percent": watch.min_change_percent},
        "paused": watch.paused,
        "next_run_at": watch.next_run_at,
        "runs": watch.runs,
        "created_at": watch.created_at,
        "updated_at": watch.updated_at,
    }
    for name in ("model_code", "brand", "price"):
        if product.get(name) is not None:
            out[name] = product[name]
    if operator:
        out["client_id"] = watch.client_id
    if watch.callback_url:
        out["callback_url"] = watch.callback_url
    if watch.pending_job_id:
        out["pending_job_id"] = str(watch.pending_job_id)
    if watch.last_run_at:
        out["last_run_at"] = watch.last_run_at
    if watch.last_change_at:
        out["last_change_at"] = watch.last_change_at
    if watch.last_result:
        out["last"] = watch.last_result
    standing = position.position_of(watch)
    if standing is not None:
        out["position"] = standing.as_json()
    return out


def point_out(point: WatchPoint) -> dict[str, Any]:
    out: dict[str, Any] = {"at": point.at, "outcome": point.outcome, "job_id": str(point.job_id)}
    if point.price is not None:
        out["lowest"] = {"price": point.price, **({"marketplace": point.marketplace} if point.marketplace else {})}
    if point.reused:
        out["reused"] = True
    return out


def event_out(event: WatchEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seq": event.seq,
        "event": event.kind,
        "state": EventState(event.state).label,
        "job_id": str(event.job_id),
        "created_at": event.created_at,
        "attempts": event.attempts,
    }
    if event.delivered_at:
        out["delivered_at"] = event.delivered_at
    if event.last_error:
        # Written for operators (what the receiver answered, how it failed): a client reads its own part only.
        out["last_error"] = client_text(event.last_error)
    return out


# --- Helpers ----------------------------------------------------------------------------------------------------


def _client_id_param():
    return Query(None, ge=1, le=2**63 - 1, description="Operators: the client whose watch this is (default: own).")


def _owner(client: ApiClient, client_id: int | None, product_code: str) -> int:
    if client_id is None or client_id == client.pk:
        return client.pk
    if client.is_operator:
        return client_id
    raise WatchNotFound(f"no watch {product_code!r}", field="product_code")


def _watch(client: ApiClient, product_code: str, client_id: int | None, *, lock: bool = False) -> Watch:
    watches = Watch.objects.select_for_update() if lock else Watch.objects
    watch = watches.filter(client_id=_owner(client, client_id, product_code), product_code=product_code).first()
    if watch is None:
        raise WatchNotFound(f"no watch {product_code!r}", field="product_code")
    return watch


def _check(request: HttpRequest, batch: WatchesIn) -> None:
    """Refuse unsafe callback URLs, naming each field; nothing is written."""
    if is_csv(request):
        return  # a sheet's hosts were vetted as it was read, naming its rows (watches/sheets.py)
    check_callback_urls(
        (f"watches[{index}].callback_url", watch.callback_url) for index, watch in enumerate(batch.watches)
    )


# --- Endpoints --------------------------------------------------------------------------------------------------

WATCH_PATH = "/v1/lps/watches/{product_code}"


@router.post(
    "/v1/lps/watches",
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchesUpsertedOut, extra=(413,)),
    summary="Create or update a batch of watches (by product_code)",
    tags=["client", "watches"],
)
def upsert_watches(request: HttpRequest, batch: WatchesIn):
    """Each watch is the fields of a search plus `every` (1h to 7d) and `notify`; posting a code again updates its
    watch (its schedule is kept unless `every` changed; of a code repeated in one batch the last wins). A new
    watch's first run falls at a random point within its interval, so that watches posted together are spread
    over it. Nothing is written when any watch is refused.

    The body may also be a CSV sheet (`Content-Type: text/csv`, UTF-8 with or without a byte-order mark): a header
    row naming the columns (product_code, product_name, every required; model_code, brand, price, notify_events,
    min_change_percent, callback_url, marketplaces; the position report's own columns are ignored), one watch a
    row, up to LPS_API_MAX_CSV_WATCHES rows; a refusal names each bad row and column."""
    if not is_csv(request) and len(batch.watches) > settings.LPS_API_MAX_WATCHES:
        raise InvalidRequest(
            f"watches: at most {settings.LPS_API_MAX_WATCHES:,} in one JSON request (a CSV sheet takes up to "
            f"{settings.LPS_API_MAX_CSV_WATCHES:,} rows)",
            field="watches",
        )
    _check(request, batch)
    upserted = store.upsert(request.auth.pk, batch.watches)
    log.info(
        "client %s upserted %d watch(es), %d new",
        request.auth.name,
        len(upserted),
        sum(1 for row in upserted if row.created),
        extra={"client": request.auth.name},
    )
    return {
        "result": ResultCode.SUCCESS,
        "watches": [{"product_code": row.product_code, "created": row.created} for row in upserted],
    }


@router.get(
    "/v1/lps/watches",
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchPageOut),
    summary="Watches, newest first: a client key's own, or every client's for an operator key",
    tags=["client", "operator", "watches"],
)
def list_watches(
    request: HttpRequest,
    paused: bool | None = Query(None, description="Only paused (true) or active (false) watches."),
    outcome: Literal["found", "not_found", "none"] | None = Query(
        None, description="Only watches whose last run ended so (none: not run yet)."
    ),
    q: str | None = parameters.search_text(),
    client_id: int | None = _client_id_param(),
    page: int = parameters.page(),
    page_size: int = parameters.page_size(),
):
    """With `Accept: text/csv`, the position report of every watch the filters select (no paging), streamed as CSV:
    one row a product with the watch's columns (a sheet posted back changes nothing) and the shop's price against
    the market's lowest (market_price, marketplace, url, shipping_fee, price_with_delivery, gap_won, gap_percent,
    last_checked)."""
    client = request.auth
    watches = Watch.objects.all()
    if not client.is_operator:
        if client_id is not None and client_id != client.pk:
            watches = watches.none()
        watches = watches.filter(client_id=client.pk)
    elif client_id is not None:
        watches = watches.filter(client_id=client_id)
    if paused is not None:
        watches = watches.filter(paused=paused)
    if outcome is not None:
        watches = watches.filter(last_outcome="" if outcome == "none" else outcome)
    if q:
        watches = watches.filter(product_code=q) | watches.filter(product__product_name__icontains=q)
    if wants_csv(request):
        return report_response(watches)
    total = watches.count()
    offset = (page - 1) * page_size
    rows = list(watches.order_by("-created_at", "-id")[offset : offset + page_size])
    return {
        "result": ResultCode.SUCCESS,
        "total": total,
        "page": page,
        "page_size": page_size,
        "watches": [watch_out(watch, operator=client.is_operator) for watch in rows],
    }


@router.get(
    WATCH_PATH,
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchEnvelopeOut, extra=(404,)),
    summary="A watch, its last result, its price history and its recent events",
    tags=["client", "watches"],
)
def watch_detail(
    request: HttpRequest,
    product_code: str,
    since: datetime | None = Query(  # noqa: B008
        None, description=f"History from this time on (default: the last {DEFAULT_HISTORY_DAYS} days)."
    ),
    client_id: int | None = _client_id_param(),
):
    """The history is one point per finished search, oldest first, at most the last 1,000."""
    watch = _watch(request.auth, product_code, client_id)
    if since is not None and timezone.is_naive(since):
        since = since.replace(tzinfo=UTC)
    start = since or timezone.now() - timedelta(days=DEFAULT_HISTORY_DAYS)
    points = list(WatchPoint.objects.filter(watch=watch, at__gte=start).order_by("-at", "-id")[:MAX_HISTORY_POINTS])
    events = list(WatchEvent.objects.filter(watch=watch).order_by("-seq")[:RECENT_EVENTS])
    return {
        "result": ResultCode.SUCCESS,
        "watch": {
            **watch_out(watch, operator=request.auth.is_operator),
            "history": [point_out(point) for point in reversed(points)],
            "events": [event_out(event) for event in events],
        },
    }


@router.post(
    WATCH_PATH + "/run",
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchRunOut, extra=(404,)),
    summary="Search a watch now (its next due time is unchanged)",
    tags=["client", "watches"],
)
def run_watch(request: HttpRequest, product_code: str, client_id: int | None = _client_id_param()):
    """A client's active search of the same code answers the run instead of a second job (`duplicate`)."""
    with transaction.atomic():
        watch = _watch(request.auth, product_code, client_id, lock=True)
        enqueued = store.run_now(watch)
    return {
        "result": ResultCode.SUCCESS,
        "product_code": product_code,
        "job_id": str(enqueued.job_id),
        "duplicate": enqueued.duplicate,
    }


def _set_paused(request: HttpRequest, product_code: str, client_id: int | None, paused: bool) -> dict:
    watch = _watch(request.auth, product_code, client_id)
    store.set_paused(watch, paused)
    return {"result": ResultCode.SUCCESS, "product_code": product_code, "paused": paused}


@router.post(
    WATCH_PATH + "/pause",
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchStateOut, extra=(404,)),
    summary="Pause a watch: no scheduled search until it is resumed",
    tags=["client", "watches"],
)
def pause_watch(request: HttpRequest, product_code: str, client_id: int | None = _client_id_param()):
    return _set_paused(request, product_code, client_id, True)


@router.post(
    WATCH_PATH + "/resume",
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchStateOut, extra=(404,)),
    summary="Resume a paused watch (a due time it missed runs once, then it keeps its schedule)",
    tags=["client", "watches"],
)
def resume_watch(request: HttpRequest, product_code: str, client_id: int | None = _client_id_param()):
    return _set_paused(request, product_code, client_id, False)


@router.delete(
    WATCH_PATH,
    auth=auth.CLIENT,
    response=parameters.responses(200, WatchDeletedOut, extra=(404,)),
    summary="Delete a watch with its history and events",
    tags=["client", "watches"],
)
def delete_watch(request: HttpRequest, product_code: str, client_id: int | None = _client_id_param()):
    """A search of it already queued still runs, and is recorded nowhere."""
    watch = _watch(request.auth, product_code, client_id)
    watch.delete()
    return {"result": ResultCode.SUCCESS, "product_code": product_code, "deleted": True}
