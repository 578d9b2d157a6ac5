"""Corrections applied before the judge and to results already judged (search/overrides.py), as plain objects."""

from __future__ import annotations

import pytest

from search.exceptions import LlmBadResponse
from search.listings import Judgement, Listing, ProductQuery, TokenUsage, Verdict
from search.overrides import Corrections, Override, answer, judged_listings, rejudge

PRODUCT = ProductQuery("SKU-1", "삼성전자 갤럭시 버즈3 프로", model_code="SM-R630")
NOT_IT = Override(False, "correction: not this product (shop)")
IS_IT = Override(True, "correction: the product (shop)")


def listing(product_id: str | None, price: int, title: str = "버즈3 프로 SM-R630") -> Listing:
    return Listing(title=title, price=price, url=f"https://shop.test/vp/products/{product_id}", product_id=product_id)


class RecordingJudge:
    """A judge that calls every candidate the product, and remembers what it was shown."""

    def __init__(self):
        self.shown: list[list[str]] = []

    def __call__(self, product, candidates):
        self.shown.append([candidate.product_id for candidate in candidates])
        return Judgement(
            verdicts=[Verdict(index, True, 0.9, "looks right", source="llm") for index in range(len(candidates))],
            usage=TokenUsage(100, 10),
            judge="llm",
            sent_to_llm=len(candidates),
        )


def test_a_corrected_candidate_is_settled_before_the_judge_and_only_the_others_are_sent_to_it():
    judge = RecordingJudge()
    corrections = Corrections({("coupang", "2"): NOT_IT})
    candidates = [listing("1", 200_000), listing("2", 99_000), listing("3", 210_000)]

    judgement = corrections.judge(PRODUCT, candidates, judge)

    assert judge.shown == [["1", "3"]]
    assert [(v.index, v.same_product, v.source) for v in judgement.verdicts] == [
        (0, True, "llm"),
        (1, False, "correction"),
        (2, True, "llm"),
    ]
    assert judgement.verdicts[1].reason == NOT_IT.reason
    assert (judgement.usage, judgement.sent_to_llm) == (TokenUsage(100, 10), 2)
    assert corrections.used_private


def test_a_search_whose_candidates_are_all_corrected_never_calls_the_judge():
    def judge(product, candidates):
        raise AssertionError("the judge was called")

    corrections = Corrections({("coupang", "1"): IS_IT, ("coupang", "2"): NOT_IT})

    judgement = corrections.judge(PRODUCT, [listing("1", 1), listing("2", 2)], judge)

    assert [(v.same_product, v.source, v.confidence) for v in judgement.verdicts] == [
        (True, "correction", 1.0),
        (False, "correction", 1.0),
    ]


def test_corrections_of_another_marketplace_or_of_listings_without_an_id_leave_the_judge_alone():
    judge = RecordingJudge()
    corrections = Corrections({("naver", "1"): NOT_IT})

    judgement = corrections.judge(PRODUCT, [listing("1", 1), listing(None, 2)], judge)

    assert judge.shown == [["1", None]]
    assert all(v.source == "llm" for v in judgement.verdicts)
    assert not corrections.used_private


def test_a_shared_correction_leaves_the_search_free_to_remember_its_not_found():
    corrections = Corrections({("coupang", "1"): Override(False, "correction: not this product", shared=True)})

    corrections.judge(PRODUCT, [listing("1", 1)], RecordingJudge())

    assert not corrections.used_private


def test_a_judge_that_names_a_candidate_it_was_not_shown_is_a_bad_response():
    def judge(product, candidates):
        return Judgement(verdicts=[Verdict(5, True, 0.9, "?")])

    with pytest.raises(LlmBadResponse):
        Corrections({("coupang", "1"): NOT_IT}).judge(PRODUCT, [listing("1", 1), listing("2", 2)], judge)


