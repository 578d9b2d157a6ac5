"""Create, update, pause, resume, delete and run watches: what the API asks of them, each in one statement."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from jobs import queue
from jobs.models import Priority
from lps_site.job_types import JobType
from negative_cache.cache import key_for
from search.payload import SearchPayload, SearchProduct
from watches.models import DEFAULT_EVENTS, Watch
from watches.spec import WatchProduct

# Insert or update watches by (client, product_code). A new watch's first run is a uniform offset within its
# interval (watches posted together spread over it); an existing watch keeps its schedule unless its interval
# changed. A watch posted again unchanged (a downloaded sheet posted back) is not written at all: it returns no row.
# RETURNING says which rows were inserted.
UPSERT_SQL = """
WITH input AS (
    SELECT *
    FROM jsonb_to_recordset(%(rows)s::jsonb) AS x(
        ord int, product_code varchar(190), product jsonb, identity_key varchar(100), callback_url varchar(2000),
        every_seconds int, notify_events jsonb, min_change_percent float8, offset_seconds float8
    )
)
INSERT INTO watch (client_id, product_code, product, identity_key, callback_url, every_seconds, notify_events,
                   min_change_percent, paused, schedule_anchor, next_run_at, last_outcome, last_event_kind,
                   event_seq, runs, created_at, updated_at)
SELECT %(client_id)s, product_code, product, identity_key, callback_url, every_seconds, notify_events,
       min_change_percent, false, now() + make_interval(secs => offset_seconds),
       now() + make_interval(secs => offset_seconds), '', '', 0, 0, now(), now()
FROM input
ORDER BY ord
ON CONFLICT (client_id, product_code) DO UPDATE
SET product = EXCLUDED.product,
    identity_key = EXCLUDED.identity_key,
    callback_url = EXCLUDED.callback_url,
    notify_events = EXCLUDED.notify_events,
    min_change_percent = EXCLUDED.min_change_percent,
    schedule_anchor = CASE WHEN watch.every_seconds = EXCLUDED.every_seconds
                           THEN watch.schedule_anchor ELSE EXCLUDED.schedule_anchor END,
    next_run_at = CASE WHEN watch.every_seconds = EXCLUDED.every_seconds
                       THEN watch.next_run_at ELSE EXCLUDED.next_run_at END,
    every_seconds = EXCLUDED.every_seconds,
    updated_at = now()
WHERE (watch.product, watch.identity_key, watch.callback_url, watch.notify_events, watch.min_change_percent,
       watch.every_seconds)
      IS DISTINCT FROM (EXCLUDED.product, EXCLUDED.identity_key, EXCLUDED.callback_url, EXCLUDED.notify_events,
                        EXCLUDED.min_change_percent, EXCLUDED.every_seconds)
RETURNING product_code, (xmax = 0) AS created
"""


def search_dedupe_key(client_id: int, product_code: str) -> str:
    """The key that keeps one active SEARCH per (client, product_code); the same as api.submit's, so that a watch's
    run and the client's own search of that code never run side by side (tests/watches holds them equal)."""
    return f"search:{client_id}:{product_code}"


@dataclass(frozen=True)
class Upserted:
    product_code: str
    created: bool


def product_fields(spec: SearchProduct) -> dict:
    """The SEARCH payload fields a watch keeps (the callback_url is the watch's own: events go there)."""
    payload = SearchPayload.from_product(spec, client_id=None).as_payload()
    payload.pop("callback_url", None)
    return payload


def upsert(client_id: int, specs: Sequence[WatchProduct], *, rng: random.Random | None = None) -> list[Upserted]:
    """Create or update the client's watches of `specs` in one statement, one Upserted per spec in order.

    Of a code repeated within `specs` the last one is written; only its first occurrence can say `created`.
    """
    rng = rng or random.Random()
    last = {spec.product_code: spec for spec in specs}
    rows = []
    for index, spec in enumerate(last.values()):
        notify = spec.notify
        every = spec.every_seconds
        rows.append(
            {
                "ord": index,
                "product_code": spec.product_code,
                "product": product_fields(spec),
                "identity_key": key_for(
                    product_name=spec.product_name, model_code=spec.model_code, brand=spec.brand
                ).key,
                "callback_url": spec.callback_url or "",
                "every_seconds": every,
                "notify_events": list(notify.events) if notify and notify.events is not None else DEFAULT_EVENTS,
                "min_change_percent": (notify.min_change_percent if notify else None) or 0.0,
                "offset_seconds": rng.uniform(0, every),
            }
        )
    with connection.cursor() as cursor:
        cursor.execute(UPSERT_SQL, {"client_id": client_id, "rows": Jsonb(rows)})
        created = dict(cursor.fetchall())
    seen: set[str] = set()
    upserted = []
    for spec in specs:
        written = created.get(spec.product_code, False)  # absent: an existing watch posted again unchanged
        upserted.append(Upserted(spec.product_code, written and spec.product_code not in seen))
        seen.add(spec.product_code)
    return upserted


def set_paused(watch: Watch, paused: bool) -> None:
    """Pause or resume; a resumed watch that missed due times runs once at the next scheduler pass."""
    Watch.objects.filter(pk=watch.pk).update(paused=paused, updated_at=timezone.now())
    watch.paused = paused


def search_job(
    watch: Watch, *, priority: int = Priority.LOW, delay_seconds: float = 0.0, fresh: bool = False
) -> queue.NewJob:
    """The SEARCH job of one run of `watch` (its payload names the watch); scheduled runs are low priority.

    A `fresh` run is searched in a browser on every marketplace it names, whatever is remembered (search/payload.py).
    """
    payload = {**watch.product, "client_id": watch.client_id, "watch_id": watch.pk}
    if fresh:
        payload["fresh"] = True
    return queue.NewJob(
        JobType.SEARCH,
        payload,
        priority=priority,
        dedupe_key=search_dedupe_key(watch.client_id, watch.product_code),
        owner_id=watch.client_id,
        delay_seconds=delay_seconds,
    )


def run_now(watch: Watch) -> queue.Enqueued:
    """Search `watch` now in a browser, never answered by a reused result, its next due time unchanged; an active
    search of its code is linked instead."""
    with transaction.atomic():
        # The client asked for it now: at the priority of its own searches, ahead of the scheduled runs. A shop
        # presses "run now" because it believes the price changed: reuse (watches/reuse.py) is for the schedule.
        enqueued = queue.enqueue(search_job(watch, priority=Priority.NORMAL, fresh=True))
        if enqueued.duplicate:
            # A scheduled run of the code is queued already: it answers the click, and searches as a click does.
            # One already running was claimed before the click and answers as it started.
            queue.amend_pending(enqueued.job_id, {"fresh": True})
        Watch.objects.filter(pk=watch.pk).update(pending_job_id=enqueued.job_id)
    return enqueued
