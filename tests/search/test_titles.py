"""Reading a title the way a Korean marketplace writes it: counts, codes, scripts, conditions, gifts."""

from __future__ import annotations

import pytest

from search.titles import read_title, without_gifts

PACKS = [
    pytest.param("농심 신라면 120g, 5개입, 8개", 40, id="packs-of-packs"),
    pytest.param("라운드랩 선크림 50ml 1+1", 2, id="one-plus-one"),
    pytest.param("코카콜라 제로 355ml 2+1", 3, id="two-plus-one"),
    pytest.param("펩시 제로 355ml x 24캔", 24, id="times-sign"),
    pytest.param("햇반 흑미밥 210gx24개", 24, id="times-sign-glued"),
    pytest.param("몽드드 물티슈 100매입 x 10개", 1000, id="sheets-with-ip"),
    pytest.param("몽드드 물티슈 100매 5팩 x 2세트", 1000, id="three-factors"),
    pytest.param("신라면 120g 40봉 1BOX", 40, id="one-box"),
    pytest.param("칫솔모 2개입 x 2세트 (총 4개)", 4, id="total-overrides"),
    pytest.param("깨끗한나라 순수3겹화장지30m30롤", 30, id="glued-units"),
    pytest.param("맥심 모카골드 마일드 180T", 180, id="sticks"),
    pytest.param("펩시 콜라 500ml x 20PET", 20, id="bottles"),
    pytest.param("쿠션 본품+리필 15g x 2", 2, id="refill-set-said-twice"),
    pytest.param("소니 WH-1000XM5 헤드폰 블랙", 1, id="no-count-is-one-unit"),
    pytest.param("LG 울트라HD 모니터 3840x2160 1080p", 1, id="resolution-is-not-a-count"),
    pytest.param("갤럭시탭 S9 FE SM-X510", 1, id="model-code-is-not-a-count"),
]


@pytest.mark.parametrize(("title", "count"), PACKS)
def test_the_pack_count_is_the_arithmetic_of_every_count_in_the_title(title, count):
    assert read_title(title).pack_count == count


def test_measures_are_read_in_one_unit_per_dimension():
    read = read_title("LG그램16 코어울트라5 16기가 512기가 1TB 16인치 6인용 2세대 1.5L 3겹")

    assert read.measures == {
        "storage": {16, 512, 1024},
        "screen size": {16},
        "servings": {6},
        "generation": {2},
        "volume": {1500},
        "ply": {3},
    }


def test_model_codes_are_read_with_their_separators_suffixes_and_neighbours():
    codes = read_title("Samsung Galaxy S24 Ultra SM-S928NZKEKOO / NT940XGK-K51A 칫솔모 HX9044/67, sm s928n").codes

    assert {"sms928nzkekoo", "nt940xgk", "nt940xgkk51a", "hx9044", "hx904467", "sms928n"} <= set(codes)
    assert codes["nt940xgk"] == "nt940xgk"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("삼성 갤럭시 버즈2 프로", "Samsung Galaxy Buds2 Pro"),
        ("갤럭시버즈2프로", "galaxy buds 2 pro"),
        ("플레이스테이션5 슬림 디스크에디션", "PlayStation 5 Slim Disc Edition"),
        ("펩시 제로슈거 라임", "Pepsi Zero Sugar Lime"),
        ("애플 에어팟 프로", "Apple AirPods Pro"),
    ],
)
def test_a_name_reads_the_same_in_either_script(one, other):
    brandless = {"삼성", "samsung", "애플", "apple", "펩시", "pepsi"}
    assert [w for w in read_title(one).words if w not in brandless] == [
        w for w in read_title(other).words if w not in brandless
    ]


def test_variants_lines_and_colours_are_read_from_glued_words():
    read = read_title("갤럭시버즈2프로 보라퍼플 / 펩시제로 라임향")

    assert read.variants == {"pro"}
    assert read.colours == {"purple"}
    assert {"zero", "lime"} <= read.lines


