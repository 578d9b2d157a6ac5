"""The keyword generator: the LLM when configured (against the fake endpoint), else rules on realistic names."""

from __future__ import annotations

import pytest

from search.exceptions import LlmUnavailable
from search.keywords import refine_queries
from search.listings import ProductQuery, TokenUsage

GALAXY = ProductQuery(
    product_code="G-1",
    product_name="[공식] 삼성전자 갤럭시 S24 울트라 256GB 티타늄 블랙 (SM-S928N)",
    brand="삼성전자",
    model_code="SM-S928N",
)


def rules(product: ProductQuery, tried: list[str] | None = None):
    return refine_queries(product, llm=None, tried=tried if tried is not None else [product.product_name])


def test_the_precise_query_is_brand_and_model_code():
    refined = rules(GALAXY)

    assert refined.precise == "삼성전자 SM-S928N"
    assert refined.source == "rules"
    assert refined.usage == TokenUsage()


def test_the_broad_query_drops_notes_colours_capacity_and_model_code():
    assert rules(GALAXY).broad == "삼성전자 갤럭시 S24 울트라"


@pytest.mark.parametrize(
    ("product", "precise", "broad"),
    [
        pytest.param(
            ProductQuery("S-1", "소니 WH-1000XM5 블루투스 헤드폰 블랙", brand="소니"),
            "소니 WH-1000XM5",
            "소니 블루투스 헤드폰",
            id="model-code-written-in-the-name",
        ),
        pytest.param(
            ProductQuery("I-1", "Apple 아이폰 15 Pro 256GB 블랙 티타늄", brand="Apple"),
            "Apple 아이폰 15 Pro 256GB",
            "Apple 아이폰 15 Pro",
            id="line-number-variant-capacity",
        ),
        pytest.param(
            ProductQuery("W-1", "제주 삼다수 2L 6개 묶음"),
            "제주 삼다수 2L",
            "제주 삼다수",
            id="pack-count-and-bundle-word",
        ),
        pytest.param(
            ProductQuery("R-1", "농심 신라면 120g x 5개", brand="농심"),
            "농심 신라면 120g",
            "농심 신라면",
            id="times-pack",
        ),
        pytest.param(
            ProductQuery("C-1", "코카콜라 제로 355ml 24캔 (업소용)"),
            "코카콜라 제로 355ml",
            "코카콜라 제로",
            id="bracketed-note",
        ),
        pytest.param(
            ProductQuery("L-1", "LG전자 그램 16 2024 16Z90S-GA5CK 화이트", brand="LG전자"),
            "LG전자 16Z90S-GA5CK",
            "LG전자 그램 16 2024",
            id="laptop-with-code",
        ),
        pytest.param(
            ProductQuery("D-1", "다우니 섬유유연제 실내건조 리필 2.6L x 4개", brand="다우니"),
            "다우니 섬유유연제 실내건조 리필 2.6L",
            "다우니 섬유유연제 실내건조 리필",
            id="refill-volume-pack",
        ),
    ],
)
def test_the_rules_derive_precise_and_broad_queries_from_realistic_names(product, precise, broad):
    refined = rules(product)

    assert (refined.precise, refined.broad) == (precise, broad)


def test_a_query_already_tried_is_not_proposed_again():
    first = rules(GALAXY)

    again = rules(GALAXY, tried=[GALAXY.product_name, first.precise, first.broad])

    assert again.precise not in {GALAXY.product_name, first.precise, first.broad}
    assert again.broad not in {GALAXY.product_name, first.precise, first.broad, again.precise}


def test_tried_queries_are_compared_ignoring_case_spaces_and_hyphens():
    refined = rules(GALAXY, tried=[GALAXY.product_name, "삼성전자 sms928n"])

    assert refined.precise != "삼성전자 SM-S928N"


def test_a_two_word_name_still_gets_two_different_non_empty_queries():
    product = ProductQuery("C-2", "무선 충전기")

    refined = rules(product)

    assert refined.precise
    assert refined.broad == "충전기"
    assert refined.precise != refined.broad


def test_with_an_llm_one_call_gives_both_queries(llm, fake_openai):
    fake_openai.queue_response(
        {"precise": "갤럭시 S24 울트라 SM-S928N", "broad": "갤럭시 S24 울트라"}, prompt_tokens=250, completion_tokens=12
    )

    refined = refine_queries(GALAXY, llm=llm, tried=[GALAXY.product_name])

    assert (refined.precise, refined.broad) == ("갤럭시 S24 울트라 SM-S928N", "갤럭시 S24 울트라")
    assert refined.source == "llm"
    assert refined.usage == TokenUsage(250, 12)
    assert len(fake_openai.refine_requests) == 1
    assert fake_openai.judge_requests == []


def test_an_llm_query_that_repeats_a_tried_one_is_swapped_for_the_rules_choice(llm, fake_openai):
    fake_openai.queue_response({"precise": GALAXY.product_name, "broad": "갤럭시 S24"}, prompt_tokens=9)

    refined = refine_queries(GALAXY, llm=llm, tried=[GALAXY.product_name])

    assert refined.precise == "삼성전자 SM-S928N"
    assert refined.broad == "갤럭시 S24"
    assert refined.usage.input_tokens == 9


def test_the_fake_endpoints_default_answer_gives_usable_queries(llm, fake_openai):
    refined = refine_queries(GALAXY, llm=llm, tried=[GALAXY.product_name])

    assert refined.precise == "삼성전자 SM-S928N"
    assert refined.broad


def test_an_llm_outage_is_raised_not_replaced_by_rules(llm, fake_openai):
    fake_openai.queue_error(503, times=2)

    with pytest.raises(LlmUnavailable):
        refine_queries(GALAXY, llm=llm, tried=[GALAXY.product_name])
