"""The WATCH_EVENT handler: send a watch's pending change events to its callback_url, signed, oldest first.

One job per watch at a time (its dedupe key, watches/changes.py), and each event only after every earlier one of
the watch was delivered or given up (watches/delivery.py), so a receiver sees a watch's events in order. The
body is the event's JSON (§8: {event, product_code, job_id, previous?, current, change_percent?} and its `seq`),
signed like a search's webhook (api/webhooks.py: the same `sign` and `post`, the callback re-checked at delivery)
and sent with `Idempotency-Key: watch-event-<id>`. A failure raises a retryable error: the queue tries again
with backoff, and the event waits at the head of its watch's line until it is delivered or given up.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from django.conf import settings

from api.callbacks import check_callback_url
from api.envelope import dumps
from api.exceptions import ApiError
from api.models import ApiClient
from api.webhooks import delivery_lane, post, signed_headers
from jobs.handlers import JobContext
from jobs.queue import ClaimedJob
from lps_site.job_types import JobType
from watches import delivery

log = logging.getLogger(__name__)

# Stop taking the next event with less time than this before the deadline; the job comes back for the rest.
MIN_SECONDS_PER_EVENT = 2.0


class WatchEventsLeft(ApiError):
    """The job ran out of time with events left; it runs again for them."""

    retryable = True


@delivery_lane(JobType.WATCH_EVENT)
def deliver_watch_events(job: ClaimedJob, context: JobContext) -> dict:
    """POST the watch's pending events in order; raise (to be retried) at the first one that fails."""
    watch_id = int(job.payload["watch_id"])
    delivered = given_up = 0
    while context.remaining() > MIN_SECONDS_PER_EVENT and not context.cancelled.is_set():
        event = delivery.next_pending(watch_id)
        if event is None:
            return {"watch_id": watch_id, "delivered": delivered, "given_up": given_up}
        watch = event.watch
        client = ApiClient.objects.filter(pk=watch.client_id).first()
        if client is None or not client.is_active:
            delivery.give_up(event, f"the API client {watch.client_id} is gone or revoked")
            given_up += 1
            continue
        body = dumps(event.body).encode()
        headers = signed_headers(
            body, client.webhook_secret, idempotency_key=f"watch-event-{event.pk}", attempt=event.attempts + 1
        )
        try:
            callback = check_callback_url(watch.callback_url)
            timeout = max(1.0, min(settings.LPS_WEBHOOK_TIMEOUT_SECONDS, context.remaining()))
            status = post(callback, body, headers, timeout=timeout)
        except ApiError as exc:
            if not exc.retryable or delivery.is_overdue(event):
                delivery.give_up(event, f"{type(exc).__name__}: {exc.message}")
                given_up += 1
                log.warning("watch %s event %s (%s) given up: %s", watch_id, event.seq, event.kind, exc)
                continue
            delivery.record_failure(event, f"{type(exc).__name__}: {exc.message}")
            log.warning(
                "watch %s event %s (%s) to %s failed: %s",
                watch_id,
                event.seq,
                event.kind,
                urlsplit(watch.callback_url).hostname or "?",
                exc,
            )
            raise
        delivery.mark_delivered(event)
        delivered += 1
        log.info("watch %s event %s (%s) delivered: HTTP %d", watch_id, event.seq, event.kind, status)
    # Out of time: the rest waits for the next run of this job.
    raise WatchEventsLeft(f"watch {watch_id} has events left after {delivered} delivered")
