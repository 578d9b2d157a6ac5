"""A fake Naver Shopping Search API: a real threaded HTTP server on 127.0.0.1 answering `GET /v1/search/shop.json`.

Fixtures (loaded for every test package through tests/conftest.py):
- `fake_naver_server` — the test session's one server; `fake_naver` — the same, reset before and after each test,
  with settings pointing the Naver adapter at it (`LPS_NAVER_URL`, `NAVER_CLIENT_ID`, `NAVER_CLIENT_SECRET`).

Scripting (thread-safe):
- `set_results(query, items)` — the items for `query` (exact, stripped). Each item is a dict: `title` (plain text;
  served as Naver does, HTML-escaped with the query's words wrapped in <b>), `price` (lprice, won), and optionally
  `hprice`, `mall` (mallName; "네이버" for a catalog), `product_type` (1–12, default 2), `product_id`, `link`,
  `brand`, `maker`, `category` (up to four levels, "a>b>c"), `rental`, `cbshop` (flags Naver's exclude drops).
  A query with nothing set answers an empty items list (total 0).
- `set_behaviour(kind, *, times=None, delay_seconds=5.0)` — misbehave for the next `times` calls (None: until
  reset): "http_401" (errorCode 024, the credentials), "http_403" (024, the Search API not enabled),
  "http_429" (012, rate limit), "http_500" (SE99), "se01" (400 SE01), "slow" (the answer after `delay_seconds`;
  `reset()` cuts it short), "not_json" (a 200 HTML error page), "normal".
- `ignore_exclude = True` — serve used, rental and cross-border items even when `exclude` asks Naver not to.
- `reset()`.

Observation: `requests` (each as `NaverRequest(params, headers)`), `queries` (the `query` of each call).

Behaviour of the real API kept here: `display` 1–100 (SE02 otherwise), `start` 1–1000 (SE03), `sort`
sim|date|asc|dsc (SE04), a missing query is SE01, a wrong path SE05, missing or wrong credentials 401 (024);
`exclude=used:rental:cbshop` drops used items (productType 4–6), rentals and cross-border shops. Discontinued
(7–9) and not-yet-on-sale (10–12) items are served as Naver serves them.
"""

from __future__ import annotations

import html
import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes.loopback import LoopbackServer

CLIENT_ID = "lps-test-client-id"
CLIENT_SECRET = "lps-test-client-secret"
BEHAVIOURS = frozenset({"normal", "http_401", "http_403", "http_429", "http_500", "se01", "slow", "not_json"})
ERRORS = {
    "http_401": (401, "024", "NID AUTH Result Invalid (1000) : Authentication failed. (인증에 실패했습니다.)"),
    "http_403": (403, "024", "Scope Status Invalid : Authentication failed. (인증에 실패했습니다.)"),
    "http_429": (429, "012", "Rate limit exceeded. (속도 제한을 초과했습니다.)"),
    "http_500": (500, "SE99", "System Error (시스템 에러)"),
    "se01": (400, "SE01", "Incorrect query request (잘못된 쿼리요청입니다.)"),
}
SORTS = ("sim", "date", "asc", "dsc")


@dataclass(frozen=True)
class NaverRequest:
    path: str
    params: dict[str, str]
    headers: dict[str, str]


def highlighted(title: str, query: str) -> str:
    """The title as Naver serves it: HTML-escaped, each word of the query wrapped in <b>."""
    escaped = html.escape(title, quote=True).replace("&#x27;", "&#39;")
    words = sorted({word for word in query.split() if len(word) > 1}, key=len, reverse=True)
    if not words:
        return escaped
    pattern = re.compile("|".join(re.escape(html.escape(word)) for word in words), re.IGNORECASE)
    return pattern.sub(lambda match: f"<b>{match.group(0)}</b>", escaped)


