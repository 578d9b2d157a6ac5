"""How operators and clients find a product's jobs: by product code (exact) or by part of the product name.

The two predicates read the SEARCH payload, and each is served by an expression index of the job table
(jobs migration 0002): `payload -> 'product_code'` for the exact code, trigrams of the upper-cased name for a
part of it.
"""

from __future__ import annotations

from django.db.models import Q


def matching_product(term: str) -> Q:
    """Jobs whose payload has `term` as its product code, or inside its product name (any case)."""
    return Q(payload__product_code=term) | Q(payload__product_name__icontains=term)
