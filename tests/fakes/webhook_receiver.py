"""A client's webhook endpoint: a real threaded HTTP server on 127.0.0.1 (an ephemeral port).

Fixture (loaded for every test package through tests/conftest.py):
- `webhook_receiver` — a fresh server per test, stopped after it.

Scripting (thread-safe):
- `fail_next(times, status=500)` — answer the next `times` POSTs with `status` (then 200 again), its body
  `failure_body` (`{"ok":false}` unless a test sets it).
- `redirect_next(times, location, status=302)` — answer with a redirect to `location`.
- `delay_next(times, seconds)` — hold the next POSTs for `seconds` before answering (a slow receiver).

Observation:
- `requests` — every request received, as `ReceivedWebhook(method, path, headers, body, status)`; the
  status is what the receiver answered.
- `deliveries()` — the requests that were answered 2xx, one per Idempotency-Key (what a receiver that
  deduplicates on the key would keep).
- `url(path="/hook")` — the URL to give as callback_url.
- `GET /last/body` and `GET /last/headers` answer the last POST's raw body and its headers (lower-cased names,
  as JSON): what the demo's receiver (`python -m tests.fakes.webhook_receiver`, started by `./bin/run --demo`)
  gives docs/api.md's signature check.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass(frozen=True)
class ReceivedWebhook:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int


class WebhookReceiver:
    """A scripted webhook endpoint."""

    def __init__(self, port: int = 0) -> None:
        self._lock = threading.Lock()
        self._failures: list[int] = []
        self._redirects: list[tuple[int, str]] = []
        self._delays: list[float] = []
        self._released = threading.Event()
        self.failure_body = b'{"ok":false}'
        """What a refusal's body says (a test may make it a private page's)."""
        self.requests: list[ReceivedWebhook] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # quiet: tests read `requests` instead
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, location, delay = receiver._next_answer()
                if delay:
                    receiver._released.wait(delay)
                with receiver._lock:
                    receiver.requests.append(
                        ReceivedWebhook(
                            "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body, status
                        )
                    )
                answer = b'{"ok":true}' if 200 <= status < 300 else receiver.failure_body
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def do_GET(self):
                if self.path in ("/last/body", "/last/headers"):
                    self._answer_last()
                    return
                with receiver._lock:
                    receiver.requests.append(
                        ReceivedWebhook("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, b"", 200)
                    )
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _answer_last(self):
                with receiver._lock:
                    posts = [request for request in receiver.requests if request.method == "POST"]
                if not posts:
                    body, status = b'{"error": "no webhook received yet"}', 404
                elif self.path == "/last/body":
                    body, status = posts[-1].body, 200
                else:
                    body, status = json.dumps(posts[-1].headers).encode(), 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)

    def start(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def fail_next(self, times: int, status: int = 500) -> None:
        with self._lock:
            self._failures.extend([status] * times)

    def redirect_next(self, times: int, location: str, status: int = 302) -> None:
        with self._lock:
            self._redirects.extend([(status, location)] * times)

    def delay_next(self, times: int, seconds: float) -> None:
        with self._lock:
            self._delays.extend([seconds] * times)

    def _next_answer(self) -> tuple[int, str | None, float]:
        with self._lock:
            delay = self._delays.pop(0) if self._delays else 0.0
            if self._redirects:
                status, location = self._redirects.pop(0)
                return status, location, delay
            if self._failures:
                return self._failures.pop(0), None, delay
            return 200, None, delay

    def deliveries(self) -> list[ReceivedWebhook]:
        with self._lock:
            kept: dict[str, ReceivedWebhook] = {}
            for request in self.requests:
                if request.method == "POST" and 200 <= request.status < 300:
                    kept.setdefault(request.headers.get("idempotency-key", ""), request)
            return list(kept.values())


@pytest.fixture
def webhook_receiver():
    receiver = WebhookReceiver().start()
    yield receiver
    receiver.stop()


def main(argv: list[str] | None = None) -> None:
    """Receive webhooks on a fixed port and print one line for each, for trying the whole service by hand."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8767)
    port = parser.parse_args(argv).port
    receiver = WebhookReceiver(port).start()
    print(f"webhook receiver at {receiver.url()} — its last delivery at {receiver.url('/last/body')}", flush=True)
    seen = 0
    while True:
        time.sleep(0.5)
        with receiver._lock:
            new, seen = receiver.requests[seen:], len(receiver.requests)
        for request in new:
            if request.method == "POST":
                key = request.headers.get("idempotency-key", "")
                print(f"webhook: POST {request.path} Idempotency-Key {key}, {len(request.body)} bytes", flush=True)


if __name__ == "__main__":
    main()
