"""The SEARCH result's answer as a type: its outcome and its lowest listing (SPEC §8, the §4.7 result JSON).

The result itself stays the JSON the pipeline builds and the job stores (a dict: rounds, matches, review,
metrics, …, each part written by the stage that owns it); what is read back out of it by the floors above —
the answer and its cost — is read here, once, by attribute, from any stored result, old rows included.
`to_json()` gives back exactly the stored shape: absent values are left out, never null.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Lowest:
    """The lowest listing of the product: `{"price", "title", "url", "product_id"?, "seller"?, "rocket",
    "marketplace"?, "shipping_fee"?}`."""

    price: int | None = None
    title: str | None = None
    url: str | None = None
    product_id: str | None = None
    seller: str | None = None
    rocket: bool | None = None
    marketplace: str | None = None
    shipping_fee: int | None = None

    @classmethod
    def from_json(cls, lowest: object) -> Lowest | None:
        """The stored `lowest` (None when there is none, or it is not an object)."""
        if not isinstance(lowest, Mapping):
            return None
        rocket = lowest.get("rocket")
        return cls(
            price=_int(lowest.get("price")),
            title=_text(lowest.get("title")),
            url=_text(lowest.get("url")),
            product_id=_text(lowest.get("product_id")),
            seller=_text(lowest.get("seller")),
            rocket=rocket if isinstance(rocket, bool) else None,
            marketplace=_text(lowest.get("marketplace")),
            shipping_fee=_int(lowest.get("shipping_fee")),
        )

    def to_json(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if value is not None}


@dataclass(frozen=True)
class SearchAnswer:
    """What a SEARCH result concluded: found or not, the lowest listing, what it cost."""

    outcome: str | None
    lowest: Lowest | None = None
    cost_usd: float | None = None
    """metrics.cost.total_usd; None when the result carries none."""

    @classmethod
    def from_json(cls, result: object) -> SearchAnswer:
        """Read any stored result (an old row, a result still being built, or no object at all)."""
        if not isinstance(result, Mapping):
            return cls(outcome=None)
        metrics = result.get("metrics")
        cost = metrics.get("cost") if isinstance(metrics, Mapping) else None
        total = cost.get("total_usd") if isinstance(cost, Mapping) else None
        return cls(
            outcome=_text(result.get("outcome")),
            lowest=Lowest.from_json(result.get("lowest")),
            cost_usd=float(total) if isinstance(total, int | float) and not isinstance(total, bool) else None,
        )

    @property
    def price(self) -> int | None:
        return self.lowest.price if self.lowest is not None else None
