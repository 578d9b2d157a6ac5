"""Fixtures of the API tests: API clients with real keys, and a JSON caller through Django's test client."""

from __future__ import annotations

import json

import pytest

from api import keys


@pytest.fixture
def shop(db) -> keys.IssuedKey:
    """A commerce client's key."""
    return keys.issue_key("shop")


@pytest.fixture
def operator(db) -> keys.IssuedKey:
    """An operator's key."""
    return keys.issue_key("ops", operator=True)


class Caller:
    """Send requests through the real Django stack with a key, and read the JSON envelope back."""

    def __init__(self, client, api_key: str | None):
        self.client = client
        self.api_key = api_key

    def headers(self, api_key: str | None = None, bearer: bool = False) -> dict:
        key = api_key if api_key is not None else self.api_key
        if key is None:
            return {}
        return {"Authorization": f"Bearer {key}"} if bearer else {"X-API-Key": key}

    def get(self, path: str, *, api_key: str | None = None, bearer: bool = False, **params):
        return self.client.get(path, params, headers=self.headers(api_key, bearer))

    def post(self, path: str, body=None, *, raw: bytes | str | None = None, api_key: str | None = None, **extra):
        data = raw if raw is not None else (json.dumps(body) if body is not None else "")
        return self.client.generic(
            "POST", path, data, content_type="application/json", headers=self.headers(api_key), **extra
        )


@pytest.fixture
def as_shop(client, shop) -> Caller:
    return Caller(client, shop.api_key)


@pytest.fixture
def as_operator(client, operator) -> Caller:
    return Caller(client, operator.api_key)


@pytest.fixture
def anonymous(client) -> Caller:
    return Caller(client, None)


def products(count: int, *, prefix: str = "P", **fields) -> list[dict]:
    """`count` valid products with distinct codes."""
    return [{"product_code": f"{prefix}{i}", "product_name": f"상품 {i}", **fields} for i in range(count)]
