"""The shapes of what the API reads and writes; the OpenAPI document is derived from these.

Requests: unknown fields are ignored (documented in the OpenAPI descriptions) so that clients may send more
than they must; every known field is checked strictly (no "12" for 12, no true for 1). Responses: fields that
may be absent are left out rather than sent as null (`SkipJsonSchema[None]` keeps null out of the document).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from django.conf import settings
from ninja import Schema
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.json_schema import SkipJsonSchema

from api.codes import ResultCode
from jobs.client_view import client_text
from jobs.models import Job, JobStatus, Priority
from lps_site.job_types import JobType
from search.models import PriceSnapshot, Product
from search.payload import SearchProduct
from search.result import SearchResult

MAX_PRODUCTS = settings.LPS_API_MAX_PRODUCTS

Omitted = SkipJsonSchema[None]

PriorityName = Literal["high", "normal", "low"]
StatusName = Literal["PENDING", "RUNNING", "DONE", "DEAD"]
JobTypeName = Literal["SEARCH", "OUTBOX"]


# --- Requests ---------------------------------------------------------------------------------------------


class ProductIn(SearchProduct):
    """One product to search. Unknown fields are ignored; null counts as absent for the optional ones."""

    # The fields and their limits are the SEARCH payload's (search/payload.py), which the handler reads back;
    # this subclass only keeps the name the OpenAPI document has always given them.


class SearchIn(BaseModel):
    """A batch of products; each becomes one SEARCH job. Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    products: list[ProductIn] = Field(..., min_length=1, max_length=MAX_PRODUCTS)
    priority: PriorityName = Field("normal", description="Queue priority of every job of the batch.")


PRIORITIES = {"high": Priority.HIGH, "normal": Priority.NORMAL, "low": Priority.LOW}


# --- Responses --------------------------------------------------------------------------------------------


class FieldErrorOut(Schema):
    field: str
    error: str


class ErrorOut(Schema):
    """Every failure: a non-zero result code, a message and, for bad input, the offending field."""

    result: int = Field(..., description="A non-zero result code (see the API description).")
    error: str
    field: str | Omitted = Field(None, description="The offending field, e.g. products[3].price.")
    errors: list[FieldErrorOut] | Omitted = Field(None, description="Every offending field, when several.")
    active_job_id: uuid.UUID | Omitted = Field(None, description="The active job that holds the same key (409).")


class SearchJobOut(Schema):
    product_code: str
    job_id: uuid.UUID
    duplicate: bool = Field(
        ...,
        description="True when this client already has an active job for this product_code.",
    )


class SearchAcceptedOut(Schema):
    result: int = 0
    jobs: list[SearchJobOut]


class PriceCheckOut(Schema):
    your_price: int = Field(..., description="The price the shop sent with the product, in won.")
    lowest_price: int = Field(..., description="The result's lowest price, in won.")
    gap_won: int = Field(..., description="your_price − lowest_price: positive when the shop is dearer.")
    gap_percent: float | Omitted = Field(None, description="gap_won in percent of lowest_price, one decimal.")


class CachedNotFoundOut(Schema):
    remembered_at: str = Field(..., description="When the not_found answered here was found (UTC, ISO 8601).")
    expires_at: str = Field(..., description="When it is forgotten and the product searched again.")
    age_seconds: int


class LeftOutOut(Schema):
    marketplace: str
    price: int
    title: str
    product_id: str | Omitted = None
    why: Literal["ad", "sold_out", "rental", "used", "discontinued", "not_yet_on_sale"]


