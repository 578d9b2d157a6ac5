"""The corrections endpoints (SPEC §8, §10): a shop's or an operator's word about a job's listings, its list and
deletion, and "this price is wrong" reports. Routes on `router`, mounted by api/rest_api.py."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Path, Query, Router, Schema
from ninja.responses import Status
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StringConstraints
from pydantic.json_schema import SkipJsonSchema

from api import auth, parameters
from api.codes import ResultCode
from api.exceptions import ApiError, InvalidRequest, OperatorOnly
from api.models import ApiClient
from api.parameters import JobIdPath
from corrections import correcting, reports
from corrections.exceptions import CorrectionNotFound, JobNotCorrectable, ListingNotJudged
from corrections.models import Author, Correction, PriceReport, Scope
from search.payload import OPTIONAL_TEXT_PATTERN, TEXT_PATTERN, refuse_format_characters

Omitted = SkipJsonSchema[None]
MarketplaceName = Literal["coupang", "naver"]
NOTE_MAX = 2000
# A note is shown in the admin and in verdict reasons: no direction override (U+202E) or other invisible format
# character may make it read as something else there.
Note = Annotated[
    str,
    StringConstraints(strict=True, max_length=NOTE_MAX, pattern=OPTIONAL_TEXT_PATTERN),
    AfterValidator(refuse_format_characters),
]
# Module-level: the routes' annotations are read by name (this module has postponed annotations).
CorrectionIdPath = Annotated[int, Path(ge=1, le=2**63 - 1, description="The correction's id.")]


# --- Requests ---------------------------------------------------------------------------------------------


class CorrectionIn(BaseModel):
    """A listing the job judged, and whether it is the product. Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    marketplace: MarketplaceName = Field(..., description="The listing's marketplace.")
    product_id: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=200, pattern=TEXT_PATTERN)] = (
        Field(..., description="The listing's marketplace product id, as the job's verdicts name it.")
    )
    same_product: StrictBool = Field(..., description="true: it is the product; false: it is not.")
    note: Note | None = Field(None, description="Why, in a few words.")
    scope: Literal["client", "global"] = Field(
        "client",
        description="client: this client's product_code. global (operator keys only): every client's searches "
        "of the same product (name, model code and brand).",
    )


class ReportIn(BaseModel):
    """A job's price is wrong, without naming a listing. Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    note: Note | None = Field(None, description="What is wrong, in a few words.")


# --- Responses --------------------------------------------------------------------------------------------


class CorrectionOut(Schema):
    correction_id: int
    job_id: uuid.UUID | Omitted = Field(None, description="The job it was (last) made on.")
    product_code: str
    marketplace: str
    product_id: str
    same_product: bool
    note: str | Omitted = None
    scope: Literal["client", "global"]
    made_by: Literal["client", "operator"]
    title: str | Omitted = Field(None, description="The listing's title as the job judged it.")
    price: int | Omitted = Field(None, description="The listing's price as the job judged it (won).")
    created_at: datetime
    updated_at: datetime


class AnswerOut(Schema):
    outcome: Literal["found", "not_found"]
    lowest: dict[str, Any] | Omitted = None


class CorrectedOut(Schema):
    result: int = 0
    correction: CorrectionOut
    created: bool = Field(..., description="False when an existing correction of that listing was updated.")
    changed: bool = Field(..., description="The job's answer changed (a `corrected` webhook is sent).")
    previous: AnswerOut = Field(..., description="The job's answer before this correction.")
    current: AnswerOut = Field(..., description="The job's answer now, recomputed from the listings it judged.")


class CorrectionPageOut(Schema):
    result: int = 0
    total: int
    page: int
    page_size: int
    corrections: list[CorrectionOut]


class CorrectionDeletedOut(Schema):
    result: int = 0
    correction_id: int


class ReportOut(Schema):
    report_id: int
    job_id: uuid.UUID
    status: Literal["open", "resolved"]
    note: str | Omitted = None
    reported_price: int | Omitted = Field(None, description="The job's lowest price when it was reported.")
    created_at: datetime


class ReportedOut(Schema):
    result: int = 0
    report: ReportOut


def correction_out(row: Correction) -> dict:
    return {
        "correction_id": row.pk,
        "job_id": row.job_id,
        "product_code": row.product_code,
        "marketplace": row.marketplace,
        "product_id": row.product_id,
        "same_product": row.same_product,
        "note": row.note or None,
        "scope": row.scope,
        "made_by": row.made_by,
        "title": row.title or None,
        "price": row.price,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def report_out(row: PriceReport) -> dict:
    return {
        "report_id": row.pk,
        "job_id": row.job_id,
        "status": row.status,
        "note": row.note or None,
        "reported_price": row.reported_price,
        "created_at": row.created_at,
    }


# --- Errors -----------------------------------------------------------------------------------------------


class CorrectionMissing(ApiError):
    """No correction has that id."""

    status = 404
    code = ResultCode.LPS_CORRECTION_NOT_FOUND


class JobNotFinished(ApiError):
    """Only a finished SEARCH job can be corrected or reported."""

    status = 409
    code = ResultCode.LPS_JOB_NOT_FINISHED


def _translated(exc: Exception) -> ApiError:
    if isinstance(exc, ListingNotJudged):
        return InvalidRequest(exc.message, field=exc.field)
    if isinstance(exc, JobNotCorrectable):
        return JobNotFinished(exc.message, field=exc.field)
    if isinstance(exc, CorrectionNotFound):
        return CorrectionMissing(exc.message, field=exc.field)
    raise exc


def _author(client: ApiClient) -> Author:
    return Author.OPERATOR if client.is_operator else Author.CLIENT


def _visible_to(client: ApiClient) -> int | None:
    return None if client.is_operator else client.pk


router = Router()


# --- Routes -----------------------------------------------------------------------------------------------


@router.post(
    "/v1/lps/jobs/{job_id}/corrections",
    auth=auth.CLIENT,
    response=parameters.responses(201, CorrectedOut, extra=(403, 404, 409)),
    summary="Say that a listing the job judged is, or is not, the product; re-answer the job",
    tags=["client"],
)
def correct_job(request: HttpRequest, job_id: JobIdPath, correction: CorrectionIn):
    """Kept for this client's product_code (an operator may set `scope: global` for every client's searches of
    the same product) by the listing's marketplace and product id; posting again updates it. Every later
    search of the product settles that listing before the judge (verdict source `correction`). The job's
    answer is recomputed at once from the listings its rounds judged (no new search); when it changes, a
    search with a callback_url is sent the corrected result by a signed webhook with `"event": "corrected"`
    and `"previous"`. 400 names `product_id` when the job judged no such listing; 409 LPS_JOB_NOT_FINISHED
    when the job is not a finished search; another client's job is 404 LPS_JOB_NOT_FOUND."""
    if correction.scope == "global" and not request.auth.is_operator:
        raise OperatorOnly("only an operator key may make a global correction", field="scope")
    try:
        made = correcting.correct(
            job_id,
            marketplace=correction.marketplace,
            product_id=correction.product_id,
            same_product=correction.same_product,
            note=correction.note or "",
            made_by=_author(request.auth),
            made_by_client_id=request.auth.pk,
            visible_to=_visible_to(request.auth),
            scope=Scope(correction.scope),
        )
    except (ListingNotJudged, JobNotCorrectable) as exc:
        raise _translated(exc) from exc
    return Status(
        201,
        {
            "result": ResultCode.SUCCESS,
            "correction": correction_out(made.correction),
            "created": made.created,
            "changed": made.changed,
            "previous": made.previous,
            "current": made.current,
        },
    )


