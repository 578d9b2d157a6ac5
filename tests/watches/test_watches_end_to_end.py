"""Watches through the whole service: the API over real HTTP (a live server), the real scheduler (a reaper pass),
a real worker driving Chromium on the fake marketplace whose prices change between runs, and signed event
webhooks to a real receiver."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from api import keys
from corrections.models import Author, Correction
from jobs.models import Job
from jobs.reaper import Reaper
from lps_site.job_types import JobType
from search import handler
from tests.watches.helpers import HttpCaller, make_due, run_worker
from watches.models import Watch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EARBUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
VACUUM = "다이슨 V15 디텍트 무선청소기 SV47"


def earbuds(price: int) -> list[dict]:
    return [
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": price + 20_000, "seller": "삼성전자"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트", "price": price, "product_id": "9001"},
    ]


@pytest.fixture
def marketplace(fake_coupang, settings):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    # Each run must search: a reused result would hide the price the marketplace now shows (reuse has its test).
    settings.LPS_RESULT_REUSE_SECONDS = 0
    yield fake_coupang
    handler.close_shared_crawler()


def scheduler_pass() -> None:
    """Time passes to the watches' due time, then the reaper runs its pass (the scheduler is one of its units)."""
    make_due()
    Reaper(interval=1).run_once()


def signed_by(issued: keys.IssuedKey, delivery) -> bool:
    expected = "sha256=" + hmac.new(issued.webhook_secret.encode(), delivery.body, hashlib.sha256).hexdigest()
    return delivery.headers["x-lps-signature"] == expected


def test_a_watch_sends_nothing_first_then_one_signed_price_down_over_its_threshold_nothing_under_it_then_not_found(
    live_server, marketplace, webhook_receiver
):
    shop = keys.issue_key("shop")
    api = HttpCaller(live_server.url, shop.api_key)
    marketplace.set_results(EARBUDS, earbuds(200_000))
    watch = {"product_code": "SKU-1", "product_name": EARBUDS, "model_code": "SM-R630", "every": "6h",
             "callback_url": webhook_receiver.url("/events"), "notify": {"min_change_percent": 5}}  # fmt: skip
    created = api.post("/v1/lps/watches", {"watches": [watch]})
    assert created.status_code == 200, created.text
    assert created.json() == {"result": 0, "watches": [{"product_code": "SKU-1", "created": True}]}

    scheduler_pass()
    run_worker()
    assert webhook_receiver.deliveries() == []  # the first run is the baseline

    marketplace.set_results(EARBUDS, earbuds(180_000))  # -10 %
    scheduler_pass()
    run_worker()
    (drop,) = webhook_receiver.deliveries()
    assert signed_by(shop, drop)
    body = json.loads(drop.body)
    assert (body["event"], body["product_code"], body["change_percent"]) == ("price_down", "SKU-1", -10.0)
    assert body["previous"]["outcome"] == body["current"]["outcome"] == "found"
    assert (body["previous"]["lowest"]["price"], body["current"]["lowest"]["price"]) == (200_000, 180_000)
    assert Job.objects.get(job_id=body["job_id"]).job_type == JobType.SEARCH

    marketplace.set_results(EARBUDS, earbuds(175_000))  # -2.8 %: under the threshold
    scheduler_pass()
    run_worker()
    assert len(webhook_receiver.deliveries()) == 1

    marketplace.set_results(EARBUDS, [])
    scheduler_pass()
    run_worker()
    deliveries = webhook_receiver.deliveries()
    assert len(deliveries) == 2
    gone = json.loads(deliveries[1].body)
    assert (gone["event"], gone["previous"]["lowest"]["price"], gone["current"]) == (
        "not_found",
        175_000,
        {"outcome": "not_found"},
    )
    assert signed_by(shop, deliveries[1])

    read = api.get("/v1/lps/watches/SKU-1").json()["watch"]
    assert [(point["outcome"], point.get("lowest", {}).get("price")) for point in read["history"]] == [
        ("found", 200_000),
        ("found", 180_000),
        ("found", 175_000),
        ("not_found", None),
    ]
    assert read["last"] == {"outcome": "not_found"}
    assert [(event["seq"], event["event"], event["state"]) for event in read["events"]] == [
        (2, "not_found", "delivered"),
        (1, "price_down", "delivered"),
    ]
    searches = Job.objects.filter(job_type=JobType.SEARCH)
    assert searches.count() == 4
    assert {job.priority for job in searches} == {150}


