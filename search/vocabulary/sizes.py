"""Sizes of shoes, clothes and bedding (rule: measure and size).

Where the words come from: the size options of Korean marketplaces — shoes in millimetres (220 … 300, by 5),
letter and number sizes of clothes (S/M/L/XL, 90/95/100/105/110, FREE), and bedding sizes (싱글 … 킹).
"""

from __future__ import annotations

SHOE_SIZE_RANGE = (200, 320)
"""A bare number in this range, a multiple of 5, is a shoe size (260) where the product is a shoe."""
CLOTHING_SIZES: dict[str, str] = {
    "xxs": "xxs", "xs": "xs", "s": "s", "m": "m", "l": "l", "xl": "xl", "xxl": "xxl", "2xl": "xxl", "xxxl": "xxxl",
    "3xl": "xxxl", "4xl": "4xl", "free": "free", "프리": "free", "프리사이즈": "free", "85": "85", "90": "90",
    "95": "95", "100": "100", "105": "105", "110": "110", "115": "115", "120": "120",
}  # fmt: skip
"""A clothing size as titles write it → one spelling (2XL = XXL)."""
BEDDING_SIZES: dict[str, str] = {
    "싱글": "single", "슈퍼싱글": "super single", "ss": "super single", "더블": "double", "퀸": "queen",
    "퀸사이즈": "queen", "킹": "king", "킹사이즈": "king", "라지킹": "large king", "엘케이": "large king",
    "single": "single", "double": "double", "queen": "queen", "king": "king",
}  # fmt: skip
"""A bedding size → one spelling (퀸 = queen)."""
SCALE_SIZES: dict[str, str] = {
    "소형": "small", "중형": "medium", "대형": "large", "특대형": "extra large", "초대형": "extra large",
    "미니사이즈": "small",
    # One syllable standing alone after a kind word (지퍼백 중, 위생백 대): the same three sizes.
    "소": "small", "중": "medium", "대": "large",
}  # fmt: skip
"""A size said in words on anything (중형 생리대, 대형 가랜드) → one spelling: another is another product, and one the
product does not state leaves a match unsure."""
