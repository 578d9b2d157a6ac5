"""Used, refurbished, display, returned or damaged units (rule: condition).

Where the words come from: how Korean marketplace sellers mark a unit that is not new (Coupang and Naver
Shopping titles of 중고/리퍼 offers, the corpus's condition pages), and the ordinary words that merely contain one.
"""

from __future__ import annotations

# Used, refurbished, display, returned or damaged units. Hangul words count anywhere in a word (중고폰,
# 리퍼비시, 전시상품); Latin ones only whole. "A급", "S급", "B급" are read by a pattern in search.titles.
CONDITION_WORDS = (
    "중고", "리퍼", "전시", "반품", "공기계", "박스훼손", "포장훼손",
    "패키지훼손", "단순개봉", "개봉상품", "개봉품", "개봉제품", "재포장", "스크래치", "찍힘", "흠집", "하자",
    "사용감", "새상품급", "테스터", "진열", "박스개봉", "재생잉크", "재생토너", "재생품", "재제조", "used", "refurbished", "refurb", "renewed", "openbox",
)  # fmt: skip
# Words that contain a condition word but say something else (중고등학생: middle and high school pupils).
NOT_CONDITION = (
    "중고등", "미개봉", "반품불가", "반품 불가", "교환/반품", "교환 반품", "교환반품", "무료반품", "반품비", "흠집방지",
    "흠집 방지", "스크래치방지", "스크래치 방지", "테스터기", "진열대", "전시회",
    # Words that hold a condition word inside them: a slipper (슬리퍼) or a clipper is no refurbished unit (리퍼).
    "슬리퍼", "클리퍼", "플리퍼", "그리퍼",
)  # fmt: skip

# A unit changed from how its maker sells it (more memory fitted by the shop: 32GB 램 업그레이드, SSD 추가장착), or
# an upgraded version of the line: another configuration, which the rules cannot price as the product. Counted
# anywhere in a word, unless the product's own name says it (G-soul X8 업그레이드 is a line's name).
MODIFIED_WORDS = ("업그레이드", "upgrade", "증설", "추가장착", "개조", "튜닝")

# Accessory, part and consumable kinds: a listing naming one the product does not name is not the product.