@router.get(
    "/v1/lps/corrections",
    auth=auth.CLIENT,
    response=parameters.responses(200, CorrectionPageOut),
    summary="Corrections, newest first: a client key's own products', or all for an operator key",
    tags=["client"],
)
def correction_list(
    request: HttpRequest,
    product_code: str | None = Query(
        None, max_length=200, pattern=OPTIONAL_TEXT_PATTERN, description="Only this product_code's."
    ),
    page: int = parameters.page(),
    page_size: int = parameters.page_size(),
):
    rows = correcting.visible_corrections(_visible_to(request.auth))
    if product_code:
        rows = rows.filter(product_code=product_code)
    total = rows.count()
    offset = (page - 1) * page_size
    return {
        "result": ResultCode.SUCCESS,
        "total": total,
        "page": page,
        "page_size": page_size,
        "corrections": [
            correction_out(row) for row in rows.order_by("-updated_at", "-id")[offset : offset + page_size]
        ],
    }


@router.delete(
    "/v1/lps/corrections/{correction_id}",
    auth=auth.CLIENT,
    response=parameters.responses(200, CorrectionDeletedOut, extra=(404,)),
    summary="Delete a correction: later searches no longer apply it",
    tags=["client"],
)
def correction_delete(
    request: HttpRequest,
    correction_id: CorrectionIdPath,
):
    """A client key deletes only its own products' corrections; another client's is 404
    LPS_CORRECTION_NOT_FOUND, like one that does not exist. Answers already corrected stay as they are."""
    try:
        correcting.delete(correction_id, visible_to=_visible_to(request.auth))
    except CorrectionNotFound as exc:
        raise _translated(exc) from exc
    return {"result": ResultCode.SUCCESS, "correction_id": correction_id}


@router.post(
    "/v1/lps/jobs/{job_id}/reports",
    auth=auth.CLIENT,
    response=parameters.responses(201, ReportedOut, extra=(404, 409)),
    summary="Report that a job's price is wrong without naming a listing (operators look at it)",
    tags=["client"],
)
def report_job(request: HttpRequest, job_id: JobIdPath, report: ReportIn):
    """The report joins the operators' queue in the admin. Another client's job is 404 LPS_JOB_NOT_FOUND; 409
    LPS_JOB_NOT_FINISHED when the job is not a finished search."""
    try:
        row = reports.report(
            job_id,
            note=report.note or "",
            made_by=_author(request.auth),
            made_by_client_id=request.auth.pk,
            visible_to=_visible_to(request.auth),
        )
    except JobNotCorrectable as exc:
        raise _translated(exc) from exc
    return Status(201, {"result": ResultCode.SUCCESS, "report": report_out(row)})