def item_json(item: dict, query: str, position: int) -> dict:
    product_type = int(item.get("product_type", 2))
    product_id = str(item.get("product_id") or 80_000_000_000 + position * 7919)
    if product_type in (1, 4, 7, 10):
        link = item.get("link") or f"https://search.shopping.naver.com/catalog/{product_id}"
        mall = item.get("mall", "네이버")
    else:
        link = item.get("link") or f"https://smartstore.naver.com/main/products/{product_id}"
        mall = item.get("mall", "스마트스토어")
    categories = [*str(item.get("category") or "디지털/가전").split(">"), "", "", ""][:4]
    return {
        "title": highlighted(str(item["title"]), query),
        "link": link,
        "image": f"https://shopping-phinf.pstatic.net/main_{product_id[:7]}/{product_id}.jpg",
        "lprice": str(int(item["price"])),
        "hprice": str(int(item.get("hprice", 0))),
        "mallName": mall,
        "productId": product_id,
        "productType": str(product_type),
        "brand": item.get("brand", ""),
        "maker": item.get("maker", ""),
        "category1": categories[0],
        "category2": categories[1],
        "category3": categories[2],
        "category4": categories[3],
    }


class FakeNaver(LoopbackServer):
    """The server and its script; see the module docstring."""

    handler_attribute = "naver"
    thread_name = "fake-naver"

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        self._results: dict[str, list[dict]] = {}
        self._behaviour: tuple[str, int | None, float] | None = None
        self._requests: list[NaverRequest] = []
        self.ignore_exclude = False
        self.client_id, self.client_secret = CLIENT_ID, CLIENT_SECRET

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    def reset(self) -> None:
        with self._lock:
            self._results.clear()
            self._behaviour = None
            self._requests.clear()
            self.ignore_exclude = False
            self.client_id, self.client_secret = CLIENT_ID, CLIENT_SECRET
            self._release.set()
            self._release = threading.Event()

    def set_results(self, query: str, items: list[dict]) -> None:
        for item in items:
            if not 1 <= int(item.get("product_type", 2)) <= 12:
                raise ValueError(f"product_type must be 1–12: {item}")
        with self._lock:
            self._results[query.strip()] = [dict(item) for item in items]

    def set_behaviour(self, kind: str, *, times: int | None = None, delay_seconds: float = 5.0) -> None:
        if kind not in BEHAVIOURS:
            raise ValueError(f"kind must be one of {sorted(BEHAVIOURS)}, not {kind!r}")
        with self._lock:
            self._behaviour = None if kind == "normal" else (kind, times, delay_seconds)

    @property
    def requests(self) -> list[NaverRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def queries(self) -> list[str]:
        return [request.params.get("query", "") for request in self.requests]

    def _take_behaviour(self) -> tuple[tuple[str, int | None, float] | None, threading.Event]:
        with self._lock:
            behaviour = self._behaviour
            if behaviour is not None and behaviour[1] is not None:
                left = behaviour[1] - 1
                self._behaviour = (behaviour[0], left, behaviour[2]) if left > 0 else None
            return behaviour, self._release

    def answer(self, path: str, params: dict[str, str], headers: dict[str, str]) -> tuple[int, str, bytes]:
        with self._lock:
            self._requests.append(NaverRequest(path, params, headers))
            credentials = (self.client_id, self.client_secret)
        if headers.get("x-naver-client-id") != credentials[0] or headers.get("x-naver-client-secret") != credentials[1]:
            return _error(*ERRORS["http_401"])
        behaviour, release = self._take_behaviour()
        if behaviour is not None:
            kind, _, delay = behaviour
            if kind == "slow":
                release.wait(delay)
            elif kind == "not_json":
                return 502, "text/html; charset=utf-8", b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            else:
                return _error(*ERRORS[kind])
        if path != "/v1/search/shop.json":
            return _error(404, "SE05", "Invalid search api (존재하지 않는 검색 api 입니다.)")
        query = params.get("query", "").strip()
        if not query:
            return _error(*ERRORS["se01"])
        try:
            display, start = int(params.get("display", "10")), int(params.get("start", "1"))
        except ValueError:
            return _error(400, "SE02", "Invalid display value (부적절한 display 값입니다.)")
        if not 1 <= display <= 100:
            return _error(400, "SE02", "Invalid display value (부적절한 display 값입니다.)")
        if not 1 <= start <= 1000:
            return _error(400, "SE03", "Invalid start value (부적절한 start 값입니다.)")
        if params.get("sort", "sim") not in SORTS:
            return _error(400, "SE04", "Invalid sort value (부적절한 sort 값입니다.)")
        excluded = set(params.get("exclude", "").split(":")) - {""}
        with self._lock:
            items = list(self._results.get(query, []))
            ignore_exclude = self.ignore_exclude
        served = [
            (position, item)
            for position, item in enumerate(items)
            if ignore_exclude
            or not (
                ("used" in excluded and 4 <= int(item.get("product_type", 2)) <= 6)
                or ("rental" in excluded and item.get("rental"))
                or ("cbshop" in excluded and item.get("cbshop"))
            )
        ]
        page = served[start - 1 : start - 1 + display]
        body = {
            "lastBuildDate": "Tue, 01 Dec 2026 19:00:00 +0900",
            "total": len(served),
            "start": start,
            "display": len(page),
            "items": [item_json(item, query, position) for position, item in page],
        }
        return 200, "application/json; charset=utf-8", json.dumps(body, ensure_ascii=False).encode()


def _error(status: int, code: str, message: str) -> tuple[int, str, bytes]:
    body = json.dumps({"errorMessage": message, "errorCode": code}, ensure_ascii=False).encode()
    return status, "application/json; charset=utf-8", body


class _Handler(BaseHTTPRequestHandler):
    naver: FakeNaver
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        parts = urlsplit(self.path)
        params = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
        headers = {key.lower(): value for key, value in self.headers.items()}
        status, content_type, body = self.naver.answer(parts.path, params, headers)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache, no-store, must-revalidate")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def fake_naver_server():
    """The test session's one fake Naver API (use `fake_naver` in tests: it is reset per test)."""
    naver = FakeNaver().start()
    yield naver
    naver.stop()


@pytest.fixture
def fake_naver(fake_naver_server, settings):
    """The fake Naver API with nothing scripted, and Naver configured to call it."""
    fake_naver_server.reset()
    settings.LPS_NAVER_URL = fake_naver_server.base_url
    settings.NAVER_CLIENT_ID = CLIENT_ID
    settings.NAVER_CLIENT_SECRET = CLIENT_SECRET
    yield fake_naver_server
    # The worker's pooled client would outlive the test with a connection to this server open.
    from search.marketplaces import close_shared_naver

    close_shared_naver()
    fake_naver_server.reset()


DEMO_CATALOGUE = {
    "삼성 갤럭시 버즈3 프로": [
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 197_000, "hprice": 289_000, "product_type": 1},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버 정품", "price": 203_500, "mall": "하이마트쇼핑몰"},
        {"title": "[중고] 갤럭시 버즈3 프로 S급", "price": 120_000, "product_type": 5, "mall": "중고나라"},
        {"title": "갤럭시 버즈3 프로 실리콘 케이스 & 스트랩", "price": 8_900, "mall": "케이스마켓"},
    ],
}


def main(argv: list[str] | None = None) -> None:
    """Serve the demo catalogue on a fixed port, for trying the whole service by hand (no internet needed)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8766)
    port = parser.parse_args(argv).port
    naver = FakeNaver().start(port)
    for query, items in DEMO_CATALOGUE.items():
        naver.set_results(query, items)
    print(
        f"fake Naver Search API at {naver.base_url} — run the service with LPS_NAVER_URL={naver.base_url} "
        f"NAVER_CLIENT_ID={CLIENT_ID} NAVER_CLIENT_SECRET={CLIENT_SECRET}"
    )
    print("queries with results: " + ", ".join(DEMO_CATALOGUE), flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
