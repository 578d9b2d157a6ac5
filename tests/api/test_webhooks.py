"""Webhooks through the OUTBOX: delivered by the real worker to a real local receiver, signed, retried with
backoff until a 2xx, one logical delivery per job, and never to a host that is not (or no longer) allowed."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import socket
import threading
import time
import uuid

import pytest
from django.db.models.functions import Now

from api.codes import ResultCode
from jobs import handlers, queue
from jobs.models import Job, JobStatus
from jobs.worker import Worker
from lps_site.job_types import JobType
from tests.addresses import free_port

pytestmark = [pytest.mark.django_db(transaction=True)]

RESULT = {
    "outcome": "found",
    "lowest": {"price": 990, "title": "물티슈 100매", "url": "https://example.test/p/9", "rocket": False},
    "matches": [],
    "rounds": [{"query": "물티슈", "kind": "original", "candidates": 1, "matches": 1}],
    "cached": False,
    "metrics": {"duration_ms": 800, "rounds": 1, "cost": {"ai_usd": 0.0, "proxy_usd": 0.0, "total_usd": 0.0}},
}


@pytest.fixture
def private_callbacks(settings):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    return settings


def submit_and_search(as_shop, callback_url: str, code: str = "W1") -> tuple[str, uuid.UUID]:
    """POST one product with a callback, then play the search worker: finish the SEARCH job and enqueue its
    OUTBOX job exactly as the SEARCH handler does. Return the search job id and the OUTBOX job id."""
    response = as_shop.post(
        "/v1/lps/search", {"products": [{"product_code": code, "product_name": "물티슈", "callback_url": callback_url}]}
    )
    assert response.status_code == 202, response.content
    search_job_id = response.json()["jobs"][0]["job_id"]
    (claimed,) = queue.claim("search-worker", job_types=[JobType.SEARCH])
    payload = claimed.payload
    outbox = queue.enqueue(
        queue.NewJob(
            JobType.OUTBOX,
            {
                "search_job_id": search_job_id,
                "product_code": payload["product_code"],
                "callback_url": payload["callback_url"],
                "client_id": payload["client_id"],
                "result": RESULT,
            },
            dedupe_key=f"outbox:{search_job_id}",
            # As the SEARCH handler does: the delivery belongs to the client, who reads it.
            owner_id=payload["client_id"],
        )
    )
    assert isinstance(queue.complete(claimed, RESULT), queue.Moved)
    return search_job_id, outbox.job_id


def run_outbox_worker(outbox_job_id: uuid.UUID, *, passes: int) -> Job:
    """Run a real worker (OUTBOX lane only, burst) `passes` times; between passes the backoff is skipped by
    moving run_after to now, so the test need not wait 5 s and more per retry."""
    registry = {JobType.OUTBOX: handlers.get(JobType.OUTBOX)}
    for _ in range(passes):
        Job.objects.filter(job_id=outbox_job_id, status=JobStatus.PENDING).update(run_after=Now())
        worker = Worker(
            registry,
            burst=True,
            poll_only=True,
            poll_interval=0.2,
            concurrency={JobType.OUTBOX: 1},
            shutdown_hooks=[],
            grace_seconds=5,
        )
        assert worker.run() == 0
        job = Job.objects.get(job_id=outbox_job_id)
        if job.status in (JobStatus.DONE, JobStatus.DEAD):
            return job
    return Job.objects.get(job_id=outbox_job_id)


def test_a_receiver_that_fails_twice_gets_the_result_on_the_third_attempt_signed_and_once(
    as_shop, shop, webhook_receiver, private_callbacks
):
    webhook_receiver.fail_next(2, status=503)
    search_job_id, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url("/lps/hook?shop=7"))
    job = run_outbox_worker(outbox_job_id, passes=3)

    assert (job.status, job.attempts) == (JobStatus.DONE, 3)
    assert [request.status for request in webhook_receiver.requests] == [503, 503, 200]
    bodies = {request.body for request in webhook_receiver.requests}
    assert len(bodies) == 1, "every attempt sends the same bytes"
    for request in webhook_receiver.requests:
        assert request.path == "/lps/hook?shop=7"
        assert request.headers["idempotency-key"] == search_job_id
        expected = hmac.new(shop.webhook_secret.encode(), request.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(request.headers["x-lps-signature"], f"sha256={expected}")
        assert request.headers["content-type"].startswith("application/json")
    delivered = json.loads(bodies.pop())
    assert delivered == {"job_id": search_job_id, "product_code": "W1", "result": RESULT}
    assert len(webhook_receiver.deliveries()) == 1


def test_a_second_outbox_job_for_the_same_search_is_deduplicated_while_the_first_is_active(
    as_shop, webhook_receiver, private_callbacks
):
    search_job_id, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    again = queue.enqueue(
        queue.NewJob(JobType.OUTBOX, {"search_job_id": search_job_id}, dedupe_key=f"outbox:{search_job_id}")
    )
    assert (again.duplicate, again.job_id) == (True, outbox_job_id)


def test_a_receiver_that_keeps_failing_ends_dead_and_an_operator_requeue_delivers_it(
    as_shop, as_operator, webhook_receiver, private_callbacks
):
    webhook_receiver.fail_next(3, status=500)
    search_job_id, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    job = run_outbox_worker(outbox_job_id, passes=3)
    assert (job.status, job.attempts) == (JobStatus.DEAD, 3)
    assert job.last_error.startswith("WebhookRejected:")
    assert "HTTP 500" in job.last_error

    requeued = as_operator.post(f"/v1/lps/jobs/{outbox_job_id}/requeue")
    assert requeued.json()["result"] == ResultCode.SUCCESS
    assert run_outbox_worker(outbox_job_id, passes=1).status == JobStatus.DONE
    assert len(webhook_receiver.requests) == 4
    assert [request.headers["idempotency-key"] for request in webhook_receiver.deliveries()] == [search_job_id]


def test_a_redirect_is_a_failed_attempt_and_is_not_followed(as_shop, webhook_receiver, private_callbacks):
    webhook_receiver.redirect_next(1, "http://169.254.169.254/latest/meta-data/")
    # A name (RFC 6761 keeps *.localhost on the loopback without DNS): delivery connects to the address it
    # checked and still names the host in the Host header.
    url = f"http://hooks.localhost:{webhook_receiver.port}/hook"
    _, outbox_job_id = submit_and_search(as_shop, url)
    job = run_outbox_worker(outbox_job_id, passes=1)
    assert job.status == JobStatus.PENDING
    assert "HTTP 302" in job.last_error
    assert len(webhook_receiver.requests) == 1
    assert webhook_receiver.requests[0].headers["host"] == f"hooks.localhost:{webhook_receiver.port}"


def test_a_callback_that_is_no_longer_allowed_at_delivery_ends_dead_without_a_request(
    as_shop, webhook_receiver, private_callbacks
):
    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    private_callbacks.LPS_ALLOW_PRIVATE_CALLBACKS = False
    job = run_outbox_worker(outbox_job_id, passes=1)
    assert (job.status, job.attempts) == (JobStatus.DEAD, 1)
    assert job.last_error.startswith("UnsafeCallbackUrl:")
    assert webhook_receiver.requests == []


def test_a_metadata_callback_slipped_into_the_outbox_is_refused_at_delivery(shop, webhook_receiver, private_callbacks):
    search = queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "M1"}, dedupe_key="search:M1"))
    (claimed,) = queue.claim("search-worker", job_types=[JobType.SEARCH])
    queue.complete(claimed, RESULT)
    outbox = queue.enqueue(
        queue.NewJob(
            JobType.OUTBOX,
            {
                "search_job_id": str(search.job_id),
                "product_code": "M1",
                "client_id": shop.client.pk,
                "callback_url": "http://169.254.169.254/latest/meta-data/",
                "result": RESULT,
            },
        )
    )
    job = run_outbox_worker(outbox.job_id, passes=1)
    assert (job.status, job.attempts) == (JobStatus.DEAD, 1)
    assert "169.254.169.254" in job.last_error


def test_a_receiver_slower_than_the_timeout_is_a_retryable_failure(as_shop, webhook_receiver, private_callbacks):
    private_callbacks.LPS_WEBHOOK_TIMEOUT_SECONDS = 1.0
    webhook_receiver.delay_next(1, 5.0)
    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    started = time.monotonic()
    job = run_outbox_worker(outbox_job_id, passes=1)
    assert time.monotonic() - started < 4.5
    assert job.status == JobStatus.PENDING
    assert job.last_error.startswith("WebhookUnreachable:")


def test_a_revoked_client_gets_no_webhook(as_shop, shop, webhook_receiver, private_callbacks):
    from api import keys

    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    keys.revoke(shop.client)
    job = run_outbox_worker(outbox_job_id, passes=1)
    assert job.status == JobStatus.DEAD
    assert webhook_receiver.requests == []


def test_an_outbox_job_without_a_search_result_ends_dead_without_a_request(
    as_shop, webhook_receiver, private_callbacks
):
    response = as_shop.post(
        "/v1/lps/search",
        {"products": [{"product_code": "R1", "product_name": "물티슈", "callback_url": webhook_receiver.url()}]},
    )
    search_job_id = response.json()["jobs"][0]["job_id"]
    outbox = queue.enqueue(
        queue.NewJob(
            JobType.OUTBOX,
            {
                "search_job_id": search_job_id,
                "product_code": "R1",
                "client_id": response.wsgi_request.auth.pk,
                "callback_url": webhook_receiver.url(),
            },
        )
    )
    job = run_outbox_worker(outbox.job_id, passes=1)
    assert (job.status, job.attempts) == (JobStatus.DEAD, 1)
    assert job.last_error.startswith("WebhookUndeliverable:")
    assert webhook_receiver.requests == []


def webhook_counts() -> dict[str, float]:
    from prometheus_client import REGISTRY

    names = {
        **{f"attempt {r}": ("lps_webhook_attempts_total", {"result": r}) for r in ("delivered", "rejected")},
        **{f"attempt {r}": ("lps_webhook_attempts_total", {"result": r}) for r in ("unreachable", "undeliverable")},
        "delivered": ("lps_webhook_deliveries_total", {"result": "delivered"}),
        "given up": ("lps_webhook_deliveries_total", {"result": "given_up"}),
        "attempts needed": ("lps_webhook_delivery_attempts_sum", {}),
    }
    return {key: REGISTRY.get_sample_value(name, labels) or 0.0 for key, (name, labels) in names.items()}


def webhook_counts_moved(before: dict[str, float]) -> dict[str, float]:
    return {key: value - before[key] for key, value in webhook_counts().items() if value != before[key]}


def test_webhook_metrics_count_each_attempt_by_result_and_the_delivery_once(
    as_shop, webhook_receiver, private_callbacks
):
    webhook_receiver.fail_next(2, status=503)
    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    before = webhook_counts()

    assert run_outbox_worker(outbox_job_id, passes=3).status == JobStatus.DONE

    assert webhook_counts_moved(before) == {
        "attempt rejected": 2,
        "attempt delivered": 1,
        "delivered": 1,
        "attempts needed": 3,
    }


def test_webhook_metrics_count_a_webhook_given_up_on_its_last_attempt_or_at_once_when_undeliverable(
    as_shop, shop, webhook_receiver, private_callbacks
):
    webhook_receiver.fail_next(3, status=500)
    _, failing = submit_and_search(as_shop, webhook_receiver.url(), code="G1")
    before = webhook_counts()
    assert run_outbox_worker(failing, passes=3).status == JobStatus.DEAD
    assert webhook_counts_moved(before) == {"attempt rejected": 3, "given up": 1}

    _, revoked = submit_and_search(as_shop, webhook_receiver.url(), code="G2")
    from api import keys

    keys.revoke(shop.client)
    before = webhook_counts()
    assert run_outbox_worker(revoked, passes=1).status == JobStatus.DEAD
    assert webhook_counts_moved(before) == {"attempt undeliverable": 1, "given up": 1}


# --- What a client reads back of its failed deliveries: the status and a short reason, never the answer ----------


def test_a_client_reads_the_status_of_a_failed_delivery_but_not_what_the_receiver_answered(
    as_shop, admin_client, webhook_receiver, private_callbacks
):
    webhook_receiver.fail_next(3, status=403)
    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url("/admin/login/"))
    job = run_outbox_worker(outbox_job_id, passes=1)

    seen = as_shop.get(f"/v1/lps/jobs/{outbox_job_id}").json()["job"]["last_error"]
    listed = {row["job_id"]: row for row in as_shop.get("/v1/lps/jobs").json()["jobs"]}[str(outbox_job_id)]["error"]
    assert seen == listed == "WebhookRejected: the callback answered HTTP 403 Forbidden"
    # Operators still see the beginning of the answer, on the job's admin page.
    assert '{"ok":false}' in job.last_error
    page = admin_client.get(f"/admin/jobs/job/{outbox_job_id}/change/").content.decode()
    assert "{&quot;ok&quot;:false}" in page


def test_a_closed_port_and_a_port_that_does_not_speak_http_read_the_same_to_the_client(as_shop, private_callbacks):
    closed_port = free_port()
    talker = socket.socket()
    talker.bind(("127.0.0.1", 0))
    talker.listen(4)

    def answer_garbage():
        with contextlib.suppress(OSError):
            while True:
                conn, _ = talker.accept()
                with conn:
                    conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

    threading.Thread(target=answer_garbage, daemon=True).start()
    try:
        errors = []
        for code, port in (("CLOSED", closed_port), ("OPEN", talker.getsockname()[1])):
            _, outbox_job_id = submit_and_search(as_shop, f"http://127.0.0.1:{port}/hook", code=code)
            job = run_outbox_worker(outbox_job_id, passes=1)
            assert "127.0.0.1" in job.last_error  # the operator's detail
            errors.append(as_shop.get(f"/v1/lps/jobs/{outbox_job_id}").json()["job"]["last_error"])
    finally:
        talker.close()

    assert errors[0] == errors[1]
    assert errors[0].startswith("WebhookUnreachable: the callback could not be reached")
    assert str(closed_port) not in errors[0]


def test_each_attempt_carries_a_timestamp_and_a_signature_over_timestamp_dot_body(
    as_shop, shop, webhook_receiver, private_callbacks
):
    _, outbox_job_id = submit_and_search(as_shop, webhook_receiver.url())
    before = int(time.time())
    assert run_outbox_worker(outbox_job_id, passes=1).status == JobStatus.DONE

    (request,) = webhook_receiver.requests
    timestamp = request.headers["x-lps-timestamp"]
    assert before <= int(timestamp) <= int(time.time())
    signed = f"{timestamp}.".encode() + request.body
    expected = hmac.new(shop.webhook_secret.encode(), signed, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["x-lps-timestamp-signature"], f"sha256={expected}")
    # The §8 signature is unchanged, over the body alone, for receivers that check only it.
    body_only = hmac.new(shop.webhook_secret.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["x-lps-signature"] == f"sha256={body_only}"
