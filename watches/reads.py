"""What observers read of watches: the dashboard's tiles and the web's gauges (on the observing database)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Min, Q
from django.utils import timezone

from lps_site.db_router import observing
from watches import position
from watches.models import EventState, Watch, WatchEvent


@dataclass(frozen=True)
class Overview:
    active: int
    paused: int
    due: int
    oldest_overdue_seconds: float
    events_pending: int
    undercut: int = 0
    """Active watches whose market lowest is below the shop's own price (watches/position.py)."""


def overview() -> Overview:
    """Counts by state, the due backlog and its oldest due time, and undelivered events."""
    now = timezone.now()
    with observing():
        counts = Watch.objects.aggregate(
            active=Count("pk", filter=Q(paused=False)), paused=Count("pk", filter=Q(paused=True))
        )
        due = Watch.objects.filter(paused=False, next_run_at__lte=now).aggregate(
            due=Count("pk"), oldest=Min("next_run_at")
        )
        pending = WatchEvent.objects.filter(state=EventState.PENDING).count()
        undercut = position.undercut(position.with_position(Watch.objects.filter(paused=False))).count()
    oldest = due["oldest"]
    return Overview(
        active=counts["active"],
        paused=counts["paused"],
        due=due["due"],
        oldest_overdue_seconds=max(0.0, (now - oldest).total_seconds()) if oldest else 0.0,
        events_pending=pending,
        undercut=undercut,
    )
