"""A SEARCH job as its admin page shows it: the payload and the result (SPEC §8) turned into labelled,
formatted values, plus the bot detections (with their failure snapshots) seen while it ran."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta

from jobs.models import Job
from lps_site.admin_formatting import usd, web_url, won
from lps_site.job_types import JobType
from search import stage_timings
from search.models import BotEvent

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
class SearchResult:
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
    result: SearchResult | None


def _listing(data: dict) -> Listing:
    return Listing(
        title=str(data.get("title") or ""),
        url=web_url(data.get("url")),
        price=won(data.get("price")),
        seller=str(data.get("seller") or ""),
        rocket=bool(data.get("rocket")),
        product_id=str(data.get("product_id") or ""),
        marketplace=str(data.get("marketplace") or ""),
    )


def _verdict(data: dict) -> VerdictRow:
    confidence = data.get("confidence")
    return VerdictRow(
        index=data.get("index"),
        same_product=bool(data.get("same_product")),
        confidence=f"{confidence:.2f}" if isinstance(confidence, int | float) else "",
        reason=str(data.get("reason") or ""),
        title=str(data.get("title") or ""),
        price=won(data.get("price")),
        url=web_url(data.get("url")),
        source=str(data.get("source") or ""),
        uncertain=bool(data.get("uncertain")),
        marketplace=str(data.get("marketplace") or ""),
        product_id=str(data.get("product_id") or ""),
    )


def _judge_label(round_: dict) -> str:
    """The round's judge as an operator reads it: "rules", "llm", or "rules 7 + llm 3" for a cascade."""
    judge = str(round_.get("judge") or "")
    settled, sent = round_.get("settled_by_rules"), round_.get("sent_to_llm")
    if isinstance(settled, int) and isinstance(sent, int) and sent:
        return f"rules {settled} + llm {sent}"
    return judge


def _stages(stages_ms: object) -> str:
    """Where a search's time went, as an operator reads it: "navigation 41 ms · parse 9 ms · judge 12 ms"."""
    if not isinstance(stages_ms, dict):
        return ""
    # In the order a search meets them (a JSONB object keeps its keys in an order of its own).
    order = {stage: index for index, stage in enumerate(stage_timings.STAGES)}
    stages = sorted(stages_ms.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    return " · ".join(f"{stage.replace('_', ' ')} {ms:,.0f} ms" for stage, ms in stages if isinstance(ms, int | float))


def _search_result(result: dict) -> SearchResult:
    metrics = result.get("metrics") or {}
    cost = metrics.get("cost") or {}
    metric_rows = [
        ("Duration", f"{metrics['duration_ms'] / 1000:.1f} s" if isinstance(metrics.get("duration_ms"), int) else ""),
        ("Rounds", str(metrics.get("rounds", ""))),
        ("LLM tokens", f"{metrics['tokens']:,}" if isinstance(metrics.get("tokens"), int) else ""),
        ("Bytes", f"{metrics['bytes']:,}" if isinstance(metrics.get("bytes"), int) else ""),
        ("AI cost", usd(cost.get("ai_usd"))),
        ("Proxy cost", usd(cost.get("proxy_usd"))),
        ("Total cost", usd(cost.get("total_usd"))),
        ("Stages", _stages(metrics.get("stages_ms"))),
    ]
    rounds = [
        RoundRow(
            number=number,
            query=str(round_.get("query") or ""),
            kind=str(round_.get("kind") or ""),
            candidates=round_.get("candidates"),
            matches=round_.get("matches"),
            judge=_judge_label(round_),
            verdicts=[_verdict(v) for v in round_.get("verdicts") or [] if isinstance(v, dict)],
        )
        for number, round_ in enumerate(result.get("rounds") or [], start=1)
        if isinstance(round_, dict)
    ]
    lowest = result.get("lowest")
    return SearchResult(
        outcome=str(result.get("outcome") or ""),
        cached=bool(result.get("cached")),
        lowest=_listing(lowest) if isinstance(lowest, dict) else None,
        matches=[_listing(m) for m in result.get("matches") or [] if isinstance(m, dict)],
        rounds=rounds,
        metrics=[(label, value) for label, value in metric_rows if value],
        by_marketplace=_by_marketplace(result.get("by_marketplace")),
    )


def _by_marketplace(data: object) -> list[MarketplaceRow]:
    if not isinstance(data, dict):
        return []
    rows = []
    for name, answer in data.items():
        if not isinstance(answer, dict):
            continue
        lowest = answer.get("lowest")
        rows.append(
            MarketplaceRow(
                marketplace=str(name),
                outcome=str(answer.get("outcome") or ""),
                lowest=_listing(lowest) if isinstance(lowest, dict) else None,
                reason=str(answer.get("reason") or ""),
            )
        )
    return rows


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
        result=_search_result(job.result) if is_search_result else None,
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
    if isinstance(job.result, dict):
        queries.update(str(r.get("query") or "") for r in job.result.get("rounds") or [] if isinstance(r, dict))
    queries.discard("")
    return list(
        BotEvent.objects.using(using)
        .filter(query__in=queries, detected_at__gte=job.run_started_at, detected_at__lte=until + EVENT_WINDOW_SLACK)
        .order_by("detected_at")[:limit]
    )
