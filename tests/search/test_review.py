"""The result's `review` (search/review.py): which judged listings a person is asked to settle, and that a
not_found anything doubted is never written to the shared negative cache — the function alone, then through the
real handler, crawler and rules judge against the fake marketplace."""

from __future__ import annotations

import time

import pytest

from jobs import queue
from jobs.handlers import JobContext
from lps_site.job_types import JobType
from negative_cache.models import NegativeCacheEntry
from search import handler, review

HEADPHONES = "소니 WH-1000XM5 헤드폰"
SURE = {"title": "소니 WH-1000XM5 헤드폰 블랙", "price": 429_000, "product_id": "8002"}
# The title lacks the model code: the rules cannot decide, so without a model it is no match.
UNSURE = {"title": "소니 무선 노이즈캔슬링 헤드폰 블랙", "price": 389_000, "product_id": "8001"}
CASE = {"title": "소니 WH-1000XM5 헤드폰 케이스", "price": 19_000, "product_id": "8003"}


def judged(price: int, *, source: str = "rules", same: bool = False, confidence: float = 0.95, **extra) -> dict:
    """A verdict as a result's round stores it."""
    return {"price": price, "title": f"listing at {price}", "url": f"https://m/{price}", "product_id": str(price),
            "marketplace": "coupang", "same_product": same, "confidence": confidence, "reason": "why",
            "source": source, **extra}  # fmt: skip


# --- The function ------------------------------------------------------------------------------------------


def test_an_unsettled_listing_cheaper_than_the_lowest_is_listed_with_the_rules_doubt_and_a_dearer_one_is_not():
    verdicts = [
        judged(429_000, same=True),
        judged(389_000, confidence=0.5, uncertain=True, reason="uncertain: missing wh-1000xm5"),
        judged(450_000, confidence=0.5, uncertain=True),
        judged(19_000, reason="case (케이스), not the product itself"),
    ]

    (item,) = review.items(verdicts, 429_000)

    assert item == {"marketplace": "coupang", "product_id": "389000", "title": "listing at 389000", "price": 389_000,
                    "url": "https://m/389000", "reason": "the rules could not decide: missing wh-1000xm5"}  # fmt: skip


def test_on_a_not_found_every_unsettled_listing_is_listed_cheapest_first_and_capped():
    verdicts = [judged(price, confidence=0.5, uncertain=True) for price in (300, 100, 500, 200, 400)]

    assert [item["price"] for item in review.items(verdicts, None)] == [100, 200, 300, 400, 500]
    assert [item["price"] for item in review.items(verdicts, None, limit=2)] == [100, 200]


def test_a_lowest_the_rules_accepted_on_its_words_alone_is_listed_and_one_they_are_sure_of_is_not():
    words_only = judged(200, same=True, confidence=0.8, reason="3 of 3 name words in the title")

    item, fallback = review.items([words_only, judged(300, same=True)], 200)
    assert (item["price"], item["reason"]) == (
        200,
        "the rules accepted it on its words, not sure: 3 of 3 name words in the title",
    )
    assert fallback["price"] == 300  # what the answer becomes if it is turned down
    # Another listing at the same price the rules are sure of settles the answer; a sure lowest needs no one.
    assert review.items([words_only, judged(200, same=True)], 200) == []
    assert review.items([judged(200, same=True)], 200) == []
    # A dearer words-only match cannot change the answer.
    assert review.items([judged(100, same=True), judged(150, same=True, confidence=0.8)], 100) == []


def test_a_doubted_lowest_brings_the_listing_the_answer_falls_back_to_and_a_sure_lowest_does_not():
    words_only = judged(200, same=True, confidence=0.8)
    verdicts = [
        words_only,
        judged(250, reason="another size: L for M"),  # the rules are sure it is not: passed over
        judged(260, source="llm", confidence=0.9),  # the model is sure it is not: passed over
        judged(270, confidence=0.5, uncertain=True, reason="uncertain: a word beside the name: 워크"),
        judged(300, same=True),
    ]

    listed = review.items(verdicts, 200)

    assert [(item["price"], item["reason"]) for item in listed] == [
        (200, "the rules accepted it on its words, not sure: why"),
        (270, "the next listing that could be the product if the reported lowest is turned down: "
              "a word beside the name: 워크"),
    ]  # fmt: skip
    # The next one accepted, when nothing undecided lies between.
    assert [item["price"] for item in review.items([words_only, judged(300, same=True, confidence=0.8)], 200)] == [
        200,
        300,
    ]
    assert review.items([words_only, judged(300, same=True, confidence=0.8)], 200)[1]["reason"].startswith(
        "the answer if the reported lowest is turned down"
    )
    # A lowest nobody doubts needs no fallback.
    assert review.items([judged(200, same=True), judged(270, confidence=0.5, uncertain=True)], 200) == []


def test_the_limit_never_cuts_the_reported_lowest_itself():
    cheaper = [judged(price, confidence=0.5, uncertain=True) for price in (10, 20, 30)]
    verdicts = [*cheaper, judged(50, same=True, confidence=0.8)]

    assert [item["price"] for item in review.items(verdicts, 50, limit=2)] == [10, 50]


