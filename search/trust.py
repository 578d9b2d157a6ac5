"""What a shop needs to trust a result, in fields beside §8's (which stay as they are):

- `product_code` and `searched_at`: whose product this answers, and when the marketplaces were read (for a reused
  result, when they were read for the search it reuses; for a cached not_found, when it was remembered);
- `cache`, on an answer from the negative cache: when that not_found was found, its age and when it expires;
- `price_check`, when the shop sent its own `price` and a lowest was found: the gap between the two, in won and in
  percent of the lowest (positive: the shop is dearer);
- `left_out`: the listings on the result pages that were never candidates, cheapest first, with why (`ad`,
  `sold_out`, `rental`, `used`, `discontinued`, `not_yet_on_sale`): what explains a cheaper price a shop sees on
  the marketplace itself. At most LEFT_OUT_SHOWN are listed; `left_out_more` counts the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from datetime import UTC, datetime

from django.utils import timezone

from search.listings import Listing, ProductQuery

LEFT_OUT_SHOWN = 10


def left_out_why(listing: Listing) -> str | None:
    """Why a listing is not a candidate (None when it is one)."""
    if listing.ad:
        return "ad"
    if listing.sold_out:
        return "sold_out"
    if listing.rental:
        return "rental"
    kind = listing.product_type
    if kind is None or kind <= 3:
        return None
    if kind <= 6:
        return "used"
    if kind <= 9:
        return "discontinued"
    return "not_yet_on_sale"


def left_out(listings: Iterable[Listing]) -> tuple[list[dict], int]:
    """The listings that were not candidates, each once (by marketplace and product id, or URL), cheapest first,
    at most LEFT_OUT_SHOWN of them; and how many more there were."""
    seen: dict[tuple[str, str], dict] = {}
    for listing in listings:
        why = left_out_why(listing)
        if why is None:
            continue
        key = (listing.marketplace, listing.product_id or listing.url)
        if key in seen:
            continue
        shown = {"marketplace": listing.marketplace, "price": listing.price, "title": listing.title, "why": why}
        if listing.product_id:
            shown["product_id"] = listing.product_id
        seen[key] = shown
    ordered = sorted(seen.values(), key=lambda shown: (shown["price"], shown["title"]))
    return ordered[:LEFT_OUT_SHOWN], max(0, len(ordered) - LEFT_OUT_SHOWN)


def add_left_out(result: MutableMapping, listings: Iterable[Listing]) -> None:
    """Put `left_out` (and `left_out_more` when some were cut) in a searched result."""
    shown, more = left_out(listings)
    result["left_out"] = shown
    if more:
        result["left_out_more"] = more


def cache_json(remembered_at: datetime, expires_at: datetime, *, now: datetime | None = None) -> dict:
    """A cached not_found's age and expiry."""
    now = now or timezone.now()
    return {
        "remembered_at": _iso(remembered_at),
        "expires_at": _iso(expires_at),
        "age_seconds": max(0, int((now - remembered_at).total_seconds())),
    }


def price_check(your_price: int | None, result: MutableMapping) -> dict | None:
    """The shop's price against the result's lowest; None without either."""
    lowest = result.get("lowest")
    if your_price is None or not isinstance(lowest, dict) or not isinstance(lowest.get("price"), int):
        return None
    lowest_price = lowest["price"]
    gap = your_price - lowest_price
    return {
        "your_price": your_price,
        "lowest_price": lowest_price,
        "gap_won": gap,
        "gap_percent": round(gap * 100 / lowest_price, 1) if lowest_price else None,
    }


def refresh_price_check(result: MutableMapping) -> None:
    """Set `price_check` again after the lowest changed (a correction re-answered the result)."""
    previous = result.get("price_check")
    if not isinstance(previous, dict):
        return
    checked = price_check(previous.get("your_price"), result)
    if checked is None:
        result.pop("price_check", None)
    else:
        result["price_check"] = checked


def describe(result: MutableMapping, product: ProductQuery, *, now: datetime | None = None) -> MutableMapping:
    """Add product_code, searched_at (kept if the result already has one: a reused result) and price_check to a
    finished result; return it."""
    result["product_code"] = product.product_code
    cached = result.get("cache")
    # A cached not_found was searched when it was remembered; a reused result when the search it reuses ran.
    when = cached["remembered_at"] if isinstance(cached, dict) else _iso(now or timezone.now())
    result.setdefault("searched_at", when)
    checked = price_check(product.price, result)
    if checked is None:
        result.pop("price_check", None)
    else:
        result["price_check"] = checked
    return result


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
