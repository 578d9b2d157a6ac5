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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import timedelta

from django.conf import settings

from jobs.exceptions import JobDeadlineExceeded
from negative_cache import cache
from search import overrides, review, stage_timings, trust
from search.exceptions import LlmBadResponse, MarketplacesSkipped
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


@dataclass(frozen=True)
class Skip:
    """Why a marketplace is left out of the rest of a search (a spent quota), and when asking again may work."""

    reason: str
    retry_in_seconds: float | None = None


@dataclass(frozen=True)
class Marketplace:
    """One marketplace as a search sees it: its name and how to fetch a query's page there."""

    name: str
    fetch: Fetch
    admit: Callable[[], Skip | None] | None = None
    """Called in the search's own thread before each fetch: None to go on, or why the marketplace is skipped for
    the rest of the search (Naver's quota takes a call here, in the database)."""
    concurrent: bool = False
    """`fetch` touches neither the database nor the browser, so it may run in a helper thread beside the others."""
    billed_bytes: bool = True
    """Whether the bytes of its pages go through the proxy and count in metrics.bytes and the proxy cost."""
    may_find_more: Callable[[str, Sequence[str]], bool] | None = None
    """Whether a query may find anything after the given queries of this search found nothing at all here; when
    not, the marketplace sits the query's round out (no call, no quota). None: every query is asked."""


@dataclass
class _Market:
    """One marketplace's part of a search so far."""

    marketplace: Marketplace
    matches: list[tuple[Listing, float, str]] = field(default_factory=list)
    skip: Skip | None = None
    calls: int = 0
    bytes: int = 0
    elapsed_ms: int = 0
    rounds: int = 0
    found_nothing: list[str] = field(default_factory=list)
    """The queries whose page here had no listing at all."""

    @property
    def outcome(self) -> str:
        if self.matches:
            return "found"
        return "skipped" if self.skip is not None else "not_found"


