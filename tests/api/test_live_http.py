"""The API through a real gunicorn (as the Procfile runs it), for what only a real HTTP server shows: a body
sent with `Transfer-Encoding: chunked` and no Content-Length is read, under the same limits."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import keys
from api.codes import ResultCode
from jobs.models import Job
from tests.addresses import database_url, free_port
from tests.processes import wait_for_healthz

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
BODY = json.dumps({"products": [{"product_code": "CH-1", "product_name": "삼다수 2L 6개"}]}).encode()


@pytest.fixture
def gunicorn(transactional_db) -> Iterator[int]:
    """A gunicorn serving the test database on a free port; yields the port."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "false", "LOG_LEVEL": "WARNING"}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "lps_site.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "1", "--graceful-timeout", "2", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_healthz(port, server)
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=5)
        server.stderr.close()


def post_chunked(port: int, api_key: str, chunks: list[bytes], headers: dict | None = None) -> tuple[int, dict]:
    """POST `chunks` with Transfer-Encoding: chunked and no Content-Length; return the status and the JSON."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST",
        "/v1/lps/search",
        body=iter(chunks),
        headers={"X-API-Key": api_key, "Content-Type": "application/json", **(headers or {})},
        encode_chunked=True,
    )
    response = conn.getresponse()
    status, body = response.status, json.loads(response.read())
    conn.close()
    return status, body


def test_a_chunked_json_body_is_read_and_enqueued(gunicorn):
    shop = keys.issue_key("chunked-shop")

    status, body = post_chunked(gunicorn, shop.api_key, [BODY[:10], BODY[10:40], BODY[40:]])

    assert status == 202, body
    assert body["jobs"][0]["product_code"] == "CH-1"
    assert Job.objects.get().owner_id == shop.client.pk


def test_a_chunked_gzip_body_is_read_and_decoded(gunicorn):
    shop = keys.issue_key("chunked-gzip-shop")
    packed = gzip.compress(BODY)

    status, body = post_chunked(gunicorn, shop.api_key, [packed[:7], packed[7:]], {"Content-Encoding": "gzip"})

    assert status == 202, body
    assert Job.objects.get().payload["product_code"] == "CH-1"


def test_a_chunked_body_over_one_megabyte_is_413_and_writes_nothing(gunicorn):
    shop = keys.issue_key("chunked-big-shop")
    big = json.dumps({"products": [{"product_code": "B", "product_name": "x"}], "padding": "p" * 1_100_000}).encode()

    status, body = post_chunked(gunicorn, shop.api_key, [big[i : i + 65536] for i in range(0, len(big), 65536)])

    assert status == 413
    assert body["result"] == ResultCode.HTTP_PAYLOAD_TOO_LARGE
    assert not Job.objects.exists()


def test_a_chunked_text_plain_body_is_415_and_writes_nothing(gunicorn):
    shop = keys.issue_key("chunked-text-shop")

    status, body = post_chunked(gunicorn, shop.api_key, [BODY], {"Content-Type": "text/plain"})

    assert status == 415
    assert (body["result"], body["field"]) == (ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE, "Content-Type")
    assert not Job.objects.exists()


def test_a_bad_host_through_gunicorn_is_the_envelope(gunicorn):
    conn = http.client.HTTPConnection("127.0.0.1", gunicorn, timeout=30)
    conn.request("GET", "/v1/lps/queue/stats", headers={"Host": "evil.example"})
    response = conn.getresponse()
    body = response.read()
    conn.close()

    assert response.status == 400
    assert response.getheader("Content-Type").startswith("application/json")
    assert json.loads(body)["field"] == "Host"
