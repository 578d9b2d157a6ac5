"""Rental, subscription and contract offers: their price is a fee, not a purchase (rule: rental and contract).

Where the words come from: how Korean marketplaces and rental shops list a machine for rent or on contract
(렌탈/렌털, 구독, 약정, 대여, 리스, 의무사용, "월 29,900원", "36개월"), as SPEC §4 step 3 names them.
Hangul words count anywhere in a word (정수기렌탈); Latin ones only whole.
"""

from __future__ import annotations

RENTAL_WORDS = (
    "렌탈", "렌털", "랜탈", "구독", "약정", "대여", "의무사용", "의무기간", "월납", "월요금", "월이용료",
    "rental", "lease", "subscription",
)  # fmt: skip
"""A word that marks a rental or contract offer, anywhere in a word (정수기렌탈)."""
RENTAL_WHOLE_WORDS = ("리스", "장기렌트", "렌트")
"""Rental words that only count whole: 리스 is inside 코드리스 and 클리스."""
MONTHLY_FEE = (
    r"월\s*(?:납부\s*)?\d{1,3}(?:,\d{3})+\s*원|월\s*\d+(?:\.\d+)?\s*만\s*원|월\s*\d{3,7}\s*원|\d{1,2}\s*개월\s*약정"
)
"""A fee per month written in the title ("월 29,900원", "월 3.9만원", "36개월 약정")."""