def search_product(
    product: ProductQuery,
    *,
    fetch: Fetch | None = None,
    judge: Judge,
    refine: Refine,
    marketplaces: Sequence[Marketplace] | None = None,
    configured: Sequence[str] | None = None,
    max_rounds: int | None = None,
    cache_ttl: timedelta | None = None,
    cancelled: threading.Event | None = None,
    ai_cost: AiCost = default_ai_cost,
    client_id: int | None = None,
    fresh: bool = False,
) -> dict:
    """Find the lowest genuine price of `product`, or conclude it is not there; return the SEARCH result (§8).

    Round 1 searches the product name. Only after a round that leaves a marketplace without a match is `refine`
    called (once) for a precise query (round 2) and a broad one (round 3), searched on the marketplaces that
    have not found it yet; `max_rounds` caps the rounds. Each round judges the candidates of all its
    marketplaces in one `judge` call. A not_found of every marketplace is remembered in the negative cache for
    `cache_ttl`, and a cached not_found returns at once without calling `fetch`, `judge` or `refine`.

    `fetch` alone searches one marketplace and the result is the §8 shape of a single-marketplace search;
    `marketplaces` (with `configured`, the names a deployment offers, for the cache) names each listing's
    marketplace and adds `by_marketplace`. A marketplace whose `admit` says skip is left out with its reason;
    when every one is skipped, MarketplacesSkipped is raised so the queue retries the job once it may work.
    `client_id`'s corrections of the product (search/overrides.py) settle the listings they name before the judge
    sees the rest. `fresh` (a watch's "run now") searches without looking in the negative cache (its not_found is
    still written).
    """
    started = time.monotonic()
    max_rounds = settings.LPS_MAX_ROUNDS if max_rounds is None else max_rounds
    if max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    if cache_ttl is None:
        cache_ttl = timedelta(seconds=settings.LPS_NEGATIVE_CACHE_TTL_SECONDS)
    if not product.product_name.strip():
        raise ValueError("a product needs a name to be searched")
    named = marketplaces is not None
    if marketplaces is None:
        if fetch is None:
            raise ValueError("a search needs a fetch or marketplaces")
        marketplaces = [Marketplace(DEFAULT_MARKETPLACE, fetch)]
    if not marketplaces or len({m.name for m in marketplaces}) != len(marketplaces):
        raise ValueError("a search needs marketplaces with distinct names")
    searched = frozenset(m.name for m in marketplaces)

    base_key = cache.key_for(product_name=product.product_name, model_code=product.model_code, brand=product.brand)
    # Looked up once: a search is short, and each round's candidates are checked against the same word.
    with stage_timings.timed("database"):
        corrections = overrides.for_product(product, client_id)
        entry = None if corrections.confirms_any or fresh else _cached_not_found(base_key, searched, configured)
    if entry is not None:
        logger.info("search %s: not_found from the negative cache (%s)", product.product_code, base_key)
        answer = _result(
            outcome="not_found",
            matches=[],
            rounds=[],
            cached=True,
            spent=_Spent(),
            started=started,
            ai_cost=ai_cost,
            markets=[_Market(m) for m in marketplaces] if named else None,
        )
        answer["cache"] = trust.cache_json(entry.created_at, entry.until)
        return answer

    spent = _Spent()
    markets = [_Market(m) for m in marketplaces]
    rounds: list[dict] = []
    tried: list[str] = []
    passed_over: list[Listing] = []  # every listing read, for trust.add_left_out
    queued: deque[tuple[str, str]] = deque([("original", product.product_name)])
    refined = False
    while queued and len(rounds) < max_rounds:
        active = [market for market in markets if not market.matches and market.skip is None]
        if not active:
            break
        kind, query = queued.popleft()
        query = query.strip()
        # A refined query that repeats one already searched would pay for the same page twice.
        if not query or cache.normalise_query(query) in {cache.normalise_query(q) for q in tried}:
            continue
        _stop_if_cancelled(cancelled, f"before searching {query!r}")
        active = [market for market in active if _may_find_more(market, query)]
        if not active:
            continue
        for market in active:
            if market.marketplace.admit is not None:
                market.skip = market.marketplace.admit()
                if market.skip is not None:
                    logger.warning(
                        "search %s: %s skipped: %s", product.product_code, market.marketplace.name, market.skip.reason
                    )
        active = [market for market in active if market.skip is None]
        if not active:
            break
        pages = _fetch_all([market.marketplace for market in active], query)
        tried.append(query)
        candidates: list[Listing] = []
        owners: list[_Market] = []
        for market, page in zip(active, pages, strict=True):
            market.calls += 1
            market.rounds += 1
            market.bytes += page.bytes
            market.elapsed_ms += page.elapsed_ms
            if not page.listings:
                market.found_nothing.append(query)
            if market.marketplace.billed_bytes:
                spent.bytes += page.bytes
            candidates.extend(page.candidates)
            passed_over.extend(page.listings)
            owners.extend([market] * len(page.candidates))
        judgement = None
        if candidates:
            _stop_if_cancelled(cancelled, f"before judging the results of {query!r}")
            with stage_timings.timed("judge"):
                judgement = corrections.judge(product, candidates, judge)
            spent.usage += judgement.usage
        matched = _matches(candidates, judgement)
        for listing, confidence, reason, index in matched:
            owners[index].matches.append((listing, confidence, reason))
        matches = [(listing, confidence, reason) for listing, confidence, reason, _ in matched]
        round_ = _round(query, kind, candidates, judgement, matches)
        if named:
            _name_round(round_, active, candidates, owners, matched)
        rounds.append(round_)
        logger.info(
            "search %s round %d (%s) %r on %s: %d listings, %d candidates, %d matches",
            product.product_code,
            len(rounds),
            kind,
            query,
            ", ".join(market.marketplace.name for market in active),
            sum(len(page.listings) for page in pages),
            len(candidates),
            len(matches),
        )
        still_looking = any(not market.matches and market.skip is None for market in markets)
        if still_looking and not refined and len(rounds) < max_rounds:
            # The keyword generator costs an LLM call: ask for it only once a round has left a marketplace without
            # a match.
            _stop_if_cancelled(cancelled, "before refining the query")
            with stage_timings.timed("refine"):
                refinement = refine(product, list(tried))
            spent.usage += refinement.usage
            queued.extend([("precise", refinement.precise), ("broad", refinement.broad)])
            refined = True

    found = sorted(
        (match for market in markets for match in market.matches), key=lambda match: (match[0].price, -match[1])
    )
    skipped = [market for market in markets if market.skip is not None]
    if not found and len(skipped) == len(markets):
        waits = [m.skip.retry_in_seconds for m in skipped if m.skip.retry_in_seconds is not None]
        raise MarketplacesSkipped(
            "; ".join(f"{m.marketplace.name}: {m.skip.reason}" for m in skipped),
            retry_in_seconds=min(waits) if waits else None,
        )
    doubted = review.of_rounds(rounds, found[0][0].price if found else None)
    # A not_found that one client's own correction made is that client's, never every shop's; one that left a
    # listing unsettled (its review items) is nobody's to share.
    if not found and not skipped and not corrections.used_private and not doubted:
        with stage_timings.timed("database"):
            cache.remember(
                _scoped_key(base_key, searched),
                ttl=cache_ttl,
                reason=f"not_found after {len(rounds)} round(s): " + " | ".join(tried),
            )
    answer = _result(
        outcome="found" if found else "not_found",
        matches=found,
        rounds=rounds,
        cached=False,
        spent=spent,
        started=started,
        ai_cost=ai_cost,
        markets=markets if named else None,
        review=doubted,
    )
    trust.add_left_out(answer, passed_over)
    return answer


