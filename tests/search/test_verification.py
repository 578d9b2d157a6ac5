"""The lowest checked where it matters (search/verification.py): the listing that would become `lowest` is asked
about again, alone, through the real pipeline, the real openai client and the fake OpenAI server."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from search.judge import judge_listings
from search.listings import Listing, ProductQuery, SearchPage
from search.pipeline import search_product
from search.verification import TURNED_DOWN

pytestmark = pytest.mark.django_db

BUDS = ProductQuery(product_code="B-1", product_name="삼성 갤럭시 버즈3 프로", brand="삼성전자", model_code="SM-R630")
SURE = "삼성전자 갤럭시 버즈3 프로 SM-R630N 블루투스 이어폰, 실버"  # our model code, nothing against it
UNSURE_CHEAP = "갤럭시 버즈 3 프로 무선 이어폰 화이트"  # every name word but no code: the rules lean yes, not sure
UNSURE_NEXT = "삼성 갤럭시 버즈 프로 이어폰"  # the model number missing: uncertain


def answer(*same: bool, reason: str = "looked at it") -> dict:
    return {
        "verdicts": [
            {"index": index, "same_product": flag, "confidence": 0.9, "reason": reason}
            for index, flag in enumerate(same)
        ]
    }


def search(llm, listings: list[Listing], product: ProductQuery = BUDS) -> dict:
    return search_product(
        product,
        fetch=lambda query: SearchPage(
            query=query, url="https://www.coupang.com/np/search", listings=listings, empty=False
        ),
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=llm),
        refine=lambda product, tried: pytest.fail("a round with a match needs no refined query"),
    )


def listing(title: str, price: int, number: int) -> Listing:
    return Listing(title=title, price=price, url=f"https://www.coupang.com/vp/products/{number}")


def asked_titles(fake_openai) -> list[list[str]]:
    return [
        [candidate["title"] for candidate in json.loads(request["messages"][-1]["content"])["candidates"]]
        for request in fake_openai.judge_requests
    ]


def test_a_models_wrong_same_on_the_cheapest_listing_becomes_the_next_one(llm, fake_openai):
    page = [listing(UNSURE_CHEAP, 89_000, 1), listing(UNSURE_NEXT, 150_000, 2), listing(SURE, 199_000, 3)]
    fake_openai.queue_response(answer(True, True))  # the round's call: both unsure ones "the same"
    fake_openai.queue_response(answer(False, reason="the Pro's case colour only"))  # 89,000 alone: no
    fake_openai.queue_response(answer(True))  # 150,000 alone: yes

    result = search(llm, page)

    assert asked_titles(fake_openai) == [[UNSURE_CHEAP, UNSURE_NEXT], [UNSURE_CHEAP], [UNSURE_NEXT]]
    assert result["outcome"] == "found"
    assert result["lowest"]["price"] == 150_000
    verdicts = result["rounds"][0]["verdicts"]
    assert verdicts[0]["same_product"] is False
    assert verdicts[0]["reason"] == TURNED_DOWN + "the Pro's case colour only"
    assert verdicts[0]["source"] == "llm"
    # Three calls' tokens are the search's.
    assert result["metrics"]["tokens"]["total"] == sum(u["total_tokens"] for u in fake_openai.usage_served)


def test_the_question_of_one_carries_what_the_rules_read_of_the_listing_not_the_answer_it_checks(llm, fake_openai):
    fake_openai.queue_response(answer(True, reason="the same earbuds, white"), times=2)

    search(llm, [listing(UNSURE_CHEAP, 89_000, 1), listing(SURE, 199_000, 2)])

    first, check = (json.loads(request["messages"][-1]["content"]) for request in fake_openai.judge_requests)
    [candidate] = check["candidates"]
    assert (candidate["index"], candidate["title"]) == (0, UNSURE_CHEAP)
    assert candidate["rules"]  # why the rules could not decide ...
    assert candidate["rules"] == first["candidates"][0]["rules"]  # ... as the first question said it
    assert candidate.get("read") == first["candidates"][0].get("read")
    assert "the same earbuds" not in json.dumps(check, ensure_ascii=False)  # not the model's own "same, because"


def test_every_match_turned_down_alone_leaves_the_sure_one_lowest(llm, fake_openai):
    page = [listing(UNSURE_CHEAP, 89_000, 1), listing(UNSURE_NEXT, 150_000, 2), listing(SURE, 199_000, 3)]
    fake_openai.queue_response(answer(True, True))
    fake_openai.queue_response(answer(False), times=2)

    result = search(llm, page)

    assert result["lowest"]["price"] == 199_000
    # The sure match is not far below anything: it is not asked about.
    assert len(fake_openai.judge_requests) == 3


def test_a_sure_lowest_near_the_shops_price_costs_no_question(llm, fake_openai):
    result = search(llm, [listing(SURE, 199_000, 1)], replace(BUDS, price=219_000))

    assert fake_openai.requests == []
    assert result["lowest"]["price"] == 199_000


def test_a_sure_match_far_below_the_shops_price_is_asked_about_alone_and_a_no_is_kept(llm, fake_openai):
    # One listing: the page's reference is its own price, so the rules are sure; the shop's price says otherwise.
    fake_openai.queue_response(answer(False, reason="a display unit at that price"))

    judgement = judge_listings(replace(BUDS, price=419_000), [listing(SURE, 99_000, 1)], llm=llm)

    assert asked_titles(fake_openai) == [[SURE]]
    [verdict] = judgement.verdicts
    assert (verdict.same_product, verdict.source) == (False, "llm")
    assert verdict.reason == TURNED_DOWN + "a display unit at that price"
    assert judgement.usage.total == sum(u["total_tokens"] for u in fake_openai.usage_served)
