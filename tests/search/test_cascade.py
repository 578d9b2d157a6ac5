"""The rules → LLM cascade: the rules settle what they are sure of, only the rest goes to the one LLM call,
and every verdict says who decided it (through the real openai client against the fake endpoint)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from search.judge import judge_listings
from search.listings import Listing, ProductQuery, SearchPage, TokenUsage
from search.llm import JUDGE_INSTRUCTIONS
from search.pipeline import search_product
from tests.admin import rows

BUDS = ProductQuery(product_code="B-1", product_name="삼성 갤럭시 버즈3 프로", brand="삼성전자", model_code="SM-R630")
SETTLED = [
    "[중고] 갤럭시 버즈3 프로 S급 실버",  # a used unit
    "SM-R630 전용 폼팁 이어팁 3쌍",  # an accessory carrying the model code
    "삼성전자 갤럭시 버즈2 프로 SM-R510N 블루투스 이어폰",  # another model code
    "삼성전자 갤럭시 버즈3 프로 SM-R630N 블루투스 이어폰, 실버",  # our model code, nothing against it
]
UNSURE = [
    "갤럭시 버즈 3 프로 무선 이어폰 화이트",  # every name word but no code: the rules lean yes, not sure
    "삼성 갤럭시 버즈 프로 이어폰",  # the model number missing: uncertain
]


def listing(title: str, price: int = 100_000) -> Listing:
    return Listing(title=title, price=price, url="https://www.coupang.com/vp/products/1")


def test_only_the_candidates_the_rules_are_unsure_of_go_to_the_llm(llm, fake_openai):
    candidates = [listing(title) for title in [SETTLED[0], UNSURE[0], SETTLED[1], SETTLED[2], UNSURE[1], SETTLED[3]]]

    judgement = judge_listings(BUDS, candidates, llm=llm)

    [request] = fake_openai.judge_requests
    asked = json.loads(request["messages"][-1]["content"])
    assert [candidate["title"] for candidate in asked["candidates"]] == UNSURE
    assert [candidate["index"] for candidate in asked["candidates"]] == [0, 1]
    assert [verdict.index for verdict in judgement.verdicts] == [0, 1, 2, 3, 4, 5]
    assert [verdict.source for verdict in judgement.verdicts] == ["rules", "llm", "rules", "rules", "llm", "rules"]
    assert [verdict.same_product for verdict in judgement.verdicts if verdict.source == "rules"] == [
        False,
        False,
        False,
        True,
    ]
    assert (judgement.judge, judgement.settled_by_rules, judgement.sent_to_llm) == ("llm", 4, 2)
    assert judgement.usage.total > 0


def test_no_llm_call_is_made_when_the_rules_settle_every_candidate(llm, fake_openai):
    judgement = judge_listings(BUDS, [listing(title) for title in SETTLED], llm=llm)

    assert fake_openai.requests == []
    assert judgement.usage == TokenUsage()
    assert (judgement.judge, judgement.settled_by_rules, judgement.sent_to_llm) == ("rules", 4, 0)
    assert {verdict.source for verdict in judgement.verdicts} == {"rules"}


def test_the_llm_verdict_on_an_unsure_candidate_is_the_one_kept(llm, fake_openai):
    fake_openai.queue_response(
        {"verdicts": [{"index": 0, "same_product": True, "confidence": 0.93, "reason": "same earbuds, no code"}]},
        times=2,  # the verdict, and its confirmation when the listing is asked about alone
    )

    judgement = judge_listings(BUDS, [listing(SETTLED[0]), listing(UNSURE[0])], llm=llm)

    assert judgement.verdicts[1].same_product is True
    assert judgement.verdicts[1].reason == "same earbuds, no code"
    assert judgement.verdicts[1].source == "llm"


def test_without_an_llm_an_uncertain_candidate_is_no_match():
    judgement = judge_listings(BUDS, [listing(UNSURE[1])], llm=None)

    [verdict] = judgement.verdicts
    assert verdict.same_product is False
    assert verdict.uncertain is True
    assert verdict.source == "rules"
    assert verdict.reason.startswith("uncertain")


def test_the_judge_instructions_say_used_units_accessories_and_pack_arithmetic_are_rules():
    for phrase in (
        "NEW unit",
        "중고",
        "리퍼",
        "전시",
        "반품",
        "S급",
        "1+1 = 2",
        "호환",
        "전용",
        "증정",
        "when in doubt",
    ):
        assert phrase in JUDGE_INSTRUCTIONS


def test_the_judge_instructions_carry_what_spec_4_3_now_says_is_not_a_price_of_the_product():
    for phrase in ("렌탈", "구독", "약정", "월 29,900원", "A + B 세트", "2대", "260 vs 270", "퀸 vs 킹", "대체", "OEM"):
        assert phrase in JUDGE_INSTRUCTIONS
    assert "evidence, never noise" in JUDGE_INSTRUCTIONS
    assert "not proof" in JUDGE_INSTRUCTIONS
    assert "needs more evidence, not less" in JUDGE_INSTRUCTIONS


@pytest.mark.django_db
def test_each_round_records_which_verdicts_came_from_rules_and_which_from_the_llm(llm, fake_openai):
    page = [listing(SETTLED[0], 99_000), listing(UNSURE[0], 189_000), listing(SETTLED[3], 199_000)]
    fake_openai.queue_response(
        {"verdicts": [{"index": 0, "same_product": True, "confidence": 0.9, "reason": "same earbuds, no code"}]},
        times=2,  # the verdict, and its confirmation when the listing is asked about alone
    )

    result = search_product(
        BUDS,
        fetch=lambda query: _page(query, page),
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=llm),
        refine=lambda product, tried: pytest.fail("a round with a match needs no refined query"),
    )

    [round_] = result["rounds"]
    assert [verdict["source"] for verdict in round_["verdicts"]] == ["rules", "llm", "rules"]
    assert (round_["judge"], round_["settled_by_rules"], round_["sent_to_llm"]) == ("llm", 2, 1)
    assert result["lowest"]["price"] == 189_000
    assert result["metrics"]["tokens"]["total"] > 0


@pytest.mark.django_db
def test_the_job_page_shows_who_decided_each_verdict(admin_client, llm, fake_openai):
    page = [listing(SETTLED[0], 99_000), listing(UNSURE[1], 120_000), listing(SETTLED[3], 199_000)]
    result = search_product(
        BUDS,
        fetch=lambda query: _page(query, page),
        judge=lambda product, candidates: judge_listings(product, list(candidates), llm=llm),
        refine=lambda product, tried: pytest.fail("a round with a match needs no refined query"),
    )
    job_id = rows.done("B-1", BUDS.product_name, result)

    html = admin_client.get(reverse("admin:jobs_job_change", args=[job_id])).content.decode()

    assert html.count('class="lps-verdict-source">rules<') == 2
    assert html.count('class="lps-verdict-source">llm<') == 1
    assert "rules 2 + llm 1" in html
    assert "not a new unit (s급)" in html


def _page(query: str, listings: list[Listing]) -> SearchPage:
    return SearchPage(query=query, url="https://www.coupang.com/np/search", listings=listings, empty=False)
