"""Slow clients against a real gunicorn run as the Procfile runs it (lps_site/gunicorn_conf.py, 3 workers, its
deadline worker), over real sockets on 127.0.0.1: clients that stall in their headers or body hold a thread for
no longer than the deadline, get a 408 envelope, and /healthz and an authenticated POST keep answering meanwhile."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import keys
from api.codes import ResultCode
from jobs.models import Job
from lps_site import web_worker
from tests.addresses import database_url, free_port
from tests.processes import wait_for_healthz

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
HEAD_SECONDS = 3.0
BODY_SECONDS = 3.0
# How much later than its deadline a stalled client may get its answer on a busy machine.
SLACK_SECONDS = 4.0

# The three ways to stall that the hardening issue found: each sends a beginning and then nothing.
STALLS = {
    "request line and Host only": b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    "chunked body without its last chunk": (
        b"POST /v1/lps/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Transfer-Encoding: chunked\r\n\r\n5\r\n{"pro\r\n'
    ),
    "Content-Length 1000, then 12 bytes": (
        b"POST /v1/lps/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 1000\r\n\r\n{"products":'
    ),
}


RUNTIME_DIR = Path(tempfile.mkdtemp(prefix="lps-gunicorn-home-"))


@pytest.fixture(scope="module")
def server(django_db_setup) -> Iterator[int]:
    """gunicorn with the Procfile's config module and 3-second deadlines, on a free port, serving the test database
    for the whole module (it holds no state of its own between tests); yields the port."""
    port = free_port()
    env = {
        **os.environ,
        # Where gunicorn would put its control socket (XDG_RUNTIME_DIR, else ~/.gunicorn): a directory of the test's,
        # which must stay empty (test_gunicorn_leaves_no_control_socket).
        "HOME": str(RUNTIME_DIR),
        "XDG_RUNTIME_DIR": str(RUNTIME_DIR),
        "DATABASE_URL": database_url(),
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "LPS_WEB_HEAD_TIMEOUT_SECONDS": str(HEAD_SECONDS),
        "LPS_WEB_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "lps_site.wsgi", "--config", "python:lps_site.gunicorn_conf",
         "--bind", f"127.0.0.1:{port}", "--workers", "3", "--graceful-timeout", "2", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_healthz(port, server)
        # Every worker has loaded the application (the first request of each would otherwise be slow).
        for _ in range(12):
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            probe.request("GET", "/readyz")
            probe.getresponse().read()
            probe.close()
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=5)
        server.stderr.close()
        shutil.rmtree(RUNTIME_DIR, ignore_errors=True)


@pytest.fixture
def gunicorn(server, transactional_db) -> int:
    return server


class StalledClient:
    """A connection that sent `opening` and then nothing; reads whatever the server answers until it hangs up."""

    def __init__(self, port: int, kind: str):
        self.kind = kind
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=HEAD_SECONDS + BODY_SECONDS + SLACK_SECONDS)
        self.sock.sendall(STALLS[kind])
        self.sent_at = time.monotonic()
        self.answer = b""
        self.answered_after: float | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.answer += chunk
        except OSError:
            pass
        self.answered_after = time.monotonic() - self.sent_at
        self.sock.close()

    def status_and_body(self) -> tuple[int, dict]:
        head, _, body = self.answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if b"transfer-encoding: chunked" in head.lower():
            size, _, rest = body.partition(b"\r\n")
            body = rest[: int(size, 16)]
        return status, json.loads(body)


def timed(call) -> tuple[float, object]:
    began = time.monotonic()
    result = call()
    return time.monotonic() - began, result


def get_healthz(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def post_search(port: int, api_key: str, code: str) -> int:
    body = json.dumps({"products": [{"product_code": code, "product_name": "삼다수 2L 6개"}]})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(
            "POST", "/v1/lps/search", body=body, headers={"X-API-Key": api_key, "Content-Type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def probe_while_stalled(port: int, api_key: str, stalled: list[StalledClient]) -> list[tuple[int, float, int, float]]:
    """/healthz and a keyed POST, again and again until the stalled clients' deadlines near: (health status, its
    seconds, POST status, its seconds) per probe; then waits for every stalled client's answer or hang-up."""
    answered = []
    while time.monotonic() - stalled[-1].sent_at < min(HEAD_SECONDS, BODY_SECONDS) - 0.5:
        health_took, health = timed(lambda: get_healthz(port))
        post_took, posted = timed(lambda: post_search(port, api_key, f"S-{uuid.uuid4().hex[:8]}"))
        answered.append((health, round(health_took, 3), posted, round(post_took, 3)))
    for stall in stalled:
        stall.reader.join(timeout=HEAD_SECONDS + BODY_SECONDS + SLACK_SECONDS)
    return answered


