"""A finished search counted from its result: outcome, rounds by kind, and the judge's verdicts by source."""

from __future__ import annotations

from prometheus_client import REGISTRY

from search import metrics


def counted() -> dict[str, float]:
    def value(name: str, **labels) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    return {
        "found": value("lps_searches_total", outcome="found"),
        "not_found": value("lps_searches_total", outcome="not_found"),
        "cached": value("lps_searches_total", outcome="cached"),
        "original": value("lps_search_rounds_total", kind="original"),
        "precise": value("lps_search_rounds_total", kind="precise"),
        "broad": value("lps_search_rounds_total", kind="broad"),
        "rules yes": value("lps_judge_verdicts_total", source="rules", same_product="true"),
        "rules no": value("lps_judge_verdicts_total", source="rules", same_product="false"),
        "llm yes": value("lps_judge_verdicts_total", source="llm", same_product="true"),
        "llm no": value("lps_judge_verdicts_total", source="llm", same_product="false"),
    }


def moved(before: dict[str, float]) -> dict[str, float]:
    return {name: value - before[name] for name, value in counted().items() if value != before[name]}


def verdict(same: bool, **extra) -> dict:
    return {"index": 0, "same_product": same, "confidence": 0.9, "reason": "r", **extra}


def test_a_search_is_counted_by_outcome_rounds_and_verdicts_of_the_source_each_verdict_names():
    before = counted()

    metrics.record_search(
        {
            "outcome": "found",
            "cached": False,
            "rounds": [
                {"kind": "original", "verdicts": [verdict(False, source="rules"), verdict(False, source="llm")]},
                {"kind": "precise", "verdicts": [verdict(True, source="llm")]},
            ],
        },
        default_source="rules",
    )

    assert moved(before) == {"found": 1, "original": 1, "precise": 1, "rules no": 1, "llm no": 1, "llm yes": 1}


def test_verdicts_without_a_source_take_their_rounds_judge_then_the_configured_one():
    before = counted()

    metrics.record_search(
        {
            "outcome": "not_found",
            "cached": False,
            "rounds": [
                {"kind": "original", "judge": "llm", "verdicts": [verdict(False)]},
                {"kind": "precise", "verdicts": [verdict(False), verdict(False)]},
                {"kind": "broad", "verdicts": []},
            ],
        },
        default_source="rules",
    )

    assert moved(before) == {"not_found": 1, "original": 1, "precise": 1, "broad": 1, "llm no": 1, "rules no": 2}


def test_a_not_found_from_the_negative_cache_is_counted_as_cached_with_no_rounds():
    before = counted()

    metrics.record_search({"outcome": "not_found", "cached": True, "rounds": []}, default_source="llm")

    assert moved(before) == {"cached": 1}
