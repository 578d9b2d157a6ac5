"""API keys: issue, authenticate and revoke. Only a key's prefix (to find its row) and its hash are stored.

A key looks like `lps_<12 hex prefix>_<43 url-safe characters>`: 256 random bits, so one SHA-256 is as good as
a slow password hash here (nothing to brute-force) and keeps authentication cheap on every request.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from api.exceptions import DuplicateClientName, InvalidRequest
from api.models import ApiClient

KEY_PATTERN = re.compile(r"lps_([0-9a-f]{12})_[A-Za-z0-9_-]{43}")
# last_used_at is a hint for operators, not an audit log: one write a minute per client is enough.
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedKey:
    """A new client with its key and webhook secret, shown once and never stored in the clear (the key)."""

    client: ApiClient
    api_key: str
    webhook_secret: str


def hash_key(api_key: str) -> str:
    """Return the stored form of a key."""
    return hashlib.sha256(api_key.encode()).hexdigest()


def issue_key(name: str, *, operator: bool = False) -> IssuedKey:
    """Create an API client called `name` and return it with its new key and webhook secret."""
    name = (name or "").strip()
    if not name or len(name) > ApiClient._meta.get_field("name").max_length:
        raise InvalidRequest("the client name must be 1 to 200 characters", field="name")
    prefix = secrets.token_hex(6)
    api_key = f"lps_{prefix}_{secrets.token_urlsafe(32)}"
    webhook_secret = secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            client = ApiClient.objects.create(
                name=name,
                key_prefix=prefix,
                key_hash=hash_key(api_key),
                webhook_secret=webhook_secret,
                is_operator=operator,
            )
    except IntegrityError as exc:
        if ApiClient.objects.filter(name=name).exists():
            raise DuplicateClientName(f"an API client named {name!r} already exists", field="name") from exc
        raise
    return IssuedKey(client=client, api_key=api_key, webhook_secret=webhook_secret)


def rotate_webhook_secret(client: ApiClient) -> str:
    """Give `client` a new webhook secret and return it (shown once): every webhook signed from now on, retries of
    earlier ones included, is signed with it. The old secret stops working at once; the key is unchanged."""
    secret = secrets.token_urlsafe(32)
    ApiClient.objects.filter(pk=client.pk).update(webhook_secret=secret)
    client.webhook_secret = secret
    return secret


def revoke(client: ApiClient) -> None:
    """Turn the client's key off for good; requests with it get 401 from now on."""
    ApiClient.objects.filter(pk=client.pk).update(is_active=False)
    client.is_active = False


def prefix_of(raw_key: str | None) -> str | None:
    """The public prefix of something shaped like a key (`lps_<prefix>_…`), else None."""
    match = KEY_PATTERN.fullmatch((raw_key or "").strip())
    return match.group(1) if match else None


@dataclass(frozen=True)
class PresentedKey:
    """Something shaped like a key, as the database finds it: its public prefix and its stored form."""

    prefix: str
    key_hash: str


def presented(raw_key: str | None) -> PresentedKey | None:
    """The prefix and hash of `raw_key` when it is shaped like a key, else None."""
    match = KEY_PATTERN.fullmatch((raw_key or "").strip())
    return PresentedKey(prefix=match.group(1), key_hash=hash_key(match.group(0))) if match else None


def authenticate(raw_key: str | None) -> ApiClient | None:
    """Return the active client that holds `raw_key`, or None."""
    if not raw_key:
        return None
    match = KEY_PATTERN.fullmatch(raw_key.strip())
    if match is None:
        return None
    client = ApiClient.objects.filter(key_prefix=match.group(1), is_active=True).first()
    if client is None or not hmac.compare_digest(client.key_hash, hash_key(match.group(0))):
        return None
    return client


def touch(client: ApiClient) -> None:
    """Record that the client used its key, at most once per TOUCH_EVERY."""
    now = timezone.now()
    if client.last_used_at is not None and now - client.last_used_at < TOUCH_EVERY:
        return
    ApiClient.objects.filter(pk=client.pk).filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - TOUCH_EVERY)
    ).update(last_used_at=Now())
    client.last_used_at = now
