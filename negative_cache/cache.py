"""The negative cache: remember a not_found for a while so nobody pays to search it again."""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from negative_cache.models import NegativeCacheEntry

_SPACES = re.compile(r"\s+")


def normalise_query(text: str) -> str:
    """Fold case, width and spacing so that trivially different names share one key."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def key_for(*, product_code: str | None, product_name: str) -> str:
    """The cache key: the product code when there is one, else the normalised query."""
    if product_code:
        return f"code:{product_code}"
    return f"query:{normalise_query(product_name)}"[:400]


def lookup(key: str) -> NegativeCacheEntry | None:
    """Return the entry for `key` while it is still valid; an expired row counts as absent."""
    return NegativeCacheEntry.objects.filter(key=key, until__gt=timezone.now()).first()


def remember(key: str, *, ttl: timedelta, reason: str = "") -> NegativeCacheEntry:
    """Upsert the entry for `key`, valid for `ttl` from now."""
    now = timezone.now()
    entry = NegativeCacheEntry(key=key, until=now + ttl, reason=reason[:2000], created_at=now)
    # One INSERT … ON CONFLICT DO UPDATE, so two workers writing the same key never collide.
    NegativeCacheEntry.objects.bulk_create(
        [entry], update_conflicts=True, unique_fields=["key"], update_fields=["until", "reason", "created_at"]
    )
    return entry


def forget(key: str) -> bool:
    """Drop the entry so that the next search of it runs for real."""
    deleted, _ = NegativeCacheEntry.objects.filter(key=key).delete()
    return bool(deleted)


def purge_expired(*, limit: int = 5000) -> int:
    """Delete up to `limit` expired entries; return how many."""
    expired = NegativeCacheEntry.objects.filter(Q(until__lte=timezone.now())).values_list("key", flat=True)[:limit]
    deleted, _ = NegativeCacheEntry.objects.filter(key__in=list(expired)).delete()
    return deleted