class SearchResultOut(BaseModel):
    """A SEARCH job's result: the fields of the search result contract (outcome, lowest, matches, rounds, cached,
    metrics and, across marketplaces, by_marketplace) are passed through as they are; these are beside them."""

    model_config = ConfigDict(extra="allow")

    product_code: str | Omitted = Field(None, description="The shop's product_code this result answers.")
    searched_at: str | Omitted = Field(
        None,
        description="When the marketplaces were read (UTC, ISO 8601): for a reused result, by the search it reuses; "
        "for a cached not_found, when it was remembered.",
    )
    cache: CachedNotFoundOut | Omitted = Field(None, description="On an answer from the negative cache only.")
    price_check: PriceCheckOut | Omitted = Field(
        None, description="When the shop sent its price and a lowest was found: the one against the other."
    )
    left_out: list[LeftOutOut] | Omitted = Field(
        None,
        description="Listings on the result pages that were never candidates, cheapest first, with why; at most 10.",
    )
    left_out_more: int | Omitted = Field(None, description="How many more were left out than listed.")


class JobOut(Schema):
    job_id: uuid.UUID
    job_type: JobTypeName
    status: StatusName
    priority: int
    attempts: int
    max_attempts: int
    created_at: datetime
    updated_at: datetime
    result: SearchResultOut | dict[str, Any] | Omitted = None
    last_error: str | Omitted = None


class JobEnvelopeOut(Schema):
    result: int = 0
    job: JobOut


def _job_state(job: Job) -> dict:
    """The fields every job shape starts with: which job, and where it stands."""
    return {
        "job_id": job.job_id,
        "job_type": JobType(job.job_type).label,
        "status": JobStatus(job.status).label,
        "priority": job.priority,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
    }


def job_out(job: Job) -> dict:
    """The §8 shape of a job."""
    return {
        **_job_state(job),
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        "result": job.result,
        "last_error": client_text(job.last_error),
    }


# A job's result as JobOut validates and dumps it: in SearchResultOut's shape when it has it, else the dict as it is.
_JOB_RESULT = TypeAdapter(JobOut.model_fields["result"].annotation)


def job_envelope(job: Job) -> dict:
    """JobEnvelopeOut's content for `job`, as validating job_out's shape against it and dumping it would give.

    Only the result is validated: job_out builds every other field from the row with the type JobOut gives it, so
    ninja's validation of the whole envelope gave them back as they were, at about 45 us of the API's most frequent
    request (clients poll their jobs). tests/api/test_endpoints.py holds the rendered bytes to what that validation
    renders.
    """
    shape = job_out(job)
    shape["result"] = _JOB_RESULT.dump_python(_JOB_RESULT.validate_python(shape["result"]))
    return {"result": int(ResultCode.SUCCESS), "job": shape}


class OpsSnapshotOut(Schema):
    pending: int
    running: int
    done: int
    dead: int
    dead_last_hour: int
    stuck: int = Field(..., description="RUNNING with an expired lease or for more than 10 minutes.")
    oldest_pending_seconds: float | Omitted = None
    deadline_kills_last_hour: int
    cost_last_hour_usd: float
    done_last_hour: int
    done_is_estimate: bool = Field(False, description="DONE is the planner's estimate on very large tables.")


class QueueStatsOut(Schema):
    result: int = 0
    counts: dict[StatusName, int]
    snapshot: OpsSnapshotOut


class JobRowOut(Schema):
    job_id: uuid.UUID
    job_type: JobTypeName
    status: StatusName
    priority: int
    attempts: int
    max_attempts: int
    client_id: int | Omitted = Field(None, description="The API client the job belongs to.")
    product_code: str | Omitted = None
    product_name: str | Omitted = None
    outcome: str | Omitted = Field(None, description="found | not_found, once a SEARCH is DONE.")
    lowest_price: int | Omitted = None
    cost_usd: float | Omitted = None
    error: str | Omitted = Field(None, description="The last error.")
    created_at: datetime
    updated_at: datetime


class JobPageOut(Schema):
    result: int = 0
    total: int
    total_is_estimate: bool = Field(
        False, description="True when more than 10,000 jobs match and total is the planner's estimate."
    )
    page: int
    page_size: int
    jobs: list[JobRowOut]


