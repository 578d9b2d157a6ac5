"""The negative cache: remember a not_found for a while so nobody pays to search it again.

A row is keyed by the product's identity — its normalised name, model code and brand — never by a client's
product_code, which means nothing outside its own shop: two shops asking for the same product share one row,
and two shops' different products that happen to share a code never silence each other.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from negative_cache.models import NegativeCacheEntry

_SPACES = re.compile(r"\s+")
KEY_PREFIX = "product:"


def normalise_query(text: str) -> str:
    """Fold case, width and spacing, and drop invisible format characters (zero-width space, BOM, …), so that
    trivially different spellings of one name share one key."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    visible = "".join(char for char in folded if unicodedata.category(char) != "Cf")
    return _SPACES.sub(" ", visible).strip()


@dataclass(frozen=True)
class ProductKey:
    """A product's identity in the cache: the row's key and what it was remembered for."""

    key: str
    product_name: str
    model_code: str
    brand: str

    def __str__(self) -> str:
        return self.key


def key_for(*, product_name: str, model_code: str | None = None, brand: str | None = None) -> ProductKey:
    """The cache key of a product: a digest of its normalised (name, model code, brand).

    A digest rather than the text itself: a 500-character name and its attributes do not fit a key, and cutting
    them short would let two different long names share one not_found.
    """
    identity = (normalise_query(product_name), normalise_query(model_code or ""), normalise_query(brand or ""))
    digest = hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).hexdigest()
    return ProductKey(KEY_PREFIX + digest, product_name, model_code or "", brand or "")


def lookup(key: ProductKey | str) -> NegativeCacheEntry | None:
    """Return the entry for `key` while it is still valid; an expired row counts as absent."""
    return NegativeCacheEntry.objects.filter(key=str(key), until__gt=timezone.now()).first()


def remember(key: ProductKey | str, *, ttl: timedelta, reason: str = "") -> NegativeCacheEntry:
    """Upsert the entry for `key`, valid for `ttl` from now, with the product it stands for."""
    now = timezone.now()
    entry = NegativeCacheEntry(key=str(key), until=now + ttl, reason=reason[:2000], created_at=now)
    if isinstance(key, ProductKey):
        entry.product_name = key.product_name[:500]
        entry.model_code = key.model_code[:200]
        entry.brand = key.brand[:200]
    # One INSERT … ON CONFLICT DO UPDATE, so two workers writing the same key never collide.
    NegativeCacheEntry.objects.bulk_create(
        [entry],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["until", "reason", "created_at", "product_name", "model_code", "brand"],
    )
    return entry


def forget(key: ProductKey | str) -> bool:
    """Drop the entry so that the next search of it runs for real."""
    deleted, _ = NegativeCacheEntry.objects.filter(key=str(key)).delete()
    return bool(deleted)


def purge_expired(*, limit: int = 5000) -> int:
    """Delete up to `limit` expired entries; return how many."""
    expired = NegativeCacheEntry.objects.filter(Q(until__lte=timezone.now())).values_list("key", flat=True)[:limit]
    deleted, _ = NegativeCacheEntry.objects.filter(key__in=list(expired)).delete()
    return deleted
