"""The corrections a search applies (registered with search.overrides from apps.py)."""

from __future__ import annotations

from django.db.models import Q

from corrections.models import Author, Correction, Scope
from negative_cache.cache import key_for
from search.listings import ProductQuery
from search.overrides import ListingKey, Override


def identity_of(product: ProductQuery) -> str:
    """The product identity a global correction is kept under: the negative cache's key."""
    return key_for(product_name=product.product_name, model_code=product.model_code, brand=product.brand).key


def overrides_for(product: ProductQuery, client_id: int | None) -> dict[ListingKey, Override]:
    """`client_id`'s corrections of its product_code and the operators' shared ones of the product identity.

    Where both name a listing, the client's own word about its own product wins: it is the more specific one.
    """
    mine = Q(scope=Scope.CLIENT, client_id=client_id, product_code=product.product_code)
    rows = Correction.objects.filter(mine | Q(scope=Scope.GLOBAL, identity=identity_of(product))).order_by("-scope")
    found: dict[ListingKey, Override] = {}
    # "global" sorts after "client": descending puts the shared ones first, so the client's replace them.
    for row in rows:
        found[(row.marketplace, row.product_id)] = override_of(row)
    return found


def override_of(row: Correction) -> Override:
    said = "the product" if row.same_product else "not this product"
    who = "operator" if row.made_by == Author.OPERATOR else "shop"
    reason = f"correction: {said} ({who}{': ' + row.note if row.note else ''})"
    return Override(same_product=row.same_product, reason=reason[:300], shared=row.scope == Scope.GLOBAL)
