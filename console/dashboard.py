"""The operators' dashboard (/admin/dashboard/): queue health tiles and 24-hour charts of cost, volume, blocks
and IP-session lifetimes, drawn server-side and refreshed in place from an HTML fragment every few seconds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone

from jobs import queue_reads
from jobs.models import JobStatus
from lps_site.admin_formatting import short_duration, usd
from lps_site.svg_charts import Marker, Series, bar_chart
from search.stats import bot_stats, cost_last_hour_usd, hourly_costs, ip_session_stats
from watches import reads as watch_reads

HOURS = 24
DEFAULT_REFRESH_SECONDS = 10
# A pending job older than this means workers are not keeping up.
OLDEST_PENDING_WARN_SECONDS = 5 * 60
OLDEST_PENDING_BAD_SECONDS = 30 * 60


@dataclass(frozen=True)
class Tile:
    key: str
    label: str
    value: str
    href: str = ""
    level: str = "ok"
    """ok, warn or bad: how worried the operator should be."""
    note: str = ""


def _jobs_url(**filters) -> str:
    return reverse("admin:jobs_job_changelist") + ("?" + urlencode(filters) if filters else "")


def snapshot_tiles(snapshot: queue_reads.OpsSnapshot, *, cost_last_hour: float) -> list[Tile]:
    """The ops snapshot and the last hour's search cost as tiles, each linking to the jobs behind it."""
    oldest = snapshot.oldest_pending_seconds
    if oldest is None or oldest < OLDEST_PENDING_WARN_SECONDS:
        oldest_level = "ok"
    else:
        oldest_level = "bad" if oldest >= OLDEST_PENDING_BAD_SECONDS else "warn"
    return [
        Tile("pending", "Pending", f"{snapshot.pending:,}", _jobs_url(status__exact=JobStatus.PENDING)),
        Tile("running", "Running", f"{snapshot.running:,}", _jobs_url(status__exact=JobStatus.RUNNING)),
        Tile(
            "done",
            "Done",
            ("≈" if snapshot.done_is_estimate else "") + f"{snapshot.done:,}",
            _jobs_url(status__exact=JobStatus.DONE),
            note=f"{snapshot.done_last_hour:,} in the last hour",
        ),
        Tile(
            "dead",
            "Dead",
            f"{snapshot.dead:,}",
            _jobs_url(status__exact=JobStatus.DEAD),
            "warn" if snapshot.dead else "ok",
        ),
        Tile(
            "dead_last_hour",
            "Dead, last hour",
            f"{snapshot.dead_last_hour:,}",
            _jobs_url(status__exact=JobStatus.DEAD, updated_at_within="1h"),
            "bad" if snapshot.dead_last_hour else "ok",
        ),
        Tile(
            "stuck",
            "Stuck running",
            f"{snapshot.stuck:,}",
            _jobs_url(status__exact=JobStatus.RUNNING),
            "bad" if snapshot.stuck else "ok",
            note="lease expired or running over 10 min",
        ),
        Tile(
            "oldest_pending",
            "Oldest pending",
            short_duration(oldest) if oldest is not None else "—",
            _jobs_url(status__exact=JobStatus.PENDING),
            oldest_level,
        ),
        Tile(
            "deadline_kills",
            "Deadline kills, last hour",
            f"{snapshot.deadline_kills_last_hour:,}",
            level="bad" if snapshot.deadline_kills_last_hour else "ok",
        ),
        Tile("cost_last_hour", "Search cost, last hour", usd(cost_last_hour) or "$0.0000"),
    ]


def _hour_slots(now: datetime) -> list[datetime]:
    this_hour = now.replace(minute=0, second=0, microsecond=0)
    return [this_hour - timedelta(hours=HOURS - 1 - i) for i in range(HOURS)]


def _axis_money(value: float) -> str:
    return f"${value:.2f}" if value >= 0.1 or value == 0 else f"${value:.3f}"


def histogram_position(histogram: list[dict], requests: int) -> float:
    """Where `requests` falls on the histogram's axis, in buckets: inside its bucket, in proportion."""
    for index, bucket in enumerate(histogram):
        low, high = bucket["min"], bucket["max"]
        if requests >= low and (high is None or requests < high):
            return index + (0.5 if high is None else (requests - low + 0.5) / (high - low))
    return len(histogram) - 0.5


def watch_tiles(overview: watch_reads.Overview) -> list[Tile]:
    """Watches due now, how long the most overdue has waited (the scheduler runs in every reaper pass), and the
    products whose shop is undercut by the market."""
    oldest = overview.oldest_overdue_seconds
    changelist = reverse("admin:watches_watch_changelist")
    level = "ok"
    if oldest >= OLDEST_PENDING_WARN_SECONDS:
        level = "bad" if oldest >= OLDEST_PENDING_BAD_SECONDS else "warn"
    return [
        Tile(
            "watches_due",
            "Watches due",
            f"{overview.due:,}",
            changelist + "?due=yes",
            note=f"{overview.active:,} active, {overview.paused:,} paused",
        ),
        Tile(
            "watch_oldest_overdue",
            "Oldest overdue watch",
            short_duration(oldest) if oldest else "—",
            changelist + "?due=yes",
            level,
        ),
        Tile(
            "watches_undercut",
            "Products undercut",
            f"{overview.undercut:,}",
            changelist + "?position=undercut",
            note="the market's lowest is below the shop's own price",
        ),
    ]


