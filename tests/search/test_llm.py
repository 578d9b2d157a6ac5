"""The OpenAI boundary, through the real openai client against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import socket
import time

import pytest

from search.exceptions import LlmBadResponse, LlmRejected, LlmUnavailable
from search.listings import Listing, ProductQuery, TokenUsage
from search.llm import LlmClient, ai_cost_usd

PHONE = ProductQuery(
    product_code="P-100",
    product_name="삼성전자 갤럭시 S24 울트라 256GB 티타늄 블랙",
    brand="삼성전자",
    model_code="SM-S928N",
    price=1_698_400,
)
CANDIDATES = [
    Listing(title="삼성전자 갤럭시 S24 Ultra 자급제 SM-S928N 256GB", price=1_459_000, url="https://shop.test/vp/1"),
    Listing(title="갤럭시 S24 울트라 투명 젤리 케이스", price=6_900, url="https://shop.test/vp/2"),
    Listing(title="삼성전자 갤럭시 S23 울트라 SM-S918N 256GB", price=1_099_000, url="https://shop.test/vp/3"),
]


def judge_answer(*same: bool) -> dict:
    return {
        "verdicts": [
            {"index": index, "same_product": flag, "confidence": 0.8, "reason": "checked"}
            for index, flag in enumerate(same)
        ]
    }


def test_no_client_exists_without_an_openai_key(settings):
    settings.OPENAI_API_KEY = ""

    assert LlmClient.from_settings() is None


def test_the_judge_parses_structured_verdicts_from_the_real_client(llm, fake_openai):
    fake_openai.queue_response(
        {
            "verdicts": [
                {"index": 0, "same_product": True, "confidence": 0.97, "reason": "same model code SM-S928N"},
                {"index": 1, "same_product": False, "confidence": 0.99, "reason": "a case, not the phone"},
                {"index": 2, "same_product": False, "confidence": 0.95, "reason": "S23, not S24"},
            ]
        },
        prompt_tokens=1200,
        completion_tokens=90,
    )

    judgement = llm.judge(PHONE, CANDIDATES)

    assert judgement.judge == "llm"
    assert [(v.index, v.same_product, v.confidence) for v in judgement.verdicts] == [
        (0, True, 0.97),
        (1, False, 0.99),
        (2, False, 0.95),
    ]
    assert judgement.verdicts[1].reason == "a case, not the phone"
    assert judgement.usage == TokenUsage(input_tokens=1200, output_tokens=90)


def test_the_cost_is_the_usage_at_the_configured_prices(llm, fake_openai, settings):
    settings.LPS_AI_INPUT_USD_PER_1M_TOKENS = 2.0
    settings.LPS_AI_OUTPUT_USD_PER_1M_TOKENS = 8.0
    fake_openai.queue_response(judge_answer(True, False, False), prompt_tokens=500_000, completion_tokens=250_000)

    usage = llm.judge(PHONE, CANDIDATES).usage

    assert ai_cost_usd(usage) == pytest.approx(1.0 + 2.0)
    assert llm.cost_usd(usage) == pytest.approx(3.0)


def test_one_call_judges_every_candidate(llm, fake_openai):
    llm.judge(PHONE, CANDIDATES)

    assert len(fake_openai.requests) == 1
    asked = json.loads(fake_openai.judge_requests[0]["messages"][-1]["content"])
    assert [candidate["title"] for candidate in asked["candidates"]] == [listing.title for listing in CANDIDATES]


def test_the_judge_asks_for_a_strict_json_schema_with_the_configured_model_and_key(llm, fake_openai, settings):
    settings.LPS_JUDGE_MODEL = "judge-model-under-test"
    with LlmClient.from_settings() as client:
        client.judge(PHONE, CANDIDATES)

    body = fake_openai.requests[0]
    assert body["model"] == "judge-model-under-test"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert fake_openai.headers[0]["authorization"] == "Bearer test-key"


def test_the_judge_tells_the_model_the_product_its_brand_model_code_and_price(llm, fake_openai):
    llm.judge(PHONE, CANDIDATES)

    asked = json.loads(fake_openai.requests[0]["messages"][-1]["content"])
    assert asked["product"] == {
        "name": PHONE.product_name,
        "brand": "삼성전자",
        "model_code": "SM-S928N",
        "shop_price_won": 1_698_400,
    }


def test_judging_no_candidates_makes_no_call(llm, fake_openai):
    judgement = llm.judge(PHONE, [])

    assert judgement.verdicts == []
    assert fake_openai.requests == []


@pytest.mark.parametrize("status", [429, 500, 503])
def test_an_outage_that_outlasts_the_clients_retries_is_llm_unavailable(llm, fake_openai, status):
    fake_openai.queue_error(status, times=2)

    with pytest.raises(LlmUnavailable, match=f"HTTP {status}") as raised:
        llm.judge(PHONE, CANDIDATES)

    assert raised.value.retryable is True
    # LPS_OPENAI_MAX_RETRIES=1 in openai_settings: the first try and one retry.
    assert len(fake_openai.requests) == 2


def test_a_rate_limit_that_clears_on_the_clients_retry_is_answered(llm, fake_openai):
    fake_openai.queue_error(429)
    fake_openai.queue_response(judge_answer(True, False, False))

    judgement = llm.judge(PHONE, CANDIDATES)

    assert [verdict.same_product for verdict in judgement.verdicts] == [True, False, False]
    assert len(fake_openai.requests) == 2


def test_an_answer_slower_than_the_timeout_is_llm_unavailable(llm, fake_openai, settings):
    settings.LPS_OPENAI_TIMEOUT_SECONDS = 0.3
    fake_openai.queue_slow(10, times=2)
    started = time.monotonic()

    with LlmClient.from_settings() as client, pytest.raises(LlmUnavailable, match=r"did not answer within 0\.3 s"):
        client.judge(PHONE, CANDIDATES)

    assert time.monotonic() - started < 5
    assert len(fake_openai.requests) == 2


def test_an_unreachable_endpoint_is_llm_unavailable(openai_settings):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    openai_settings.OPENAI_BASE_URL = f"http://127.0.0.1:{free_port}/v1"
    openai_settings.LPS_OPENAI_MAX_RETRIES = 0

    with LlmClient.from_settings() as client, pytest.raises(LlmUnavailable, match="cannot reach"):
        client.judge(PHONE, CANDIDATES)


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_request_the_endpoint_refuses_is_llm_rejected_without_retrying(llm, fake_openai, status):
    fake_openai.queue_error(status, {"error": {"message": "Incorrect API key provided", "type": "invalid"}})

    with pytest.raises(LlmRejected, match="Incorrect API key provided") as raised:
        llm.judge(PHONE, CANDIDATES)

    assert raised.value.retryable is False
    assert len(fake_openai.requests) == 1


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("this is not JSON", id="not-json"),
        pytest.param('{"verdicts": [', id="truncated-json"),
        pytest.param({"answers": []}, id="wrong-shape"),
        pytest.param({"verdicts": [{"index": 0, "same_product": "maybe"}]}, id="missing-fields"),
        pytest.param(
            {"verdicts": [{"index": i, "same_product": True, "confidence": 1.5, "reason": "x"} for i in range(3)]},
            id="confidence-above-one",
        ),
    ],
)
def test_an_answer_outside_the_schema_is_llm_bad_response_with_its_usage_counted(llm, fake_openai, content):
    fake_openai.queue_response(content, prompt_tokens=700, completion_tokens=20)

    with pytest.raises(LlmBadResponse) as raised:
        llm.judge(PHONE, CANDIDATES)

    assert raised.value.usage == TokenUsage(700, 20)


@pytest.mark.parametrize(
    "indexes",
    [
        pytest.param([0, 1], id="one-missing"),
        pytest.param([0, 1, 1], id="one-twice"),
        pytest.param([0, 1, 2, 3], id="one-too-many"),
        pytest.param([1, 2, 3], id="shifted-by-one"),
    ],
)
def test_verdicts_that_do_not_match_the_candidates_are_llm_bad_response(llm, fake_openai, indexes):
    fake_openai.queue_response(
        {"verdicts": [{"index": i, "same_product": False, "confidence": 0.5, "reason": "x"} for i in indexes]}
    )

    with pytest.raises(LlmBadResponse, match=r"not for each of 0\.\.2 once"):
        llm.judge(PHONE, CANDIDATES)


def test_a_refusal_is_llm_bad_response(llm, fake_openai):
    fake_openai.queue_refusal("I can't help with that.")

    with pytest.raises(LlmBadResponse, match="refused"):
        llm.judge(PHONE, CANDIDATES)


def test_an_answer_cut_off_at_the_token_limit_is_llm_bad_response(llm, fake_openai):
    fake_openai.queue_response('{"verdicts": [', finish_reason="length")

    with pytest.raises(LlmBadResponse, match="cut off"):
        llm.judge(PHONE, CANDIDATES)


def test_refine_returns_both_queries_from_one_call(llm, fake_openai):
    fake_openai.queue_response(
        {"precise": "삼성 SM-S928N", "broad": "갤럭시 S24 울트라"}, prompt_tokens=300, completion_tokens=15
    )

    refined = llm.refine(PHONE, [PHONE.product_name])

    assert (refined.precise, refined.broad, refined.source) == ("삼성 SM-S928N", "갤럭시 S24 울트라", "llm")
    assert refined.usage == TokenUsage(300, 15)
    assert len(fake_openai.refine_requests) == 1
    assert json.loads(fake_openai.refine_requests[0]["messages"][-1]["content"])["tried"] == [PHONE.product_name]


def test_refine_uses_the_keyword_model(llm, fake_openai, settings):
    settings.LPS_KEYWORD_MODEL = "keyword-model-under-test"
    with LlmClient.from_settings() as client:
        client.refine(PHONE, [])

    assert fake_openai.requests[0]["model"] == "keyword-model-under-test"


def test_refine_flattens_a_query_spread_over_lines(llm, fake_openai):
    fake_openai.queue_response({"precise": "  삼성\nSM-S928N ", "broad": "갤럭시   S24"})

    refined = llm.refine(PHONE, [])

    assert (refined.precise, refined.broad) == ("삼성 SM-S928N", "갤럭시 S24")


def test_refine_with_an_empty_query_is_llm_bad_response(llm, fake_openai):
    fake_openai.queue_response({"precise": "삼성 SM-S928N", "broad": "   "})

    with pytest.raises(LlmBadResponse, match="empty"):
        llm.refine(PHONE, [])


def test_every_calls_tokens_and_cost_are_counted_in_the_metrics_even_an_unusable_answers(llm, fake_openai, settings):
    from prometheus_client import REGISTRY

    settings.LPS_JUDGE_MODEL = "judge-for-metrics"
    settings.LPS_AI_INPUT_USD_PER_1M_TOKENS = 2.0
    settings.LPS_AI_OUTPUT_USD_PER_1M_TOKENS = 8.0

    def counted() -> tuple[float, float, float]:
        def value(name, labels):
            return REGISTRY.get_sample_value(name, labels) or 0.0

        return (
            value("lps_llm_tokens_total", {"model": "judge-for-metrics", "direction": "input"}),
            value("lps_llm_tokens_total", {"model": "judge-for-metrics", "direction": "output"}),
            value("lps_cost_usd_total", {"kind": "ai"}),
        )

    before = counted()
    fake_openai.queue_response(judge_answer(True, False, False), prompt_tokens=1_000, completion_tokens=100)
    fake_openai.queue_response("this is not JSON", prompt_tokens=500, completion_tokens=50)
    with LlmClient.from_settings() as client:
        client.judge(PHONE, CANDIDATES)
        with pytest.raises(LlmBadResponse):
            client.judge(PHONE, CANDIDATES)

    input_tokens, output_tokens, cost = (after - was for after, was in zip(counted(), before, strict=True))
    assert (input_tokens, output_tokens) == (1_500, 150)
    assert cost == pytest.approx((1_500 * 2.0 + 150 * 8.0) / 1e6)
