"""The cassette (tests/fakes/cassette.py) behind the fake OpenAI server, through the real openai client: a prompt
it lacks is recorded and answered no, a filled file answers it, a real endpoint's answers are kept."""

from __future__ import annotations

import json

import pytest

from search.listings import Listing, ProductQuery
from search.llm import LlmClient
from tests.fakes.cassette import NOT_ANSWERED_REASON, Cassette, CassetteError
from tests.fakes.openai_server import FakeOpenAI

PRODUCT = ProductQuery(product_code="P-1", product_name="갤럭시 버즈3 프로", brand="삼성전자")
CANDIDATES = [
    Listing(title="삼성 갤럭시 버즈3 프로 화이트", price=189_000, url="https://shop.test/vp/1"),
    Listing(title="갤럭시 버즈3 프로 케이스", price=9_900, url="https://shop.test/vp/2"),
]


def test_a_prompt_the_cassette_lacks_is_recorded_with_an_empty_slot_and_answered_no(llm, fake_openai, tmp_path):
    fake_openai.cassette = Cassette()
    fake_openai.cassette.page = "demo/buds"

    judgement = llm.judge(PRODUCT, CANDIDATES)
    fake_openai.cassette.save(tmp_path / "c.jsonl")

    assert [(v.same_product, v.reason) for v in judgement.verdicts] == [(False, NOT_ANSWERED_REASON)] * 2
    header, system, prompt = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert header["cassette"] == "lps-judge-cassette/1"
    assert "true / false" in header["answer_format"]
    assert system["text"].startswith("You check listings")
    assert prompt["page"] == "demo/buds"
    assert prompt["system"] == system["system"]
    assert [c["title"] for c in prompt["user"]["candidates"]] == [c.title for c in CANDIDATES]
    assert prompt["answer"] is None
    assert len(fake_openai.cassette.missing) == 1


def test_a_filled_file_answers_the_prompt_and_a_bare_true_or_false_is_a_verdict(llm, fake_openai, tmp_path):
    recorded = Cassette()
    fake_openai.cassette = recorded
    llm.judge(PRODUCT, CANDIDATES)
    recorded.save(tmp_path / "c.jsonl")
    lines = (tmp_path / "c.jsonl").read_text().splitlines()
    prompt = json.loads(lines[-1])
    prompt["answer"] = [True, {"same_product": False, "confidence": 0.97, "reason": "a case"}]
    lines[-1] = json.dumps(prompt, ensure_ascii=False)
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")

    fake_openai.cassette = Cassette.load(tmp_path / "c.jsonl")
    judgement = llm.judge(PRODUCT, CANDIDATES)

    assert [(v.same_product, v.confidence, v.reason) for v in judgement.verdicts] == [
        (True, 0.9, "answered"),
        (False, 0.97, "a case"),
    ]
    assert fake_openai.cassette.missing == []


def test_an_answer_with_the_wrong_number_of_verdicts_is_refused_naming_the_line(llm, fake_openai, tmp_path):
    fake_openai.cassette = Cassette()
    llm.judge(PRODUCT, CANDIDATES)
    fake_openai.cassette.save(tmp_path / "c.jsonl")
    lines = (tmp_path / "c.jsonl").read_text().splitlines()
    prompt = json.loads(lines[-1]) | {"answer": [True]}
    lines[-1] = json.dumps(prompt, ensure_ascii=False)
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")

    with pytest.raises(CassetteError, match=r"c.jsonl:3: answer of .*: 1 verdicts for 2 candidates"):
        Cassette.load(tmp_path / "c.jsonl")


def test_with_an_upstream_the_real_endpoints_answers_are_kept(fake_openai, tmp_path):
    upstream = FakeOpenAI().start()
    try:
        upstream.queue_response(
            {
                "verdicts": [
                    {"index": 0, "same_product": True, "confidence": 0.8, "reason": "upstream said so"},
                    {"index": 1, "same_product": False, "confidence": 0.9, "reason": "a case"},
                ]
            }
        )
        fake_openai.cassette = Cassette(answers="upstream-model")
        fake_openai.upstream = upstream.base_url + "/v1"
        with LlmClient(api_key="the-real-key", base_url=fake_openai.base_url + "/v1", max_retries=0) as client:
            judgement = client.judge(PRODUCT, CANDIDATES)
        fake_openai.cassette.save(tmp_path / "c.jsonl")
    finally:
        upstream.close()

    assert [v.reason for v in judgement.verdicts] == ["upstream said so", "a case"]
    assert upstream.headers[0]["authorization"] == "Bearer the-real-key"
    [entry] = Cassette.load(tmp_path / "c.jsonl").entries.values()
    assert [verdict["same_product"] for verdict in entry.answer["verdicts"]] == [True, False]
