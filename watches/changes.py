"""Change detection: a watch's finished search becomes a history point, and an event when its notify rules ask.

search/handler.py tells every registered listener of a finished search inside the transaction that records it
(search/hooks.py); this is the watches' listener. The first run of a watch records a baseline and sends nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from jobs import queue
from jobs.queue import ClaimedJob
from lps_site.job_types import JobType
from search.payload import SearchPayload
from search.result import Lowest, SearchResult
from watches import metrics, position
from watches.models import EventState, Watch, WatchEvent, WatchPoint


def summary(answer: SearchResult) -> dict:
    """A SEARCH result as a watch remembers it: {outcome, lowest?, reused?}.

    The lowest offer is kept whole (search/result.py's `Lowest`): enough to say what changed, small enough for
    every history row."""
    out: dict = {"outcome": answer.outcome or "not_found"}
    if answer.lowest is not None:
        out["lowest"] = answer.lowest.to_json()
    if answer.reused:
        out["reused"] = True
    return out


def _public(state: dict) -> dict:
    """previous/current as an event carries them (§8): {outcome, lowest?}."""
    return {name: state[name] for name in ("outcome", "lowest") if name in state}


def detect(previous: dict | None, current: dict, *, min_change_percent: float) -> list[tuple[str, float | None]]:
    """The changes from `previous` to `current` as (event, change_percent), whatever the watch asked to hear."""
    if previous is None:
        return []
    was, now = SearchResult.from_json(previous), SearchResult.from_json(current)
    if was.found and not now.found:
        return [("not_found", None)]
    if now.found and not was.found:
        return [("found", None)]
    if not now.found:
        return []
    changes: list[tuple[str, float | None]] = []
    before, after = was.lowest or Lowest(), now.lowest or Lowest()
    old_price, new_price = before.price, after.price
    if old_price is not None and new_price is not None and old_price != new_price and old_price > 0:
        percent = round((new_price - old_price) / old_price * 100, 2)
        if abs(percent) >= min_change_percent:
            changes.append(("price_down" if new_price < old_price else "price_up", percent))
    if (before.url, before.product_id) != (after.url, after.product_id):
        changes.append(("offer_changed", None))
    return changes


def record_finished_search(job: ClaimedJob, payload: SearchPayload, result: dict) -> None:
    """The search listener: record the run of every watch this job answers (its own, or one linked to it)."""
    watch_id = job.payload.get("watch_id") if isinstance(job.payload, dict) else None
    linked = Q(pending_job_id=job.job_id)
    if isinstance(watch_id, int) and not isinstance(watch_id, bool):
        linked |= Q(pk=watch_id)
    # Locked: two searches of one watch finishing at once number their events one after the other.
    for watch in Watch.objects.select_for_update().filter(linked).order_by("pk"):
        record_run(watch, job.job_id, result)


def record_run(watch: Watch, job_id, result: dict) -> list[WatchEvent]:
    """Add the run's history point and the events it calls for; nothing when this job was already recorded."""
    answer = SearchResult.from_json(result)
    current = summary(answer)
    try:
        with transaction.atomic():
            WatchPoint.objects.create(
                watch=watch,
                job_id=job_id,
                outcome=current["outcome"],
                price=answer.price,
                marketplace=(answer.lowest or Lowest()).marketplace or "",
                reused=bool(answer.reused),
            )
    except IntegrityError:
        return []  # this job's completion was recorded already
    changes = detect(watch.last_result, current, min_change_percent=watch.min_change_percent)
    now = timezone.now()
    standing = position.after_run(watch, answer, now)
    if standing.crossed_below:
        changes.append(("undercut", None))
    wanted = [(kind, percent) for kind, percent in changes if kind in watch.notify_events]
    events = []
    state = EventState.PENDING if watch.callback_url else EventState.NO_CALLBACK
    for kind, percent in wanted:
        watch.event_seq += 1
        body = {"event": kind, "product_code": watch.product_code, "job_id": str(job_id), "seq": watch.event_seq}
        if watch.last_result is not None:
            body["previous"] = _public(watch.last_result)
        body["current"] = _public(current)
        if percent is not None:
            body["change_percent"] = percent
        if answer.review:
            # Listings the answer left for a person to settle (the result's `review`): the price may yet move.
            body["open_review_items"] = len(answer.review)
        if kind == "undercut":
            body.update(position.undercut_body(watch, answer))
        events.append(WatchEvent(watch=watch, seq=watch.event_seq, kind=kind, job_id=job_id, body=body, state=state))
    if events:
        WatchEvent.objects.bulk_create(events)
        metrics.record_events(event.kind for event in events)
    update = {
        "last_job_id": job_id,
        "last_run_at": now,
        "last_outcome": current["outcome"],
        "last_price": answer.price,
        "last_result": current,
        "event_seq": watch.event_seq,
        "runs": watch.runs + 1,
        "updated_at": now,
        **standing.fields,
    }
    if changes:
        update["last_change_at"] = now
        update["last_event_kind"] = changes[0][0]
    if watch.pending_job_id == job_id:
        update["pending_job_id"] = None
    Watch.objects.filter(pk=watch.pk).update(**update)
    if events and state == EventState.PENDING:
        queue.enqueue(delivery_job(watch.pk, watch.client_id))
    return events


def delivery_dedupe_key(watch_id: int) -> str:
    return f"watch-events:{watch_id}"


def delivery_job(watch_id: int, client_id: int) -> queue.NewJob:
    """The WATCH_EVENT job that sends a watch's pending events in order; one active per watch (its dedupe key)."""
    return queue.NewJob(
        JobType.WATCH_EVENT,
        {"watch_id": watch_id, "client_id": client_id},
        dedupe_key=delivery_dedupe_key(watch_id),
        # The handler gives an event up by its age (LPS_WATCH_EVENT_GIVE_UP_SECONDS), not by a count of tries:
        # the queue's backoff (capped at 10 min) keeps trying for as long as that allows.
        max_attempts=settings.LPS_WATCH_EVENT_MAX_ATTEMPTS,
        owner_id=client_id,
    )
