"""What operators read about searching: IP-session lifetimes, bot detections and cost (API and admin alike)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Min
from django.db.models.functions import TruncHour
from django.utils import timezone

from jobs.models import JobStatus
from jobs.statements import run
from lps_site.db_router import observing
from lps_site.job_types import JobType
from search.models import BotEvent, IpSession, SessionEndReason

HISTOGRAM_EDGES = (1, 5, 10, 20, 50, 100, 200, 500)

# What the finished SEARCH jobs of the last hour cost (their result's metrics.cost.total_usd); one range of
# job_status_updated_idx, narrowed to one owner's jobs when %(owner_id)s is not NULL.
COST_LAST_HOUR_SQL = """
SELECT coalesce(sum((result -> 'metrics' -> 'cost' ->> 'total_usd')::numeric), 0)
FROM job
WHERE status = %(done)s AND job_type = %(search)s AND updated_at > now() - interval '1 hour'
  AND (%(owner_id)s::bigint IS NULL OR owner_id = %(owner_id)s::bigint)
"""

# Search cost, volume and mean duration per hour over the last %(hours)s hours (finished SEARCH jobs).
HOURLY_COSTS_SQL = """
SELECT date_trunc('hour', updated_at) AS hour,
       count(*) AS jobs,
       coalesce(sum((result -> 'metrics' -> 'cost' ->> 'ai_usd')::numeric), 0) AS ai_usd,
       coalesce(sum((result -> 'metrics' -> 'cost' ->> 'proxy_usd')::numeric), 0) AS proxy_usd,
       coalesce(avg((result -> 'metrics' ->> 'duration_ms')::numeric), 0) AS mean_duration_ms
FROM job
WHERE status = %(done)s AND job_type = %(search)s
  AND updated_at > date_trunc('hour', now()) - make_interval(hours => %(hours)s)
GROUP BY 1
ORDER BY 1
"""
_FINISHED_SEARCHES = {"done": int(JobStatus.DONE), "search": int(JobType.SEARCH)}


@dataclass(frozen=True)
class HourlyCost:
    hour: datetime
    jobs: int
    ai_usd: float
    proxy_usd: float
    mean_duration_ms: float

    @property
    def total_usd(self) -> float:
        return self.ai_usd + self.proxy_usd


def cost_last_hour_usd(*, owner_id: int | None = None) -> float:
    """What the searches that finished in the last hour cost (only `owner_id`'s when given)."""
    with observing() as alias:
        rows = run(COST_LAST_HOUR_SQL, {**_FINISHED_SEARCHES, "owner_id": owner_id}, using=alias)
    return float(rows[0][0])


def hourly_costs(hours: int = 24) -> list[HourlyCost]:
    """Cost (AI and proxy apart), volume and mean duration of finished searches per hour."""
    with observing() as alias:
        rows = run(HOURLY_COSTS_SQL, {**_FINISHED_SEARCHES, "hours": hours}, using=alias)
    return [
        HourlyCost(hour=hour, jobs=jobs, ai_usd=float(ai), proxy_usd=float(proxy), mean_duration_ms=float(duration))
        for hour, jobs, ai, proxy, duration in rows
    ]


def _bucket_label(low: int, high: int | None) -> str:
    return f"{low}+" if high is None else (f"{low}" if high - low == 1 else f"{low}-{high - 1}")


def ip_session_stats(*, recent: int = 50) -> dict:
    """End-reason distribution, requests-per-session histogram, the fewest requests of a blocked session
    (the baseline for the request budget) and the last `recent` sessions."""
    with observing():
        reasons = dict(
            IpSession.objects.exclude(end_reason=None)
            .values_list("end_reason")
            .annotate(n=Count("id"))
            .values_list("end_reason", "n")
        )
        per_requests = dict(
            IpSession.objects.exclude(end_reason=None)
            .values_list("requests")
            .annotate(n=Count("id"))
            .values_list("requests", "n")
        )
        fewest_blocked = IpSession.objects.filter(end_reason=SessionEndReason.BLOCKED).aggregate(
            fewest=Min("requests")
        )["fewest"]
        last = list(IpSession.objects.order_by("-started_at")[:recent])
    edges = (0, *HISTOGRAM_EDGES)
    histogram = []
    for index, low in enumerate(edges):
        high = edges[index + 1] if index + 1 < len(edges) else None
        count = sum(n for requests, n in per_requests.items() if requests >= low and (high is None or requests < high))
        histogram.append({"bucket": _bucket_label(low, high), "min": low, "max": high, "sessions": count})
    stats = {
        "end_reasons": {reason.label: reasons.get(int(reason), 0) for reason in SessionEndReason},
        "histogram": histogram,
        "open_sessions": IpSession.objects.filter(end_reason=None).count(),
        "recent": [
            {
                "id": session.pk,
                "proxy": session.proxy_label,
                "started_at": session.started_at.isoformat(),
                "ended_at": session.ended_at.isoformat() if session.ended_at else None,
                "requests": session.requests,
                "bytes": session.bytes,
                "end_reason": SessionEndReason(session.end_reason).label if session.end_reason else None,
            }
            for session in last
        ],
    }
    if fewest_blocked is not None:
        stats["fewest_requests_blocked"] = fewest_blocked
        # Stay safely under the earliest block seen: 80 % of it, at least one request.
        stats["suggested_request_budget"] = max(1, int(fewest_blocked * 0.8))
    return stats


def bot_stats(*, hours: int = 24, recent: int = 50) -> dict:
    """Blocks per hour over the last `hours` hours and the most recent detections."""
    since = timezone.now() - timedelta(hours=hours)
    with observing():
        per_hour = list(
            BotEvent.objects.filter(detected_at__gte=since)
            .annotate(hour=TruncHour("detected_at"))
            .values("hour")
            .annotate(blocks=Count("id"))
            .order_by("hour")
        )
        last = list(BotEvent.objects.order_by("-detected_at")[:recent])
    return {
        "per_hour": [{"hour": row["hour"].isoformat(), "blocks": row["blocks"]} for row in per_hour],
        "recent": [
            {
                "id": event.pk,
                "detected_at": event.detected_at.isoformat(),
                "kind": event.kind,
                "http_status": event.http_status,
                "proxy": event.proxy_label,
                "query": event.query,
                "url": event.url,
                "requests_in_session": event.requests_in_session,
            }
            for event in last
        ],
    }


def cost_stats(*, hours: int = 24) -> dict:
    """Search cost per hour (AI and proxy apart), jobs and mean duration."""
    buckets = hourly_costs(hours)
    return {
        "per_hour": [
            {
                "hour": bucket.hour.isoformat(),
                "jobs": bucket.jobs,
                "ai_usd": round(bucket.ai_usd, 6),
                "proxy_usd": round(bucket.proxy_usd, 6),
                "total_usd": round(bucket.total_usd, 6),
                "mean_duration_ms": round(bucket.mean_duration_ms, 1),
            }
            for bucket in buckets
        ],
        "total_usd": round(sum(bucket.total_usd for bucket in buckets), 6),
    }
