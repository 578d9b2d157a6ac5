"""Who is calling: the API key (X-API-Key or Authorization: Bearer), operator rights and the rate limit."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.security import APIKeyHeader, HttpBearer

from api import keys, ratelimit
from api.exceptions import OperatorOnly, RateLimited, Unauthorized
from api.models import ApiClient


def admit(raw_key: str | None, *, operator_only: bool) -> ApiClient | None:
    """Return the client holding `raw_key` once it may make this request; None when no key was sent.

    Raises Unauthorized (unknown or revoked key), RateLimited, or OperatorOnly.
    """
    if not raw_key:
        return None
    client = keys.authenticate(raw_key)
    if client is None:
        raise Unauthorized("the API key is not valid or was revoked")
    limit = settings.LPS_API_RATE_LIMIT_PER_MINUTE
    if limit > 0:
        decision = ratelimit.hit(client.pk, limit=limit)
        if not decision.allowed:
            raise RateLimited(
                f"more than {limit} requests in a minute for this API key", retry_after=decision.retry_after
            )
    if operator_only and not client.is_operator:
        raise OperatorOnly()
    keys.touch(client)
    return client


class ApiKeyHeader(APIKeyHeader):
    """`X-API-Key: <key>`."""

    param_name = "X-API-Key"

    def __init__(self, *, operator_only: bool = False):
        self.operator_only = operator_only
        super().__init__()

    def authenticate(self, request: HttpRequest, key: str | None) -> ApiClient | None:
        return admit(key, operator_only=self.operator_only)


class BearerKey(HttpBearer):
    """`Authorization: Bearer <key>`."""

    def __init__(self, *, operator_only: bool = False):
        self.operator_only = operator_only
        super().__init__()

    def authenticate(self, request: HttpRequest, token: str) -> ApiClient | None:
        return admit(token, operator_only=self.operator_only)


CLIENT = [ApiKeyHeader(), BearerKey()]
OPERATOR = [ApiKeyHeader(operator_only=True), BearerKey(operator_only=True)]
