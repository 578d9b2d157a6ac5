"""The searches' Prometheus metrics: outcomes, rounds and judge verdicts (recorded by search/handler.py from each
finished search's result), and pages, blocks, bytes, tokens and cost (counted at the crawler's and the LLM
client's boundaries, where they arise, so that a search that fails and is retried is paid for too).

A worker process serves these on `runworker --metrics-port` (jobs/metrics.py).
"""

from __future__ import annotations

from prometheus_client import Counter

from search.result import SearchResult

SEARCH_OUTCOMES = ("found", "not_found", "cached")
ROUND_KINDS = ("original", "precise", "broad")
VERDICT_SOURCES = ("rules", "llm", "correction")

SEARCHES = Counter(
    "lps_searches", "Finished searches by outcome (cached: a not_found answered by the negative cache).", ["outcome"]
)
SEARCH_ROUNDS = Counter("lps_search_rounds", "Search rounds run, by kind of query.", ["kind"])
JUDGE_VERDICTS = Counter(
    "lps_judge_verdicts",
    "The judge's verdicts on candidates, by source (rules, llm, correction) and answer.",
    ["source", "same_product"],
)
CRAWLER_PAGES = Counter("lps_crawler_pages", "Marketplace result pages fetched, by result.", ["result"])
CRAWLER_BLOCKS = Counter("lps_crawler_blocks", "Pages on which the marketplace blocked the crawler, by kind.", ["kind"])
CRAWLER_BYTES = Counter("lps_crawler_bytes", "Bytes the crawler received from the marketplace (what a proxy bills).")
LLM_TOKENS = Counter(
    "lps_llm_tokens", "LLM tokens used, by model and direction (input, output).", ["model", "direction"]
)
COST_USD = Counter("lps_cost_usd", "Money spent searching, in USD, by kind (ai: LLM tokens, proxy: bytes).", ["kind"])

MARKETPLACE_SEARCHES = Counter(
    "lps_marketplace_searches",
    "Finished searches by marketplace and that marketplace's own outcome (found, not_found, skipped).",
    ["marketplace", "outcome"],
)
NAVER_CALLS = Counter(
    "lps_naver_calls",
    "Calls to Naver's Search API by result (ok, rejected: credentials or request refused, rate_limited: 429, "
    "error: timeout, 5xx or unreadable answer, quota_spent: not made, the daily quota is spent).",
    ["result"],
)
NAVER_RESULTS = ("ok", "rejected", "rate_limited", "error", "quota_spent")

for _outcome in SEARCH_OUTCOMES:
    SEARCHES.labels(_outcome)
for _result in NAVER_RESULTS:
    NAVER_CALLS.labels(_result)
for _marketplace in ("coupang", "naver"):
    for _outcome in ("found", "not_found", "skipped"):
        MARKETPLACE_SEARCHES.labels(_marketplace, _outcome)
for _kind in ROUND_KINDS:
    SEARCH_ROUNDS.labels(_kind)
for _source in VERDICT_SOURCES:
    for _answer in ("true", "false"):
        JUDGE_VERDICTS.labels(_source, _answer)
for _result in ("ok", "blocked", "error"):
    CRAWLER_PAGES.labels(_result)
for _kind in ("ai", "proxy"):
    COST_USD.labels(_kind)


def record_search(result: dict, *, default_source: str) -> None:
    """Count a finished search: its outcome, its rounds by kind and its verdicts by source.

    A verdict names its source (rules, llm or correction); one that does not takes its round's `judge`, else
    `default_source`.
    """
    searched = SearchResult.from_json(result)
    outcome = "cached" if searched.cached else str(searched.outcome)
    SEARCHES.labels(outcome).inc()
    if not searched.cached:
        for marketplace, answer in (searched.by_marketplace or {}).items():
            MARKETPLACE_SEARCHES.labels(marketplace, str(answer.outcome)).inc()
    for round_ in searched.rounds:
        SEARCH_ROUNDS.labels(str(round_.kind)).inc()
        round_source = round_.judge or default_source
        for verdict in round_.verdicts:
            source = verdict.source or round_source
            JUDGE_VERDICTS.labels(source, "true" if verdict.same_product else "false").inc()


def record_page(result: str, *, block_kind: str | None = None) -> None:
    """Count one result page fetched: ok, blocked (and by which kind of block) or error."""
    CRAWLER_PAGES.labels(result).inc()
    if block_kind is not None:
        CRAWLER_BLOCKS.labels(block_kind).inc()


def record_bytes(size: int, *, proxy_usd_per_gb: float) -> None:
    """Count bytes received from the marketplace and what they cost through the proxy."""
    if size > 0:
        CRAWLER_BYTES.inc(size)
        COST_USD.labels("proxy").inc(size / 1e9 * proxy_usd_per_gb)


def record_llm_usage(model: str, *, input_tokens: int, output_tokens: int, cost_usd: float) -> None:
    """Count one LLM call's tokens and cost."""
    LLM_TOKENS.labels(model, "input").inc(input_tokens)
    LLM_TOKENS.labels(model, "output").inc(output_tokens)
    COST_USD.labels("ai").inc(cost_usd)


def record_naver_call(result: str) -> None:
    """Count one call to Naver's Search API (or one not made: quota_spent) by its result."""
    NAVER_CALLS.labels(result).inc()
