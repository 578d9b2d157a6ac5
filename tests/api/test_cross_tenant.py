"""Two shops watch one product; nothing of one reaches the other. Shop A searches, rejects the lowest listing with
a private note, reports a price, searches again (its correction shapes that search) and gets a watch event through
a callback; shop B's watch then runs on the shared fresh result. Everything B can read over real HTTP (jobs, its job
list, watches, a watch's history and events, corrections, the webhooks it receives, and its attempts on A's job)
holds no correction, note or job id of A, and B's answer is the one the marketplace gave, not A's corrected one."""

from __future__ import annotations

import json
import re

import pytest

from api import keys
from corrections.models import Correction, PriceReport
from jobs.models import Job
from jobs.reaper import Reaper
from lps_site.job_types import JobType
from search import handler
from tests.watches.helpers import HttpCaller, make_due, run_worker
from watches.models import Watch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EARBUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"
A_NOTE = "A-PRIVATE-NOTE a refurbished unit"
A_REPORT = "A-PRIVATE-REPORT the price is a coupon price"


def earbuds(price: int) -> list[dict]:
    return [
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버", "price": price + 6_500, "seller": "삼성전자"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트", "price": price, "product_id": "9001"},
    ]


@pytest.fixture
def marketplace(fake_coupang, settings):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    settings.LPS_RESULT_REUSE_SECONDS = 1800
    yield fake_coupang
    handler.close_shared_crawler()


def watch(code: str, callback: str) -> dict:
    return {"product_code": code, "product_name": EARBUDS, "model_code": "SM-R630", "every": "1d",
            "callback_url": callback}  # fmt: skip


def test_no_correction_note_or_job_id_of_one_shop_appears_in_anything_another_shop_can_read(
    live_server, marketplace, webhook_receiver
):
    shop_a, shop_b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    as_a, as_b = HttpCaller(live_server.url, shop_a.api_key), HttpCaller(live_server.url, shop_b.api_key)
    marketplace.set_results(EARBUDS, earbuds(197_000))
    assert as_a.post("/v1/lps/watches", {"watches": [watch("A-SKU", webhook_receiver.url("/a"))]}).ok
    assert as_b.post("/v1/lps/watches", {"watches": [watch("B-SKU", webhook_receiver.url("/b"))]}).ok

    # A's watch runs first (a browser search), B's is paused meanwhile.
    make_due()
    Watch.objects.filter(client_id=shop_b.client.pk).update(paused=True)
    Reaper(interval=1).run_once()
    run_worker()
    first = Job.objects.get(job_type=JobType.SEARCH, owner_id=shop_a.client.pk)
    assert first.result["lowest"]["price"] == 197_000
    # A rejects the lowest listing with a note, and reports the job's price.
    corrected = as_a.post(
        f"/v1/lps/jobs/{first.job_id}/corrections",
        {"marketplace": "coupang", "product_id": "9001", "same_product": False, "note": A_NOTE},
    )
    assert corrected.status_code == 201, corrected.text
    assert as_a.post(f"/v1/lps/jobs/{first.job_id}/reports", {"note": A_REPORT}).status_code == 201
    # A's own search of the product now runs with its correction: its answer is A's.
    own = as_a.post("/v1/lps/search", {"products": [{"product_code": "A-SKU", "product_name": EARBUDS,
                                                      "model_code": "SM-R630"}]})  # fmt: skip
    assert own.status_code == 202, own.text
    run_worker()
    a_search = Job.objects.get(job_id=own.json()["jobs"][0]["job_id"])
    assert a_search.result["lowest"]["price"] == 203_500
    # B's watch runs on the fresh result of the same product.
    Watch.objects.update(paused=False)
    make_due()
    Reaper(interval=1).run_once()
    run_worker()

    b_jobs = list(Job.objects.filter(owner_id=shop_b.client.pk, job_type=JobType.SEARCH))
    assert len(b_jobs) == 1
    assert b_jobs[0].result["reused"] is True
    assert b_jobs[0].result["lowest"]["price"] == 197_000
    assert "reused_from" not in b_jobs[0].result

    a_job_ids = [
        str(job_id) for job_id in Job.objects.filter(owner_id=shop_a.client.pk).values_list("job_id", flat=True)
    ]
    a_correction_ids = list(Correction.objects.filter(client_id=shop_a.client.pk).values_list("pk", flat=True))
    a_report_ids = list(PriceReport.objects.values_list("pk", flat=True))
    assert len(a_job_ids) >= 3
    assert a_correction_ids
    assert a_report_ids
    b_job = str(b_jobs[0].job_id)
    reads = {
        "job": as_b.get(f"/v1/lps/jobs/{b_job}"),
        "jobs": as_b.get("/v1/lps/jobs"),
        "watches": as_b.get("/v1/lps/watches"),
        "watch": as_b.get("/v1/lps/watches/B-SKU"),
        "watch of A's code": as_b.get("/v1/lps/watches/A-SKU"),
        "corrections": as_b.get("/v1/lps/corrections"),
        "corrections of A's code": as_b.get("/v1/lps/corrections", product_code="A-SKU"),
        "B's correction of its job": as_b.post(
            f"/v1/lps/jobs/{b_job}/corrections",
            {"marketplace": "coupang", "product_id": "9001", "same_product": True},
        ),
        "B's report of its job": as_b.post(f"/v1/lps/jobs/{b_job}/reports", {}),
    }
    assert reads["watch of A's code"].status_code == 404
    for name, response in reads.items():
        assert response.status_code < 500, (name, response.text)
    # B's attempts on A's job are 404s; what they echo is B's own input, so they are checked apart.
    for attempt in (
        as_b.get(f"/v1/lps/jobs/{first.job_id}"),
        as_b.post(
            f"/v1/lps/jobs/{first.job_id}/corrections",
            {"marketplace": "coupang", "product_id": "9001", "same_product": True},
        ),
        as_b.post(f"/v1/lps/jobs/{first.job_id}/reports", {}),
    ):
        assert attempt.status_code == 404, attempt.text
        assert "PRIVATE" not in attempt.text
    received = [request.body.decode() for request in webhook_receiver.requests if request.path == "/b"]
    texts = {name: response.text for name, response in reads.items()} | {
        f"webhook {i}": b for i, b in enumerate(received)
    }
    for name, text in texts.items():
        assert "PRIVATE" not in text, name
        assert "correction: not this product" not in text, name
        for job_id in a_job_ids:
            assert job_id not in text, (name, job_id)
        numbers = {int(n) for n in re.findall(r'"(?:correction_id|report_id)":\s*(\d+)', text)}
        assert not numbers & set(a_correction_ids + a_report_ids), name
    listed = json.loads(reads["corrections"].text)["corrections"]
    assert all(row["product_code"] == "B-SKU" for row in listed)
