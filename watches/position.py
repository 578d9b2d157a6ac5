"""Where a shop stands against the market, per watch: its own price (the product's `price`) against the market's
lowest of the last run, the gap in won and per cent, on which marketplace, and since when.

The gap is the shop's price less the market's lowest: positive when the shop is dearer (undercut), zero or negative
when it is the cheapest on the market; the per cent is of the market's lowest ("dearer than the market by 5 %").
It is computed from the watch's current price and its last found run, in SQL for lists and filters
(`with_position`) and in Python for one watch (`position_of`); a watch without an own price or whose last run found
nothing has no position.

`undercut` is a state that survives runs that find nothing: the market's lowest went below the shop's own price.
It sends the `undercut` event once per crossing (the first run is a baseline, as for every event), and again only
after a found lowest at or above the shop's price has ended it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import BigIntegerField, Case, ExpressionWrapper, F, FloatField, Q, QuerySet, When
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from search.result import Lowest, SearchResult
from watches.models import Watch

DEARER_PERCENT = 5.0
"""The admin's "dearer than the market by ≥ 5 %" filter."""

_FOUND = Q(last_outcome="found", last_price__gt=0)


def with_position(queryset: QuerySet[Watch]) -> QuerySet[Watch]:
    """`queryset` annotated with own_price, gap_won and gap_percent (None where there is no position)."""
    return queryset.annotate(own_price=Cast(KeyTextTransform("price", "product"), BigIntegerField())).annotate(
        gap_won=Case(When(_FOUND, then=F("own_price") - F("last_price")), default=None),
        gap_percent=Case(
            When(
                _FOUND,
                then=ExpressionWrapper(
                    (F("own_price") - F("last_price")) * 100.0 / F("last_price"), output_field=FloatField()
                ),
            ),
            default=None,
            output_field=FloatField(),
        ),
    )


def undercut(queryset: QuerySet[Watch]) -> QuerySet[Watch]:
    """Watches whose last found lowest is below the shop's own price (a queryset of `with_position`)."""
    return queryset.filter(gap_won__gt=0)


def dearer_by(queryset: QuerySet[Watch], percent: float) -> QuerySet[Watch]:
    return queryset.filter(gap_percent__gte=percent)


def cheapest(queryset: QuerySet[Watch]) -> QuerySet[Watch]:
    """Watches where the shop's own price is at or below the market's lowest."""
    return queryset.filter(gap_won__lte=0)


def gap(own_price: int | None, market_price: int | None) -> tuple[int, float] | None:
    """(won, per cent of the market's lowest) by which the shop is dearer; None without both prices."""
    if not isinstance(own_price, int) or not isinstance(market_price, int) or market_price <= 0:
        return None
    return own_price - market_price, round((own_price - market_price) * 100 / market_price, 2)


@dataclass(frozen=True)
class Position:
    own_price: int
    market_price: int
    marketplace: str | None
    gap_won: int
    gap_percent: float
    since: datetime | None
    """When the shop came to stand where it stands (undercut, or not), by the runs that saw it."""

    @property
    def undercut(self) -> bool:
        return self.gap_won > 0

    def as_json(self) -> dict:
        out = {
            "own_price": self.own_price,
            "market_price": self.market_price,
            "gap_won": self.gap_won,
            "gap_percent": self.gap_percent,
            "undercut": self.undercut,
        }
        if self.marketplace:
            out["marketplace"] = self.marketplace
        if self.since is not None:
            out["since"] = self.since
        return out


def _own_price(watch: Watch) -> int | None:
    price = (watch.product or {}).get("price")
    return price if isinstance(price, int) and not isinstance(price, bool) else None


def position_of(watch: Watch) -> Position | None:
    """The watch's position now, or None (no own price, or the last run found nothing)."""
    lowest = SearchResult.from_json(watch.last_result).lowest or Lowest()
    own = _own_price(watch)
    found = gap(own, watch.last_price) if watch.last_outcome == "found" else None
    if found is None:
        return None
    return Position(own, watch.last_price, lowest.marketplace or "coupang", *found, watch.position_since)


@dataclass(frozen=True)
class Standing:
    """What a finished run does to a watch's position: the fields to write, and whether it crossed below."""

    fields: dict
    crossed_below: bool


def after_run(watch: Watch, current: SearchResult, now: datetime) -> Standing:
    """The position after a run that answered `current` (watches/changes.py records it)."""
    own = _own_price(watch)
    if own is None:
        return Standing({"undercut": False, "position_since": None}, False)
    price = current.price
    if not current.found or price is None:
        return Standing({}, False)  # nothing seen: the shop stands where it stood
    below = price < own
    fields: dict = {"undercut": below}
    if below != watch.undercut or watch.position_since is None:
        fields["position_since"] = now
    # The first run is the baseline; a run after a not_found that finds it below is a crossing too.
    return Standing(fields, below and not watch.undercut and watch.last_result is not None)


def undercut_body(watch: Watch, current: SearchResult) -> dict:
    """What an `undercut` event adds to its body: the shop's price and the gap (per cent of the market's lowest)."""
    own = _own_price(watch)
    found = gap(own, current.price)
    return {"own_price": own, "gap_percent": found[1]} if found else {}
