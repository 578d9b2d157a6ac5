"""Variant words and flavour, line and edition words (rule: variant and line).

Where the words come from: the variant names of electronics lines (Pro, Max, mini, FE …) and the flavours,
lines and editions of food, drink, beauty and pet products in Korean titles (the corpus's flavour_line pages).
"""

from __future__ import annotations

# Variant words (iPhone 15 vs 15 Pro, Buds2 vs Buds2 FE): a different set is a different product. "mini" only
# counts when the title has it and the product does not: shops also write 미니 as a plain adjective.
VARIANTS: dict[str, tuple[str, ...]] = {
    "pro": ("pro",),
    "max": ("max",),
    "plus": ("plus",),
    "ultra": ("ultra",),
    "mini": ("mini",),
    "se": ("se",),
    "fe": ("fe",),
    "edge": ("edge",),
    "regular": ("regular",),
    # A perfume's concentration (spellings.py's PHRASE_SPELLINGS writes each one way): EDT is not EDP.
    "edt": ("edt",),
    "edp": ("edp",),
    "parfum": ("parfum", "빠르펭", "퍼퓸"),
    "cologne": ("cologne",),
    # Greek letters name a maker's models one after another (QXD8000 알파, Alpha 7, Omega): DOUBTFUL_VARIANTS.
    "alpha": ("alpha",),
    "omega": ("omega",),
}
# Counted only when the title names it and the product does not: shops use 미니 as a plain adjective, and 레귤러
# (the full size beside a mini) is left out of most titles of the regular product.
ONE_SIDED_VARIANTS = frozenset({"mini", "regular", "alpha", "omega"})
# Greek letters name a maker's models (QXD8000 알파) and are also how Korean reads other names (RPHA is 알파) and
# a maker's whole line (소니 알파): evidence of another model where the title adds one, never proof.
DOUBTFUL_VARIANTS = frozenset({"alpha", "omega"})

# Flavours, lines and editions: a listing that names one the product does not is another product (펩시 제로
# 라임 for 펩시 제로); one the product names and the listing lacks leaves it unsure.
LINE_WORDS = (
    "lime", "lemon", "mango", "cherry", "복숭아", "피치", "자몽", "딸기", "바닐라", "초코", "녹차", "말차", "포도",
    "청포도", "사과", "유자", "오렌지", "파인애플", "블루베리", "spicy", "mild", "치즈", "카레", "짜장", "불닭",
    "zero", "무설탕", "decaf", "바나나", "메론", "멜론", "수박", "키위", "코코넛", "카라멜", "캐러멜", "쑥", "고구마",
    "옥수수", "양파", "마늘", "새우", "해물", "김치", "불고기", "갈비", "짬뽕", "짜파", "툼바", "로제", "까르보",
    "마라", "트러플", "할라피뇨", "청양", "와사비", "허니", "갈릭", "어니언", "솔트", "저염", "저당", "무가당",
    "무첨가", "유기농", "오가닉", "비건", "무알콜", "논알콜", "스파클링", "헤어볼", "다이어트", "주니어", "kids", "어린이",
    "아동", "여성", "시트러스", "플로럴", "머스크", "무향", "유칼립투스", "피톤치드", "스페셜", "한정판",
    "리미티드", "콜라보", "rich", "흑미", "현미", "잡곡", "오곡", "귀리", "곤약", "digital", "disc", "slim",
    "origin", "키튼", "시니어", "adult", "퍼피", "건면", "lite", "mac", "렌즈킷", "kit",
    # An edition or bundle sold as its own product (크리에이터 에디션, 번들 패키지): what it adds is what is sold.
    "edition", "bundle", "번들", "패키지", "콤보", "combo", "isolate", "아이솔레이트", "gore-tex", "고어텍스",
)  # fmt: skip

# Lines that say what a product is without (무향: no scent; 무가당, 무첨가, 무알콜): where the product names none,
# it may be the one without and its name leave that unsaid (a hand cream made unscented), as much as another line
# of it. A title naming one is uncertain, never surely another product.
ABSENCE_LINES = frozenset(line for line in LINE_WORDS if line.startswith("무"))

# Lines that are also plain words of how a product looks or tastes (슬림: a slim tie or the PS5 Slim; 라이트: light
# or the Lite model; rich: a rich taste or the Rich line; 디지털: a digital multimeter or scale, or the PS5 Digital
# Edition, which OPPOSITES tells from a Disc one): a title naming one may be describing the product as much as
# naming another line of it. Uncertain, never surely another product.
DESCRIPTIVE_LINES = frozenset({"slim", "lite", "rich", "digital"})

# One line written several ways: 키즈, 아동 and 어린이 are the kids' line.
LINE_SPELLINGS: dict[str, str] = {
    "키즈": "kids",
    "아동": "kids",
    "어린이": "kids",
    "오가닉": "유기농",
    "organic": "유기농",
}
# Lines that say whom a product is for, not what it is: where the product names none, a title naming one may
# only be saying so of the product (a kids' skate called 키즈) and is uncertain; one in place of ours is not ours.
AUDIENCE_LINES = frozenset({"kids", "주니어", "시니어", "adult", "퍼피", "키튼", "여성"})

# Words that exclude each other: a title saying one where the product says the other is another product (frozen
# pork for chilled, a men's suit for a women's). Compared only when the product names one of the pair.
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("냉장", "냉동"), ("생물", "냉동"), ("남성", "여성"), ("왼손", "오른손"), ("유광", "무광"), ("성인", "아동"),
    ("반팔", "긴팔"), ("반바지", "긴바지"), ("단품", "세트"), ("disc", "digital"),
)  # fmt: skip

# How a device connects: a Wi-Fi tablet is not its 5G/LTE sibling. Compared only when both sides name one.
NETWORKS: dict[str, tuple[str, ...]] = {
    "wifi": ("wifi", "wi-fi", "와이파이"),
    "cellular": ("5g", "lte", "4g", "셀룰러", "cellular"),
}
