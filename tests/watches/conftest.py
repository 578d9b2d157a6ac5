"""Fixtures of the watch tests: a shop's key and a JSON caller through Django's test client (as tests/api's)."""

from __future__ import annotations

import pytest

from api import keys
from tests.api.conftest import Caller


@pytest.fixture
def shop(db) -> keys.IssuedKey:
    return keys.issue_key("shop")


@pytest.fixture
def as_shop(client, shop) -> Caller:
    return Caller(client, shop.api_key)
