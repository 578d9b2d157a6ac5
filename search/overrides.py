"""A person's word about listings, applied before the judge (SPEC §10), and to results already judged.

Search does not know where corrections are kept: the app that keeps them registers a provider here from its
`AppConfig.ready()` (as apps register job handlers and maintenance units with jobs/), and the pipeline asks it
once per search for the product's corrections. A listing a correction names (by marketplace and product id) gets
the correction's verdict, source "correction", and only the other candidates go to the judge, so the LLM is not
paid for them. Ads and sold-out listings are never candidates, so no correction makes one the lowest; a
confirmed listing is still priced from the page.

`rejudge` applies corrections to a finished SEARCH result (§8) without searching again: the job's answer
recomputed from the listings its rounds already judged. Anything holding such a result may call it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from search import review, trust
from search.exceptions import LlmBadResponse
from search.listings import Judgement, Listing, ProductQuery, Verdict
from search.result import JudgedListing

logger = logging.getLogger(__name__)

CORRECTION_CONFIDENCE = 1.0
MATCHES_SHOWN = 5
"""As many matches as the pipeline's result lists."""
LISTING_KEYS = ("price", "title", "url", "product_id", "seller", "rocket", "marketplace", "shipping_fee")
"""The keys of a judged verdict that a result's `lowest` and `matches` show of a listing."""

ListingKey = tuple[str, str]
"""(marketplace, product id): how a correction names a listing."""


@dataclass(frozen=True)
class Override:
    """What a person said of one listing for one product."""

    same_product: bool
    reason: str
    """Shown as the verdict's reason ("correction: not this product (shop: a case)")."""
    shared: bool = False
    """An operator's correction for every client's searches of the product identity: its effect may be cached
    for everyone, where a client's own correction must never reach another client through the negative cache."""


@dataclass
class Corrections:
    """The corrections of one product as one search sees them."""

    by_listing: Mapping[ListingKey, Override] = field(default_factory=dict)
    used_private: bool = False
    """A client's own correction settled a candidate of this search (so its not_found is not everyone's)."""

    @property
    def confirms_any(self) -> bool:
        """Some listing is confirmed: a not_found remembered for the product may no longer hold for this search."""
        return any(override.same_product for override in self.by_listing.values())

    def judge(
        self,
        product: ProductQuery,
        candidates: Sequence[Listing],
        judge: Callable[[ProductQuery, Sequence[Listing]], Judgement],
    ) -> Judgement:
        """`judge`'s Judgement of `candidates`, but with the corrected ones settled here and never sent to it."""
        settled = {
            index: self.by_listing[key]
            for index, candidate in enumerate(candidates)
            if (key := listing_key(candidate)) is not None and key in self.by_listing
        }
        if not settled:
            return judge(product, candidates)
        rest = [index for index in range(len(candidates)) if index not in settled]
        judged = judge(product, [candidates[index] for index in rest]) if rest else Judgement(verdicts=[])
        verdicts = [
            Verdict(index, override.same_product, CORRECTION_CONFIDENCE, override.reason, source="correction")
            for index, override in settled.items()
        ]
        for verdict in judged.verdicts:
            if not 0 <= verdict.index < len(rest):
                raise LlmBadResponse(f"the judge named candidate {verdict.index} of {len(rest)}")
            verdicts.append(
                Verdict(
                    rest[verdict.index],
                    verdict.same_product,
                    verdict.confidence,
                    verdict.reason,
                    source=verdict.source,
                    uncertain=verdict.uncertain,
                )
            )
        verdicts.sort(key=lambda verdict: verdict.index)
        if any(not override.shared for override in settled.values()):
            self.used_private = True
        logger.info("search %s: %d candidate(s) settled by corrections", product.product_code, len(settled))
        return Judgement(
            verdicts=verdicts,
            usage=judged.usage,
            judge=judged.judge,
            settled_by_rules=judged.settled_by_rules,
            sent_to_llm=judged.sent_to_llm,
        )


Provider = Callable[[ProductQuery, "int | None"], Mapping[ListingKey, Override]]
_providers: list[Provider] = []


def register(provider: Provider) -> None:
    """Have every search ask `provider` for a product's corrections (product, client id → by listing)."""
    if provider not in _providers:
        _providers.append(provider)


def for_product(product: ProductQuery, client_id: int | None) -> Corrections:
    """The corrections every registered provider knows for `client_id`'s `product` (none when none registered)."""
    found: dict[ListingKey, Override] = {}
    for provider in _providers:
        found.update(provider(product, client_id))
    return Corrections(found)