# 100 and 300: more stalled sockets than the 3 workers × 16 threads, which a worker that read each request on a
# thread could not survive (the probes waited for the stalled clients' deadlines).
@pytest.mark.parametrize("count", [3, 30, 100, 300])
def test_stalled_clients_get_a_408_envelope_at_their_deadline_while_healthz_and_a_keyed_post_keep_answering(
    gunicorn, count
):
    shop = keys.issue_key(f"slow-{count}")
    stalled = [StalledClient(gunicorn, kind) for kind, _ in zip(itertools.cycle(STALLS), range(count), strict=False)]

    answered = probe_while_stalled(gunicorn, shop.api_key, stalled)

    assert answered, "no probe ran while the clients were stalled"
    assert all(health == 200 and posted == 202 for health, _, posted, _ in answered), answered
    assert max(max(health_took, post_took) for _, health_took, _, post_took in answered) < 1.0, answered
    assert Job.objects.filter(owner_id=shop.client.pk).count() == len(answered)
    for stall in stalled:
        assert stall.answered_after is not None, f"{stall.kind}: no answer and no hang-up"
        status, body = stall.status_and_body()
        assert (status, body["result"]) == (408, ResultCode.HTTP_REQUEST_TIMEOUT), (stall.kind, stall.answer[:300])
        assert body["error"]
        assert stall.answered_after < max(HEAD_SECONDS, BODY_SECONDS) + SLACK_SECONDS, stall.kind
    assert not Job.objects.exclude(owner_id=shop.client.pk).exists()


# Requests the poller cannot buffer, which a thread must read: a CSV sheet's body over the poller's buffer (1 MB; the
# API takes sheets up to 8 MB, before any key check), a client waiting for a 100 Continue. Each sends a beginning
# and then nothing.
THREAD_STALLS = {
    "CSV sheet of 2 MB, then 13 bytes": (
        b"POST /v1/lps/watches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
        b"Content-Length: 2000000\r\n\r\nproduct_code,"
    ),
    "Expect: 100-continue, then no body": (
        b"POST /v1/lps/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Expect: 100-continue\r\nContent-Length: 1000\r\n\r\n"
    ),
}


@pytest.mark.parametrize("kind", list(THREAD_STALLS))
def test_100_stalled_requests_that_a_thread_must_read_leave_threads_for_healthz_and_a_keyed_post(
    gunicorn, kind, monkeypatch
):
    # Without a cap on the threads such requests take, 100 of them held all 3 × 16 for their deadline.
    monkeypatch.setitem(STALLS, kind, THREAD_STALLS[kind])
    shop = keys.issue_key(f"unbuffered-{uuid.uuid4().hex[:6]}")
    stalled = [StalledClient(gunicorn, kind) for _ in range(100)]

    answered = probe_while_stalled(gunicorn, shop.api_key, stalled)

    assert answered, "no probe ran while the clients were stalled"
    assert all(health == 200 and posted == 202 for health, _, posted, _ in answered), answered
    assert max(max(health_took, post_took) for _, health_took, _, post_took in answered) < 1.0, answered
    for stall in stalled:
        assert stall.answered_after is not None, f"{stall.kind}: no answer and no hang-up"
        # The client that asked for a 100 Continue may get it before the 408.
        stall.answer = stall.answer.removeprefix(b"HTTP/1.1 100 Continue\r\n\r\n")
        status, body = stall.status_and_body()
        assert (status, body["result"]) == (408, ResultCode.HTTP_REQUEST_TIMEOUT), (stall.kind, stall.answer[:300])
        assert stall.answered_after < max(HEAD_SECONDS, BODY_SECONDS) + SLACK_SECONDS, stall.kind


