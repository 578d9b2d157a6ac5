"""The judge: the LLM when configured (against the fake endpoint), else the rules on realistic Coupang titles."""

from __future__ import annotations

import pytest

from search.judge import judge_listings
from search.listings import Listing, ProductQuery, TokenUsage
from search.llm import LlmClient

GALAXY = ProductQuery(
    product_code="G-1", product_name="삼성전자 갤럭시 S24 울트라 256GB", brand="삼성전자", model_code="SM-S928N"
)
IPHONE_BLACK = ProductQuery(product_code="I-1", product_name="Apple 아이폰 15 Pro 256GB 블랙 티타늄", brand="Apple")
IPHONE = ProductQuery(product_code="I-2", product_name="Apple 아이폰 15 Pro 256GB", brand="Apple")
HEADPHONES = ProductQuery(product_code="S-1", product_name="소니 WH-1000XM5 블루투스 헤드폰", brand="소니")
WATER = ProductQuery(product_code="W-1", product_name="제주 삼다수 2L 6개")
RAMEN = ProductQuery(product_code="R-1", product_name="농심 신라면 120g 5개", brand="농심")
CHARGER = ProductQuery(product_code="C-1", product_name="삼성 25W 초고속 충전기 EP-TA800", brand="삼성")
CAMERA = ProductQuery(product_code="F-1", product_name="후지필름 X-T5 바디", brand="후지필름")


def listing(title: str, price: int = 10_000) -> Listing:
    return Listing(title=title, price=price, url="https://www.coupang.com/vp/products/1")


def rules_verdict(product: ProductQuery, title: str):
    judgement = judge_listings(product, [listing(title)], llm=None)
    return judgement.verdicts[0]


@pytest.fixture
def llm(openai_settings):
    client = LlmClient.from_settings()
    yield client
    client.close()


def test_no_candidates_give_an_empty_judgement_without_calling_the_llm(llm, fake_openai):
    judgement = judge_listings(GALAXY, [], llm=llm)

    assert judgement.verdicts == []
    assert fake_openai.requests == []


def test_with_an_llm_one_call_judges_every_candidate(llm, fake_openai):
    titles = ["삼성전자 갤럭시 S24 울트라 256GB 자급제", "갤럭시 S24 울트라 케이스", "삼성전자 갤럭시 S23 울트라 256GB"]

    judgement = judge_listings(GALAXY, [listing(title) for title in titles], llm=llm)

    assert judgement.judge == "llm"
    assert [verdict.index for verdict in judgement.verdicts] == [0, 1, 2]
    assert len(fake_openai.judge_requests) == 1
    assert judgement.usage.total > 0


def test_without_an_llm_the_rules_judge_every_candidate_for_free():
    titles = ["삼성전자 갤럭시 S24 울트라 256GB 자급제", "갤럭시 S24 울트라 케이스"]

    judgement = judge_listings(GALAXY, [listing(title) for title in titles], llm=None)

    assert judgement.judge == "rules"
    assert judgement.usage == TokenUsage()
    assert [(verdict.index, verdict.same_product) for verdict in judgement.verdicts] == [(0, True), (1, False)]


SAME = [
    pytest.param(GALAXY, "삼성전자 갤럭시 S24 Ultra 자급제 SM-S928N 256GB 티타늄 블랙", "model code", id="model-code"),
    pytest.param(GALAXY, "삼성 갤럭시 S24 울트라 sm s928n 256GB", "model code", id="model-code-spaced-lowercase"),
    pytest.param(GALAXY, "Galaxy S24 Ultra SMS928N 256GB", "model code", id="model-code-unhyphenated"),
    pytest.param(GALAXY, "삼성 갤럭시S24 울트라 256GB 자급제", "name words", id="no-code-words-agree"),
    pytest.param(GALAXY, "삼성 갤럭시 S24 울트라 256GB 자급제 + 케이스 증정", "name words", id="free-case-is-a-gift"),
    pytest.param(IPHONE_BLACK, "Apple 정품 아이폰 15 Pro 자급제 256GB 블랙 티타늄", "name words", id="same-colour"),
    pytest.param(IPHONE, "Apple 아이폰 15 Pro 256GB 내추럴 티타늄", "name words", id="colour-not-asked-any-goes"),
    pytest.param(IPHONE, "아이폰15프로 256GB 자급제", "name words", id="glued-korean-words"),
    pytest.param(HEADPHONES, "SONY 소니 WH-1000XM5 노이즈캔슬링 무선 헤드폰 블랙", "model code", id="code-in-the-name"),
    pytest.param(WATER, "제주삼다수 2L 6개", "name words", id="pack-count-agrees"),
    pytest.param(RAMEN, "농심 신라면 120g, 5개", "name words", id="weight-and-count-agree"),
    pytest.param(CHARGER, "삼성전자 정품 25W 충전기 EP-TA800 C타입", "model code", id="accessory-product-itself"),
    pytest.param(CAMERA, "후지필름 X-T5 미러리스 카메라 바디 블랙", "name words", id="brand-holds-an-accessory-word"),
]


