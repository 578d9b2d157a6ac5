"""Two shops through the whole service: the API, the real queue and worker, the real Chromium on the fake
marketplace, and webhooks to a real receiver. A product_code is one shop's SKU; a product's not_found is
everyone's."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from api import keys
from jobs import handlers
from jobs.models import Job, JobStatus
from jobs.worker import Worker
from lps_site.job_types import JobType
from search import handler
from search.models import Product
from tests.api.conftest import Caller

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EARBUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
VACUUM = "다이슨 V15 디텍트 무선청소기 SV47"
STANDBYME = "LG 스탠바이미 27ART10AKPL 무선 이동식 TV"
LISTINGS = {
    EARBUDS: [
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": 219_000, "seller": "삼성전자"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트", "price": 199_000},
    ],
    VACUUM: [
        {"title": "다이슨 V15 디텍트 무선청소기 SV47", "price": 899_000, "seller": "다이슨"},
        {"title": "다이슨 V15 디텍트 무선청소기 SV47 블루", "price": 949_000},
    ],
}


@pytest.fixture
def marketplace(fake_coupang, settings):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    for query, listings in LISTINGS.items():
        fake_coupang.set_results(query, listings)
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


def post(caller: Caller, *products: dict) -> list[str]:
    response = caller.post("/v1/lps/search", {"products": list(products)})
    assert response.status_code == 202, response.content
    return [job["job_id"] for job in response.json()["jobs"]]


def test_two_shops_with_the_same_product_code_get_two_results_and_two_webhooks_each_to_its_own_callback(
    client, marketplace, webhook_receiver
):
    shop_a, shop_b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    as_a, as_b = Caller(client, shop_a.api_key), Caller(client, shop_b.api_key)
    (job_a,) = post(as_a, {"product_code": "SKU-1", "product_name": EARBUDS, "model_code": "SM-R630",
                           "callback_url": webhook_receiver.url("/shop-a")})  # fmt: skip
    (job_b,) = post(as_b, {"product_code": "SKU-1", "product_name": VACUUM, "model_code": "SV47",
                           "callback_url": webhook_receiver.url("/shop-b")})  # fmt: skip

    run_worker()

    read_a = as_a.get(f"/v1/lps/jobs/{job_a}").json()["job"]
    read_b = as_b.get(f"/v1/lps/jobs/{job_b}").json()["job"]
    assert (read_a["status"], read_a["result"]["lowest"]["price"]) == ("DONE", 199_000)
    assert (read_b["status"], read_b["result"]["lowest"]["price"]) == ("DONE", 899_000)
    assert as_b.get(f"/v1/lps/jobs/{job_a}").status_code == 404
    deliveries = {delivery.path: delivery for delivery in webhook_receiver.deliveries()}
    assert set(deliveries) == {"/shop-a", "/shop-b"}
    for path, issued, job_id, price in (("/shop-a", shop_a, job_a, 199_000), ("/shop-b", shop_b, job_b, 899_000)):
        delivery = deliveries[path]
        body = json.loads(delivery.body)
        assert (body["job_id"], body["product_code"], body["result"]["lowest"]["price"]) == (job_id, "SKU-1", price)
        expected = "sha256=" + hmac.new(issued.webhook_secret.encode(), delivery.body, hashlib.sha256).hexdigest()
        assert delivery.headers["x-lps-signature"] == expected
        assert delivery.headers["idempotency-key"] == job_id
    outboxes = Job.objects.filter(job_type=JobType.OUTBOX)
    assert {(job.owner_id, job.status) for job in outboxes} == {
        (shop_a.client.pk, JobStatus.DONE),
        (shop_b.client.pk, JobStatus.DONE),
    }
    products = {product.client_id: product for product in Product.objects.filter(product_code="SKU-1")}
    assert (products[shop_a.client.pk].product_name, products[shop_a.client.pk].last_price) == (EARBUDS, 199_000)
    assert (products[shop_b.client.pk].product_name, products[shop_b.client.pk].last_price) == (VACUUM, 899_000)


def test_one_shops_not_found_answers_another_shop_asking_for_the_same_product_while_its_own_sku_is_searched(
    client, marketplace
):
    shop_a, shop_b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    as_a, as_b = Caller(client, shop_a.api_key), Caller(client, shop_b.api_key)
    standbyme = {"product_name": STANDBYME, "model_code": "27ART10AKPL", "brand": "LG전자"}
    (first,) = post(as_a, {"product_code": "A-77", **standbyme})
    run_worker()
    searches_before = len(marketplace.search_queries)

    # Shop B: the same product under its own code (in another spelling), and its own, different A-77.
    respelled = {
        "product_name": "lg 스탠바이미  27ART10AKPL 무선 이동식 TV ",
        "model_code": "27art10akpl",
        "brand": "LG전자",
    }
    same, other = post(
        as_b,
        {"product_code": "B-1", **respelled},
        {"product_code": "A-77", "product_name": VACUUM, "model_code": "SV47"},
    )
    run_worker()

    assert as_a.get(f"/v1/lps/jobs/{first}").json()["job"]["result"]["outcome"] == "not_found"
    cached = as_b.get(f"/v1/lps/jobs/{same}").json()["job"]["result"]
    assert (cached["outcome"], cached["cached"], cached["rounds"]) == ("not_found", True, [])
    searched = as_b.get(f"/v1/lps/jobs/{other}").json()["job"]["result"]
    assert (searched["outcome"], searched["cached"], searched["lowest"]["price"]) == ("found", False, 899_000)
    assert marketplace.search_queries[searches_before:] == [VACUUM]
