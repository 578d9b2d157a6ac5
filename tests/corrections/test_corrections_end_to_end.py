"""Corrections through the whole service (SPEC §10): the API, the real queue and worker, the real Chromium on the
fake marketplace and webhooks to a real receiver. A shop's rejection sticks for its own product and no one
else's; an operator's global one sticks for everyone; a confirmed listing counts; a re-answer is a signed
`corrected` webhook."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from api import keys
from corrections.models import Correction
from jobs import handlers
from jobs.worker import Worker
from lps_site.job_types import JobType
from search import handler
from search.models import Product
from tests.api.conftest import Caller

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EARBUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
TITLE = "삼성전자 갤럭시 버즈3 프로 SM-R630 실버"
# The same title twice: no judge can tell them apart; the shop knows the cheap one is a counterfeit seller's.
TRAP = {"title": TITLE, "price": 99_000, "product_id": "7001", "seller": "해외직구몰"}
GENUINE = {"title": TITLE, "price": 219_000, "product_id": "7002", "seller": "삼성전자"}
HEADPHONES = "소니 WH-1000XM5 헤드폰"
# The title lacks the model code: the rules leave it uncertain, so without an LLM nothing is found.
UNCERTAIN = {"title": "소니 무선 노이즈캔슬링 헤드폰 블랙", "price": 389_000, "product_id": "8001"}


@pytest.fixture
def marketplace(fake_coupang, settings):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    fake_coupang.set_results(EARBUDS, [TRAP, GENUINE, {"title": "버즈3 프로 케이스", "price": 9_900}])
    fake_coupang.set_results(HEADPHONES, [UNCERTAIN])
    yield fake_coupang
    handler.close_shared_crawler()


def run_worker() -> None:
    worker = Worker(
        {JobType.SEARCH: handlers.get(JobType.SEARCH), JobType.OUTBOX: handlers.get(JobType.OUTBOX)},
        concurrency={JobType.SEARCH: 2, JobType.OUTBOX: 2},
        burst=True,
        poll_only=True,
        poll_interval=0.2,
        shutdown_hooks=[],
    )
    assert worker.run() == 0


def search(caller: Caller, product: dict) -> str:
    response = caller.post("/v1/lps/search", {"products": [product]})
    assert response.status_code == 202, response.content
    return response.json()["jobs"][0]["job_id"]


def result_of(caller: Caller, job_id: str) -> dict:
    job = caller.get(f"/v1/lps/jobs/{job_id}").json()["job"]
    assert job["status"] == "DONE", job
    return job["result"]


def verdicts_of(result: dict, product_id: str) -> list[dict]:
    return [v for r in result["rounds"] for v in r["verdicts"] if v.get("product_id") == product_id]


def correct(caller: Caller, job_id: str, **body) -> dict:
    response = caller.post(f"/v1/lps/jobs/{job_id}/corrections", {"marketplace": "coupang", **body})
    assert response.status_code == 201, response.content
    return response.json()


def signed_by(delivery, secret: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), delivery.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(delivery.headers["x-lps-signature"], expected)


def test_a_rejected_trap_sticks_for_that_shop_only_and_an_operator_s_global_rejection_for_every_shop(
    client, marketplace, webhook_receiver
):
    shop_a, shop_b, shop_c = keys.issue_key("shop-a"), keys.issue_key("shop-b"), keys.issue_key("shop-c")
    as_a, as_b, as_c = (Caller(client, shop.api_key) for shop in (shop_a, shop_b, shop_c))
    as_operator = Caller(client, keys.issue_key("ops", operator=True).api_key)
    earbuds = {"product_code": "SKU-1", "product_name": EARBUDS, "model_code": "SM-R630"}
    first_a = search(as_a, {**earbuds, "callback_url": webhook_receiver.url("/shop-a")})
    first_b = search(as_b, earbuds)
    run_worker()
    assert result_of(as_a, first_a)["lowest"]["price"] == 99_000
    assert result_of(as_b, first_b)["lowest"]["price"] == 99_000

    # Shop A: "7001 is not my product". Its job is re-answered at once from the listings it judged.
    said = correct(as_a, first_a, product_id="7001", same_product=False, note="counterfeit seller")
    assert (said["changed"], said["current"]["lowest"]["price"]) == (True, 219_000)
    searches_before = len(marketplace.search_queries)
    run_worker()  # delivers the `corrected` webhook
    assert len(marketplace.search_queries) == searches_before, "a re-answer searches nothing"
    corrected = result_of(as_a, first_a)
    assert (corrected["lowest"]["price"], corrected["lowest"]["product_id"]) == (219_000, "7002")
    deliveries = {d.headers["idempotency-key"]: d for d in webhook_receiver.deliveries() if d.path == "/shop-a"}
    assert set(deliveries) == {first_a, f"{first_a}:corrected:1"}
    delivery = deliveries[f"{first_a}:corrected:1"]
    body = json.loads(delivery.body)
    assert (body["event"], body["job_id"], body["product_code"]) == ("corrected", first_a, "SKU-1")
    assert (body["previous"]["lowest"]["price"], body["result"]["lowest"]["price"]) == (99_000, 219_000)
    assert signed_by(delivery, shop_a.webhook_secret)
    assert "event" not in json.loads(deliveries[first_a].body)
    product = Product.objects.get(client_id=shop_a.client.pk, product_code="SKU-1")
    assert (product.last_price, product.snapshots.get(job_id=first_a).price) == (219_000, 219_000)

    # The next search of that product: shop A never sees the trap again, shop B (same product_code) still does.
    again_a, again_b = search(as_a, earbuds), search(as_b, earbuds)
    run_worker()
    again = result_of(as_a, again_a)
    assert again["lowest"]["price"] == 219_000
    assert [(v["same_product"], v["source"]) for v in verdicts_of(again, "7001")] == [(False, "correction")]
    assert result_of(as_b, again_b)["lowest"]["price"] == 99_000

    # An operator's global rejection: every client's searches of the product identity, under any product_code.
    correct(as_operator, again_b, product_id="7001", same_product=False, scope="global")
    assert result_of(as_b, again_b)["lowest"]["price"] == 219_000
    third_b = search(as_b, earbuds)
    other_code = search(as_c, {**earbuds, "product_code": "C-900"})
    run_worker()
    for caller, job_id in ((as_b, third_b), (as_c, other_code)):
        result = result_of(caller, job_id)
        assert result["lowest"]["price"] == 219_000
        assert verdicts_of(result, "7001")[0]["source"] == "correction"
    assert Correction.objects.count() == 2


def test_a_confirmation_makes_an_uncertain_listing_count_now_and_in_the_next_search(
    client, marketplace, webhook_receiver
):
    shop = keys.issue_key("shop")
    as_shop = Caller(client, shop.api_key)
    headphones = {"product_code": "WH-5", "product_name": HEADPHONES, "model_code": "WH-1000XM5",
                  "callback_url": webhook_receiver.url("/hook")}  # fmt: skip
    first = search(as_shop, headphones)
    run_worker()
    before = result_of(as_shop, first)
    assert before["outcome"] == "not_found"
    assert verdicts_of(before, "8001")[0].get("uncertain") is True

    said = correct(as_shop, first, product_id="8001", same_product=True, note="the XM5, black")
    run_worker()

    assert (said["previous"], said["current"]["lowest"]["price"]) == ({"outcome": "not_found"}, 389_000)
    assert result_of(as_shop, first)["lowest"]["price"] == 389_000
    corrected = [d for d in webhook_receiver.deliveries() if d.headers["idempotency-key"].endswith(":corrected:1")]
    assert len(corrected) == 1
    assert signed_by(corrected[0], shop.webhook_secret)
    assert json.loads(corrected[0].body)["result"]["outcome"] == "found"
    # The next search is not answered by the not_found the first one remembered: the confirmation counts.
    second = search(as_shop, headphones)
    run_worker()
    found = result_of(as_shop, second)
    assert (found["outcome"], found["cached"], found["lowest"]["price"]) == ("found", False, 389_000)
    assert verdicts_of(found, "8001")[0]["source"] == "correction"
