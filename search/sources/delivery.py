"""What a product card's delivery wording says a buyer pays for delivery, read as Korean storefronts write it.

The wordings (spaces and their absence alike):
- 무료배송, 배송비 무료 → free;
- 배송비 3,000원, 배송비: 3,000원, 3,000원 배송 → that fee;
- 19,800원 이상 무료배송, 19,800원 이상 구매 시 무료, 무료배송 (19,800원 이상), 배송비 3,000원 (19,800원 이상
  무료) → free from that amount (the threshold), the fee below it when the card states one;
- 로켓배송 alone, 도착 보장 … → nothing about the fee (a Rocket item is free for members and conditional for
  others; the card does not say which the buyer is): unknown.

`shipping_fee` is what one unit at the listing's price costs to deliver: 0 when free or when the price reaches
the threshold, the stated fee below it, None when the card does not say (or states a threshold and no fee while
the price is below it). The threshold is kept beside it (`free_over`), so a shop buying more than one unit can see
where delivery becomes free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_AMOUNT = r"(\d{1,3}(?:,\d{3})+|\d+)"
# "19,800원 이상 무료배송", "19,800원이상 구매시 무료", "19,800원 이상 주문 시 무료배송" (spaces removed first).
THRESHOLD = re.compile(_AMOUNT + r"원이상(?:구매|주문)?(?:시)?무료(?:배송)?")
# "무료배송 (19,800원 이상)", "무료배송(19,800원 이상 구매 시)".
THRESHOLD_AFTER = re.compile(r"무료배송\(?" + _AMOUNT + r"원이상(?:구매|주문)?(?:시)?\)?")
# "배송비 3,000원", "배송비: 3,000원", "배송비3000원".
FEE_AFTER_WORD = re.compile(r"배송비[:：]?" + _AMOUNT + r"원")
# "3,000원 배송", "+3,000원 배송비".
FEE_BEFORE_WORD = re.compile(r"\+?" + _AMOUNT + r"원배송")
FREE = ("무료배송", "배송비무료")
"""Never a bare 무료: a Rocket card says 무료반품 (free returns), which is not about delivery."""


@dataclass(frozen=True)
class Delivery:
    """What a card states about delivery: its fee (0 = free) and the amount from which it is free, each if stated."""

    fee: int | None = None
    free_over: int | None = None

    def fee_at(self, price: int) -> int | None:
        """What one unit at `price` costs to deliver, or None when the card does not say."""
        if self.free_over is not None and price >= self.free_over:
            return 0
        return self.fee


def _won(text: str) -> int:
    return int(text.replace(",", ""))


def read_delivery(text: str) -> Delivery:
    """Read a card's delivery wording (its text and badge alt texts, in any order); never raises."""
    compact = "".join(str(text or "").split())
    if not compact:
        return Delivery()
    free_over = None
    threshold = THRESHOLD.search(compact) or THRESHOLD_AFTER.search(compact)
    if threshold is not None:
        free_over = _won(threshold.group(1)) or None
        # What remains says the fee below the threshold, if anything; its own 무료 is the threshold's.
        compact = compact[: threshold.start()] + " " + compact[threshold.end() :]
    fee_match = FEE_AFTER_WORD.search(compact) or FEE_BEFORE_WORD.search(compact)
    if fee_match is not None:
        return Delivery(fee=_won(fee_match.group(1)), free_over=free_over)
    if any(word in compact for word in FREE):
        # 무료배송 beside a threshold ("19,800원 이상 무료배송 · 무료배송") is still unconditional.
        return Delivery(fee=0)
    return Delivery(free_over=free_over)
