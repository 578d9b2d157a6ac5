"""Fixtures of the corrections tests: an operator's key and caller (the API tests' own, shared)."""

from tests.api.conftest import as_operator, operator  # noqa: F401
