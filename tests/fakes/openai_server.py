"""A fake OpenAI-compatible endpoint: a real threaded HTTP server on 127.0.0.1 (fixtures defined here).

It serves `POST /v1/chat/completions` (the only call the openai client makes for LPS) with OpenAI-shaped
JSON: a chat.completion whose message content is JSON matching the request's `response_format` schema, and
`usage` with prompt, completion and total tokens.

Scripting, first in first out; each request takes the next scripted answer, or a default one:
- `queue_response(content, *, prompt_tokens=None, completion_tokens=None, finish_reason="stop", times=1)`
  — content is a dict (sent as JSON) or a raw string (sent as is, so malformed JSON is possible).
- `queue_refusal(text)` — a message with `refusal` set and no content.
- `queue_error(status, body=None, *, times=1)` — an HTTP error with an OpenAI-shaped error body. 408, 409,
  429 and 5xx carry `retry-after-ms: 10`, so the client's own retries cost milliseconds, not seconds.
- `queue_slow(seconds, content=None, *, times=1)` — answers only after `seconds` (to outlast the client's
  timeout); `reset()` cuts the wait short.

Default answers, when nothing is queued (deterministic; the user message is the JSON that search/llm.py sends):
- judge (schema `JudgeAnswer`): a candidate is the same product when its title contains every
  whitespace-separated word of the product name (case-insensitive) and no accessory word (DEFAULT_ACCESSORY_WORDS)
  that the name lacks; confidence 0.9, reason "all words of the name" / "missing words" / "accessory".
- keywords (schema `RefineAnswer`): precise = brand + model code (or the name when there is no model code),
  broad = the first two words of the name.
- any other schema: the smallest instance of the schema (empty strings, 0, false, empty lists).

Cassette (tests/fakes/cassette.py): with `fake.cassette = Cassette(...)` set, a judge request nothing is queued for
is answered from the cassette by its user message, and one it lacks is recorded and answered "not the same" for
every candidate; with `fake.upstream` set too (a real endpoint's base URL ending in /v1), judge requests are
forwarded there with the client's own Authorization header and the real answers kept in the cassette.

JSON mode: a request whose response_format is `{"type": "json_object"}` carries no schema; the fake tells the
judge's request (its user message lists `candidates`) from the keyword generator's (`tried`) and answers as above.

`requests` holds every request's parsed JSON body (errors and slow ones included); `judge_requests` and
`refine_requests` filter it by schema name; `headers` holds each request's headers; `usage_served` the usage of
every answered completion.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.fakes.cassette import Cassette

JUDGE_SCHEMA = "JudgeAnswer"
REFINE_SCHEMA = "RefineAnswer"
DEFAULT_ACCESSORY_WORDS = ("케이스", "커버", "필름", "거치대", "충전기", "케이블", "스트랩", "case", "cover", "charger")
RETRYABLE_STATUSES = frozenset({408, 409, 429})


@dataclass
class _Scripted:
    kind: str
    """'answer', 'refusal', 'error' or 'slow'."""
    content: object = None
    status: int = 200
    body: object = None
    delay: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"


class FakeOpenAI:
    """The server and its script; `base_url` is `http://127.0.0.1:<port>` (the client wants base_url + "/v1")."""

    def __init__(self):
        self._lock = threading.Lock()
        self._script: deque[_Scripted] = deque()
        self._released = threading.Event()
        self._completion_ids = 0
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.usage_served: list[dict[str, int]] = []
        self.cassette: Cassette | None = None
        """When set, judge requests nothing is queued for are answered from it (tests/fakes/cassette.py)."""
        self.upstream: str | None = None
        """With a cassette: a real endpoint's base URL (…/v1) each judge request is forwarded to, its answer kept."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def reset(self) -> None:
        """Forget the script and the logs, and release any slow answer still waiting."""
        with self._lock:
            self._released.set()
            self._released = threading.Event()
            self._script.clear()
            self.requests.clear()
            self.headers.clear()
            self.usage_served.clear()
            self.cassette = None
            self.upstream = None

    # --- scripting ---------------------------------------------------------------------------------------

    def queue_response(
        self,
        content: dict | list | str,
        *,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        finish_reason: str = "stop",
        times: int = 1,
    ) -> None:
        self._push(
            _Scripted(
                "answer",
                content=content,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                finish_reason=finish_reason,
            ),
            times,
        )

    def queue_refusal(self, text: str = "I can't help with that.", *, times: int = 1) -> None:
        self._push(_Scripted("refusal", content=text), times)

    def queue_error(self, status: int, body: dict | str | None = None, *, times: int = 1) -> None:
        self._push(_Scripted("error", status=status, body=body), times)

    def queue_slow(self, seconds: float, content: dict | str | None = None, *, times: int = 1) -> None:
        self._push(_Scripted("slow", content=content, delay=seconds), times)

    def _push(self, scripted: _Scripted, times: int) -> None:
        with self._lock:
            self._script.extend([scripted] * times)

    # --- what was asked ----------------------------------------------------------------------------------

    @property
    def judge_requests(self) -> list[dict]:
        return [body for body in list(self.requests) if schema_name(body) == JUDGE_SCHEMA]

    @property
    def refine_requests(self) -> list[dict]:
        return [body for body in list(self.requests) if schema_name(body) == REFINE_SCHEMA]

    def total_usage(self) -> tuple[int, int]:
        """(prompt_tokens, completion_tokens) summed over every completion served."""
        served = list(self.usage_served)
        return sum(u["prompt_tokens"] for u in served), sum(u["completion_tokens"] for u in served)

    # --- answering -----------------------------------------------------------------------------------------

    def _take(self, body: dict, headers: dict[str, str]) -> tuple[_Scripted | None, threading.Event]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            scripted = self._script.popleft() if self._script else None
            return scripted, self._released

    def _answer(self, body: dict, scripted: _Scripted | None) -> tuple[int, dict, dict[str, str]]:
        if scripted is not None and scripted.kind == "error":
            return scripted.status, _error_body(scripted.status, scripted.body), _retry_headers(scripted.status)
        content = scripted.content if scripted is not None else None
        refusal = None
        if scripted is not None and scripted.kind == "refusal":
            refusal, content = str(scripted.content), None
        elif content is None and self.cassette is not None and is_judge_request(body):
            content = self.cassette.answer(*_messages(body))
        elif content is None:
            content = default_answer(body)
        text = content if isinstance(content, str) or content is None else json.dumps(content, ensure_ascii=False)
        prompt_tokens = scripted.prompt_tokens if scripted and scripted.prompt_tokens is not None else None
        completion_tokens = scripted.completion_tokens if scripted and scripted.completion_tokens is not None else None
        if prompt_tokens is None:
            prompt_tokens = max(1, len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4)
        if completion_tokens is None:
            completion_tokens = max(1, len(text or refusal or "") // 4)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        with self._lock:
            self._completion_ids += 1
            completion_id = f"chatcmpl-fake-{self._completion_ids}"
            self.usage_served.append(usage)
        completion = {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": refusal},
                    "finish_reason": scripted.finish_reason if scripted else "stop",
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }
        return 200, completion, {}


def schema_name(body: dict) -> str | None:
    response_format = body.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name")


def is_judge_request(body: dict) -> bool:
    """A judge request: its schema's name, or (JSON mode, no schema) a user message that lists candidates."""
    name = schema_name(body)
    return name == JUDGE_SCHEMA or (name is None and "candidates" in _last_user_json(body))


def _messages(body: dict) -> tuple[str, str]:
    """The (system, user) messages of a request."""
    said = {message.get("role"): str(message.get("content") or "") for message in body.get("messages", [])}
    return said.get("system", ""), said.get("user", "")


def default_answer(body: dict) -> dict:
    """The deterministic answer described in the module docstring."""
    name = schema_name(body)
    asked = _last_user_json(body)
    if is_judge_request(body):
        return _default_judgement(asked)
    if name == REFINE_SCHEMA or (name is None and "tried" in asked):
        return _default_refinement(asked)
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return _smallest_instance(schema, schema.get("$defs", {}))


def _last_user_json(body: dict) -> dict:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            try:
                asked = json.loads(message.get("content") or "")
            except (TypeError, ValueError):
                return {}
            return asked if isinstance(asked, dict) else {}
    return {}


def _default_judgement(asked: dict) -> dict:
    product_name = str((asked.get("product") or {}).get("name") or "").lower()
    words = product_name.split()
    verdicts = []
    for position, candidate in enumerate(asked.get("candidates") or []):
        title = str(candidate.get("title") or "").lower()
        accessory = [word for word in DEFAULT_ACCESSORY_WORDS if word in title and word not in product_name]
        has_every_word = bool(words) and all(word in title for word in words)
        if accessory:
            same, reason = False, "accessory"
        elif has_every_word:
            same, reason = True, "all words of the name"
        else:
            same, reason = False, "missing words"
        verdicts.append(
            {"index": candidate.get("index", position), "same_product": same, "confidence": 0.9, "reason": reason}
        )
    return {"verdicts": verdicts}


def _default_refinement(asked: dict) -> dict:
    product = asked.get("product") or {}
    name = str(product.get("name") or "").strip()
    brand, model_code = str(product.get("brand") or ""), str(product.get("model_code") or "")
    precise = f"{brand} {model_code}".strip() if model_code else name
    broad = " ".join(name.split()[:2]) or name
    return {"precise": precise or "product", "broad": broad or "product"}


def _smallest_instance(schema: dict, defs: dict) -> object:
    if "$ref" in schema:
        return _smallest_instance(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
    if "anyOf" in schema:
        return _smallest_instance(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "object":
        return {key: _smallest_instance(sub, defs) for key, sub in (schema.get("properties") or {}).items()}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(kind)


def _error_body(status: int, body: object) -> dict | str:
    if body is not None:
        return body
    kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error" if status >= 500 else "")
    return {"error": {"message": f"fake error {status}", "type": kind or "invalid_request_error", "code": kind or None}}


def _retry_headers(status: int) -> dict[str, str]:
    # Real OpenAI paces retries itself; the fake asks for 10 ms so retry tests stay fast.
    return {"retry-after-ms": "10"} if status in RETRYABLE_STATUSES or status >= 500 else {}


def _forwarded(fake: FakeOpenAI, body: dict, headers: dict[str, str]) -> tuple[int, object, dict[str, str]]:
    """Send a judge request on to the real endpoint (`fake.upstream`) and keep its answer in the cassette."""
    request = urllib.request.Request(
        fake.upstream.rstrip("/") + "/chat/completions",
        data=json.dumps(body, ensure_ascii=False).encode(),
        headers={"Content-Type": "application/json", "Authorization": headers.get("authorization", "")},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, payload = response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace"), {}
    try:
        answer = json.loads(payload["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError, ValueError):
        return status, payload, {}
    with fake._lock:
        fake.usage_served.append(payload.get("usage") or {"prompt_tokens": 0, "completion_tokens": 0})
    fake.cassette.keep(*_messages(body), answer)
    return status, payload, {}


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            """Keep test output clean."""

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            headers = {key.lower(): value for key, value in self.headers.items()}
            if fake.upstream and fake.cassette is not None and is_judge_request(body):
                fake._take(body, headers)
                self._send(*_forwarded(fake, body, headers))
                return
            scripted, released = fake._take(body, headers)
            if scripted is not None and scripted.kind == "slow" and released.wait(scripted.delay):
                # reset() cut the wait short: the test that asked for this answer is over, and nobody may log it.
                self.close_connection = True
                return
            status, payload, headers = fake._answer(body, scripted)
            self._send(status, payload, headers)

        def do_GET(self):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

        def _send(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up (its timeout passed): nothing is listening for this answer any more.
                self.close_connection = True

    return Handler


@pytest.fixture(scope="session")
def fake_openai_server():
    """One fake OpenAI endpoint for the whole test session."""
    fake = FakeOpenAI().start()
    yield fake
    fake.close()


@pytest.fixture
def fake_openai(fake_openai_server):
    """The session's fake OpenAI endpoint with an empty script and empty logs."""
    fake_openai_server.reset()
    yield fake_openai_server
    fake_openai_server.reset()


@pytest.fixture
def openai_settings(settings, fake_openai):
    """Settings that turn the LLM on against the fake: test key, its base URL, a short timeout, one retry."""
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_BASE_URL = fake_openai.base_url + "/v1"
    settings.LPS_OPENAI_TIMEOUT_SECONDS = 5.0
    settings.LPS_OPENAI_MAX_RETRIES = 1
    return settings


@pytest.fixture
def llm(openai_settings):
    """The real LlmClient (the real openai client) pointed at the fake, closed after the test."""
    # Imported here: this module is a pytest plugin, loaded before Django is set up, and imports no project code.
    from search.llm import LlmClient

    client = LlmClient.from_settings()
    yield client
    client.close()
