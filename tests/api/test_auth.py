"""Who may call what: the key matrix (401/403), Bearer keys, revocation, and the per-key rate limit."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
from django.db import connection

from api import auth, keys, ratelimit
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


def test_the_admitted_client_is_its_row_as_the_orm_reads_it(operator):
    auth.admit(operator.api_key, operator_only=True)  # Its first use writes last_used_at; the second leaves it.
    admitted = auth.admit(operator.api_key, operator_only=True)
    stored = ApiClient.objects.get(pk=operator.client.pk)

    assert [getattr(admitted, f.attname) for f in ApiClient._meta.concrete_fields] == [
        getattr(stored, f.attname) for f in ApiClient._meta.concrete_fields
    ]
    assert admitted.is_operator


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
    # Whole seconds: requests of this second count until the 60 seconds after it have passed.
    assert 1 <= int(limited["Retry-After"]) <= 61
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


# --- The limit holds over any 60-second span --------------------------------------------------------------------

# A second that ends a fixed minute (epoch seconds are whole minutes at multiples of 60).
END_OF_A_MINUTE = 1_800_000_000 - 1


def test_a_client_that_spent_its_limit_at_the_end_of_a_minute_is_refused_at_the_start_of_the_next():
    client_id = keys.issue_key("boundary").client.pk
    limit = 600

    spent = [ratelimit.hit(client_id, limit=limit, at=END_OF_A_MINUTE).allowed for _ in range(limit)]
    across = ratelimit.hit(client_id, limit=limit, at=END_OF_A_MINUTE + 2)

    assert all(spent)
    # A fixed window would have started counting again at the minute and allowed 600 more here.
    assert not across.allowed
    # The 600 requests leave the span 60 seconds after their own second.
    assert across.retry_after == 59


def test_requests_are_allowed_again_as_the_oldest_ones_leave_the_span():
    client_id = keys.issue_key("sliding").client.pk
    for offset in range(10):
        assert ratelimit.hit(client_id, limit=10, at=END_OF_A_MINUTE + offset).allowed
    assert not ratelimit.hit(client_id, limit=10, at=END_OF_A_MINUTE + 30).allowed
    # Refused requests count too: at +60 the ten, the refused one at +30 and this one make 12.
    assert not ratelimit.hit(client_id, limit=10, at=END_OF_A_MINUTE + 60).allowed
    # At +64 the first four have left the span: six, the two refused and this one make 9.
    assert ratelimit.hit(client_id, limit=10, at=END_OF_A_MINUTE + 64).allowed


def test_no_sixty_second_span_holds_more_allowed_requests_than_the_limit():
    client_id = keys.issue_key("every-span").client.pk
    limit, allowed_at = 20, []
    # A client that sends 3 requests a second for 3 minutes, more than its limit allows.
    for second in range(180):
        for _ in range(3):
            if ratelimit.hit(client_id, limit=limit, at=END_OF_A_MINUTE + second).allowed:
                allowed_at.append(second)
    assert allowed_at
    worst = max(sum(1 for second in allowed_at if start <= second < start + 60) for start in range(-60, 180))
    assert worst == limit


def test_buckets_that_count_nothing_any_more_are_pruned():
    client_id = keys.issue_key("idle").client.pk
    ratelimit.hit(client_id, limit=5, at=1_000_000_000)  # in 2001
    ratelimit.hit(keys.issue_key("busy").client.pk, limit=5)

    assert ratelimit.prune(100) == 1
    assert ratelimit.hit(client_id, limit=5).hits == 1


# --- Wrong keys are throttled per client address -----------------------------------------------------------------


def _stats(client, key: str, address: str):
    return client.get("/v1/lps/queue/stats", headers={"X-API-Key": key}, REMOTE_ADDR=address)


def test_an_address_that_sends_too_many_wrong_secrets_for_a_key_is_429_for_that_key_right_or_wrong(
    client, shop, settings
):
    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 3
    prefix = keys.prefix_of(shop.api_key)
    wrong = [_stats(client, f"lps_{prefix}_{'x' * 43}", "203.0.113.7").status_code for _ in range(3)]
    throttled = _stats(client, f"lps_{prefix}_{'y' * 43}", "203.0.113.7")
    right_key_same_address = _stats(client, shop.api_key, "203.0.113.7")

    assert wrong == [401, 401, 401]
    assert throttled.status_code == 429
    assert throttled.json()["result"] == ResultCode.HTTP_TOO_MANY_REQUESTS
    assert "wrong API keys" in throttled.json()["error"]
    assert 1 <= int(throttled["Retry-After"]) <= 61
    # The right key is refused the same way: a 429 must not tell a guesser which of its secrets was right.
    assert right_key_same_address.status_code == 429
    assert _stats(client, shop.api_key, "198.51.100.9").status_code == 200


def test_one_tenants_wrong_keys_lock_out_neither_another_tenants_valid_key_nor_the_metrics_scrape(
    client, shop, operator, settings
):
    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 3
    other = keys.issue_key("other-shop")
    guessed = f"lps_{keys.prefix_of(other.api_key)}_{'x' * 43}"
    assert [_stats(client, guessed, "203.0.113.9").status_code for _ in range(5)] == [401, 401, 401, 429, 429]
    assert [_stats(client, "not-even-a-key", "203.0.113.9").status_code for _ in range(5)] == [401] * 3 + [429] * 2

    assert _stats(client, shop.api_key, "203.0.113.9").status_code == 200
    scrape = client.get("/metrics", headers={"Authorization": f"Bearer {operator.api_key}"}, REMOTE_ADDR="203.0.113.9")
    assert scrape.status_code == 200


def test_right_keys_do_not_count_toward_the_wrong_key_throttle(client, shop, settings):
    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 2
    assert {_stats(client, shop.api_key, "203.0.113.8").status_code for _ in range(5)} == {200}


def test_the_throttle_counts_the_address_the_trusted_proxy_vouches_for(client, shop, settings):
    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 2
    settings.LPS_TRUSTED_PROXIES = 1
    proxy = "10.0.0.2"

    def through_proxy(key: str, forwarded_for: str):
        return client.get(
            "/v1/lps/queue/stats", headers={"X-API-Key": key, "X-Forwarded-For": forwarded_for}, REMOTE_ADDR=proxy
        )

    assert [through_proxy("wrong", "203.0.113.20").status_code for _ in range(3)] == [401, 401, 429]
    # Another client behind the same proxy is not locked out with the guesser.
    assert through_proxy(shop.api_key, "203.0.113.21").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_forty_eight_wrong_keys_sent_at_once_over_http_get_no_more_401s_than_the_limit(live_server, settings):
    import requests

    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 9
    wrong = f"lps_{'a' * 12}_{'x' * 43}"
    start = threading.Barrier(48)
    statuses: list[int] = []

    def guess() -> None:
        start.wait(timeout=30)
        answer = requests.get(f"{live_server.url}/v1/lps/queue/stats", headers={"X-API-Key": wrong}, timeout=60)
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=guess) for _ in range(48)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert len(statuses) == 48
    assert set(statuses) <= {401, 429}
    assert statuses.count(401) <= 9


@pytest.mark.django_db(transaction=True)
def test_over_http_one_tenants_wrong_keys_from_an_address_leave_another_tenants_key_and_the_scrape_answering(
    live_server, settings
):
    import requests

    settings.LPS_API_KEY_FAILURES_PER_MINUTE = 3
    shop, operator, other = keys.issue_key("shop"), keys.issue_key("ops", operator=True), keys.issue_key("other")
    guessed = f"lps_{keys.prefix_of(other.api_key)}_{'x' * 43}"

    def stats(key: str) -> int:
        return requests.get(f"{live_server.url}/v1/lps/queue/stats", headers={"X-API-Key": key}, timeout=30).status_code

    # Every request comes from the same address, 127.0.0.1, as tenants behind one NAT or proxy do.
    assert [stats(guessed) for _ in range(5)] == [401, 401, 401, 429, 429]
    assert stats(shop.api_key) == 200
    scrape = requests.get(
        f"{live_server.url}/metrics", headers={"Authorization": f"Bearer {operator.api_key}"}, timeout=30
    )
    assert scrape.status_code == 200
    # Anything not shaped like a key shares one bucket of its own, apart from the guessed key's.
    assert [stats("not-even-a-key") for _ in range(4)] == [401, 401, 401, 429]
