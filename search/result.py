"""The SEARCH result as a type: what the floors above read of it (SPEC §8, the §4.7 result JSON, and the parts
later issues added: review, reuse, corrections).

The result itself stays the JSON the pipeline builds and the job stores (a dict: rounds, matches, review,
metrics, …, each part written by the stage that owns it); whatever a module outside that stage reads back out of
it is read here, once, by attribute, from any stored result. `SearchResult.from_json` never raises: an old row, a
result still being built, a part of the wrong type or no object at all gives None (or an empty tuple) where the
part should be. `to_json()` gives back the stored JSON itself, unknown keys included; a `Lowest`'s gives exactly
its stored shape (absent values left out, never null).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _mapping(value: Any) -> Mapping:
    return value if isinstance(value, Mapping) else {}


def _objects(value: Any) -> list[Mapping]:
    """The objects of a stored list (anything else in it, or a list that is not one, left out)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list | tuple) else []


def _identifier(value: Any) -> str | None:
    """A product id as a correction names it: text (a number stored by an old page read as its text)."""
    if isinstance(value, str):
        return value
    return str(value) if _int(value) is not None else None


@dataclass(frozen=True)
class Lowest:
    """The lowest listing of the product: `{"price", "title", "url", "product_id"?, "seller"?, "rocket",
    "marketplace"?, "shipping_fee"?}`; also each of `matches` (which adds its confidence and reason)."""

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
        return cls(
            price=_int(lowest.get("price")),
            title=_text(lowest.get("title")),
            url=_text(lowest.get("url")),
            product_id=_text(lowest.get("product_id")),
            seller=_text(lowest.get("seller")),
            rocket=_flag(lowest.get("rocket")),
            marketplace=_text(lowest.get("marketplace")),
            shipping_fee=_int(lowest.get("shipping_fee")),
        )

    def to_json(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if value is not None}


@dataclass(frozen=True)
class JudgedListing:
    """One listing a round judged, as the round stores it (`rounds[].verdicts[]`)."""

    index: int | None = None
    same_product: bool | None = None
    confidence: float | None = None
    reason: str | None = None
    title: str | None = None
    price: int | None = None
    url: str | None = None
    seller: str | None = None
    rocket: bool | None = None
    source: str | None = None
    """"rules", "llm" or "correction": who decided it (None in results from before the cascade)."""
    uncertain: bool | None = None
    marketplace: str | None = None
    product_id: str | None = None
    """What a correction names the listing by, with its marketplace (None in results from before §10)."""

    @classmethod
    def from_json(cls, verdict: Mapping) -> JudgedListing:
        return cls(
            index=_int(verdict.get("index")),
            same_product=_flag(verdict.get("same_product")),
            confidence=_number(verdict.get("confidence")),
            reason=_text(verdict.get("reason")),
            title=_text(verdict.get("title")),
            price=_int(verdict.get("price")),
            url=_text(verdict.get("url")),
            seller=_text(verdict.get("seller")),
            rocket=_flag(verdict.get("rocket")),
            source=_text(verdict.get("source")),
            uncertain=_flag(verdict.get("uncertain")),
            marketplace=_text(verdict.get("marketplace")),
            product_id=_identifier(verdict.get("product_id")),
        )

    @property
    def key(self) -> tuple[str, str] | None:
        """(marketplace, product id), how a correction names the listing; None without a product id."""
        return (self.marketplace or "coupang", self.product_id) if self.product_id else None


@dataclass(frozen=True)
class Round:
    """One query of the refine loop: `{"query", "kind", "candidates", "matches", "judge"?, "settled_by_rules"?,
    "sent_to_llm"?, "verdicts"?}`."""

    query: str | None = None
    kind: str | None = None
    """"original", "precise" or "broad"."""
    candidates: int | None = None
    matches: int | None = None
    judge: str | None = None
    settled_by_rules: int | None = None
    sent_to_llm: int | None = None
    verdicts: tuple[JudgedListing, ...] = ()

    @classmethod
    def from_json(cls, round_: Mapping) -> Round:
        return cls(
            query=_text(round_.get("query")),
            kind=_text(round_.get("kind")),
            candidates=_int(round_.get("candidates")),
            matches=_int(round_.get("matches")),
            judge=_text(round_.get("judge")),
            settled_by_rules=_int(round_.get("settled_by_rules")),
            sent_to_llm=_int(round_.get("sent_to_llm")),
            verdicts=tuple(JudgedListing.from_json(verdict) for verdict in _objects(round_.get("verdicts"))),
        )


@dataclass(frozen=True)
class ReviewEntry:
    """A listing the search left for a person to settle (`review[]`, search/review.py)."""

    marketplace: str | None = None
    product_id: str | None = None
    title: str | None = None
    price: int | None = None
    url: str | None = None
    reason: str | None = None

    @classmethod
    def from_json(cls, item: Mapping) -> ReviewEntry:
        return cls(
            marketplace=_text(item.get("marketplace")),
            product_id=_identifier(item.get("product_id")),
            title=_text(item.get("title")),
            price=_int(item.get("price")),
            url=_text(item.get("url")),
            reason=_text(item.get("reason")),
        )


