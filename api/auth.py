"""Who is calling: the API key (X-API-Key or Authorization: Bearer), operator rights and the rate limits.

Two limits, both over any 60-second span (api/ratelimit.py): LPS_API_RATE_LIMIT_PER_MINUTE requests per key, and
LPS_API_KEY_FAILURES_PER_MINUTE wrong keys per client address (lps_site/client_address.py) and key (its public
prefix; anything not shaped like a key shares one). Once an address is over the second for a key, every request
from it with that key is 429 before the key is looked at, right or wrong, so a 429 tells a guesser nothing about
the secret it sent; another key from the same address (another tenant's, the operators' /metrics scrape) is not
held back by it. The wrong key that passes the limit is itself a 429, decided by the count it added: many wrong
keys sent at once get at most the limit's worth of 401s.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.security import APIKeyHeader, HttpBearer

from api import keys, ratelimit
from api.exceptions import OperatorOnly, RateLimited, Unauthorized
from api.models import ApiClient
from lps_site.client_address import client_address


def admit(raw_key: str | None, *, operator_only: bool, request: HttpRequest | None = None) -> ApiClient | None:
    """Return the client holding `raw_key` once it may make this request; None when no key was sent.

    Raises Unauthorized (unknown or revoked key), RateLimited (the key's limit, or too many wrong keys from the
    request's address), or OperatorOnly.
    """
    if not raw_key:
        return None
    failures_limit = settings.LPS_API_KEY_FAILURES_PER_MINUTE
    address = client_address(request) if request is not None else None
    failures = ratelimit.address_bucket(address, keys.prefix_of(raw_key))
    if failures_limit > 0:
        throttled = ratelimit.over_limit(failures, limit=failures_limit)
        if not throttled.allowed:
            raise RateLimited(
                f"more than {failures_limit} wrong API keys in a minute from this address",
                retry_after=throttled.retry_after,
            )
    client = keys.authenticate(raw_key)
    if client is None:
        if failures_limit > 0:
            # Decided by the count this failure added (one statement), not by the peek above: requests racing
            # past the peek together still get no more than the limit's worth of 401s.
            counted = ratelimit.hit_bucket(failures, limit=failures_limit)
            if not counted.allowed:
                raise RateLimited(
                    f"more than {failures_limit} wrong API keys in a minute from this address",
                    retry_after=counted.retry_after,
                )
        raise Unauthorized("the API key is not valid or was revoked")
    limit = settings.LPS_API_RATE_LIMIT_PER_MINUTE
    if limit > 0:
        decision = ratelimit.hit(client.pk, limit=limit)
        if not decision.allowed:
            raise RateLimited(
                f"more than {limit} requests in 60 seconds for this API key", retry_after=decision.retry_after
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
        return admit(key, operator_only=self.operator_only, request=request)


class BearerKey(HttpBearer):
    """`Authorization: Bearer <key>`."""

    def __init__(self, *, operator_only: bool = False):
        self.operator_only = operator_only
        super().__init__()

    def authenticate(self, request: HttpRequest, token: str) -> ApiClient | None:
        return admit(token, operator_only=self.operator_only, request=request)


CLIENT = [ApiKeyHeader(), BearerKey()]
OPERATOR = [ApiKeyHeader(operator_only=True), BearerKey(operator_only=True)]