def listing_key(listing: Listing) -> ListingKey | None:
    """How a correction names `listing`; None when the page gave it no product id."""
    return (listing.marketplace, listing.product_id) if listing.product_id else None


def verdict_key(verdict: Mapping) -> ListingKey | None:
    """How a correction names the listing of a verdict stored in a result (None for a result from before §10)."""
    return JudgedListing.from_json(verdict).key


def judged_listings(result: Mapping) -> dict[ListingKey, dict]:
    """The listings a result's rounds judged, by how a correction names them (the first round's when repeated)."""
    judged: dict[ListingKey, dict] = {}
    for round_ in result.get("rounds") or []:
        for verdict in round_.get("verdicts") or []:
            key = verdict_key(verdict)
            if key is not None and key not in judged:
                judged[key] = verdict
    return judged


def answer(result: Mapping) -> dict:
    """A result's answer as a change names it: its outcome and, when found, its lowest."""
    shown = {"outcome": result.get("outcome")}
    if result.get("lowest"):
        shown["lowest"] = dict(result["lowest"])
    return shown


def rejudge(result: Mapping, by_listing: Mapping[ListingKey, Override]) -> dict:
    """`result` (a finished SEARCH result) with `by_listing` applied to its judged listings: the verdicts they name
    take the correction's word, and the outcome, lowest and matches are recomputed from every round's verdicts
    (no new search). Metrics, queries and everything else are kept as they were."""
    rounds = []
    touched = False
    matched: dict[ListingKey | int, tuple[int, int, dict]] = {}
    for round_number, round_ in enumerate(result.get("rounds") or []):
        verdicts = []
        for verdict in round_.get("verdicts") or []:
            key = verdict_key(verdict)
            override = by_listing.get(key) if key is not None else None
            if override is not None:
                touched = True
                verdict = {key_: value for key_, value in verdict.items() if key_ != "uncertain"}
                verdict.update(
                    same_product=override.same_product,
                    confidence=CORRECTION_CONFIDENCE,
                    reason=override.reason,
                    source="correction",
                )
            verdicts.append(verdict)
            if verdict.get("same_product") and isinstance(verdict.get("price"), int):
                dedupe = key if key is not None else len(matched)
                matched.setdefault(dedupe, (round_number, len(verdicts), verdict))
        round_matches = sum(1 for verdict in verdicts if verdict.get("same_product"))
        rounds.append({**round_, "verdicts": verdicts, "matches": round_matches})
    if not touched:
        # Nothing to apply (or a result from before §10, whose verdicts name no listing): the answer stands.
        return dict(result)
    ordered = sorted(
        matched.values(), key=lambda found: (found[2]["price"], -float(found[2].get("confidence") or 0), found[:2])
    )
    matches = [verdict for _, _, verdict in ordered]
    recomputed = dict(result)
    recomputed["rounds"] = rounds
    recomputed["outcome"] = "found" if matches else "not_found"
    recomputed.pop("lowest", None)
    if matches:
        recomputed["lowest"] = _shown(matches[0])
    recomputed["matches"] = [
        {**_shown(verdict), "confidence": verdict.get("confidence"), "reason": verdict.get("reason", "")}
        for verdict in matches[:MATCHES_SHOWN]
    ]
    # What is left to settle, against the new answer (the corrected listings are settled now).
    recomputed.pop("review", None)
    if doubted := review.of_result(recomputed):
        recomputed["review"] = doubted
    if isinstance(result.get("by_marketplace"), Mapping):
        # Each marketplace's own answer, recomputed the same way from its own listings.
        by_marketplace = {}
        for marketplace, previous in result["by_marketplace"].items():
            own = [verdict for verdict in matches if str(verdict.get("marketplace") or "coupang") == marketplace]
            shown = {**previous, "outcome": "found" if own else "not_found"}
            shown.pop("lowest", None)
            if own:
                shown["lowest"] = _shown(own[0])
            by_marketplace[marketplace] = shown
        recomputed["by_marketplace"] = by_marketplace
    trust.refresh_price_check(recomputed)
    return recomputed


def _shown(verdict: Mapping) -> dict:
    shown = {key: verdict[key] for key in LISTING_KEYS if verdict.get(key) is not None}
    if str(verdict.get("marketplace") or "coupang") == "coupang":  # Coupang's badge; no other marketplace has one
        shown.setdefault("rocket", False)
    return shown
