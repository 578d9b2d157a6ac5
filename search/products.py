"""Record what each search of a product concluded: the product's latest outcome and a price snapshot."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.db import connection, transaction

from search.listings import ProductQuery
from search.models import PriceSnapshot, Product
from search.result import Lowest, SearchResult


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
    answer = SearchResult.from_json(result)
    # Inside the handler's transaction no savepoint of its own: two round trips of every search, and a failure here
    # fails the whole recording anyway.
    with transaction.atomic(savepoint=False):
        product_id = _count_search(product, answer, client_id)
        return PriceSnapshot.objects.create(
            product_id=product_id,
            job_id=job_id,
            **_snapshot_fields(answer),
            cost_usd=Decimal(str(answer.cost_usd or 0)).quantize(Decimal("0.000001")),
        )


# One statement where get_or_create and an UPDATE took two (four for a new product: its savepoint too). The unique
# constraint is NULLS NOT DISTINCT, so the `search` command's products (no client) conflict on their code as well.
_COUNT_SEARCH_SQL = """
    INSERT INTO search_product AS product
        (client_id, product_code, product_name, brand, model_code, search_count,
         last_outcome, last_price, last_url, last_searched_at)
    VALUES (%s, %s, %s, %s, %s, 1, %s, %s, %s, now())
    ON CONFLICT (client_id, product_code) DO UPDATE SET
        product_name = EXCLUDED.product_name,
        brand = EXCLUDED.brand,
        model_code = EXCLUDED.model_code,
        search_count = product.search_count + 1,
        last_outcome = EXCLUDED.last_outcome,
        last_price = EXCLUDED.last_price,
        last_url = EXCLUDED.last_url,
        last_searched_at = EXCLUDED.last_searched_at
    RETURNING id
"""


def _count_search(product: ProductQuery, answer: SearchResult, client_id: int | None) -> int:
    """Create or move `product`'s row with this search (its count up by one, its last_* fields); return its id."""
    last = _product_fields(answer)
    with connection.cursor() as cursor:
        cursor.execute(
            _COUNT_SEARCH_SQL,
            [
                client_id,
                product.product_code,
                product.product_name[:500],
                (product.brand or "")[:200],
                (product.model_code or "")[:200],
                last["last_outcome"],
                last["last_price"],
                last["last_url"],
            ],
        )
        return cursor.fetchone()[0]


def record_reanswer(job_id: uuid.UUID, result: dict) -> bool:
    """Give the snapshot of `job_id`'s search the job's corrected answer (SPEC §10), and its product too when that
    snapshot is the product's latest; return whether there was a snapshot to correct."""
    answer = SearchResult.from_json(result)
    with transaction.atomic():
        snapshot = PriceSnapshot.objects.select_for_update().filter(job_id=job_id).order_by("-id").first()
        if snapshot is None:
            return False
        PriceSnapshot.objects.filter(pk=snapshot.pk).update(**_snapshot_fields(answer))
        latest = PriceSnapshot.objects.filter(product_id=snapshot.product_id).order_by("-captured_at", "-id").first()
        if latest is not None and latest.pk == snapshot.pk:
            Product.objects.filter(pk=snapshot.product_id).update(**_product_fields(answer))
    return True


def _snapshot_fields(answer: SearchResult) -> dict:
    """A snapshot's columns of an answer: the outcome and its lowest listing (blank when there is none)."""
    lowest = answer.lowest or Lowest()
    return {
        "outcome": answer.outcome,
        "price": lowest.price,
        "title": (lowest.title or "")[:1000],
        "url": lowest.url or "",
        "seller": (lowest.seller or "")[:500],
        "rocket": bool(lowest.rocket),
        "marketplace": (lowest.marketplace or "")[:40],
    }


def _product_fields(answer: SearchResult) -> dict:
    """The product's last_* columns of its latest answer."""
    lowest = answer.lowest or Lowest()
    return {"last_outcome": answer.outcome, "last_price": lowest.price, "last_url": lowest.url or ""}