def verdict(index, product_id, price, same, **extra):
    return {
        "index": index,
        "same_product": same,
        "confidence": 0.9,
        "reason": "rules",
        "source": "rules",
        "title": f"버즈3 프로 {product_id}",
        "price": price,
        "marketplace": "coupang",
        "product_id": product_id,
        "url": f"https://shop.test/vp/products/{product_id}",
        "rocket": False,
        **extra,
    }


def result_of(*rounds) -> dict:
    matches = [v for r in rounds for v in r if v["same_product"]]
    matches.sort(key=lambda v: v["price"])
    result = {"outcome": "found" if matches else "not_found"}
    if matches:
        result["lowest"] = {
            k: matches[0][k] for k in ("price", "title", "url", "product_id", "rocket") if k in matches[0]
        }
    result["matches"] = []
    result["rounds"] = [
        {"query": f"q{n}", "kind": "original", "candidates": len(r), "matches": 0, "verdicts": r}
        for n, r in enumerate(rounds)
    ]
    result["cached"] = False
    result["metrics"] = {"duration_ms": 5, "rounds": len(rounds)}
    return result


def test_rejecting_the_lowest_re_answers_from_the_next_judged_match_and_keeps_everything_else():
    before = result_of([verdict(0, "1", 99_000, True), verdict(1, "2", 219_000, True), verdict(2, "3", 5_000, False)])

    after = rejudge(before, {("coupang", "1"): NOT_IT})

    assert answer(before)["lowest"]["price"] == 99_000
    assert (after["outcome"], after["lowest"]["price"], after["lowest"]["product_id"]) == ("found", 219_000, "2")
    assert [m["product_id"] for m in after["matches"]] == ["2"]
    corrected = after["rounds"][0]["verdicts"][0]
    assert (corrected["same_product"], corrected["source"], corrected["reason"]) == (False, "correction", NOT_IT.reason)
    assert after["rounds"][0]["matches"] == 1
    assert after["metrics"] == before["metrics"]
    assert before["rounds"][0]["verdicts"][0]["same_product"] is True, "the input is left untouched"


def test_rejecting_the_only_match_leaves_a_not_found_without_a_lowest():
    after = rejudge(result_of([verdict(0, "1", 99_000, True)]), {("coupang", "1"): NOT_IT})

    assert (after["outcome"], "lowest" in after, after["matches"]) == ("not_found", False, [])


def test_confirming_an_uncertain_listing_of_a_later_round_makes_it_the_answer():
    before = result_of(
        [verdict(0, "1", 5_000, False)],
        [verdict(0, "7", 180_000, False, uncertain=True, confidence=0.5)],
    )

    after = rejudge(before, {("coupang", "7"): IS_IT})

    assert (after["outcome"], after["lowest"]["price"]) == ("found", 180_000)
    assert "uncertain" not in after["rounds"][1]["verdicts"][0]
    assert judged_listings(before).keys() == {("coupang", "1"), ("coupang", "7")}


def test_each_marketplace_s_own_answer_is_recomputed_too():
    before = result_of([verdict(0, "1", 99_000, True), verdict(1, "2", 150_000, True, marketplace="naver")])
    before["by_marketplace"] = {
        "coupang": {"outcome": "found", "lowest": {"price": 99_000}},
        "naver": {"outcome": "found", "lowest": {"price": 150_000}},
    }

    after = rejudge(before, {("coupang", "1"): NOT_IT})

    assert after["by_marketplace"]["coupang"] == {"outcome": "not_found"}
    assert after["by_marketplace"]["naver"]["lowest"]["price"] == 150_000
    assert (after["lowest"]["price"], after["lowest"]["marketplace"]) == (150_000, "naver")


def test_a_result_from_before_corrections_names_no_listing_and_is_left_as_it_was():
    old = {key: value for key, value in verdict(0, "1", 99_000, True).items() if key not in ("product_id", "url")}
    before = result_of([old])

    assert judged_listings(before) == {}
    assert rejudge(before, {("coupang", "1"): NOT_IT}) == before