DEFAULT_MARKETPLACE = "coupang"
"""The marketplace of a search given one `fetch`, and the one whose negative-cache key has no suffix."""


def _scoped_key(key: cache.ProductKey, scope: frozenset[str]) -> cache.ProductKey:
    """The negative-cache key of a not_found on exactly the marketplaces in `scope`.

    Coupang alone keeps the product's own key, so a deployment without other marketplaces reads and writes the rows
    it always has.
    """
    if scope == {DEFAULT_MARKETPLACE}:
        return key
    return replace(key, key=f"{key.key}@{','.join(sorted(scope))}")


def _cached_not_found(
    key: cache.ProductKey, searched: frozenset[str], configured: Sequence[str] | None
) -> cache.NegativeCacheEntry | None:
    """The negative cache's not_found of the product on `searched` or on a larger offered set, if it holds one."""
    scopes = _covering_scopes(searched, frozenset(configured or ()) | searched)
    return next((entry for scope in scopes if (entry := cache.lookup(_scoped_key(key, scope))) is not None), None)


def _covering_scopes(searched: frozenset[str], offered: frozenset[str]) -> list[frozenset[str]]:
    """The marketplace sets whose not_found answers a search of `searched`: itself and every larger offered set."""
    others = sorted(offered - searched)
    scopes = []
    for mask in range(1 << len(others)):
        scopes.append(searched | {name for bit, name in enumerate(others) if mask >> bit & 1})
    return scopes


def _fetch_all(marketplaces: Sequence[Marketplace], query: str) -> list[SearchPage]:
    """Fetch `query` on each marketplace: the concurrent ones in helper threads while the others run here.

    Every fetch is waited for; then the first failure (in the marketplaces' order) is raised, so a marketplace
    that failed while another answered fails the round, and the job is retried rather than answered in part.
    """
    if len(marketplaces) == 1:
        return [marketplaces[0].fetch(query)]
    outcomes: list[SearchPage | BaseException | None] = [None] * len(marketplaces)
    helpers = [index for index, marketplace in enumerate(marketplaces) if marketplace.concurrent]
    if len(helpers) == len(marketplaces):
        helpers = helpers[1:]  # the search's own thread takes one of them rather than wait idle
    with ThreadPoolExecutor(max_workers=max(1, len(helpers)), thread_name_prefix="search-fetch") as pool:
        futures = {index: pool.submit(marketplaces[index].fetch, query) for index in helpers}
        for index, marketplace in enumerate(marketplaces):
            if index not in futures:
                try:
                    outcomes[index] = marketplace.fetch(query)
                except Exception as exc:  # raised below, once every fetch has ended
                    outcomes[index] = exc
        for index, future in futures.items():
            try:
                outcomes[index] = future.result()
            except Exception as exc:
                outcomes[index] = exc
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return [outcome for outcome in outcomes if isinstance(outcome, SearchPage)]


def _name_round(
    round_: dict,
    active: Sequence[_Market],
    candidates: Sequence[Listing],
    owners: Sequence[_Market],
    matched: Sequence[tuple],
) -> None:
    """Add to a round what each marketplace contributed: its candidates and matches, and each verdict's marketplace."""
    by_market = {market.marketplace.name: {"candidates": 0, "matches": 0} for market in active}
    for owner in owners:
        by_market[owner.marketplace.name]["candidates"] += 1
    for _, _, _, index in matched:
        by_market[owners[index].marketplace.name]["matches"] += 1
    round_["marketplaces"] = by_market
    for verdict in round_["verdicts"]:
        verdict["marketplace"] = owners[verdict["index"]].marketplace.name
        if candidates[verdict["index"]].product_type is not None:
            verdict["product_type"] = candidates[verdict["index"]].product_type


