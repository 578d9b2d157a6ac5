"""Change detection and event delivery: which changes make events, and that a watch's events reach a real
receiver signed and in order — after it was down, or as a clear given-up."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid

import pytest
from django.db import connection

from jobs.models import Job, JobStatus
from lps_site.job_types import JobType
from tests.watches.helpers import make_watches, run_worker
from watches import changes
from watches.models import EventState, Watch, WatchEvent, WatchPoint

FOUND_100 = {"outcome": "found", "lowest": {"price": 100_000, "url": "https://m/1", "product_id": "1"}}


def found(price: int, product_id: str = "1") -> dict:
    return {"outcome": "found", "lowest": {"price": price, "url": f"https://m/{product_id}", "product_id": product_id}}


NOT_FOUND = {"outcome": "not_found"}


@pytest.mark.parametrize(
    ("previous", "current", "threshold", "expected"),
    [
        (None, FOUND_100, 0, []),
        (FOUND_100, found(90_000), 5, [("price_down", -10.0)]),
        (FOUND_100, found(96_000), 5, []),
        (FOUND_100, found(110_000), 5, [("price_up", 10.0)]),
        (FOUND_100, found(100_000), 0, []),
        (FOUND_100, NOT_FOUND, 0, [("not_found", None)]),
        (NOT_FOUND, FOUND_100, 0, [("found", None)]),
        (NOT_FOUND, NOT_FOUND, 0, []),
        (FOUND_100, found(100_000, "2"), 0, [("offer_changed", None)]),
        (FOUND_100, found(80_000, "2"), 0, [("price_down", -20.0), ("offer_changed", None)]),
    ],
)
def test_changes_are_detected_by_the_rules_of_the_notify_block(previous, current, threshold, expected):
    assert changes.detect(previous, current, min_change_percent=threshold) == expected


def a_watch(shop, **fields) -> Watch:
    make_watches(shop.client.pk, 1, **fields)
    return Watch.objects.get()


def record(watch_id: int, result: dict, job_id: uuid.UUID | None = None) -> list[WatchEvent]:
    watch = Watch.objects.get(pk=watch_id)
    return changes.record_run(watch, job_id or uuid.uuid4(), result)


def set_callback(url: str) -> None:
    Watch.objects.update(callback_url=url)


@pytest.mark.django_db
def test_a_completion_recorded_twice_adds_one_point_and_one_event(shop):
    watch = a_watch(shop)
    record(watch.pk, FOUND_100)
    job_id = uuid.uuid4()
    assert len(record(watch.pk, NOT_FOUND, job_id)) == 1
    assert record(watch.pk, NOT_FOUND, job_id) == []
    assert WatchPoint.objects.count() == 2
    assert WatchEvent.objects.count() == 1


@pytest.mark.django_db
def test_offer_changed_is_sent_only_when_the_notify_block_asks_for_it(shop):
    watch = a_watch(shop)
    record(watch.pk, FOUND_100)
    assert record(watch.pk, found(100_000, "2")) == []
    Watch.objects.update(notify_events=["offer_changed"])
    assert [event.kind for event in record(watch.pk, found(100_000, "3"))] == ["offer_changed"]


@pytest.mark.django_db
def test_a_watch_without_a_callback_keeps_its_events_with_nothing_to_send(shop):
    watch = a_watch(shop)
    record(watch.pk, FOUND_100)
    (event,) = record(watch.pk, NOT_FOUND)
    assert WatchEvent.objects.get(pk=event.pk).state == EventState.NO_CALLBACK
    assert not Job.objects.filter(job_type=JobType.WATCH_EVENT).exists()


@pytest.mark.django_db
def test_an_event_says_how_many_review_items_its_answer_left_open(shop):
    watch = a_watch(shop)
    record(watch.pk, FOUND_100)
    item = {"marketplace": "coupang", "product_id": "7", "title": "t", "price": 80_000, "url": "https://m/7",
            "reason": "the rules could not decide: 2 words"}  # fmt: skip
    doubted = {**found(90_000), "review": [item]}

    (event,) = record(watch.pk, doubted)
    (plain,) = record(watch.pk, found(80_000))

    assert (event.kind, event.body["open_review_items"]) == ("price_down", 1)
    assert "open_review_items" not in plain.body


@pytest.mark.django_db
def test_undercut_is_recorded_once_per_crossing_below_the_shops_price_and_again_only_after_it_went_back_above(shop):
    watch = a_watch(shop, price=100_000, notify={"events": ["undercut", "price_down"]})
    kinds = [
        [event.kind for event in record(watch.pk, result)]
        for result in (
            found(99_000),  # the baseline: below, but the first run sends nothing
            found(101_000),  # back above
            found(95_000),  # crossed below
            found(94_000),  # still below: a price_down, no second undercut
            NOT_FOUND,  # nothing seen: the crossing still stands
            found(96_000),
            found(100_000),  # at the shop's price: no longer undercut
            found(97_000),  # below again
        )
    ]
    assert kinds == [[], [], ["price_down", "undercut"], ["price_down"], [], [], [], ["price_down", "undercut"]]
    event = WatchEvent.objects.filter(kind="undercut").order_by("seq").first()
    assert (event.body["own_price"], event.body["gap_percent"]) == (100_000, 5.26)
    assert event.body["current"]["lowest"]["price"] == 95_000
    assert list(WatchEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2, 3, 4, 5]


@pytest.mark.django_db
def test_a_watch_without_its_own_price_is_never_undercut(shop):
    watch = a_watch(shop, notify={"events": ["undercut"]})
    assert [record(watch.pk, result) for result in (found(100_000), found(50_000))] == [[], []]
    assert Watch.objects.get().position_since is None


def release_backoff() -> None:
    """The backoff of the failed delivery is over (time passes)."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE job SET run_after = now() WHERE status = %s", [int(JobStatus.PENDING)])


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_was_down_gets_every_event_of_a_watch_signed_and_in_order(shop, settings, webhook_receiver):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    watch = a_watch(shop)
    set_callback(webhook_receiver.url("/events"))
    record(watch.pk, FOUND_100)
    record(watch.pk, found(50_000))
    record(watch.pk, NOT_FOUND)
    record(watch.pk, found(70_000))
    webhook_receiver.fail_next(3, status=503)

    for _ in range(4):
        run_worker()
        release_backoff()

    deliveries = webhook_receiver.deliveries()
    bodies = [json.loads(delivery.body) for delivery in deliveries]
    assert [(body["seq"], body["event"]) for body in bodies] == [(1, "price_down"), (2, "not_found"), (3, "found")]
    for delivery in deliveries:
        expected = "sha256=" + hmac.new(shop.webhook_secret.encode(), delivery.body, hashlib.sha256).hexdigest()
        assert delivery.headers["x-lps-signature"] == expected
    # Every POST the receiver saw, refused ones included, was in order: nothing overtook the event at the head.
    posted = [json.loads(request.body)["seq"] for request in webhook_receiver.requests if request.method == "POST"]
    assert posted == [1, 1, 1, 1, 2, 3]
    assert set(WatchEvent.objects.values_list("state", flat=True)) == {EventState.DELIVERED}
    assert WatchEvent.objects.get(seq=1).attempts == 4


@pytest.mark.django_db(transaction=True)
def test_an_event_undeliverable_past_the_give_up_age_is_given_up_and_the_next_one_goes(
    shop, settings, webhook_receiver
):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    settings.LPS_WATCH_EVENT_GIVE_UP_SECONDS = 0
    watch = a_watch(shop)
    set_callback(webhook_receiver.url("/events"))
    record(watch.pk, FOUND_100)
    record(watch.pk, found(50_000))
    record(watch.pk, NOT_FOUND)
    webhook_receiver.fail_next(1, status=500)

    run_worker()

    states = dict(WatchEvent.objects.values_list("seq", "state"))
    assert states == {1: EventState.GIVEN_UP, 2: EventState.DELIVERED}
    assert "HTTP 500" in WatchEvent.objects.get(seq=1).last_error
    assert [json.loads(d.body)["seq"] for d in webhook_receiver.deliveries()] == [2]