def test_another_clients_watch_of_the_same_product_code_is_its_own(live_server, marketplace, webhook_receiver):
    shop_a, shop_b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    as_a, as_b = HttpCaller(live_server.url, shop_a.api_key), HttpCaller(live_server.url, shop_b.api_key)
    marketplace.set_results(EARBUDS, earbuds(200_000))
    marketplace.set_results(VACUUM, [{"title": "다이슨 V15 디텍트 무선청소기 SV47", "price": 899_000}])
    as_a.post("/v1/lps/watches", {"watches": [{"product_code": "SKU-1", "product_name": EARBUDS, "every": "1h",
                                               "callback_url": webhook_receiver.url("/a")}]})  # fmt: skip
    as_b.post("/v1/lps/watches", {"watches": [{"product_code": "SKU-1", "product_name": VACUUM, "every": "1h",
                                               "callback_url": webhook_receiver.url("/b")}]})  # fmt: skip

    scheduler_pass()
    run_worker()
    marketplace.set_results(EARBUDS, earbuds(150_000))
    scheduler_pass()
    run_worker()

    read_a = as_a.get("/v1/lps/watches/SKU-1").json()["watch"]
    read_b = as_b.get("/v1/lps/watches/SKU-1").json()["watch"]
    assert [point["lowest"]["price"] for point in read_a["history"]] == [200_000, 150_000]
    assert [point["lowest"]["price"] for point in read_b["history"]] == [899_000, 899_000]
    assert [delivery.path for delivery in webhook_receiver.deliveries()] == ["/a"]
    assert signed_by(shop_a, webhook_receiver.deliveries()[0])
    # Shop B deleting its SKU-1 leaves shop A's alone.
    assert as_b.delete("/v1/lps/watches/SKU-1").json() == {"result": 0, "product_code": "SKU-1", "deleted": True}
    assert as_b.get("/v1/lps/watches/SKU-1").status_code == 404
    assert as_a.get("/v1/lps/watches/SKU-1").status_code == 200
    assert list(Watch.objects.values_list("client_id", flat=True)) == [shop_a.client.pk]


def test_shops_watching_one_product_share_a_fresh_result_marked_reused_without_a_second_browser_search(
    live_server, marketplace, settings
):
    settings.LPS_RESULT_REUSE_SECONDS = 1800
    shops = [keys.issue_key(f"shop-{index}") for index in range(3)]
    marketplace.set_results(EARBUDS, earbuds(200_000))
    for index, shop in enumerate(shops):
        HttpCaller(live_server.url, shop.api_key).post(
            "/v1/lps/watches",
            {
                "watches": [
                    {"product_code": f"OWN-{index}", "product_name": EARBUDS, "model_code": "SM-R630", "every": "1d"}
                ]
            },
        )
    make_due()
    # One shop's run first, the others after it: a fresh result exists by the time they run.
    first = Watch.objects.get(client_id=shops[0].client.pk)
    Watch.objects.exclude(pk=first.pk).update(paused=True)
    Reaper(interval=1).run_once()
    run_worker()
    Watch.objects.update(paused=False)
    Reaper(interval=1).run_once()
    run_worker()

    assert marketplace.search_queries == [EARBUDS]
    results = {job.payload["client_id"]: job.result for job in Job.objects.filter(job_type=JobType.SEARCH)}
    searched = results[shops[0].client.pk]
    assert "reused" not in searched
    first_job = Job.objects.get(job_type=JobType.SEARCH, owner_id=shops[0].client.pk).job_id
    for shop in shops[1:]:
        reused = results[shop.client.pk]
        # Another shop's job id is that shop's: the reused result does not name it (tests/api/test_cross_tenant.py).
        assert reused["reused"] is True
        assert "reused_from" not in reused
        assert str(first_job) not in json.dumps(reused)
        assert (reused["lowest"], reused["matches"]) == (searched["lowest"], searched["matches"])
        assert reused["metrics"]["cost"]["total_usd"] == 0
        read = HttpCaller(live_server.url, shop.api_key).get(f"/v1/lps/watches/OWN-{shops.index(shop)}").json()
        assert read["watch"]["history"][0]["reused"] is True


def test_a_reused_result_still_honours_the_watching_clients_own_rejection_of_its_lowest_listing(
    live_server, marketplace, settings
):
    settings.LPS_RESULT_REUSE_SECONDS = 1800
    searching, rejecting = keys.issue_key("searching-shop"), keys.issue_key("rejecting-shop")
    marketplace.set_results(EARBUDS, earbuds(200_000))
    for shop in (searching, rejecting):
        HttpCaller(live_server.url, shop.api_key).post(
            "/v1/lps/watches",
            {"watches": [{"product_code": "OWN", "product_name": EARBUDS, "model_code": "SM-R630", "every": "1d"}]},
        )
    # The rejecting shop said earlier that the 200,000 listing (product 9001) is not its product.
    Correction.objects.create(
        client_id=rejecting.client.pk,
        product_code="OWN",
        identity="earbuds",
        marketplace="coupang",
        product_id="9001",
        same_product=False,
        made_by=Author.CLIENT,
    )
    make_due()
    Watch.objects.filter(client_id=rejecting.client.pk).update(paused=True)
    Reaper(interval=1).run_once()
    run_worker()
    Watch.objects.update(paused=False)
    Reaper(interval=1).run_once()
    run_worker()

    assert marketplace.search_queries == [EARBUDS]
    results = {job.owner_id: job.result for job in Job.objects.filter(job_type=JobType.SEARCH)}
    assert results[searching.client.pk]["lowest"]["price"] == 200_000
    reused = results[rejecting.client.pk]
    assert reused["reused"] is True
    assert reused["lowest"]["price"] == 220_000
    rejected = [
        verdict for round_ in reused["rounds"] for verdict in round_["verdicts"] if verdict.get("product_id") == "9001"
    ]
    assert rejected
    assert all(verdict["source"] == "correction" and not verdict["same_product"] for verdict in rejected)