def test_a_request_that_arrives_in_pieces_on_a_kept_alive_connection_is_served_whole(gunicorn):
    shop = keys.issue_key("pieces")
    body = json.dumps({"products": [{"product_code": "P-1", "product_name": "삼다수 2L 6개"}]}).encode()
    request = POST_HEAD + f"X-API-Key: {shop.api_key}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    pause = threading.Event()
    with socket.create_connection(("127.0.0.1", gunicorn), timeout=10) as sock:
        answers = []
        for _ in range(2):
            # The head split inside a header, the body split in two: the server waits for the whole request.
            for piece in (request[:40], request[40:-10], request[-10:]):
                sock.sendall(piece)
                pause.wait(0.3)
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                answer += sock.recv(65536)
            answers.append(answer)

    assert [answer.split(b" ", 2)[1] for answer in answers] == [b"202", b"202"], answers
    assert Job.objects.filter(owner_id=shop.client.pk).count() == 1  # the second is the first one's duplicate


def test_a_client_that_trickles_its_headers_byte_by_byte_still_gets_the_408_at_the_head_deadline(gunicorn):
    trickler = StalledClient(gunicorn, "request line and Host only")
    pause = threading.Event()
    try:
        for byte in b"X-Slow: " + b"a" * 200:
            # One byte every 0.1 s: each read gets something, so only a deadline on the whole head stops it.
            if trickler.answered_after is not None or pause.wait(0.1):
                break
            trickler.sock.sendall(bytes([byte]))
    except OSError:
        pass  # the server hung up while bytes were still being sent
    trickler.reader.join(timeout=HEAD_SECONDS + SLACK_SECONDS)

    assert trickler.answered_after is not None
    status, body = trickler.status_and_body()
    assert (status, body["result"]) == (408, ResultCode.HTTP_REQUEST_TIMEOUT)
    assert trickler.answered_after < HEAD_SECONDS + SLACK_SECONDS


def test_gunicorn_leaves_no_control_socket_that_a_second_lps_on_the_machine_would_take_over(gunicorn):
    # gunicorn 24+ opens one per user ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl) unless told not to.
    assert get_healthz(gunicorn) == 200
    assert list(RUNTIME_DIR.rglob("*")) == []


def test_the_worker_writes_the_api_result_code_for_a_timeout():
    assert web_worker.REQUEST_TIMEOUT_CODE == ResultCode.HTTP_REQUEST_TIMEOUT
    head, _, body = web_worker.timeout_answer("late").partition(b"\r\n\r\n")
    assert b"Content-Type: application/json" in head
    assert json.loads(body) == {"result": 408, "error": "late"}


def raw_exchange(port: int, request: bytes) -> tuple[int, str, bytes]:
    """Send `request` as is, read until the server hangs up; return the status, Content-Type and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    if headers.get("Transfer-Encoding") == "chunked":
        chunks, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            if int(size, 16) == 0:
                break
            chunks, rest = chunks + rest[: int(size, 16)], rest[int(size, 16) + 2 :]
        body = chunks
    return int(lines[0].split()[1]), headers.get("Content-Type", ""), body


POST_HEAD = b"POST /v1/lps/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /healthz HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"G@T /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
        (POST_HEAD + b"Transfer-Encoding: identity\r\n\r\n", 400),
        (POST_HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400),
        (POST_HEAD + b"Transfer-Encoding: chunked\r\n\r\n-3\r\n{}\r\n0\r\n\r\n", 400),
    ],
    ids=[
        "bad version",
        "bad method",
        "URI too long",
        "identity coding",
        "chunk size zz",
        "chunk size -3",
    ],
)
def test_what_gunicorn_answers_itself_is_the_json_envelope_too(gunicorn, request_bytes, status):
    answered, content_type, body = raw_exchange(gunicorn, request_bytes)

    assert answered == status, body[:300]
    assert content_type.startswith("application/json"), body[:300]
    envelope = json.loads(body)
    assert envelope["result"] in (ResultCode.INVALID_REQUEST_DATA, ResultCode.HTTP_UNSUPPORTED_MEDIA_TYPE)
    assert envelope["error"]