@dataclass(frozen=True)
class MarketplaceAnswer:
    """One marketplace's own answer in a search across several (`by_marketplace.<name>`)."""

    outcome: str | None = None
    lowest: Lowest | None = None
    reason: str | None = None
    """Why it was skipped (Naver's quota), if it was."""

    @classmethod
    def from_json(cls, answer: Mapping) -> MarketplaceAnswer:
        return cls(
            outcome=_text(answer.get("outcome")),
            lowest=Lowest.from_json(answer.get("lowest")),
            reason=_text(answer.get("reason")),
        )


@dataclass(frozen=True)
class CorrectionMark:
    """A change of the answer a correction made (`corrections[]`, corrections/correcting.py)."""

    correction_id: int | None = None
    at: str | None = None
    """When, ISO 8601."""
    previous: Mapping | None = None
    """The answer before: `{"outcome", "lowest"?}` (search/overrides.py `answer`)."""
    current: Mapping | None = None

    @classmethod
    def from_json(cls, mark: Mapping) -> CorrectionMark:
        previous, current = mark.get("previous"), mark.get("current")
        return cls(
            correction_id=_int(mark.get("correction_id")),
            at=_text(mark.get("at")),
            previous=previous if isinstance(previous, Mapping) else None,
            current=current if isinstance(current, Mapping) else None,
        )


@dataclass(frozen=True)
class Metrics:
    """What the search spent: `metrics` (`duration_ms`, `rounds`, `tokens`, `bytes`, `cost`, `stages_ms`)."""

    duration_ms: int | None = None
    rounds: int | None = None
    tokens: int | None = None
    """A count of tokens, as old results stored it (newer ones store {input, output, total}: None here)."""
    bytes: int | None = None
    ai_usd: float | None = None
    proxy_usd: float | None = None
    total_usd: float | None = None
    stages_ms: Mapping[str, float] | None = None
    """Where the time went, by stage (search/stage_timings.py), as stored."""

    @classmethod
    def from_json(cls, metrics: object) -> Metrics:
        metrics = _mapping(metrics)
        cost = _mapping(metrics.get("cost"))
        stages = metrics.get("stages_ms")
        return cls(
            duration_ms=_int(metrics.get("duration_ms")),
            rounds=_int(metrics.get("rounds")),
            tokens=_int(metrics.get("tokens")),
            bytes=_int(metrics.get("bytes")),
            ai_usd=_number(cost.get("ai_usd")),
            proxy_usd=_number(cost.get("proxy_usd")),
            total_usd=_number(cost.get("total_usd")),
            stages_ms=stages if isinstance(stages, Mapping) else None,
        )


@dataclass(frozen=True)
class SearchResult:
    """A stored SEARCH result, read: found or not, the lowest listing, how it was searched, what it cost."""

    outcome: str | None = None
    """"found" or "not_found"; None when the stored result says neither."""
    lowest: Lowest | None = None
    matches: tuple[Lowest, ...] = ()
    rounds: tuple[Round, ...] = ()
    review: tuple[ReviewEntry, ...] = ()
    by_marketplace: Mapping[str, MarketplaceAnswer] | None = None
    """None for a result of one marketplace (or one from before marketplaces)."""
    cached: bool | None = None
    """The negative cache answered (a remembered not_found)."""
    reused: bool | None = None
    """A watch's search answered by another search's fresh result (watches/reuse.py)."""
    reused_from: str | None = None
    """The job it reused, when that job is the same client's."""
    product_code: str | None = None
    corrections: tuple[CorrectionMark, ...] = ()
    metrics: Metrics = field(default_factory=Metrics)
    stored: Mapping = field(default_factory=dict, repr=False, compare=False)
    """The stored JSON as read (what `to_json` gives back)."""

    @classmethod
    def from_json(cls, result: object) -> SearchResult:
        """Read any stored result (an old row, a result still being built, or no object at all)."""
        if not isinstance(result, Mapping):
            return cls()
        by_marketplace = result.get("by_marketplace")
        return cls(
            outcome=_text(result.get("outcome")),
            lowest=Lowest.from_json(result.get("lowest")),
            matches=tuple(Lowest.from_json(match) for match in _objects(result.get("matches"))),
            rounds=tuple(Round.from_json(round_) for round_ in _objects(result.get("rounds"))),
            review=tuple(ReviewEntry.from_json(item) for item in _objects(result.get("review"))),
            by_marketplace={
                str(name): MarketplaceAnswer.from_json(answer)
                for name, answer in by_marketplace.items()
                if isinstance(answer, Mapping)
            }
            if isinstance(by_marketplace, Mapping)
            else None,
            cached=_flag(result.get("cached")),
            reused=_flag(result.get("reused")),
            reused_from=_text(result.get("reused_from")),
            product_code=_text(result.get("product_code")),
            corrections=tuple(CorrectionMark.from_json(mark) for mark in _objects(result.get("corrections"))),
            metrics=Metrics.from_json(result.get("metrics")),
            stored=result,
        )

    def to_json(self) -> dict:
        """The stored result, as it was stored (a copy: changing it changes neither this nor the row)."""
        return copy.deepcopy(dict(self.stored))

    @property
    def found(self) -> bool:
        return self.outcome == "found"

    @property
    def price(self) -> int | None:
        return self.lowest.price if self.lowest is not None else None

    @property
    def cost_usd(self) -> float | None:
        """metrics.cost.total_usd; None when the result carries none."""
        return self.metrics.total_usd

    @property
    def verdicts(self) -> tuple[JudgedListing, ...]:
        """Every round's verdicts, in the order the rounds judged them."""
        return tuple(verdict for round_ in self.rounds for verdict in round_.verdicts)
