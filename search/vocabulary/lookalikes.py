"""Substitutes and look-alikes from another maker (rule: other brand and look-alike).

Where the words come from: how Korean titles sell a copy or a substitute of a known product (대체품, 호환형,
OEM, 짝퉁, 레플리카, "다이슨 스타일", "샤넬st"), as SPEC §4 step 3 names them. Hangul words count anywhere in a
word; Latin ones only whole.
"""

from __future__ import annotations

LOOKALIKE_WORDS = (
    "대체품", "대체용", "대용품", "호환품", "호환형", "호환용", "비정품", "짝퉁", "레플리카", "레플", "이미테이션", "카피",
    "미러급", "st제품", "oem", "odm", "replica", "dupe", "knockoff", "generic",
)  # fmt: skip
"""A word that marks a substitute or a copy wherever it stands."""
LOOKALIKE_AFTER_BRAND = ("스타일", "st", "타입", "type", "느낌", "감성", "풍", "같은", "대체", "유사")
"""A word that marks a look-alike when it follows a brand or the product's own name ("다이슨 스타일 청소기",
"다이슨st"): elsewhere it is an ordinary word (캐주얼 스타일). 타입 is read as "type" (vocabulary/spellings.py), and
counts only after a brand or the shop's model code (word_evidence.styled_after)."""
