"""The watches' Prometheus metrics: counters where things happen (the scheduler in the reaper, change detection
and reuse in the SEARCH worker, deliveries in the WATCH_EVENT worker) and gauges read at the web's scrape."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db import DatabaseError
from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from watches.models import EVENT_KINDS

SCHEDULED = Counter(
    "lps_watch_runs_scheduled",
    "Watch runs the scheduler enqueued, by whether a client's active search of the code was linked instead.",
    ["linked"],
)
SCHEDULER_LAG = Histogram(
    "lps_watch_scheduler_lag_seconds",
    "How late a watch's run was when the scheduler claimed it (due time → claim).",
    buckets=(1, 5, 15, 30, 60, 120, 300, 900, 3600, 4 * 3600, 86400),
)
EVENTS = Counter("lps_watch_events", "Watch events recorded, by kind.", ["kind"])
DELIVERIES = Counter(
    "lps_watch_event_deliveries", "Watch events that reached an end, by result (delivered, given_up).", ["result"]
)
WATCH_SEARCHES = Counter(
    "lps_watch_searches",
    "Searches of watches, by how they were answered (reused: a fresh result of the same product; searched).",
    ["answered"],
)

for _linked in ("true", "false"):
    SCHEDULED.labels(_linked)
for _kind in EVENT_KINDS:
    EVENTS.labels(_kind)
for _result in ("delivered", "given_up"):
    DELIVERIES.labels(_result)
for _answered in ("reused", "searched"):
    WATCH_SEARCHES.labels(_answered)


def record_scheduled(scheduled: Iterable) -> None:
    for run in scheduled:
        SCHEDULED.labels("true" if run.linked else "false").inc()
        SCHEDULER_LAG.observe(run.late_seconds)


def record_events(kinds: Iterable[str]) -> None:
    for kind in kinds:
        EVENTS.labels(kind).inc()


def record_delivery(result: str) -> None:
    DELIVERIES.labels(result).inc()


def record_watch_search(*, reused: bool) -> None:
    WATCH_SEARCHES.labels("reused" if reused else "searched").inc()


class WatchCollector(Collector):
    """Watches read from the database at each web scrape (watches/reads.py)."""

    def collect(self) -> Iterator:
        from watches import reads

        try:
            overview = reads.overview()
        except DatabaseError:
            return
        by_state = GaugeMetricFamily("lps_watches", "Watches by state (active, paused).", labels=["state"])
        by_state.add_metric(["active"], overview.active)
        by_state.add_metric(["paused"], overview.paused)
        yield by_state
        yield GaugeMetricFamily("lps_watches_due", "Active watches whose due time has passed.", value=overview.due)
        yield GaugeMetricFamily(
            "lps_watch_oldest_overdue_seconds",
            "How long the most overdue active watch has waited for the scheduler (0: none is due).",
            value=overview.oldest_overdue_seconds,
        )
        yield GaugeMetricFamily(
            "lps_watch_events_pending", "Watch events not yet delivered.", value=overview.events_pending
        )