@pytest.mark.parametrize(
    ("title", "word"),
    [
        ("[중고] 갤럭시 S24 울트라 256GB", "중고"),
        ("[리퍼비시] 다이슨 V12 디텍트 슬림", "리퍼"),
        ("[전시상품] 테팔 트레져 프라이팬 28cm", "전시"),
        ("[미개봉 반품] 라운드랩 선크림", "반품"),
        ("갤럭시 S24 울트라 S급 공기계", "s급"),
        ("아이폰13 128GB A 급", "a급"),
        ("[박스훼손] 몽드드 물티슈", "박스훼손"),
        ("[개봉상품] ANF 사료 2kg", "개봉상품"),
        ("[테스터] 롬앤 틴트 매장 진열", "테스터"),
        # A condition beside what comes free, in one bracket: the note is no gift.
        ("휴대용 블렌더 BX-20 [중고 무료배송]", "중고"),
        ("린넨 셔츠 네이비 L [택포함 미착용 중고]", "중고"),
        ("무선 청소기 S9 (리퍼 / 사은품 제공)", "리퍼"),
    ],
)
def test_used_refurbished_display_and_returned_units_are_read(title, word):
    assert read_title(title).condition == word


@pytest.mark.parametrize(
    "title",
    [
        "미개봉 새상품 갤럭시 S24",
        "중고등학생 수학 문제집",
        "정품 박스 포장",
        # A tester given free is the gift, not the unit sold.
        "오드퍼퓸 50ml [테스터 증정]",
        "오드퍼퓸 50ml (+ 테스터 + 파우치 증정)",
    ],
)
def test_new_units_and_lookalike_words_are_not_a_condition(title):
    assert read_title(title).condition is None


@pytest.mark.parametrize(
    ("title", "kept", "dropped"),
    [
        ("갤럭시 S24 울트라 256GB (+정품 케이스 증정) [당일발송]", "당일발송", "케이스"),
        ("다이슨 V12 디텍트 (+정품 거치대 + 호환 필터 증정)", "v12", "호환"),
        ("라운드랩 선크림 50ml + 토너 패드 2매 증정", "50ml", "2매"),
        ("WH-1000XM5 블랙 헤드폰 케이스 증정", "헤드폰", "케이스"),
        ("하기스 기저귀 64매 [사은품: 물티슈]", "64매", "물티슈"),
    ],
)
def test_free_gifts_are_dropped_before_the_title_is_read(title, kept, dropped):
    text = without_gifts(title)

    assert kept in text
    assert dropped not in text


def test_a_gift_changes_neither_the_accessories_nor_the_count():
    read = read_title("하기스 네이처메이드 밴드형 4단계 공용 64매 (+물티슈 20매 증정)")

    assert read.pack_count == 64
    assert read.accessory_kinds == {}


@pytest.mark.parametrize(
    ("title", "marks"),
    [
        ("SM-R630 전용 폼팁 이어팁 3쌍", ["전용"]),
        ("다이슨 V12 교체용 배터리", ["교체용"]),
        ("PS5 슬림 디지털 에디션용 디스크 드라이브", ["에디션용"]),
        ("에어팟 프로2용 실리콘 케이스", ["프로2용"]),
        ("쿠쿠 6인용 가정용 밥솥", []),
    ],
)
def test_items_made_for_the_product_are_marked_but_uses_and_sizes_are_not(title, marks):
    product_words = frozenset(read_title("에어팟 프로 2세대 / PlayStation 5 디스크 에디션 / 쿠쿠 밥솥").words)

    assert read_title(title, product_words=product_words).made_for == marks


@pytest.mark.parametrize(
    ("title", "count"),
    [
        ("팸퍼스 베이비드라이 팬티형 3단계 120매 (40매x3팩)", 120),
        ("제주삼다수 2L 12병 (6병x2묶음)", 12),
        ("펩시 콜라 500ml 20펫 1박스", 20),
        ("하기스 기저귀 32매 (2팩)", 64),
    ],
)
def test_a_bracket_that_breaks_the_count_down_does_not_multiply_it(title, count):
    assert read_title(title).pack_count == count