def job_row_out(job: Job) -> dict:
    """A job as an operator's list shows it."""
    payload = job.payload if isinstance(job.payload, dict) else {}
    result = SearchResult.from_json(job.result)
    return {
        **_job_state(job),
        "client_id": job.owner_id,
        "product_code": _text_or_none(payload.get("product_code")),
        "product_name": _text_or_none(payload.get("product_name")),
        "outcome": result.outcome,
        "lowest_price": result.price,
        "cost_usd": result.cost_usd,
        "error": client_text(job.last_error),
        "created_at": job.created_at,
        "updated_at": job.updated_at,
    }


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class RequeuedOut(Schema):
    result: int = 0
    job_id: uuid.UUID
    status: StatusName


class PriceSnapshotOut(Schema):
    job_id: uuid.UUID | Omitted = None
    outcome: str
    price: int | Omitted = None
    title: str | Omitted = None
    url: str | Omitted = None
    seller: str | Omitted = None
    rocket: bool
    cost_usd: float
    captured_at: datetime
    marketplace: str | Omitted = Field(None, description="Where the lowest price was found (coupang, naver).")


class ProductOut(Schema):
    client_id: int | Omitted = Field(None, description="The API client whose product this is.")
    product_code: str
    product_name: str
    brand: str | Omitted = None
    model_code: str | Omitted = None
    search_count: int = Field(..., description="How many times the product was searched, in total.")
    last_outcome: str | Omitted = None
    last_price: int | Omitted = None
    last_url: str | Omitted = None
    last_searched_at: datetime | Omitted = None
    created_at: datetime
    latest: PriceSnapshotOut | Omitted = Field(None, description="The most recent price snapshot.")


class ProductPageOut(Schema):
    result: int = 0
    total: int
    page: int
    page_size: int
    products: list[ProductOut]


def product_out(product: Product, latest: PriceSnapshot | None) -> dict:
    """A product with its latest snapshot; empty strings count as absent."""
    return {
        "client_id": product.client_id,
        "product_code": product.product_code,
        "product_name": product.product_name,
        "brand": product.brand or None,
        "model_code": product.model_code or None,
        "search_count": product.search_count,
        "last_outcome": product.last_outcome or None,
        "last_price": product.last_price,
        "last_url": product.last_url or None,
        "last_searched_at": product.last_searched_at,
        "created_at": product.created_at,
        "latest": None
        if latest is None
        else {
            "job_id": latest.job_id,
            "outcome": latest.outcome,
            "price": latest.price,
            "title": latest.title or None,
            "url": latest.url or None,
            "seller": latest.seller or None,
            "rocket": latest.rocket,
            "cost_usd": float(latest.cost_usd),
            "captured_at": latest.captured_at,
            "marketplace": latest.marketplace or None,
        },
    }


class HistogramBucketOut(Schema):
    bucket: str
    min: int
    max: int | Omitted = Field(None, description="Exclusive upper bound; absent for the last bucket.")
    sessions: int


class IpSessionOut(Schema):
    id: int
    proxy: str
    started_at: str
    ended_at: str | Omitted = None
    requests: int
    bytes: int
    end_reason: str | Omitted = None


class IpSessionStatsOut(Schema):
    result: int = 0
    end_reasons: dict[str, int]
    histogram: list[HistogramBucketOut]
    open_sessions: int
    recent: list[IpSessionOut]
    fewest_requests_blocked: int | Omitted = Field(
        None, description="The fewest requests any blocked session made: the baseline for the request budget."
    )
    suggested_request_budget: int | Omitted = None


class BotHourOut(Schema):
    hour: str
    blocks: int


class BotEventOut(Schema):
    id: int
    detected_at: str
    kind: str
    http_status: int | Omitted = None
    proxy: str
    query: str
    url: str
    requests_in_session: int


class BotStatsOut(Schema):
    result: int = 0
    per_hour: list[BotHourOut]
    recent: list[BotEventOut]


class CostHourOut(Schema):
    hour: str
    jobs: int
    ai_usd: float
    proxy_usd: float
    total_usd: float
    mean_duration_ms: float


class CostStatsOut(Schema):
    result: int = 0
    per_hour: list[CostHourOut]
    total_usd: float


class HealthOut(Schema):
    result: int = 0
    status: Literal["ok"]
