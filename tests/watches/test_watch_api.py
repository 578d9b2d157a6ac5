"""The watch endpoints' validation, limits and ownership: bad input is an envelope error naming the field that
writes nothing; a client sees only its own watches; operators see every client's and address one by client_id."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from api import keys
from tests.api.conftest import Caller
from watches import changes
from watches.models import Watch, WatchPoint

pytestmark = pytest.mark.django_db

VALID = {"product_code": "A-1", "product_name": "삼다수 2L 6개", "every": "6h"}


@pytest.mark.parametrize(
    ("watch", "field", "message"),
    [
        ({**VALID, "every": "30m"}, "watches[1].every", "from 1h to 7d"),
        ({**VALID, "every": "8d"}, "watches[1].every", "from 1h to 7d"),
        ({**VALID, "every": "often"}, "watches[1].every", "a number and a unit"),
        ({**VALID, "every": 3600}, "watches[1].every", ""),
        ({k: v for k, v in VALID.items() if k != "every"}, "watches[1].every", "required"),
        ({**VALID, "product_name": " "}, "watches[1].product_name", "visible character"),
        ({**VALID, "price": "12"}, "watches[1].price", ""),
        ({**VALID, "notify": {"events": ["price_sideways"]}}, "watches[1].notify.events[0]", ""),
        ({**VALID, "notify": {"min_change_percent": True}}, "watches[1].notify.min_change_percent", "boolean"),
        ({**VALID, "notify": {"min_change_percent": -1}}, "watches[1].notify.min_change_percent", ""),
        ({**VALID, "callback_url": "ftp://example.com/x"}, "watches[1].callback_url", "http"),
        ({**VALID, "callback_url": "http://169.254.169.254/latest"}, "watches[1].callback_url", "link-local"),
    ],
)
def test_a_bad_watch_is_an_envelope_error_naming_its_field_and_nothing_is_written(as_shop, watch, field, message):
    response = as_shop.post("/v1/lps/watches", {"watches": [{**VALID, "product_code": "OK-1"}, watch]})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == field
    assert message in body["error"]
    assert not Watch.objects.exists()


def test_an_empty_or_oversized_batch_is_refused(as_shop, settings):
    assert as_shop.post("/v1/lps/watches", {"watches": []}).json()["field"] == "watches"
    too_many = [{**VALID, "product_code": f"C{index}"} for index in range(1001)]
    assert as_shop.post("/v1/lps/watches", {"watches": too_many}).status_code == 400
    assert not Watch.objects.exists()


def test_a_watch_is_created_then_updated_and_read_back_in_the_documented_shape(as_shop):
    first = as_shop.post(
        "/v1/lps/watches", {"watches": [{**VALID, "notify": {"events": ["price_down"], "min_change_percent": 3}}]}
    )
    assert first.json() == {"result": 0, "watches": [{"product_code": "A-1", "created": True}]}
    again = as_shop.post("/v1/lps/watches", {"watches": [{**VALID, "every": "1d", "brand": "제주"}]})
    assert again.json() == {"result": 0, "watches": [{"product_code": "A-1", "created": False}]}
    watch = as_shop.get("/v1/lps/watches/A-1").json()["watch"]
    assert (watch["every"], watch["brand"], watch["paused"], watch["history"], watch["events"]) == (
        "1d",
        "제주",
        False,
        [],
        [],
    )
    assert watch["notify"] == {"events": ["price_down", "price_up", "found", "not_found"], "min_change_percent": 0.0}
    assert "last" not in watch
    assert "client_id" not in watch


def test_a_client_sees_only_its_own_watches_and_another_clients_code_is_a_404(client, as_shop, shop):
    other = Caller(client, keys.issue_key("other").api_key)
    as_shop.post("/v1/lps/watches", {"watches": [VALID, {**VALID, "product_code": "A-2", "product_name": "물"}]})
    other.post("/v1/lps/watches", {"watches": [{**VALID, "product_code": "B-1"}]})

    listed = as_shop.get("/v1/lps/watches").json()
    assert (listed["total"], [w["product_code"] for w in listed["watches"]]) == (2, ["A-2", "A-1"])
    assert [w["product_code"] for w in as_shop.get("/v1/lps/watches", q="물").json()["watches"]] == ["A-2"]
    assert as_shop.get("/v1/lps/watches", outcome="none").json()["total"] == 2
    for method, path in (("get", "/v1/lps/watches/B-1"), ("post", "/v1/lps/watches/B-1/pause")):
        response = getattr(as_shop, method)(path)
        assert response.status_code == 404
        assert response.json()["result"] == 1510
    other_id = Watch.objects.get(product_code="B-1").client_id
    assert as_shop.get("/v1/lps/watches/B-1", client_id=other_id).status_code == 404
    assert as_shop.get("/v1/lps/watches", client_id=other_id).json()["total"] == 0
    assert Watch.objects.filter(product_code="B-1").exists()


def test_an_operator_lists_every_clients_watches_and_addresses_one_by_client_id(client, as_shop, shop):
    operator = Caller(client, keys.issue_key("ops", operator=True).api_key)
    as_shop.post("/v1/lps/watches", {"watches": [VALID]})
    listed = operator.get("/v1/lps/watches").json()
    assert [(w["product_code"], w["client_id"]) for w in listed["watches"]] == [("A-1", shop.client.pk)]
    assert operator.get("/v1/lps/watches/A-1").status_code == 404  # its own: none
    assert operator.get("/v1/lps/watches/A-1", client_id=shop.client.pk).json()["watch"]["client_id"] == shop.client.pk
    assert operator.post(f"/v1/lps/watches/A-1/pause?client_id={shop.client.pk}").json()["paused"] is True
    assert Watch.objects.get().paused


def test_deleting_a_watch_removes_it_and_a_second_delete_is_a_404(client, as_shop):
    as_shop.post("/v1/lps/watches", {"watches": [VALID]})
    response = client.delete("/v1/lps/watches/A-1", headers=as_shop.headers())
    assert response.json() == {"result": 0, "product_code": "A-1", "deleted": True}
    assert not Watch.objects.exists()
    assert client.delete("/v1/lps/watches/A-1", headers=as_shop.headers()).status_code == 404


def test_an_unsupported_method_on_a_watch_is_a_405_in_the_envelope(client, as_shop):
    response = client.put("/v1/lps/watches/A-1", headers=as_shop.headers())
    assert response.status_code == 405
    assert response.json()["result"] == 405


def test_the_history_starts_at_since_naive_times_being_utc(as_shop, shop):
    as_shop.post("/v1/lps/watches", {"watches": [VALID]})
    watch = Watch.objects.get()
    for price in (100, 200, 300):
        changes.record_run(
            Watch.objects.get(pk=watch.pk), uuid.uuid4(), {"outcome": "found", "lowest": {"price": price}}
        )
    now = timezone.now()
    for index, point in enumerate(WatchPoint.objects.order_by("id")):
        WatchPoint.objects.filter(pk=point.pk).update(at=now - timedelta(days=3 - index))
    since = (now - timedelta(days=2, hours=1)).replace(tzinfo=None).isoformat()
    history = as_shop.get("/v1/lps/watches/A-1", since=since).json()["watch"]["history"]
    assert [point["lowest"]["price"] for point in history] == [200, 300]
    assert as_shop.get("/v1/lps/watches/A-1", since="yesterday").status_code == 400
