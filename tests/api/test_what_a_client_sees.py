"""What a client reads of a failure, over real HTTP (a live server): the part of a stored error written for it,
never what a webhook receiver answered nor which setting of the deployment is wrong (jobs/client_view.py)."""

from __future__ import annotations

import uuid

import pytest

from api import keys
from jobs.models import Job, JobStatus
from tests.watches.helpers import HttpCaller, run_worker
from watches import changes
from watches.models import Watch, WatchEvent

pytestmark = [pytest.mark.django_db(transaction=True)]

PRIVATE_PAGE = b"<html><title>router admin</title>password=hunter2 token=s3cr3t-of-the-lan</html>"


def test_a_watch_event_refused_by_its_callback_shows_the_client_the_status_and_never_the_receivers_body(
    live_server, webhook_receiver, settings
):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    shop = keys.issue_key("shop")
    as_shop = HttpCaller(live_server.url, shop.api_key)
    callback = webhook_receiver.url("/local-admin?token=s3cr3t-of-the-url")
    watch = {"product_code": "W-1", "product_name": "삼다수 2L 6개", "every": "1h", "callback_url": callback}
    assert as_shop.post("/v1/lps/watches", {"watches": [watch]}).status_code == 200
    for result in ({"outcome": "found", "lowest": {"price": 1000}}, {"outcome": "not_found"}):
        changes.record_run(Watch.objects.get(), uuid.uuid4(), result)
    webhook_receiver.failure_body = PRIVATE_PAGE
    webhook_receiver.fail_next(1, status=500)

    run_worker()

    # Operators still have the receiver's answer where they look (the admin reads the stored error).
    assert "hunter2" in WatchEvent.objects.get().last_error
    (event,) = as_shop.get("/v1/lps/watches/W-1").json()["watch"]["events"]
    assert event["last_error"] == "WebhookRejected: the callback answered HTTP 500 Internal Server Error"
    assert event["state"] == "pending"


def test_a_naver_that_refuses_lps_keys_tells_the_client_so_and_keeps_the_settings_advice_for_operators(
    live_server, fake_naver
):
    fake_naver.client_secret = "the secret Naver has now"
    shop = keys.issue_key("shop")
    as_shop = HttpCaller(live_server.url, shop.api_key)
    product = {"product_code": "N-1", "product_name": "삼성전자 갤럭시 버즈3 프로", "marketplaces": ["naver"]}
    posted = as_shop.post("/v1/lps/search", {"products": [product]})
    assert posted.status_code == 202, posted.text

    run_worker()

    dead = Job.objects.get()
    assert dead.status == JobStatus.DEAD
    assert "NAVER_CLIENT_ID" in dead.last_error
    read = as_shop.get(f"/v1/lps/jobs/{dead.job_id}").json()["job"]
    assert read["last_error"] == "NaverRejected: Naver's Search API refused LPS's credentials (HTTP 401)"
    listed = as_shop.get("/v1/lps/jobs").json()["jobs"]
    assert [row.get("error") for row in listed] == [read["last_error"]]
