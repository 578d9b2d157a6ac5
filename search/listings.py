"""The values that flow through a search: the product asked for, listings found, and what the judge said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class ProductQuery:
    """A product a client asked about, as the pipeline searches it (search/payload.py reads it from a job)."""

    product_code: str
    product_name: str
    brand: str | None = None
    model_code: str | None = None
    price: int | None = None
    """The client's own price, in won."""


@dataclass(frozen=True)
class Listing:
    """One product card on a marketplace result page."""

    title: str
    price: int
    """The sale price in won (never the struck-through original or a unit price)."""
    url: str
    product_id: str | None = None
    seller: str | None = None
    rocket: bool = False
    sold_out: bool = False
    ad: bool = False
    marketplace: str = "coupang"
    """The marketplace the listing is on: with product_id, what a correction names it by (SPEC §10)."""
    product_type: int | None = None
    """Naver Shopping's productType: 1–3 new (a catalog, an unmatched offer, an offer matched to a catalog), 4–6
    used, 7–9 discontinued, 10–12 not yet on sale. None where the marketplace has no such field."""
    rental: bool = False
    """The listing offers a rental or subscription (its price is a fee, not a purchase): never a candidate."""
    shipping_fee: int | None = None
    """What delivering one unit at `price` costs in won as the card states it (0: free); None when it does not say."""
    free_shipping_over: int | None = None
    """The order amount from which the card says delivery is free, when it states one."""

    @property
    def is_candidate(self) -> bool:
        """Ads, sold-out listings, rentals and anything but a new, current offer are never candidates."""
        if self.ad or self.sold_out or self.rental:
            return False
        return self.product_type is None or self.product_type in NEW_PRODUCT_TYPES


NEW_PRODUCT_TYPES = frozenset({1, 2, 3})
"""Naver's productTypes of new, current offers (4–12 are used, discontinued or not yet on sale)."""


@dataclass(frozen=True)
class SearchPage:
    """What the crawler brought back for one query."""

    query: str
    url: str
    listings: list[Listing]
    empty: bool
    """The marketplace said it found nothing (a healthy page, not a block)."""
    bytes: int = 0
    """Bytes transferred for this page (what a proxy bills)."""
    elapsed_ms: int = 0
    proxy_label: str = "direct"

    @property
    def candidates(self) -> list[Listing]:
        return [listing for listing in self.listings if listing.is_candidate]


@dataclass(frozen=True)
class TokenUsage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def cost_usd(self, *, input_usd_per_1m: float, output_usd_per_1m: float) -> float:
        return (self.input_tokens * input_usd_per_1m + self.output_tokens * output_usd_per_1m) / 1_000_000


@dataclass(frozen=True)
class Verdict:
    """The judge's word on one candidate (by its index in the candidate list)."""

    index: int
    same_product: bool
    confidence: float
    reason: str
    source: Literal["llm", "rules", "correction"] = "rules"
    """Who decided: the rules, the LLM for a candidate the rules were unsure of, or a person's correction (§10)."""
    uncertain: bool = False
    """The rules could not decide (counted as no match: a wrong price is worse than none)."""


@dataclass(frozen=True)
class Judgement:
    verdicts: list[Verdict]
    usage: TokenUsage = field(default_factory=TokenUsage)
    judge: Literal["llm", "rules"] = "rules"
    """"llm" once any verdict came from the LLM."""
    settled_by_rules: int = 0
    """Candidates the rules decided (all of them without an LLM)."""
    sent_to_llm: int = 0


@dataclass(frozen=True)
class RefinedQueries:
    """Better search terms after a round with no match: a precise query, then a broad one."""

    precise: str
    broad: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    source: Literal["llm", "rules"] = "rules"