def test_a_model_s_low_confidence_no_below_the_lowest_and_its_low_confidence_yes_on_the_lowest_are_listed():
    verdicts = [
        judged(100, source="llm", same=True, confidence=0.6),  # the lowest, accepted on a guess
        judged(90, source="llm", confidence=0.55),  # cheaper, turned down on a guess
        judged(80, source="llm", confidence=0.9),  # cheaper, turned down with confidence
        judged(120, source="llm", same=True, confidence=0.5),  # dearer: the answer if the guess is turned down
        judged(130, source="llm", same=True, confidence=0.5),  # dearer still: cannot change the answer
    ]

    listed = review.items(verdicts, 100, low_confidence=0.7)

    assert [(item["price"], item["reason"]) for item in listed] == [
        (90, "the model turned it down with low confidence (0.55): why"),
        (100, "the model accepted it with low confidence (0.60): why"),
        (120, "the answer if the reported lowest is turned down: why"),
    ]


def test_a_listing_a_correction_settled_is_never_listed_and_one_judged_in_two_rounds_is_listed_once():
    verdicts = [
        judged(100, source="correction", confidence=1.0),
        judged(200, confidence=0.5, uncertain=True),
        judged(200, confidence=0.5, uncertain=True),
    ]

    assert [item["price"] for item in review.items(verdicts, None)] == [200]


# --- Through the handler -----------------------------------------------------------------------------------


@pytest.fixture
def worker_browser(fake_coupang):
    yield fake_coupang
    handler.close_shared_crawler()


def run(payload: dict) -> dict:
    """A SEARCH job enqueued, claimed and run by the real handler (its crawler, the rules judge, no model)."""
    queue.enqueue(queue.NewJob(JobType.SEARCH, payload, dedupe_key=f"search:{payload['product_code']}"))
    (job,) = queue.claim("test-worker", job_types=[JobType.SEARCH])
    return handler.run_search(job, JobContext(worker_id="test-worker", deadline=time.monotonic() + 120))


@pytest.mark.browser
@pytest.mark.django_db
def test_a_page_with_a_cheaper_uncertain_listing_answers_the_sure_one_with_the_cheaper_in_review(worker_browser):
    worker_browser.set_results(HEADPHONES, [SURE, UNSURE, CASE])

    result = run({"product_code": "WH-5", "product_name": HEADPHONES, "model_code": "WH-1000XM5"})

    assert (result["outcome"], result["lowest"]["price"]) == ("found", 429_000)
    (item,) = result["review"]
    assert (item["product_id"], item["price"], item["marketplace"]) == ("8001", 389_000, "coupang")
    assert item["reason"].startswith("the rules could not decide: ")
    assert "wh-1000xm5" in item["reason"]


@pytest.mark.browser
@pytest.mark.django_db
def test_a_lowest_matched_by_its_words_alone_answers_with_itself_in_review(worker_browser):
    # No model code: the rules match the name's words and are not sure, and no model is there to confirm.
    ramen = "오뚜기 진라면 매운맛 120g 5개입"
    worker_browser.set_results(ramen, [{"title": f"{ramen} 멀티팩", "price": 4_500, "product_id": "8101"}])

    result = run({"product_code": "JR-5", "product_name": ramen})

    assert (result["outcome"], result["lowest"]["price"]) == ("found", 4_500)
    (item,) = result["review"]
    assert (item["product_id"], item["price"]) == ("8101", 4_500)
    assert item["reason"].startswith("the rules accepted it on its words, not sure: ")


@pytest.mark.browser
@pytest.mark.django_db
def test_a_not_found_with_a_doubted_listing_is_not_remembered_for_every_shop_but_an_undoubted_one_is(worker_browser):
    worker_browser.set_results(HEADPHONES, [UNSURE, CASE])
    worker_browser.set_results("소니 WH-1000XM4 헤드폰", [CASE])

    # The shops' own prices let the rules be sure the 19,000-won case is not the headphones.
    doubted = run({"product_code": "WH-5", "product_name": HEADPHONES, "model_code": "WH-1000XM5", "price": 449_000})
    undoubted = run(
        {"product_code": "WH-4", "product_name": "소니 WH-1000XM4 헤드폰", "model_code": "WH-1000XM4", "price": 359_000}
    )

    assert (doubted["outcome"], [item["product_id"] for item in doubted["review"]]) == ("not_found", ["8001"])
    assert (undoubted["outcome"], "review" in undoubted) == ("not_found", False)
    (entry,) = NegativeCacheEntry.objects.all()
    assert entry.model_code == "WH-1000XM4"
    # The doubted product is searched again by the next shop, not answered from a cache.
    again = run({"product_code": "WH-5b", "product_name": HEADPHONES, "model_code": "WH-1000XM5", "price": 449_000})
    assert (again["cached"], again["review"][0]["product_id"]) == (False, "8001")


@pytest.mark.browser
@pytest.mark.django_db
def test_with_a_model_a_cheaper_listing_it_turned_down_on_a_guess_is_in_review(worker_browser, fake_openai, settings):
    settings.OPENAI_API_KEY = "test-key"
    settings.OPENAI_BASE_URL = fake_openai.base_url + "/v1"
    worker_browser.set_results(HEADPHONES, [SURE, UNSURE, CASE])
    # The rules settle the coded listing and the case; only the uncertain one goes to the model.
    fake_openai.queue_response(
        {"verdicts": [{"index": 0, "same_product": False, "confidence": 0.55, "reason": "no model code"}]}
    )

    result = run({"product_code": "WH-5", "product_name": HEADPHONES, "model_code": "WH-1000XM5"})

    assert (result["outcome"], result["lowest"]["price"]) == ("found", 429_000)
    assert [(item["product_id"], item["reason"]) for item in result["review"]] == [
        ("8001", "the model turned it down with low confidence (0.55): no model code")
    ]
