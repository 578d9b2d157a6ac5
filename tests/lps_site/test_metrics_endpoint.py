"""`GET /metrics` through the whole Django stack: an operator's key only, Prometheus's text format, the queue read
from the database and the HTTP requests counted by view and status."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api import keys
from api.codes import ResultCode
from jobs import queue
from lps_site.job_types import JobType

pytestmark = pytest.mark.django_db


def scrape(client, key: str) -> dict:
    response = client.get("/metrics", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {family.name: family for family in text_string_to_metric_families(response.content.decode())}


def value(families: dict, name: str, sample_name: str | None = None, **labels) -> float:
    for sample in families[name].samples:
        if sample.name == (sample_name or name) and all(sample.labels.get(k) == v for k, v in labels.items()):
            return sample.value
    return 0.0


def test_metrics_without_a_key_is_401_and_with_a_clients_key_403(client):
    shop = keys.issue_key("shop")

    anonymous = client.get("/metrics")
    as_shop = client.get("/metrics", headers={"X-API-Key": shop.api_key})

    assert (anonymous.status_code, anonymous.json()["result"]) == (401, ResultCode.HTTP_INVALID_CLIENT_ACCESS)
    assert (as_shop.status_code, as_shop.json()["result"]) == (403, ResultCode.HTTP_FORBIDDEN)
    assert b"lps_queue" not in anonymous.content + as_shop.content


def test_a_revoked_operator_key_gets_no_metrics(client):
    operator = keys.issue_key("prometheus", operator=True)
    keys.revoke(operator.client)

    assert client.get("/metrics", headers={"Authorization": f"Bearer {operator.api_key}"}).status_code == 401


def test_an_operator_scrape_reads_the_queue_and_counts_requests_by_view_and_status(client):
    operator = keys.issue_key("prometheus", operator=True)
    queue.enqueue(queue.NewJob(JobType.SEARCH, {"product_code": "A"}))
    before = scrape(client, operator.api_key)

    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    assert client.get("/v1/lps/jobs/not-a-uuid", headers={"X-API-Key": operator.api_key}).status_code == 400
    after = scrape(client, operator.api_key)

    assert value(after, "lps_queue_up") == 1
    assert value(after, "lps_queue_jobs", job_type="SEARCH", status="PENDING") == 1
    responses = "django_http_responses_total_by_status_view_method"

    def moved(**labels) -> float:
        return value(after, responses, f"{responses}_total", **labels) - value(
            before, responses, f"{responses}_total", **labels
        )

    assert moved(view="lps-api:healthz", status="200", method="GET") == 3
    assert moved(view="lps-api:job_detail", status="400", method="GET") == 1
    assert moved(view="metrics", status="200", method="GET") == 1  # the first scrape
    latency = "django_http_requests_latency_seconds_by_view_method"
    counted = value(after, latency, f"{latency}_count", view="lps-api:healthz", method="GET") - value(
        before, latency, f"{latency}_count", view="lps-api:healthz", method="GET"
    )
    assert counted == 3


def test_a_method_http_does_not_define_is_counted_as_an_invalid_method_not_as_a_new_series(client):
    operator = keys.issue_key("prometheus", operator=True)

    assert client.generic("BREW", "/healthz").status_code == 405
    samples = scrape(client, operator.api_key)

    latency = samples["django_http_requests_latency_seconds_by_view_method"]
    methods = {sample.labels["method"] for sample in latency.samples}
    assert "BREW" not in methods
    assert "<invalid method>" in methods
