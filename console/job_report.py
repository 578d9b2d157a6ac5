"""A SEARCH job as its admin page shows it: the payload and the result (SPEC §8) turned into labelled,
formatted values, plus the bot detections (with their failure snapshots) seen while it ran."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from jobs.models import Job
from lps_site.admin_formatting import usd, web_url, won
from lps_site.job_types import JobType
from search import stage_timings
from search.models import BotEvent
from search.result import JudgedListing, Lowest, Round, SearchResult

# Detections a little after the job's last update still belong to its attempt (clocks, commit order).
EVENT_WINDOW_SLACK = timedelta(seconds=30)
PAYLOAD_LABELS = {
    "product_code": "Product code",
    "product_name": "Product name",
    "brand": "Brand",
    "model_code": "Model code",
    "price": "Client's price",
    "callback_url": "Callback URL",
    "marketplaces": "Marketplaces",
}


@dataclass(frozen=True)
class Listing:
    title: str
    url: str
    price: str
    seller: str = ""
    rocket: bool = False
    product_id: str = ""
    marketplace: str = ""


@dataclass(frozen=True)
class MarketplaceRow:
    """One marketplace's own answer in a search across several (`by_marketplace`)."""

    marketplace: str
    outcome: str
    lowest: Listing | None = None
    reason: str = ""
    """Why it was skipped (Naver's quota), if it was."""


@dataclass(frozen=True)
class VerdictRow:
    index: int | None
    same_product: bool
    confidence: str
    reason: str
    title: str = ""
    price: str = ""
    url: str = ""
    source: str = ""
    """"rules", "llm" or "correction": who decided this verdict."""
    uncertain: bool = False
    marketplace: str = ""
    product_id: str = ""
    """What a correction names the listing by (absent in results from before corrections)."""


@dataclass(frozen=True)
class RoundRow:
    number: int
    query: str
    kind: str
    candidates: int | None
    matches: int | None
    judge: str = ""
    verdicts: list[VerdictRow] = field(default_factory=list)


@dataclass(frozen=True)
class ResultView:
    """A SEARCH result as its admin page shows it."""

    outcome: str
    cached: bool
    lowest: Listing | None
    matches: list[Listing]
    rounds: list[RoundRow]
    metrics: list[tuple[str, str]]
    by_marketplace: list[MarketplaceRow] = field(default_factory=list)


@dataclass(frozen=True)
class JobReport:
    payload_rows: list[tuple[str, str]]
    callback_url: str
    result: ResultView | None


def _listing(listing: Lowest) -> Listing:
    return Listing(
        title=listing.title or "",
        url=web_url(listing.url),
        price=won(listing.price),
        seller=listing.seller or "",
        rocket=bool(listing.rocket),
        product_id=listing.product_id or "",
        marketplace=listing.marketplace or "",
    )


def _verdict(verdict: JudgedListing) -> VerdictRow:
    confidence = verdict.confidence
    return VerdictRow(
        index=verdict.index,
        same_product=bool(verdict.same_product),
        confidence=f"{confidence:.2f}" if confidence is not None else "",
        reason=verdict.reason or "",
        title=verdict.title or "",
        price=won(verdict.price),
        url=web_url(verdict.url),
        source=verdict.source or "",
        uncertain=bool(verdict.uncertain),
        marketplace=verdict.marketplace or "",
        product_id=verdict.product_id or "",
    )


def _judge_label(round_: Round) -> str:
    """The round's judge as an operator reads it: "rules", "llm", or "rules 7 + llm 3" for a cascade."""
    settled, sent = round_.settled_by_rules, round_.sent_to_llm
    if settled is not None and sent:
        return f"rules {settled} + llm {sent}"
    return round_.judge or ""


