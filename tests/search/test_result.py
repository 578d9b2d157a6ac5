"""A stored SEARCH result read by attribute (search/result.py): any row, old or malformed, without raising."""

from __future__ import annotations

import json

import pytest

from search.overrides import verdict_key
from search.result import CorrectionMark, JudgedListing, Lowest, MarketplaceAnswer, Metrics, SearchResult

# A result as the pipeline stores it now: two marketplaces, a cascade round, a review item, a correction's mark.
CURRENT = {
    "outcome": "found",
    "lowest": {
        "price": 197_000,
        "title": "삼성전자 갤럭시 버즈3 프로 SM-R630",
        "url": "https://search.shopping.naver.com/catalog/1",
        "product_id": "n-1",
        "rocket": False,
        "marketplace": "naver",
        "shipping_fee": 3_000,
    },
    "by_marketplace": {
        "coupang": {"outcome": "not_found"},
        "naver": {"outcome": "found", "lowest": {"price": 197_000, "title": "버즈3 프로", "url": "https://n.test/1"}},
    },
    "review": [
        {
            "marketplace": "coupang",
            "product_id": "7",
            "title": "버즈3 프로 케이스",
            "price": 9_900,
            "url": "https://www.coupang.com/vp/products/7",
            "reason": "the rules could not decide: an accessory word",
        }
    ],
    "matches": [
        {"price": 197_000, "title": "버즈3 프로", "url": "https://n.test/1", "confidence": 0.9, "reason": "same"}
    ],
    "rounds": [
        {
            "query": "갤럭시 버즈3 프로 SM-R630",
            "kind": "original",
            "candidates": 2,
            "matches": 1,
            "judge": "rules",
            "settled_by_rules": 1,
            "sent_to_llm": 1,
            "verdicts": [
                {
                    "index": 0,
                    "same_product": True,
                    "confidence": 1,
                    "reason": "model code",
                    "source": "rules",
                    "title": "버즈3 프로",
                    "price": 197_000,
                    "url": "https://n.test/1",
                    "marketplace": "naver",
                    "product_id": "n-1",
                },
                {
                    "index": 1,
                    "same_product": False,
                    "confidence": 1.0,
                    "reason": "correction: a case",
                    "source": "correction",
                    "title": "버즈3 프로 케이스",
                    "price": 9_900,
                    "product_id": "7",
                },
            ],
        }
    ],
    "cached": False,
    "reused": True,
    "reused_from": "0b6f6c52-5d0e-4a0e-9a4e-1f4cc1a3a8f0",
    "product_code": "SKU-1",
    "searched_at": "2026-12-01T09:00:00Z",
    "corrections": [
        {
            "correction_id": 4,
            "at": "2026-12-01T10:00:00+00:00",
            "previous": {"outcome": "found", "lowest": {"price": 9_900}},
            "current": {"outcome": "found", "lowest": {"price": 197_000}},
        }
    ],
    "metrics": {
        "duration_ms": 4_210,
        "rounds": 1,
        "tokens": {"input": 900, "output": 40, "total": 940},
        "bytes": 812_000,
        "cost": {"ai_usd": 0.0004, "proxy_usd": 0, "total_usd": 0.0004},
        "stages_ms": {"navigation": 2_100.5, "judge": 40},
    },
}

# A found result as a release before corrections, review, marketplaces and stage timings stored it.
OLD_RELEASE = {
    "outcome": "found",
    "lowest": {"price": 203_500, "title": "버즈3 프로", "url": "https://www.coupang.com/vp/products/1", "rocket": True},
    "matches": [{"price": 203_500, "title": "버즈3 프로", "url": "https://www.coupang.com/vp/products/1"}],
    "rounds": [{"query": "버즈3 프로", "kind": "original", "candidates": 12, "matches": 1}],
    "cached": False,
    "metrics": {"duration_ms": 9_000, "rounds": 1, "tokens": 1_234, "cost": {"total_usd": 0.002}},
}