def _may_find_more(market: _Market, query: str) -> bool:
    may_find_more = market.marketplace.may_find_more
    return may_find_more is None or not market.found_nothing or may_find_more(query, market.found_nothing)


def _stop_if_cancelled(cancelled: threading.Event | None, where: str) -> None:
    if cancelled is not None and cancelled.is_set():
        raise JobDeadlineExceeded(f"the search was stopped {where}")


def _matches(candidates: Sequence[Listing], judgement: Judgement | None) -> list[tuple[Listing, float, str, int]]:
    """The candidates the judge called the same product, with their index, lowest price first (ties: most confident
    first)."""
    if judgement is None:
        return []
    found = []
    for verdict in judgement.verdicts:
        if not 0 <= verdict.index < len(candidates):
            raise LlmBadResponse(f"the judge named candidate {verdict.index} of {len(candidates)}")
        if verdict.same_product:
            found.append((candidates[verdict.index], verdict.confidence, verdict.reason, verdict.index))
    found.sort(key=lambda match: (match[0].price, -match[1], match[3]))
    return found


def _listing_json(listing: Listing, *, named: bool = False) -> dict:
    """A listing as a result shows it: what a client needs to buy it, absent values left out; `named` adds its
    marketplace (the keys of SPEC §8 and no others)."""
    shown = {"price": listing.price, "title": listing.title, "url": listing.url}
    if listing.product_id:
        shown["product_id"] = listing.product_id
    if listing.seller:
        shown["seller"] = listing.seller
    if listing.marketplace == DEFAULT_MARKETPLACE:  # Coupang's own badge: no other marketplace has one
        shown["rocket"] = listing.rocket
    if named:
        shown["marketplace"] = listing.marketplace
    if listing.shipping_fee is not None:
        shown["shipping_fee"] = listing.shipping_fee
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
        if candidate.marketplace == DEFAULT_MARKETPLACE:
            shown["rocket"] = candidate.rocket
        # What the card says a buyer pays for delivery, so a re-judged answer (§10) still shows it.
        if candidate.shipping_fee is not None:
            shown["shipping_fee"] = candidate.shipping_fee
        if candidate.free_shipping_over is not None:
            shown["free_shipping_over"] = candidate.free_shipping_over
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
    markets: Sequence[_Market] | None = None,
    review: Sequence[dict] = (),
) -> dict:
    ai_usd = round(ai_cost(spent.usage), COST_DIGITS)
    proxy_usd = round(spent.bytes / 1e9 * settings.LPS_PROXY_USD_PER_GB, COST_DIGITS)
    named = markets is not None
    result: dict = {"outcome": outcome}
    if matches:
        result["lowest"] = _listing_json(matches[0][0], named=named)
    if markets is not None:
        result["by_marketplace"] = {market.marketplace.name: _market_json(market, cached) for market in markets}
    if review:
        result["review"] = list(review)
    result["matches"] = [
        {**_listing_json(listing, named=named), "confidence": round(float(confidence), 3), "reason": reason}
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
    if markets is not None:
        # The AI cost is one judge call per round across the marketplaces: it is not split between them.
        result["metrics"]["by_marketplace"] = {
            market.marketplace.name: {
                "calls": market.calls,
                "rounds": market.rounds,
                "bytes": market.bytes,
                "fetch_ms": market.elapsed_ms,
                "proxy_usd": round(market.bytes / 1e9 * settings.LPS_PROXY_USD_PER_GB, COST_DIGITS)
                if market.marketplace.billed_bytes
                else 0.0,
            }
            for market in markets
        }
    return result


def _market_json(market: _Market, cached: bool) -> dict:
    """One marketplace's own answer: its outcome, its lowest match, or why it was skipped."""
    shown: dict = {"outcome": "not_found" if cached else market.outcome}
    if market.matches:
        best = min(market.matches, key=lambda match: (match[0].price, -match[1]))
        shown["lowest"] = _listing_json(best[0], named=True)
    if market.skip is not None and not market.matches:
        shown["reason"] = market.skip.reason
    return shown