def test_run_now_searches_the_marketplace_again_and_reports_the_moved_price_with_the_due_time_unchanged(
    live_server, marketplace, settings
):
    # Reuse on, as deployed: a scheduled run would be answered by the watch's own previous result.
    settings.LPS_RESULT_REUSE_SECONDS = 1800
    shop = keys.issue_key("shop")
    api = HttpCaller(live_server.url, shop.api_key)
    marketplace.set_results(EARBUDS, earbuds(209_000))
    watch = {"product_code": "SKU-1", "product_name": EARBUDS, "model_code": "SM-R630", "every": "1d"}
    assert api.post("/v1/lps/watches", {"watches": [watch]}).status_code == 200
    scheduler_pass()
    run_worker()
    before = api.get("/v1/lps/watches/SKU-1").json()["watch"]
    assert before["last"]["lowest"]["price"] == 209_000

    marketplace.set_results(EARBUDS, earbuds(189_000))
    ran = api.post("/v1/lps/watches/SKU-1/run")
    assert ran.status_code == 200, ran.text
    assert ran.json()["duplicate"] is False
    run_worker()

    after = api.get("/v1/lps/watches/SKU-1").json()["watch"]
    assert after["last"]["lowest"]["price"] == 189_000
    assert "reused" not in after["last"]
    assert after["next_run_at"] == before["next_run_at"]
    assert [point["lowest"]["price"] for point in after["history"]] == [209_000, 189_000]
    assert marketplace.search_queries == [EARBUDS, EARBUDS]
    result = Job.objects.get(job_id=ran.json()["job_id"]).result
    assert ("reused" in result, result["cached"]) == (False, False)


def test_run_now_searches_a_product_the_negative_cache_holds_as_not_found_and_finds_it_once_it_is_listed(
    live_server, marketplace
):
    shop = keys.issue_key("shop")
    api = HttpCaller(live_server.url, shop.api_key)
    marketplace.set_results(VACUUM, [])
    watch = {"product_code": "SKU-2", "product_name": VACUUM, "model_code": "SV47", "every": "1d"}
    assert api.post("/v1/lps/watches", {"watches": [watch]}).status_code == 200
    scheduler_pass()
    run_worker()
    assert api.get("/v1/lps/watches/SKU-2").json()["watch"]["last"]["outcome"] == "not_found"
    searched = len(marketplace.search_queries)

    marketplace.set_results(VACUUM, [{"title": "다이슨 V15 디텍트 무선청소기 SV47 니켈", "price": 899_000}])
    ran = api.post("/v1/lps/watches/SKU-2/run")
    run_worker()

    result = Job.objects.get(job_id=ran.json()["job_id"]).result
    assert (result["outcome"], result["cached"]) == ("found", False)
    assert result["lowest"]["price"] == 899_000
    assert len(marketplace.search_queries) > searched


def test_undercut_is_sent_signed_once_when_the_market_crosses_below_the_shops_price_and_again_after_it_went_above(
    live_server, marketplace, webhook_receiver
):
    shop = keys.issue_key("shop")
    api = HttpCaller(live_server.url, shop.api_key)
    watch = {"product_code": "SKU-1", "product_name": EARBUDS, "model_code": "SM-R630", "price": 200_000,
             "every": "6h", "callback_url": webhook_receiver.url("/events"),
             "notify": {"events": ["undercut"]}}  # fmt: skip
    assert api.post("/v1/lps/watches", {"watches": [watch]}).status_code == 200
    sent = []
    for market_price in (210_000, 195_000, 190_000, 205_000, 198_000):
        marketplace.set_results(EARBUDS, earbuds(market_price))
        scheduler_pass()
        run_worker()
        sent.append(len(webhook_receiver.deliveries()))
        if market_price == 190_000:
            standing = api.get("/v1/lps/watches/SKU-1").json()["watch"]["position"]

    assert sent == [0, 1, 1, 1, 2]
    first, second = (json.loads(delivery.body) for delivery in webhook_receiver.deliveries())
    assert all(signed_by(shop, delivery) for delivery in webhook_receiver.deliveries())
    assert (first["event"], first["current"]["lowest"]["price"], first["own_price"]) == ("undercut", 195_000, 200_000)
    assert (second["event"], second["current"]["lowest"]["price"], second["seq"]) == ("undercut", 198_000, 2)
    assert {key: standing[key] for key in ("own_price", "market_price", "gap_won", "gap_percent", "undercut")} == {
        "own_price": 200_000, "market_price": 190_000, "gap_won": 10_000, "gap_percent": 5.26, "undercut": True,
    }  # fmt: skip
    assert standing["marketplace"] == "coupang"
    assert "since" in standing
