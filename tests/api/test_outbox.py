"""OUTBOX payloads stored by an older release (before WebhookDelivery) still read, and serialise, as they were."""

from __future__ import annotations

import json

import pytest

from api.outbox import WebhookDelivery
from api.webhooks import webhook_body
from tests.api.test_webhooks import RESULT

JOB_ID = "0b6f6c52-5d0e-4a0e-9a4e-1f4cc1a3a8f0"

# As search/handler.py built a search's own delivery, and corrections/correcting.py a `corrected` one, in the
# release before api/outbox.py: these dicts are what such OUTBOX rows hold.
OLD_SEARCH_DELIVERY = {
    "search_job_id": JOB_ID,
    "product_code": "SKU-1",
    "callback_url": "https://shop.test/lps/hook?token=t",
    "result": RESULT,
    "client_id": 7,
}
OLD_SEARCH_DELIVERY_WITHOUT_CLIENT = {key: value for key, value in OLD_SEARCH_DELIVERY.items() if key != "client_id"}
OLD_CORRECTED_DELIVERY = {
    "search_job_id": JOB_ID,
    "product_code": "SKU-1",
    "callback_url": "https://shop.test/lps/hook",
    "result": RESULT,
    "event": "corrected",
    "previous": {"outcome": "found", "lowest": {"price": 9_900, "title": "케이스", "url": "https://c.test/7"}},
    "idempotency_key": f"{JOB_ID}:corrected:1",
    "client_id": 7,
}


def old_release_body(payload: dict) -> bytes:
    """The body the older release's delivery built from the stored payload itself."""
    return webhook_body(
        str(payload["search_job_id"]),
        str(payload.get("product_code") or ""),
        payload["result"],
        event=payload.get("event"),
        previous=payload.get("previous"),
    )


@pytest.mark.parametrize("stored", [OLD_SEARCH_DELIVERY, OLD_SEARCH_DELIVERY_WITHOUT_CLIENT, OLD_CORRECTED_DELIVERY])
def test_an_outbox_payload_of_an_older_release_round_trips_and_is_sent_the_same(stored):
    delivery = WebhookDelivery.from_json(json.loads(json.dumps(stored)))

    assert (delivery.search_job_id, delivery.product_code, delivery.callback_url) == (
        JOB_ID,
        "SKU-1",
        stored["callback_url"],
    )
    assert delivery.result == RESULT
    assert delivery.client_id == stored.get("client_id")
    assert (delivery.event, delivery.previous) == (stored.get("event"), stored.get("previous"))
    assert delivery.key == stored.get("idempotency_key", JOB_ID)
    # Serialised the same: the same JSON, key for key and in the same order, and the same signed body.
    assert json.dumps(delivery.to_json(), ensure_ascii=False) == json.dumps(stored, ensure_ascii=False)
    body = webhook_body(
        delivery.search_job_id, delivery.product_code, delivery.result, event=delivery.event, previous=delivery.previous
    )
    assert body == old_release_body(stored)


def test_an_outbox_payload_without_a_result_reads_as_undeliverable_rather_than_raising():
    delivery = WebhookDelivery.from_json({"search_job_id": JOB_ID, "result": "not an object", "client_id": True})

    assert (delivery.result, delivery.client_id, delivery.event, delivery.product_code) == (None, None, None, "")