@pytest.mark.parametrize(("product", "title", "reason"), SAME)
def test_the_rules_accept_the_same_product(product, title, reason):
    verdict = rules_verdict(product, title)

    assert verdict.same_product is True, verdict.reason
    assert reason in verdict.reason
    assert 0.5 < verdict.confidence <= 1


DIFFERENT = [
    pytest.param(GALAXY, "갤럭시 S24 울트라 투명 젤리 케이스", "case (케이스)", id="case"),
    pytest.param(GALAXY, "갤럭시 S24 울트라 액정 보호필름 2매", "screen film", id="screen-film"),
    pytest.param(GALAXY, "삼성정품 갤럭시 S24 울트라 25W 충전기", "charger", id="charger"),
    pytest.param(GALAXY, "갤럭시 S24 울트라 차량용 거치대", "holder", id="car-holder"),
    pytest.param(GALAXY, "갤럭시 S24 울트라 핸드폰 스트랩", "strap", id="strap"),
    pytest.param(GALAXY, "Galaxy S24 Ultra Rugged Armor Case", "case (case)", id="english-case"),
    pytest.param(GALAXY, "갤럭시 S24 울트라 호환 배터리", "part (배터리)", id="compatible-part"),
    pytest.param(CHARGER, "삼성 25W 충전기 전용 C to C 케이블 1m", "cable", id="other-accessory-than-product"),
    pytest.param(GALAXY, "삼성전자 갤럭시 S23 울트라 SM-S918N 256GB", "model code SM-S918N", id="sibling-code"),
    pytest.param(HEADPHONES, "소니 WH-1000XM4 무선 헤드폰", "model code WH-1000XM4", id="sibling-code-in-name"),
    pytest.param(IPHONE, "Apple 아이폰 14 Pro 256GB 스페이스 블랙", "different model: 14", id="older-generation"),
    pytest.param(GALAXY, "삼성전자 갤럭시 S24 울트라 512GB 자급제", "different storage", id="capacity"),
    pytest.param(IPHONE, "Apple 아이폰 15 256GB 블랙", "the title lacks pro", id="base-model-for-pro"),
    pytest.param(IPHONE, "Apple 아이폰 15 Pro Max 256GB", "the title says max", id="max-for-pro"),
    pytest.param(GALAXY, "삼성전자 갤럭시 S24+ 256GB 자급제", "different variant", id="plus-sign-variant"),
    pytest.param(IPHONE_BLACK, "Apple 아이폰 15 Pro 256GB 내추럴 티타늄", "different colour", id="colour-asked"),
    pytest.param(WATER, "제주 삼다수 2L, 12개", "pack count: 12 instead of 6", id="bigger-pack"),
    pytest.param(WATER, "제주 삼다수 그린 2L 6개입 x 2팩", "pack count: 12 instead of 6", id="pack-of-packs"),
    pytest.param(WATER, "제주삼다수 500ml 20개", "different volume", id="bottle-size"),
    pytest.param(RAMEN, "농심 신라면 120g 1+1 5개", "pack count: 10 instead of 5", id="one-plus-one"),
    pytest.param(HEADPHONES, "Bose QuietComfort 45 블루투스 헤드폰", "brand 보스, not 소니", id="other-brand"),
    pytest.param(RAMEN, "오뚜기 진라면 매운맛 120g 5개", "brand 오뚜기", id="other-brand-korean"),
    pytest.param(CAMERA, "후지필름 X-T5 액정 보호필름", "screen film", id="film-for-a-film-brand"),
    pytest.param(WATER, "아이시스 8.0 생수 2L 6개", "0 of 2 name words", id="unrelated"),
]


@pytest.mark.parametrize(("product", "title", "reason"), DIFFERENT)
def test_the_rules_reject_a_different_product_with_a_reason(product, title, reason):
    verdict = rules_verdict(product, title)

    assert verdict.same_product is False, verdict.reason
    assert reason in verdict.reason
    assert 0.5 < verdict.confidence <= 1


def test_the_rules_judge_a_whole_result_page_and_keep_candidate_order():
    titles = [
        "Apple 아이폰 15 Pro 256GB 자급제",
        "아이폰 15 프로 맥세이프 실리콘 케이스",
        "Apple 아이폰 15 Pro 512GB",
        "Apple 아이폰 15 Pro 256GB 화이트 티타늄",
    ]

    judgement = judge_listings(IPHONE, [listing(title) for title in titles], llm=None)

    assert [(verdict.index, verdict.same_product) for verdict in judgement.verdicts] == [
        (0, True),
        (1, False),
        (2, False),
        (3, True),
    ]
    assert all(verdict.reason for verdict in judgement.verdicts)