def test_a_current_result_is_read_by_attribute_part_by_part():
    result = SearchResult.from_json(CURRENT)

    assert (result.outcome, result.found, result.price, result.cost_usd) == ("found", True, 197_000, 0.0004)
    assert result.lowest == Lowest(
        197_000,
        "삼성전자 갤럭시 버즈3 프로 SM-R630",
        "https://search.shopping.naver.com/catalog/1",
        "n-1",
        rocket=False,
        marketplace="naver",
        shipping_fee=3_000,
    )
    assert result.by_marketplace == {
        "coupang": MarketplaceAnswer("not_found"),
        "naver": MarketplaceAnswer("found", Lowest(197_000, "버즈3 프로", "https://n.test/1")),
    }
    assert [(item.marketplace, item.product_id, item.price) for item in result.review] == [("coupang", "7", 9_900)]
    assert [match.price for match in result.matches] == [197_000]
    (round_,) = result.rounds
    assert (round_.kind, round_.candidates, round_.settled_by_rules, round_.sent_to_llm) == ("original", 2, 1, 1)
    assert [(verdict.source, verdict.key) for verdict in result.verdicts] == [
        ("rules", ("naver", "n-1")),
        ("correction", ("coupang", "7")),
    ]
    assert (result.cached, result.reused, result.reused_from) == (False, True, CURRENT["reused_from"])
    assert result.product_code == "SKU-1"
    assert result.corrections == (
        CorrectionMark(
            4, "2026-12-01T10:00:00+00:00", CURRENT["corrections"][0]["previous"], CURRENT["corrections"][0]["current"]
        ),
    )
    assert result.metrics == Metrics(
        duration_ms=4_210,
        rounds=1,
        tokens=None,
        bytes=812_000,
        ai_usd=0.0004,
        proxy_usd=0.0,
        total_usd=0.0004,
        stages_ms={"navigation": 2_100.5, "judge": 40},
    )


def test_a_result_stored_by_an_older_release_reads_with_its_later_parts_absent():
    result = SearchResult.from_json(OLD_RELEASE)

    assert (result.outcome, result.price, result.lowest.rocket, result.lowest.marketplace) == (
        "found",
        203_500,
        True,
        None,
    )
    assert result.review == ()
    assert result.corrections == ()
    assert result.by_marketplace is None
    assert result.reused is None
    assert result.reused_from is None
    assert [verdict.key for verdict in result.verdicts] == []
    assert (result.metrics.tokens, result.metrics.ai_usd, result.cost_usd) == (1_234, None, 0.002)


@pytest.mark.parametrize(
    "stored",
    [
        None,
        "found",
        42,
        [],
        {},
        {"outcome": None, "lowest": None, "rounds": None, "metrics": None},
        {
            "outcome": 1,
            "lowest": "₩1,000",
            "matches": "many",
            "rounds": [None, "a round", {"kind": 3, "verdicts": {"0": {}}, "candidates": "12"}],
            "review": [7, {"price": "9,900", "product_id": None}],
            "by_marketplace": ["coupang"],
            "cached": "no",
            "reused": 1,
            "reused_from": 5,
            "corrections": {"at": "now"},
            "metrics": {"cost": 0.5, "duration_ms": "4s", "stages_ms": [1, 2]},
        },
    ],
)
def test_a_malformed_or_missing_result_reads_as_none_fields_and_never_raises(stored):
    result = SearchResult.from_json(stored)

    assert (result.outcome, result.lowest, result.price, result.cost_usd) == (None, None, None, None)
    assert not result.found
    assert result.by_marketplace in (None, {})
    assert (result.cached, result.reused, result.reused_from) == (None, None, None)
    assert result.matches == ()
    assert result.corrections == ()
    assert all(round_.kind is None and round_.candidates is None and round_.verdicts == () for round_ in result.rounds)
    assert all(item.price is None and item.product_id is None for item in result.review)
    assert result.metrics == Metrics()


def test_to_json_gives_back_the_stored_result_whole_as_a_copy():
    result = SearchResult.from_json(CURRENT)

    stored = result.to_json()
    assert json.dumps(stored, ensure_ascii=False) == json.dumps(CURRENT, ensure_ascii=False)  # key order kept too
    stored["lowest"]["price"] = 1
    assert result.to_json()["lowest"]["price"] == 197_000
    assert CURRENT["lowest"]["price"] == 197_000
    assert SearchResult.from_json(None).to_json() == {}


def test_a_lowest_keeps_exactly_its_stored_shape():
    assert Lowest.from_json(CURRENT["lowest"]).to_json() == CURRENT["lowest"]
    assert Lowest.from_json(OLD_RELEASE["lowest"]).to_json() == OLD_RELEASE["lowest"]


@pytest.mark.parametrize(
    ("verdict", "key"),
    [
        ({"product_id": "7"}, ("coupang", "7")),
        ({"product_id": "n-1", "marketplace": "naver"}, ("naver", "n-1")),
        ({"product_id": 7, "marketplace": None}, ("coupang", "7")),
        ({"product_id": ""}, None),
        ({"title": "a result from before corrections"}, None),
    ],
)
def test_a_verdict_is_named_as_a_correction_names_it(verdict, key):
    assert JudgedListing.from_json(verdict).key == key == verdict_key(verdict)
