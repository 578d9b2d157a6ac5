"""The webhook's OUTBOX job: its payload (one delivery of a search's answer) and its enqueueing.

The API owns its webhook: search/ and corrections/ announce a finished search and a changed answer through
search/hooks.py without knowing who listens, and the listeners here enqueue the delivery, inside the transaction
that records the event (so the delivery commits, or rolls back, with it). api/webhooks.py delivers it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from jobs import queue
from jobs.queue import ClaimedJob
from lps_site.job_types import JobType
from search.hooks import AnswerChange
from search.payload import SearchPayload

CORRECTED = "corrected"


@dataclass(frozen=True)
class WebhookDelivery:
    """An OUTBOX job's payload: what to send where, for which client.

    `to_json()` is the JSON the job stores (absent values left out, never null); `from_json()` reads any stored one.
    """

    search_job_id: str
    product_code: str
    callback_url: str
    result: dict | None
    """The search's result as it was when the delivery was made: delivery never waits for (or races) the moment
    the worker records the search job as DONE. None only in a stored payload that carries none (undeliverable)."""
    client_id: int | None = None
    event: str | None = None
    """`"corrected"` for a later change of the answer (SPEC §10); None for the search's own delivery."""
    previous: dict | None = None
    """With `event`: the answer before the change."""
    idempotency_key: str | None = None
    """With `event`: the change's own key; the search's own delivery is keyed by its job id."""

    @property
    def key(self) -> str:
        """The receiver's Idempotency-Key: one delivery per search, and one more per change of its answer."""
        return self.idempotency_key or self.search_job_id

    def to_json(self) -> dict:
        payload: dict = {
            "search_job_id": self.search_job_id,
            "product_code": self.product_code,
            "callback_url": self.callback_url,
            "result": self.result,
        }
        for name, value in (
            ("event", self.event),
            ("previous", self.previous),
            ("idempotency_key", self.idempotency_key),
            ("client_id", self.client_id),
        ):
            if value is not None:
                payload[name] = value
        return payload

    @classmethod
    def from_json(cls, payload: dict) -> WebhookDelivery:
        """Read a stored payload; KeyError when it names no search job (nothing can be said about it)."""
        result, previous, client_id = payload.get("result"), payload.get("previous"), payload.get("client_id")
        return cls(
            search_job_id=str(payload["search_job_id"]),
            product_code=str(payload.get("product_code") or ""),
            callback_url=str(payload.get("callback_url") or ""),
            result=result if isinstance(result, dict) else None,
            client_id=client_id if isinstance(client_id, int) and not isinstance(client_id, bool) else None,
            event=str(payload["event"]) if payload.get("event") else None,
            previous=previous if isinstance(previous, dict) else None,
            idempotency_key=str(payload["idempotency_key"]) if payload.get("idempotency_key") else None,
        )


def enqueue(delivery: WebhookDelivery) -> None:
    queue.enqueue(
        queue.NewJob(
            JobType.OUTBOX,
            delivery.to_json(),
            dedupe_key=f"outbox:{delivery.key}",
            max_attempts=settings.LPS_OUTBOX_MAX_ATTEMPTS,
            # The delivery belongs to whoever owns the search: the client reads it, its lists count it.
            owner_id=delivery.client_id,
        )
    )


def deliver_finished_search(job: ClaimedJob, payload: SearchPayload, result: dict) -> None:
    """A search hook's listener: the search's own delivery, when it was given a callback_url."""
    if payload.callback_url:
        enqueue(
            WebhookDelivery(
                search_job_id=str(job.job_id),
                product_code=payload.product.product_code,
                callback_url=payload.callback_url,
                result=result,
                client_id=payload.client_id,
            )
        )


def deliver_changed_answer(change: AnswerChange) -> None:
    """A search hook's change listener: one `corrected` delivery per change, when the search had a callback_url."""
    if change.payload.callback_url:
        enqueue(
            WebhookDelivery(
                search_job_id=str(change.job_id),
                product_code=change.payload.product.product_code,
                callback_url=change.payload.callback_url,
                result=change.result,
                client_id=change.owner_id,
                event=CORRECTED,
                previous=change.previous,
                idempotency_key=f"{change.job_id}:{CORRECTED}:{change.number}",
            )
        )
