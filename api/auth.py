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
    request's address), or OperatorOnly. A key shaped like one is decided in one statement (ratelimit.admit_key:
    the address's wrong keys, the client's row, the request counted); only a wrong one costs a second (counting
    it against the address).
    """
    if not raw_key:
        return None
    failures_limit = settings.LPS_API_KEY_FAILURES_PER_MINUTE
    limit = settings.LPS_API_RATE_LIMIT_PER_MINUTE
    address = client_address(request) if request is not None else None
    failures = ratelimit.address_bucket(address, keys.prefix_of(raw_key))
    presented = keys.presented(raw_key)
    if presented is None:
        # Not shaped like a key: no client to find, only the address's wrong keys to peek at.
        admission = None
        if failures_limit > 0:
            _refuse_if_locked_out(ratelimit.over_limit(failures, limit=failures_limit), failures_limit)
    else:
        admission = ratelimit.admit_key(
            key_prefix=presented.prefix,
            key_hash=presented.key_hash,
            failures_bucket=failures,
            failures_limit=max(failures_limit, 0),
            limit=max(limit, 0),
        )
        if failures_limit > 0:
            _refuse_if_locked_out(admission.failures, failures_limit)
    if admission is None or admission.client is None:
        if failures_limit > 0:
            # Decided by the count this failure added (one statement), not by the peek above: requests racing
            # past the peek together still get no more than the limit's worth of 401s.
            counted = ratelimit.hit_bucket(failures, limit=failures_limit)
            if not counted.allowed:
                _refuse_if_locked_out(counted, failures_limit)
        raise Unauthorized("the API key is not valid or was revoked")
    fields = ApiClient._meta.concrete_fields
    client = ApiClient.from_db("default", [f.attname for f in fields], [admission.client[f.column] for f in fields])
    if admission.counted is not None and not admission.counted.allowed:
        raise RateLimited(
            f"more than {limit} requests in 60 seconds for this API key", retry_after=admission.counted.retry_after
        )
    if operator_only and not client.is_operator:
        raise OperatorOnly()
    keys.touch(client)
    return client


def _refuse_if_locked_out(decision: ratelimit.Decision, failures_limit: int) -> None:
    if not decision.allowed:
        raise RateLimited(
            f"more than {failures_limit} wrong API keys in a minute from this address",
            retry_after=decision.retry_after,
        )


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
