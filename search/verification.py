"""The answer checked where it matters (SPEC §4 step 3): the listing that becomes `lowest` is asked about again.

A shop prices from one number, the lowest match's. When that match rests on the LLM's word, or its price is far
below the page's sure matches or the shop's own price (where an accessory, a used unit or a monthly fee hides),
the LLM is asked about that one listing once more, alone, with what the rules read of it and why they doubted
it (not the verdict being checked): a verdict given in a list of twenty is checked in a question of one. If the
LLM now says it is not the product, the listing is turned down (source "llm", the reason says so) and the next
cheapest match is the lowest, checked the same way, at most MAX_CHECKS times in a round. A listing the LLM
confirms keeps its verdict, its confidence the lower of the two.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import TYPE_CHECKING

from search.evidence import evidence_of
from search.listings import Listing, ProductQuery, TokenUsage, Verdict
from search.rules import FAR_BELOW_SHARE

if TYPE_CHECKING:
    from search.llm import LlmClient

FAR_BELOW = FAR_BELOW_SHARE
"""A lowest under this share of the sure matches' median price or of the shop's price is checked (the rules' own
share, search.rules.PricePlausibility)."""
MAX_CHECKS = 3
"""At most this many single-listing questions a round."""
TURNED_DOWN = "checked alone: "


def verify_lowest(
    product: ProductQuery,
    candidates: list[Listing],
    verdicts: list[Verdict],
    ruled: list[tuple[Verdict, bool]],
    llm: LlmClient,
) -> tuple[list[Verdict], TokenUsage, int]:
    """`verdicts` with the lowest match checked as the module docstring says; the tokens spent and the questions
    asked. `ruled` is the rules' own verdict per candidate and whether they were sure of it: the question carries
    the rules' reason, never the answer being checked (a model shown its own "same, because …" tends to agree)."""
    verdicts = list(verdicts)
    sure = [settled for _, settled in ruled]
    usage, asked = TokenUsage(), 0
    references = _references(product, candidates, verdicts, sure)
    checked: set[int] = set()
    while asked < MAX_CHECKS:
        lowest = _lowest_match(candidates, verdicts)
        if lowest is None or lowest in checked:
            break
        verdict, listing = verdicts[lowest], candidates[lowest]
        far_below = any(listing.price < FAR_BELOW * reference for reference in references)
        if verdict.source != "llm" and not far_below:
            break
        evidence = evidence_of(product, [listing.title], [ruled[lowest][0].reason])
        answer = llm.judge(product, [listing], evidence=evidence)
        usage, asked = usage + answer.usage, asked + 1
        checked.add(lowest)
        said = answer.verdicts[0]
        if said.same_product:
            verdicts[lowest] = replace(verdict, confidence=min(verdict.confidence, said.confidence))
            break
        verdicts[lowest] = Verdict(lowest, False, said.confidence, TURNED_DOWN + said.reason, source="llm")
    return verdicts, usage, asked


def _lowest_match(candidates: list[Listing], verdicts: list[Verdict]) -> int | None:
    """The index of the match the pipeline would report: lowest price, then most confident (search/pipeline.py)."""
    matched = [verdict for verdict in verdicts if verdict.same_product]
    if not matched:
        return None
    return min(matched, key=lambda v: (candidates[v.index].price, -v.confidence, v.index)).index


def _references(
    product: ProductQuery, candidates: list[Listing], verdicts: list[Verdict], sure: list[bool]
) -> list[int]:
    """The median price of the rules' sure matches and the shop's price, those that are known. Unlike the rules'
    reference (the lower of the two), a listing far below either is checked: a question costs less than a wrong
    price."""
    sure_prices = [
        candidates[verdict.index].price
        for verdict in verdicts
        if verdict.same_product and sure[verdict.index] and verdict.source == "rules"
    ]
    references = [int(statistics.median(sure_prices))] if sure_prices else []
    if product.price:
        references.append(product.price)
    return references
