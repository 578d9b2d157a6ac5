"""Colour names and the words that only qualify a colour (rule: identity compares colours).

Where the words come from: the colour options Korean marketplaces list, in Hangul and Latin spellings.
"""

from __future__ import annotations

COLOURS: dict[str, tuple[str, ...]] = {
    "black": ("블랙", "검정", "검정색", "검은색", "흑색", "black", "오닉스"),
    "white": ("화이트", "흰색", "백색", "하얀색", "white", "올백"),
    "silver": ("실버", "은색", "silver"),
    "gray": ("그레이", "회색", "gray", "grey"),
    "blue": ("블루", "파랑", "파란색", "청색", "blue"),
    "navy": ("네이비", "남색", "navy"),
    "red": ("레드", "빨강", "빨간색", "red"),
    "pink": ("핑크", "분홍", "분홍색", "pink"),
    "gold": ("골드", "금색", "gold"),
    "rose gold": ("로즈골드", "rosegold"),
    "green": ("그린", "초록", "초록색", "녹색", "green"),
    "mint": ("민트", "mint"),
    "purple": ("퍼플", "보라", "보라색", "바이올렛", "purple", "violet"),
    "lavender": ("라벤더", "lavender"),
    "yellow": ("옐로우", "옐로", "노랑", "노란색", "yellow"),
    "orange": ("주황", "주황색"),
    "beige": ("베이지", "beige"),
    "brown": ("브라운", "갈색", "brown"),
    "ivory": ("아이보리", "ivory"),
    "graphite": ("그라파이트", "그래파이트", "graphite"),
    "midnight": ("미드나이트", "midnight"),
    "starlight": ("스타라이트", "starlight"),
    "natural": ("내추럴", "네추럴", "내츄럴", "natural"),
    "nickel": ("니켈", "nickel"),
    "cream": ("크림", "cream"),
    "turquoise": ("터콰이즈", "turquoise"),
    "copper": ("코퍼", "리치코퍼", "copper"),
    "lilac": ("라일락", "lilac"),
    "charcoal": ("차콜", "챠콜", "charcoal"),
    "khaki": ("카키", "khaki"),
    "burgundy": ("버건디", "burgundy"),
    "inox": ("이녹스", "inox"),
    # the light colours of lamps and bulbs, as their makers name them
    "daylight": ("주광색", "하얀빛", "데이라이트", "daylight", "6500k"),
    "neutral white": ("주백색", "4000k"),
    "warm white": ("전구색", "노란빛", "3000k", "2700k"),
}
COLOUR_SUFFIXES = ("", "색", "색상", "컬러")
# Colours a shade's name may be glued before (린넨블랙, 새벽그레이, 딥블루): only those no flavour or line ends with
# (not 골드: 모카골드 is a coffee; not 크림: 쿠키앤크림 is a flavour).
GLUED_COLOURS = frozenset({"black", "white", "gray", "blue", "navy", "red", "pink", "beige", "silver", "brown"})
# Words that only qualify a colour (블랙 티타늄, 스페이스 그레이): not part of what identifies the product.
COLOUR_QUALIFIERS = frozenset(
    {"티타늄", "titanium", "스페이스", "space", "메탈", "metal", "매트", "matte", "펄", "pearl", "딥", "deep"}
    | {"다크", "dark", "문스톤", "플래티넘", "시에라", "트리플", "페일", "pale", "클라우드", "cloud", "라이트", "네온"}
    | {"로즈", "rose", "빈카", "프러시안", "아이시", "icy", "샌드", "sand", "스모크"}
    | {"아이스", "ice", "어썸", "awesome", "앰버", "amber", "코발트", "cobalt", "샤도우", "섀도우", "shadow", "쉐도우"}
    | {"오션", "ocean", "스카이", "sky", "light", "미디엄", "medium", "스톤워시", "stonewash", "워시", "wash"}
    | {"뉴트럴", "멜란지", "melange"}
    # finishes named with a colour or a metal (폴리시드 알루미늄, 브러시드 실버)
    | {"폴리시드", "polished", "브러시드", "brushed", "새틴", "satin", "유광", "무광", "glossy"}
)