def dashboard_context(*, now: datetime | None = None) -> dict:
    """Everything the dashboard shows, read on the replica when there is one."""
    now = now or timezone.now()
    slots = _hour_slots(now)
    labels = [f"{slot:%H}h" for slot in slots]
    snapshot = queue_reads.snapshot()
    costs = {bucket.hour: bucket for bucket in hourly_costs(HOURS)}
    bots = bot_stats(hours=HOURS, recent=10)
    blocks = {datetime.fromisoformat(row["hour"]): row["blocks"] for row in bots["per_hour"]}
    sessions = ip_session_stats(recent=0)
    per_slot = [costs.get(slot) for slot in slots]
    histogram = sessions["histogram"]
    markers = []
    fewest_blocked = sessions.get("fewest_requests_blocked")
    suggested = sessions.get("suggested_request_budget")
    configured = settings.LPS_SESSION_REQUEST_BUDGET
    if fewest_blocked is not None:
        markers.append(
            Marker(histogram_position(histogram, fewest_blocked), f"first block: {fewest_blocked} req", "marker-block")
        )
        markers.append(
            Marker(histogram_position(histogram, suggested), f"suggested budget: {suggested}", "marker-budget")
        )
    markers.append(
        Marker(histogram_position(histogram, configured), f"configured budget: {configured}", "marker-config")
    )
    day_cost = sum(bucket.total_usd for bucket in per_slot if bucket)
    day_jobs = sum(bucket.jobs for bucket in per_slot if bucket)
    return {
        "now": now,
        "snapshot": snapshot,
        "tiles": snapshot_tiles(snapshot, cost_last_hour=cost_last_hour_usd()) + watch_tiles(watch_reads.overview()),
        "cost_chart": bar_chart(
            title="Search cost per hour (AI and proxy)",
            labels=labels,
            series=[
                Series("AI", [bucket.ai_usd if bucket else 0.0 for bucket in per_slot], "bar-ai"),
                Series("Proxy", [bucket.proxy_usd if bucket else 0.0 for bucket in per_slot], "bar-proxy"),
            ],
            value_format=_axis_money,
            label_every=3,
        ),
        "jobs_chart": bar_chart(
            title="Searches finished per hour",
            labels=labels,
            series=[Series("Searches", [bucket.jobs if bucket else 0 for bucket in per_slot], "bar-jobs")],
            whole_numbers=True,
            label_every=3,
        ),
        "blocks_chart": bar_chart(
            title="Bot blocks per hour",
            labels=labels,
            series=[Series("Blocks", [blocks.get(slot, 0) for slot in slots], "bar-blocks")],
            whole_numbers=True,
            label_every=3,
            empty_text="No blocks in the last 24 hours",
        ),
        "sessions_chart": bar_chart(
            title="Requests per IP session",
            labels=[bucket["bucket"] for bucket in histogram],
            series=[Series("Sessions", [bucket["sessions"] for bucket in histogram], "bar-sessions")],
            markers=markers,
            whole_numbers=True,
            empty_text="No finished IP sessions yet",
        ),
        "day_cost": usd(day_cost) or "$0.0000",
        "day_jobs": day_jobs,
        "mean_cost": usd(day_cost / day_jobs) if day_jobs else "",
        "fewest_blocked": fewest_blocked,
        "suggested_budget": suggested,
        "configured_budget": configured,
        "budget_too_high": suggested is not None and configured > suggested,
        "end_reasons": sessions["end_reasons"],
        "open_sessions": sessions["open_sessions"],
        "recent_blocks": bots["recent"],
    }


def _refresh_seconds(request) -> int:
    try:
        seconds = int(request.GET.get("refresh", DEFAULT_REFRESH_SECONDS))
    except ValueError:
        seconds = DEFAULT_REFRESH_SECONDS
    return min(max(seconds, 2), 300)


def dashboard_page(request):
    """The whole page: admin chrome around the fragment, plus the script that refreshes it."""
    context = {
        **admin.site.each_context(request),
        **dashboard_context(),
        "title": "Operations dashboard",
        "refresh_ms": _refresh_seconds(request) * 1000,
    }
    return render(request, "console/dashboard.html", context)


def dashboard_fragment(request):
    """Only the tiles and charts, for the in-place refresh."""
    response = render(request, "console/dashboard_fragment.html", dashboard_context())
    # The refresh script checks this, so that a login page (expired session) never replaces the dashboard.
    response["X-LPS-Fragment"] = "dashboard"
    return response


app_name = "lps_dashboard"
urlpatterns = [
    path("", admin.site.admin_view(dashboard_page), name="page"),
    path("fragment/", admin.site.admin_view(dashboard_fragment), name="fragment"),
]
