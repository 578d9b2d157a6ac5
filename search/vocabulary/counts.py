"""Counting words and their quirks (rule: pack count).

Where the words come from: the counters Korean titles use (개/개입/입/팩/EA/x3, 캔, 병, 봉, 매, 롤, 본 for tyres …).
"""

from __future__ import annotations

# Counting words: "5개입", "24캔", "100매", "40봉", "30구". Any of them may carry 입 ("100매입", "40봉입").
COUNT_UNITS = (
    "개입", "개", "팩", "입", "병", "캔", "봉지", "봉", "포", "세트", "박스", "box", "롤", "매", "장",
    "켤레", "족", "알", "통", "권", "정", "캡슐", "스틱", "구", "종", "묶음", "펫", "ea", "pcs", "pc", "p", "t", "pet", "pack", "대", "더즌", "다스", "dozen", "타", "자루",
    "본", "벌", "슬리브", "소프트젤", "softgels", "정제", "베지캡슐", "tablets", "ct", "매입",
    # English counters on imported goods' titles (30 Sheets, 4 pieces, 81 count).
    "sheets", "sheet", "pieces", "piece", "count", "bags", "rolls", "pk", "피스", "티백", "teabags",
)  # fmt: skip
# Units a Korean title may glue to the next word ("3겹화장지", "6인용밥솥", "30롤입"): no other word starts
# with them, so they count even when a Hangul word follows.
GLUED_UNITS = ("겹", "인용", "인분", "단계", "세대", "롤", "캔", "켤레", "개입", "매입", "대")
# Units that only count after a larger number: "180T" is 180 sticks, "1080p" a resolution, "5t" a truck.
SMALL_UNITS_MIN = {"t": 10}
# Counters of a dozen: "1더즌", "1다스" and "1타" (shuttlecocks, golf balls) are 12 units.
COUNT_MULTIPLIERS = {"더즌": 12, "다스": 12, "dozen": 12, "타": 12}
# Units that count only up to a bound: "1080p" is a resolution, "100타" no number of dozens a title sells.
LARGE_UNITS_MAX = {"p": 99, "타": 20}
# Pack words that state their count without a number: "트윈팩" is two units, "트리플팩" three.
PACK_WORDS = {"트윈팩": 2, "더블팩": 2, "듀오팩": 2, "twinpack": 2, "트리플팩": 3}
# Pack counters: a pack's count beside the same count in another counter says it again ("4 Pack 4개입", "4팩 4개"),
# not four packs of four; a different count beside it is packs of that many ("10개입 2팩").
PACK_COUNTERS = frozenset({"팩", "pack", "pk", "팩입"})
