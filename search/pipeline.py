"""The bounded refine loop of a search (SPEC §4): one plain function, its collaborators passed in.

`search_product` knows nothing of browsers, LLMs or the queue: the caller binds `fetch` (a query → a
SearchPage), `judge` (the product and its candidates → a Judgement) and `refine` (the product and the queries
already tried → RefinedQueries) to the real crawler and LLM client, or to anything else that keeps the same
promises. A technical failure raised by any of them propagates untouched: it is never cached and never
turned into a not_found, so the queue can retry the attempt.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings

from jobs.exceptions import JobDeadlineExceeded
from negative_cache import cache
from search import overrides
from search.exceptions import LlmBadResponse
from search.listings import Judgement, Listing, ProductQuery, RefinedQueries, SearchPage, TokenUsage

logger = logging.getLogger(__name__)

Fetch = Callable[[str], SearchPage]
Judge = Callable[[ProductQuery, Sequence[Listing]], Judgement]
Refine = Callable[[ProductQuery, Sequence[str]], RefinedQueries]
AiCost = Callable[[TokenUsage], float]

MATCHES_SHOWN = 5
"""How many of the matching listings a result lists (lowest price first)."""
COST_DIGITS = 8
"""USD amounts are rounded here: a search costs fractions of a cent, and sums must still add up."""


def default_ai_cost(usage: TokenUsage) -> float:
    """AI cost in USD of `usage` at the configured per-token prices."""
    from search.llm import ai_cost_usd

    return ai_cost_usd(usage)


@dataclass
class _Spent:
    """What a search has consumed so far."""

    usage: TokenUsage = field(default_factory=TokenUsage)
    bytes: int = 0


def search_product(
    product: ProductQuery,
    *,
    fetch: Fetch,
    judge: Judge,
    refine: Refine,
    max_rounds: int | None = None,
    cache_ttl: timedelta | None = None,
    cancelled: threading.Event | None = None,
    ai_cost: AiCost = default_ai_cost,
    client_id: int | None = None,
) -> dict:
    """Find the lowest genuine price of `product`, or conclude it is not there; return the SEARCH result (§8).

    Round 1 searches the product name. Only after a round whose healthy page yields no match is `refine`
    called (once) for a precise query (round 2) and a broad one (round 3); `max_rounds` caps the rounds.
    A not_found is remembered in the negative cache for `cache_ttl`, and a cached not_found returns at once
    without calling `fetch`, `judge` or `refine`. `client_id`'s corrections of the product (search/overrides.py)
    settle the listings they name before the judge sees the rest.
    """
    started = time.monotonic()
    max_rounds = settings.LPS_MAX_ROUNDS if max_rounds is None else max_rounds
    if max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    if cache_ttl is None:
        cache_ttl = timedelta(seconds=settings.LPS_NEGATIVE_CACHE_TTL_SECONDS)
    if not product.product_name.strip():
        raise ValueError("a product needs a name to be searched")

    cache_key = cache.key_for(product_name=product.product_name, model_code=product.model_code, brand=product.brand)
    # Looked up once: a search is short, and each round's candidates are checked against the same word.
    corrections = overrides.for_product(product, client_id)
    if not corrections.confirms_any and cache.lookup(cache_key) is not None:
        logger.info("search %s: not_found from the negative cache (%s)", product.product_code, cache_key)
        return _result(
            outcome="not_found", matches=[], rounds=[], cached=True, spent=_Spent(), started=started, ai_cost=ai_cost
        )

    spent = _Spent()
    rounds: list[dict] = []
    tried: list[str] = []
    queued: deque[tuple[str, str]] = deque([("original", product.product_name)])
    refined = False
    while queued and len(rounds) < max_rounds:
        kind, query = queued.popleft()
        query = query.strip()
        # A refined query that repeats one already searched would pay for the same page twice.
        if not query or cache.normalise_query(query) in {cache.normalise_query(q) for q in tried}:
            continue
        _stop_if_cancelled(cancelled, f"before searching {query!r}")
        page = fetch(query)
        tried.append(query)
        spent.bytes += page.bytes
        candidates = page.candidates
        judgement = None
        if candidates:
            _stop_if_cancelled(cancelled, f"before judging the results of {query!r}")
            judgement = corrections.judge(product, candidates, judge)
            spent.usage += judgement.usage
        matches = _matches(candidates, judgement)
        rounds.append(_round(query, kind, candidates, judgement, matches))
        logger.info(
            "search %s round %d (%s) %r: %d listings, %d candidates, %d matches",
            product.product_code,
            len(rounds),
            kind,
            query,
            len(page.listings),
            len(candidates),
            len(matches),
        )
        if matches:
            return _result(
                outcome="found",
                matches=matches,
                rounds=rounds,
                cached=False,
                spent=spent,
                started=started,
                ai_cost=ai_cost,
            )
        if not refined and len(rounds) < max_rounds:
            # The keyword generator costs an LLM call: ask for it only once a round has found nothing.
            _stop_if_cancelled(cancelled, "before refining the query")
            refinement = refine(product, list(tried))
            spent.usage += refinement.usage
            queued.extend([("precise", refinement.precise), ("broad", refinement.broad)])
            refined = True

    if not corrections.used_private:
        # A not_found that one client's own correction made is that client's, never every shop's.
        cache.remember(
            cache_key,
            ttl=cache_ttl,
            reason=f"not_found after {len(rounds)} round(s): " + " | ".join(tried),
        )
    return _result(
        outcome="not_found", matches=[], rounds=rounds, cached=False, spent=spent, started=started, ai_cost=ai_cost
    )


def _stop_if_cancelled(cancelled: threading.Event | None, where: str) -> None:
    if cancelled is not None and cancelled.is_set():
        raise JobDeadlineExceeded(f"the search was stopped {where}")


def _matches(candidates: Sequence[Listing], judgement: Judgement | None) -> list[tuple[Listing, float, str]]:
    """The candidates the judge called the same product, lowest price first (ties: most confident first)."""
    if judgement is None:
        return []
    found = []
    for verdict in judgement.verdicts:
        if not 0 <= verdict.index < len(candidates):
            raise LlmBadResponse(f"the judge named candidate {verdict.index} of {len(candidates)}")
        if verdict.same_product:
            found.append((candidates[verdict.index], verdict.confidence, verdict.reason, verdict.index))
    found.sort(key=lambda match: (match[0].price, -match[1], match[3]))
    return [(listing, confidence, reason) for listing, confidence, reason, _ in found]


def _listing_json(listing: Listing) -> dict:
    """A listing as a result shows it: what a client needs to buy it, absent values left out."""
    shown = {"price": listing.price, "title": listing.title, "url": listing.url}
    if listing.product_id:
        shown["product_id"] = listing.product_id
    if listing.seller:
        shown["seller"] = listing.seller
    shown["rocket"] = listing.rocket
    return shown


def _round(
    query: str,
    kind: str,
    candidates: Sequence[Listing],
    judgement: Judgement | None,
    matches: Sequence[tuple[Listing, float, str]],
) -> dict:
    verdicts = []
    for verdict in judgement.verdicts if judgement else []:
        shown = {
            "index": verdict.index,
            "same_product": verdict.same_product,
            "confidence": round(float(verdict.confidence), 3),
            "reason": verdict.reason,
            "source": verdict.source,
        }
        if verdict.uncertain:
            shown["uncertain"] = True
        candidate = candidates[verdict.index]
        shown["title"] = candidate.title
        shown["price"] = candidate.price
        # What a correction names the listing by, and what recomputing an answer from it needs (SPEC §10).
        shown["marketplace"] = candidate.marketplace
        if candidate.product_id:
            shown["product_id"] = candidate.product_id
        shown["url"] = candidate.url
        if candidate.seller:
            shown["seller"] = candidate.seller
        shown["rocket"] = candidate.rocket
        verdicts.append(shown)
    shown_round = {
        "query": query,
        "kind": kind,
        "candidates": len(candidates),
        "matches": len(matches),
        "verdicts": verdicts,
    }
    if judgement is not None:
        # Which verdicts the rules settled and how many candidates went to the LLM (the cascade's saving).
        shown_round["judge"] = judgement.judge
        shown_round["settled_by_rules"] = judgement.settled_by_rules
        shown_round["sent_to_llm"] = judgement.sent_to_llm
    return shown_round


def _result(
    *,
    outcome: str,
    matches: Sequence[tuple[Listing, float, str]],
    rounds: list[dict],
    cached: bool,
    spent: _Spent,
    started: float,
    ai_cost: AiCost,
) -> dict:
    ai_usd = round(ai_cost(spent.usage), COST_DIGITS)
    proxy_usd = round(spent.bytes / 1e9 * settings.LPS_PROXY_USD_PER_GB, COST_DIGITS)
    result: dict = {"outcome": outcome}
    if matches:
        result["lowest"] = _listing_json(matches[0][0])
    result["matches"] = [
        {**_listing_json(listing), "confidence": round(float(confidence), 3), "reason": reason}
        for listing, confidence, reason in matches[:MATCHES_SHOWN]
    ]
    result["rounds"] = rounds
    result["cached"] = cached
    result["metrics"] = {
        "duration_ms": int((time.monotonic() - started) * 1000),
        "rounds": len(rounds),
        "tokens": {
            "input": spent.usage.input_tokens,
            "output": spent.usage.output_tokens,
            "total": spent.usage.total,
        },
        "bytes": spent.bytes,
        "cost": {"ai_usd": ai_usd, "proxy_usd": proxy_usd, "total_usd": round(ai_usd + proxy_usd, COST_DIGITS)},
    }
    return result
