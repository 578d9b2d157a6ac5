"""Who may call what: the key matrix (401/403), Bearer keys, revocation, and the per-key rate limit."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
from django.db import connection

from api import keys, ratelimit
from api.codes import ResultCode
from api.models import ApiClient
from jobs.models import Job
from tests.api.conftest import products

pytestmark = [pytest.mark.django_db]

SOME_JOB = "00000000-0000-0000-0000-000000000001"
CLIENT_ENDPOINTS = [
    ("POST", "/v1/lps/search"),
    ("GET", f"/v1/lps/jobs/{SOME_JOB}"),
    ("GET", "/v1/lps/queue/stats"),
    ("GET", "/v1/lps/jobs"),
]
OPERATOR_ENDPOINTS = [
    ("POST", f"/v1/lps/jobs/{SOME_JOB}/requeue"),
    ("GET", "/v1/lps/products"),
    ("GET", "/v1/lps/stats/ip-sessions"),
    ("GET", "/v1/lps/stats/bot"),
    ("GET", "/v1/lps/stats/cost"),
]
SEARCH_BODY = {"products": products(2)}


def call(client, method: str, path: str, headers: dict):
    body = SEARCH_BODY if path.endswith("/search") else None
    return client.generic(
        method, path, json.dumps(body) if body else "", content_type="application/json", headers=headers
    )


def _assert_unauthorized(response) -> None:
    assert response.status_code == 401
    assert response.json()["result"] == ResultCode.HTTP_INVALID_CLIENT_ACCESS
    assert Job.objects.count() == 0


def _unknown_key() -> str:
    return "lps_0123456789ab_" + "x" * 43


@pytest.mark.parametrize(("method", "path"), CLIENT_ENDPOINTS + OPERATOR_ENDPOINTS)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-API-Key": ""},
        {"X-API-Key": "not-a-key"},
        {"X-API-Key": _unknown_key()},
        {"Authorization": f"Bearer {_unknown_key()}"},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer"},
    ],
    ids=["no key", "empty key", "garbage key", "unknown key", "unknown bearer", "basic auth", "empty bearer"],
)
def test_a_missing_or_wrong_key_is_401_everywhere(client, method, path, headers):
    _assert_unauthorized(call(client, method, path, headers))


@pytest.mark.parametrize(("method", "path"), CLIENT_ENDPOINTS + OPERATOR_ENDPOINTS)
def test_a_revoked_key_is_401_everywhere(client, operator, method, path):
    keys.revoke(operator.client)
    _assert_unauthorized(call(client, method, path, {"X-API-Key": operator.api_key}))


def test_a_key_with_a_valid_prefix_but_the_wrong_secret_is_401(client, shop):
    forged = shop.api_key[:-1] + ("A" if shop.api_key[-1] != "A" else "B")
    _assert_unauthorized(call(client, "GET", "/v1/lps/queue/stats", {"X-API-Key": forged}))


@pytest.mark.parametrize(("method", "path"), OPERATOR_ENDPOINTS)
def test_a_client_key_on_an_operator_endpoint_is_403(client, shop, method, path):
    response = call(client, method, path, {"X-API-Key": shop.api_key})
    assert response.status_code == 403
    assert response.json()["result"] == ResultCode.HTTP_FORBIDDEN


@pytest.mark.parametrize(("method", "path"), CLIENT_ENDPOINTS)
@pytest.mark.parametrize("bearer", [False, True], ids=["X-API-Key", "Bearer"])
def test_a_client_key_opens_the_client_endpoints_by_either_header(client, shop, method, path, bearer):
    headers = {"Authorization": f"Bearer {shop.api_key}"} if bearer else {"X-API-Key": shop.api_key}
    response = call(client, method, path, headers)
    assert response.status_code in (200, 202, 404)
    assert response.json()["result"] in (ResultCode.SUCCESS, ResultCode.LPS_JOB_NOT_FOUND)


@pytest.mark.parametrize(("method", "path"), OPERATOR_ENDPOINTS)
def test_an_operator_key_opens_the_operator_endpoints(client, operator, method, path):
    response = call(client, method, path, {"Authorization": f"Bearer {operator.api_key}"})
    assert response.status_code in (200, 404)
    assert response.json()["result"] in (ResultCode.SUCCESS, ResultCode.LPS_JOB_NOT_FOUND)


def test_keys_are_stored_only_as_a_prefix_and_a_hash(shop):
    row = ApiClient.objects.get(pk=shop.client.pk)
    stored = [str(value) for value in ApiClient.objects.filter(pk=row.pk).values().get().values()]
    assert shop.api_key not in stored
    assert row.key_hash == keys.hash_key(shop.api_key)
    assert shop.api_key.startswith(f"lps_{row.key_prefix}_")
    assert keys.authenticate(shop.api_key) == row


def test_last_used_at_is_written_on_first_use_and_not_again_within_the_minute(client, shop):
    assert ApiClient.objects.get(pk=shop.client.pk).last_used_at is None
    call(client, "GET", "/v1/lps/queue/stats", {"X-API-Key": shop.api_key})
    first = ApiClient.objects.get(pk=shop.client.pk).last_used_at
    assert first is not None
    call(client, "GET", "/v1/lps/queue/stats", {"X-API-Key": shop.api_key})
    assert ApiClient.objects.get(pk=shop.client.pk).last_used_at == first


def test_the_rate_limit_answers_429_with_retry_after_once_the_minute_is_spent(client, shop, operator, settings):
    settings.LPS_API_RATE_LIMIT_PER_MINUTE = 3
    statuses = [call(client, "GET", "/v1/lps/queue/stats", {"X-API-Key": shop.api_key}).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    limited = call(client, "POST", "/v1/lps/search", {"X-API-Key": shop.api_key})
    assert limited.status_code == 429
    assert limited.json()["result"] == ResultCode.HTTP_TOO_MANY_REQUESTS
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert Job.objects.count() == 0
    # Another key has its own window.
    assert call(client, "GET", "/v1/lps/queue/stats", {"X-API-Key": operator.api_key}).status_code == 200


def test_health_endpoints_need_no_key_and_ignore_a_bad_one(client):
    assert client.get("/healthz", headers={"X-API-Key": "nonsense"}).status_code == 200
    assert client.get("/readyz").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_on_separate_connections_are_each_counted_once():
    client_id = keys.issue_key(f"race-{uuid.uuid4()}").client.pk
    threads, per_thread, limit = 8, 25, 100
    allowed: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def hammer():
        try:
            start.wait(timeout=10)
            for _ in range(per_thread):
                decision = ratelimit.hit(client_id, limit=limit)
                with lock:
                    allowed.append(decision.allowed)
        finally:
            connection.close()

    workers = [threading.Thread(target=hammer) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert len(allowed) == threads * per_thread
    assert sum(allowed) == limit
    assert ratelimit.hit(client_id, limit=limit).hits == threads * per_thread + 1