def _stages(stages_ms: Mapping | None) -> str:
    """Where a search's time went, as an operator reads it: "navigation 41 ms · parse 9 ms · judge 12 ms"."""
    if stages_ms is None:
        return ""
    # In the order a search meets them (a JSONB object keeps its keys in an order of its own).
    order = {stage: index for index, stage in enumerate(stage_timings.STAGES)}
    stages = sorted(stages_ms.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    return " · ".join(f"{stage.replace('_', ' ')} {ms:,.0f} ms" for stage, ms in stages if isinstance(ms, int | float))


def _result_view(result: SearchResult) -> ResultView:
    metrics = result.metrics
    metric_rows = [
        ("Duration", f"{metrics.duration_ms / 1000:.1f} s" if metrics.duration_ms is not None else ""),
        ("Rounds", str(metrics.rounds) if metrics.rounds is not None else ""),
        ("LLM tokens", f"{metrics.tokens:,}" if metrics.tokens is not None else ""),
        ("Bytes", f"{metrics.bytes:,}" if metrics.bytes is not None else ""),
        ("AI cost", usd(metrics.ai_usd)),
        ("Proxy cost", usd(metrics.proxy_usd)),
        ("Total cost", usd(metrics.total_usd)),
        ("Stages", _stages(metrics.stages_ms)),
    ]
    rounds = [
        RoundRow(
            number=number,
            query=round_.query or "",
            kind=round_.kind or "",
            candidates=round_.candidates,
            matches=round_.matches,
            judge=_judge_label(round_),
            verdicts=[_verdict(verdict) for verdict in round_.verdicts],
        )
        for number, round_ in enumerate(result.rounds, start=1)
    ]
    return ResultView(
        outcome=result.outcome or "",
        cached=bool(result.cached),
        lowest=_listing(result.lowest) if result.lowest is not None else None,
        matches=[_listing(match) for match in result.matches],
        rounds=rounds,
        metrics=[(label, value) for label, value in metric_rows if value],
        by_marketplace=[
            MarketplaceRow(
                marketplace=name,
                outcome=answer.outcome or "",
                lowest=_listing(answer.lowest) if answer.lowest is not None else None,
                reason=answer.reason or "",
            )
            for name, answer in (result.by_marketplace or {}).items()
        ],
    )


def job_report(job: Job) -> JobReport:
    """Lay out a job's payload and result for reading."""
    payload = job.payload if isinstance(job.payload, dict) else {}
    rows = []
    for key, label in PAYLOAD_LABELS.items():
        if key in payload and key != "callback_url":
            value = payload[key]
            if key == "price":
                value = won(value)
            elif isinstance(value, list):
                value = ", ".join(map(str, value))
            rows.append((label, str(value)))
    rows.extend(
        (key, json.dumps(value, ensure_ascii=False)) for key, value in payload.items() if key not in PAYLOAD_LABELS
    )
    is_search_result = job.job_type == JobType.SEARCH and isinstance(job.result, dict)
    return JobReport(
        payload_rows=rows,
        callback_url=str(payload.get("callback_url") or ""),
        result=_result_view(SearchResult.from_json(job.result)) if is_search_result else None,
    )


def bot_events_during(job: Job, *, using: str = "default", limit: int = 20) -> list[BotEvent]:
    """The detections recorded for the job's queries while its last attempt ran.

    Matched on the query, not on the worker: a worker runs several searches at once, but never two of one
    product (the dedupe key), so a query inside the attempt's time window is this job's own.
    """
    if job.job_type != JobType.SEARCH or job.run_started_at is None:
        return []
    # A running job's attempt lasts at least until its lease; a finished one ended at its last update.
    until = max(moment for moment in (job.updated_at, job.lease_until) if moment is not None)
    payload = job.payload if isinstance(job.payload, dict) else {}
    queries = {str(payload.get("product_name") or "")}
    queries.update(round_.query or "" for round_ in SearchResult.from_json(job.result).rounds)
    queries.discard("")
    return list(
        BotEvent.objects.using(using)
        .filter(query__in=queries, detected_at__gte=job.run_started_at, detected_at__lte=until + EVENT_WINDOW_SLACK)
        .order_by("detected_at")[:limit]
    )
