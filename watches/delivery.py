"""The state of a watch's event deliveries: which event goes next, and what became of it.

The WATCH_EVENT handler (api/watch_events.py: the API owns the clients' secrets and the signed POST) sends a
watch's PENDING events strictly in `seq` order, one job per watch at a time (its dedupe key): an event is sent only
once every earlier one of the watch was delivered or given up. A receiver that is down keeps the job retrying with
the queue's backoff; an event still undelivered LPS_WATCH_EVENT_GIVE_UP_SECONDS after it was recorded is given up
(its state says so in the admin, lps_watch_event_deliveries_total{result="given_up"} counts it) and the next one is
tried.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from jobs import queue
from jobs.models import ACTIVE_STATUSES, Job
from lps_site.job_types import JobType
from watches import metrics
from watches.changes import delivery_dedupe_key, delivery_job
from watches.models import EventState, Watch, WatchEvent

# An event this old with no delivery job active is stranded (its job ended between reading "nothing left" and a
# new event's commit): the sweep below starts one.
STRANDED_AFTER = timedelta(seconds=60)


def next_pending(watch_id: int) -> WatchEvent | None:
    """The oldest undelivered event of the watch, with its watch."""
    return (
        WatchEvent.objects.select_related("watch")
        .filter(watch_id=watch_id, state=EventState.PENDING)
        .order_by("seq")
        .first()
    )


def is_overdue(event: WatchEvent) -> bool:
    """Whether the event has waited longer than LPS_WATCH_EVENT_GIVE_UP_SECONDS."""
    return timezone.now() - event.created_at > timedelta(seconds=settings.LPS_WATCH_EVENT_GIVE_UP_SECONDS)


def mark_delivered(event: WatchEvent) -> None:
    WatchEvent.objects.filter(pk=event.pk, state=EventState.PENDING).update(
        state=EventState.DELIVERED, delivered_at=timezone.now(), attempts=F("attempts") + 1, last_error=""
    )
    metrics.record_delivery("delivered")


def record_failure(event: WatchEvent, error: str) -> None:
    WatchEvent.objects.filter(pk=event.pk, state=EventState.PENDING).update(
        attempts=F("attempts") + 1, last_error=error[:2000]
    )


def give_up(event: WatchEvent, reason: str) -> None:
    WatchEvent.objects.filter(pk=event.pk, state=EventState.PENDING).update(
        state=EventState.GIVEN_UP, last_error=reason[:2000]
    )
    metrics.record_delivery("given_up")


def restart_stranded(limit: int) -> int:
    """A maintenance unit: start the delivery job of watches with old pending events and none active."""
    watch_ids = list(
        WatchEvent.objects.filter(state=EventState.PENDING, created_at__lt=timezone.now() - STRANDED_AFTER)
        .order_by("watch_id")
        .values_list("watch_id", flat=True)
        .distinct()[:limit]
    )
    if not watch_ids:
        return 0
    active = set(
        Job.objects.filter(
            dedupe_key__in=[delivery_dedupe_key(watch_id) for watch_id in watch_ids],
            status__in=ACTIVE_STATUSES,
            job_type=JobType.WATCH_EVENT,
        ).values_list("dedupe_key", flat=True)
    )
    owners = dict(Watch.objects.filter(pk__in=watch_ids).values_list("pk", "client_id"))
    jobs = [
        delivery_job(watch_id, owners[watch_id])
        for watch_id in watch_ids
        if delivery_dedupe_key(watch_id) not in active and watch_id in owners
    ]
    return sum(1 for enqueued in queue.enqueue_many(jobs) if not enqueued.duplicate)
