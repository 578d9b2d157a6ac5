"""LPS_LLM_OUTPUT_MODE: the judge and the keyword generator against an endpoint with strict JSON-schema outputs
(json_schema, the default) and against one that offers only JSON mode (json_object), through the real openai client
and the fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured

from search.exceptions import LlmBadResponse
from search.listings import Listing, ProductQuery
from search.llm import LlmClient

PHONE = ProductQuery(
    product_code="P-1", product_name="갤럭시 S24 울트라 256GB", brand="삼성전자", model_code="SM-S928N"
)
CANDIDATES = [
    Listing(title="삼성전자 갤럭시 S24 Ultra SM-S928N 256GB", price=1_459_000, url="https://shop.test/vp/1"),
    Listing(title="갤럭시 S24 울트라 젤리 케이스", price=6_900, url="https://shop.test/vp/2"),
]


@pytest.fixture
def json_mode_llm(openai_settings):
    openai_settings.LPS_LLM_OUTPUT_MODE = "json_object"
    client = LlmClient.from_settings()
    yield client
    client.close()


def test_the_default_mode_sends_a_strict_json_schema(llm, fake_openai, settings):
    assert settings.LPS_LLM_OUTPUT_MODE == "json_schema"

    llm.judge(PHONE, CANDIDATES)

    response_format = fake_openai.requests[-1]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["name"] == "JudgeAnswer"


def test_json_mode_asks_for_a_json_object_and_writes_the_schema_into_the_system_message(json_mode_llm, fake_openai):
    judgement = json_mode_llm.judge(PHONE, CANDIDATES)

    request = fake_openai.requests[-1]
    assert request["response_format"] == {"type": "json_object"}
    system = request["messages"][0]["content"]
    assert "JSON schema" in system
    assert all(field in system for field in ('"verdicts"', '"same_product"', '"confidence"'))
    # The fake's default answer, told a judge request by its candidates: 울트라 is not in the first title (written
    # Ultra), and the second is a case.
    assert [(v.index, v.same_product, v.reason) for v in judgement.verdicts] == [
        (0, False, "missing words"),
        (1, False, "accessory"),
    ]


def test_json_mode_reads_a_valid_answer(json_mode_llm, fake_openai):
    fake_openai.queue_response(
        {
            "verdicts": [
                {"index": 0, "same_product": True, "confidence": 0.9, "reason": "same code"},
                {"index": 1, "same_product": False, "confidence": 0.99, "reason": "a case"},
            ]
        },
        prompt_tokens=700,
        completion_tokens=40,
    )

    judgement = json_mode_llm.judge(PHONE, CANDIDATES)

    assert [(v.same_product, v.confidence, v.reason) for v in judgement.verdicts] == [
        (True, 0.9, "same code"),
        (False, 0.99, "a case"),
    ]
    assert (judgement.usage.input_tokens, judgement.usage.output_tokens) == (700, 40)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("not json at all", "does not fit JudgeAnswer"),
        ({"verdicts": [{"index": 0, "same_product": "yes", "confidence": 0.9, "reason": "x"}]}, "same_product"),
        ({"verdicts": [{"index": 0, "same_product": True, "confidence": 1.5, "reason": "x"}]}, "confidence"),
        ({"verdicts": [{"index": 0, "same_product": True, "confidence": 0.5}]}, "reason"),
        ({"answers": []}, "verdicts"),
    ],
)
def test_a_json_mode_answer_that_does_not_fit_the_schema_is_llm_bad_response_naming_the_field(
    json_mode_llm, fake_openai, content, said
):
    fake_openai.queue_response(content, prompt_tokens=500, completion_tokens=20)

    with pytest.raises(LlmBadResponse, match=said) as raised:
        json_mode_llm.judge(PHONE, CANDIDATES)

    assert raised.value.usage.input_tokens == 500


def test_a_json_mode_answer_cut_off_at_the_token_limit_is_llm_bad_response(json_mode_llm, fake_openai):
    fake_openai.queue_response('{"verdicts": [', finish_reason="length")

    with pytest.raises(LlmBadResponse, match="cut off"):
        json_mode_llm.judge(PHONE, CANDIDATES)


def test_json_mode_answers_the_keyword_generator_too(json_mode_llm, fake_openai):
    refined = json_mode_llm.refine(PHONE, ["갤럭시 S24 울트라 256GB"])

    request = fake_openai.requests[-1]
    assert request["response_format"] == {"type": "json_object"}
    assert json.loads(request["messages"][1]["content"])["tried"] == ["갤럭시 S24 울트라 256GB"]
    assert (refined.precise, refined.broad) == ("삼성전자 SM-S928N", "갤럭시 S24")


def test_an_unknown_output_mode_is_a_configuration_error_naming_the_setting(openai_settings):
    openai_settings.LPS_LLM_OUTPUT_MODE = "xml"

    with pytest.raises(ImproperlyConfigured, match="LPS_LLM_OUTPUT_MODE"):
        LlmClient.from_settings()
