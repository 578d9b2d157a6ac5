"""Decide which candidate listings are the product asked for (SPEC §4 step 3): rules first, then the LLM.

The rules are search.rules.RULES, one small rule per idea in one ordered list (condition; made-for, accessory
and consumable; rental and contract; set and bundle; other brand and look-alike; other model and sibling;
measure and size; pack count; variant and line; unexplained extra words; price plausibility; identity). Each
says Reject (sure not the product), Doubt (uncertain), Caution (same at best, never sure) or nothing; a verdict
is sure only when nothing in the listing speaks against it.

Price is judged against the page: judge_listings sees the whole candidate list of a round, so the rules run
twice (the second from the first rule that read the price: search.rules.judge_priced). The first pass finds the
page's strong matches (the product's words or code with nothing against them);
the reference price is the lower of the shop's own `price`, when sent, and the median price of those strong
matches; the second pass judges every candidate with it (search.rules.PricePlausibility: far below it is not
believed on words alone).

Without an LLM, "uncertain" counts as no match: a wrong price is worse than none. With one, the rules settle
what they are sure of and only the other candidates go to the one LLM call of the round; each verdict records
its source ("rules" or "llm"). The match that would become the lowest is then checked once more, alone, when the
LLM's word put it there or its price is far below the sure matches' or the shop's (search/verification.py).
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from search import review
from search.evidence import evidence_of
from search.listings import Judgement, Listing, ProductQuery, Verdict
from search.rules import Context, Product, RuleVerdict, judge_context, judge_priced
from search.verification import verify_lowest

if TYPE_CHECKING:
    from search.llm import LlmClient

SURE_CONFIDENCE = review.SURE
WORDS_CONFIDENCE = 0.8
UNCERTAIN_CONFIDENCE = 0.5


def judge_listings(product: ProductQuery, candidates: list[Listing], *, llm: LlmClient | None) -> Judgement:
    """Judge each candidate: the rules, then (when `llm` is given) one LLM call for those they are unsure of."""
    if not candidates:
        return Judgement(verdicts=[], judge="llm" if llm is not None else "rules")
    ruled = judge_by_rules(product, candidates)
    if llm is None:
        return Judgement(verdicts=[verdict for verdict, _ in ruled], judge="rules", settled_by_rules=len(ruled))
    unsure = [index for index, (_, sure) in enumerate(ruled) if not sure]
    if not unsure:
        checked, usage, asked = verify_lowest(product, candidates, [v for v, _ in ruled], ruled, llm)
        return Judgement(verdicts=checked, usage=usage, judge="llm" if asked else "rules", settled_by_rules=len(ruled))
    evidence = evidence_of(product, [candidates[i].title for i in unsure], [ruled[i][0].reason for i in unsure])
    asked = llm.judge(product, [candidates[index] for index in unsure], evidence=evidence)
    verdicts = [verdict for verdict, _ in ruled]
    for answer in asked.verdicts:
        index = unsure[answer.index]
        verdicts[index] = Verdict(index, answer.same_product, answer.confidence, answer.reason, source="llm")
    verdicts, checked_usage, _ = verify_lowest(product, candidates, verdicts, ruled, llm)
    return Judgement(
        verdicts=verdicts,
        usage=asked.usage + checked_usage,
        judge="llm",
        settled_by_rules=len(ruled) - len(unsure),
        sent_to_llm=len(unsure),
    )


def judge_by_rules(product: ProductQuery, candidates: list[Listing] | list[str]) -> list[tuple[Verdict, bool]]:
    """The rules' verdict on each candidate (a Listing, or a bare title: then its price is unknown), and whether
    the rules are sure of it."""
    wanted = Product.of(product)
    titles = [candidate if isinstance(candidate, str) else candidate.title for candidate in candidates]
    prices = [None if isinstance(candidate, str) else candidate.price for candidate in candidates]
    contexts = [Context(wanted, wanted.read(title)) for title in titles]
    first = [judge_context(context) for context in contexts]
    reference = reference_price(product, [price for price, ruled in zip(prices, first, strict=True) if ruled.strong])
    ruled = [
        judge_priced(context, verdict, price, reference)
        for context, verdict, price in zip(contexts, first, prices, strict=True)
    ]
    return [_verdict(index, verdict) for index, verdict in enumerate(ruled)]


def reference_price(product: ProductQuery, strong_prices: list[int | None]) -> int | None:
    """The price a genuine listing of this page is expected near: the lower of the shop's own price and the
    median of the strong matches' prices (the lower, so that a stale or list price of the shop never makes a
    real bargain look implausible); None when neither is known."""
    known = [price for price in strong_prices if price]
    references = [int(statistics.median(known))] if known else []
    if product.price:
        references.append(product.price)
    return min(references) if references else None


def _verdict(index: int, ruled: RuleVerdict) -> tuple[Verdict, bool]:
    if ruled.uncertain:
        return Verdict(index, False, UNCERTAIN_CONFIDENCE, ruled.reason, uncertain=True), False
    confidence = SURE_CONFIDENCE if ruled.sure else WORDS_CONFIDENCE
    return Verdict(index, ruled.same, confidence, ruled.reason), ruled.sure
