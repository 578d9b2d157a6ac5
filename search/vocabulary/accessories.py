"""Accessories, parts and consumables for a product, and the marks of an item made for one (rule: made-for,
accessory and consumable).

Where the words come from: the accessory categories of Korean marketplaces (케이스, 필름, 충전기, 거치대 …) as
titles spell them in Hangul and Latin letters, and the corpus's accessory and accessory_with_code pages.
"""

from __future__ import annotations

# Hangul spellings count anywhere in a word (폰케이스), Latin ones only whole ("case", not "showcase").
ACCESSORY_KINDS: dict[str, tuple[str, ...]] = {
    "case": ("케이스", "커버", "범퍼", "파우치", "덮개", "키스킨", "case", "cover", "bumper", "pouch", "sleeve"),
    "screen film": ("필름", "강화유리", "액정보호", "보호필름", "film", "protector", "tempered"),
    "charger": ("충전기", "충전독", "어댑터", "charger", "adapter"),
    "cable": ("케이블", "젠더", "cable"),
    "holder": ("거치대", "홀더", "마운트", "holder", "mount"),
    "strap": ("스트랩", "키링", "strap", "lanyard"),
    "ear tips": ("이어팁", "폼팁", "이어캡", "이어패드", "이어쿠션", "eartips"),
    "part": (
        "내솥",
        "고무패킹",
        "패킹",
        "배터리",
        "필터",
        "칫솔모",
        "브러시헤드",
        "리모컨",
        "부품",
        "리필모",
        "battery",
    ),
    # One earbud or one side of a pair, sold to replace a lost one.
    "single unit": ("왼쪽", "오른쪽", "한쪽", "좌측", "우측", "유닛"),
    "storage": ("보관통", "보관함", "밀폐용기", "수납"),
    "shoelace": ("운동화끈", "신발끈"),
    "pen": ("터치펜", "펜촉", "스타일러스", "stylus"),
    "camera gear": ("삼각대", "렌즈캡", "렌즈후드", "메모리카드", "케이지", "tripod"),
    "controller": ("컨트롤러", "게임패드", "controller"),
    "bag": ("가방", "먼지봉투", "더스트백"),
    "nozzle": ("노즐", "호스", "브러시툴"),
    "grip": ("그립톡", "손목받침", "마우스패드"),
    "cartridge": ("카트리지", "면도날", "교체날", "리필날", "잉크", "토너카트리지", "ink"),
}
# A watch's own case is not an accessory: "45mm 알루미늄 케이스", "스테인리스 스틸 케이스".
NOT_ACCESSORY = ("알루미늄 케이스", "aluminum case", "스테인리스 케이스", "스테인리스 스틸 케이스", "티타늄 케이스")
# Marks of an item made for another product: "SM-R630 전용 이어팁", "V12 호환 필터", "에어팟용 케이스".
# 호환 (third-party compatible) is never the product unless the product says so; the others are fine when the
# product is itself an accessory or a part (a replacement brush head sold as 교체용 칫솔모).
COMPATIBLE_WORDS = ("호환", "compatible")
# A list of the machines a genuine consumable fits ("HP 2135 3635 호환 기종") is not a third-party mark.
NOT_COMPATIBLE = (
    "호환기종",
    "호환 기종",
    "호환모델",
    "호환 모델",
    "호환 프린터",
    "호환프린터",
    "사용기종",
    "사용 기종",
    # A standard the product itself meets (맥세이프 호환 거치대 is MagSafe-compatible, not a copy of anything).
    "맥세이프 호환",
    "맥세이프호환",
    "magsafe 호환",
    "magsafe compatible",
)
MADE_FOR_WORDS = {"전용": "전용", "교체용": "교체용", "리필": "리필", "replacement": "교체용", "refill": "리필"}
"""Each mark → its Korean spelling, so that "Refill" and "리필" are the same mark."""
MADE_FOR_MARKS = ("전용", "교체용")
"""The marks of a part made for a product (a refill, 리필, is a consumable of its own), as a word begins with them."""
# A free gift or an included item is not what the listing sells: "(+케이스 증정)", "사은품 증정".
GIFT_WORDS = ("증정", "사은품", "서비스", "포함", "제공", "선물", "무료")
# What a gift word may be the start of without naming a gift: 선물세트 is a gift SET (a bundle), 선물포장 a wrapping.
NOT_GIFT_ENDINGS = ("세트", "포장", "박스", "상자", "용")
