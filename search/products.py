"""Record what each search of a product concluded: the product's latest outcome and a price snapshot."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now

from search.listings import ProductQuery
from search.models import PriceSnapshot, Product


def record_search(
    product: ProductQuery, result: dict, *, job_id: uuid.UUID | None = None, client_id: int | None = None
) -> PriceSnapshot:
    """Store one PriceSnapshot for `result` and move the product's search count and last_* fields with it.

    The product is `client_id`'s own product_code: two shops' SKU-1 are two products with two histories.

    Many workers may finish searches of the same product at once: the count grows by an UPDATE … SET
    search_count = search_count + 1, never by a read-modify-write.
    """
    if not product.product_code:
        raise ValueError("only a product with a product_code can be recorded")
    lowest = result.get("lowest") or {}
    cost = result.get("metrics", {}).get("cost", {}).get("total_usd", 0)
    # Inside the handler's transaction no savepoint of its own: two round trips of every search, and a failure here
    # fails the whole recording anyway.
    with transaction.atomic(savepoint=False):
        row, _ = Product.objects.get_or_create(
            client_id=client_id,
            product_code=product.product_code,
            defaults={"product_name": product.product_name[:500]},
        )
        Product.objects.filter(pk=row.pk).update(
            product_name=product.product_name[:500],
            brand=(product.brand or "")[:200],
            model_code=(product.model_code or "")[:200],
            search_count=F("search_count") + 1,
            last_outcome=result["outcome"],
            last_price=lowest.get("price"),
            last_url=lowest.get("url", ""),
            last_searched_at=Now(),
        )
        return PriceSnapshot.objects.create(
            product=row,
            job_id=job_id,
            outcome=result["outcome"],
            price=lowest.get("price"),
            title=lowest.get("title", "")[:1000],
            url=lowest.get("url", ""),
            seller=lowest.get("seller", "")[:500],
            rocket=bool(lowest.get("rocket", False)),
            marketplace=str(lowest.get("marketplace") or "")[:40],
            cost_usd=Decimal(str(cost)).quantize(Decimal("0.000001")),
        )


def record_reanswer(job_id: uuid.UUID, result: dict) -> bool:
    """Give the snapshot of `job_id`'s search the job's corrected answer (SPEC §10), and its product too when that
    snapshot is the product's latest; return whether there was a snapshot to correct."""
    lowest = result.get("lowest") or {}
    with transaction.atomic():
        snapshot = PriceSnapshot.objects.select_for_update().filter(job_id=job_id).order_by("-id").first()
        if snapshot is None:
            return False
        PriceSnapshot.objects.filter(pk=snapshot.pk).update(
            outcome=result["outcome"],
            price=lowest.get("price"),
            title=lowest.get("title", "")[:1000],
            url=lowest.get("url", ""),
            seller=lowest.get("seller", "")[:500],
            rocket=bool(lowest.get("rocket", False)),
        )
        latest = PriceSnapshot.objects.filter(product_id=snapshot.product_id).order_by("-captured_at", "-id").first()
        if latest is not None and latest.pk == snapshot.pk:
            Product.objects.filter(pk=snapshot.product_id).update(
                last_outcome=result["outcome"], last_price=lowest.get("price"), last_url=lowest.get("url", "")
            )
    return True
