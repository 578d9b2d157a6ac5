"""What a search leaves for a person to settle (SPEC §4 step 3): the result's `review`, one pure function.

A wrong price is worse than none, so without a model the rules count a listing they are unsure of as no match;
but a shop that prices from the answer must see that listing when it could change the answer. `items` lists,
from a search's judged listings (its rounds' verdicts, as the result stores them):

- a listing nothing settled (the rules were unsure and no model was asked) that is cheaper than the reported
  lowest, or any such listing when the answer is not_found, with the reason the rules doubted it;
- a listing the model turned down with a confidence below `low_confidence` on the same terms (cheaper than the
  lowest, or any on a not_found), and one the model accepted below it that is the reported lowest itself (a
  dearer accepted one cannot change the answer);
- the reported lowest itself when the rules accepted it on its words and were not sure of it (no model was
  asked): the answer is only as good as a reading a person should confirm;
- when the reported lowest is itself an item, the listing the answer falls back to if a person turns it down:
  the cheapest dearer one nothing turned down (accepted, or undecided). A doubted lowest is most often a
  look-alike the rules leaned towards (another version, a sibling size), and the listing a shop should price
  from is then the dearer one: a person judges the two side by side, and the fallback is never hidden.

A listing a correction settled (source "correction") is never an item: a person has said. The items are the
`limit` cheapest, cheapest first (the cheapest doubted listing is the one that would move the answer most); a
listing judged in several rounds is listed once. `bench/judge_eval.py` scores the same function.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

LOW_CONFIDENCE = 0.7
"""The default of LPS_REVIEW_LOW_CONFIDENCE: a model's verdict below it is a guess a person should see."""
LIMIT = 5
"""The default of LPS_REVIEW_ITEMS: the most items one result lists."""
SURE = 0.95
"""The confidence the rules give a verdict they are sure of (search.judge.SURE_CONFIDENCE); below it, an accepted
lowest no model confirmed is a reading, not a certainty."""
ITEM_KEYS = ("marketplace", "product_id", "title", "price", "url")


def items(
    verdicts: Iterable[Mapping],
    lowest_price: int | None,
    *,
    low_confidence: float = LOW_CONFIDENCE,
    limit: int = LIMIT,
) -> list[dict]:
    """The review items of a search whose judged listings are `verdicts` and whose answer is `lowest_price`
    (None: not_found): [{"marketplace", "product_id"?, "title", "price", "url", "reason"}], cheapest first."""
    verdicts = list(verdicts)
    found: dict[tuple, dict] = {}
    doubted = []
    confirmed = False  # a listing at the reported price that someone or something is sure of
    for verdict in verdicts:
        price = verdict.get("price")
        if not isinstance(price, int):
            continue
        reason = None if verdict.get("source") == "correction" else _doubt(verdict, price, lowest_price, low_confidence)
        if reason is None:
            confirmed = confirmed or bool(verdict.get("same_product") and price == lowest_price)
        else:
            doubted.append((verdict, price, reason))
    lowest_doubted = False
    for verdict, price, reason in doubted:
        if confirmed and verdict.get("same_product") and price == lowest_price:
            continue  # another listing at the same price settles the answer
        lowest_doubted = lowest_doubted or (bool(verdict.get("same_product")) and price == lowest_price)
        _add(found, _item(verdict, reason))
    if lowest_doubted and (fallback := _fallback(verdicts, lowest_price, low_confidence)):
        _add(found, _item(*fallback))
    listed = sorted(found.values(), key=lambda item: item["price"])
    kept = listed[: max(limit, 0)]
    reported = [item for item in listed if item["price"] == lowest_price]
    if reported and kept and reported[0] not in kept:
        # Cut by the limit, the reported lowest would leave the answer itself unflagged: it takes the last place
        # (a cheaper doubted listing could change the answer; the fallback only says what it would become).
        kept[-1] = reported[0]
    return sorted(kept, key=lambda item: item["price"])


def _add(found: dict[tuple, dict], item: dict) -> None:
    """Keep `item` unless its listing (judged in several rounds) is already listed."""
    found.setdefault((item["marketplace"], item.get("product_id") or item.get("url") or item.get("title")), item)


def _item(verdict: Mapping, reason: str) -> dict:
    item = {key: verdict[key] for key in ITEM_KEYS if verdict.get(key) not in (None, "")}
    item.setdefault("marketplace", "coupang")
    item["reason"] = reason
    return item


def _fallback(verdicts: Iterable[Mapping], lowest_price: int, low_confidence: float) -> tuple[Mapping, str] | None:
    """The listing a doubted lowest falls back to if a person turns it down: the cheapest dearer one that nothing
    turned down (a sure no, a model's confident no, a correction's no are passed over), accepted or not."""
    dearer = sorted(
        (verdict for verdict in verdicts if isinstance(verdict.get("price"), int) and verdict["price"] > lowest_price),
        key=lambda verdict: verdict["price"],
    )
    for verdict in dearer:
        reason = str(verdict.get("reason") or "").removeprefix("uncertain: ")
        if verdict.get("same_product"):
            return verdict, f"the answer if the reported lowest is turned down: {reason}"
        if _unsettled(verdict, low_confidence):
            said = "the next listing that could be the product if the reported lowest is turned down"
            return verdict, f"{said}: {reason}"
    return None


def _unsettled(verdict: Mapping, low_confidence: float) -> bool:
    """A verdict of no that nothing is sure of: the rules could not decide, or the model said no on a guess."""
    if verdict.get("source") == "correction":
        return False
    if verdict.get("source") == "llm":
        return float(verdict.get("confidence") or 0.0) < low_confidence
    return bool(verdict.get("uncertain"))


def of_rounds(rounds: Iterable[Mapping], lowest_price: int | None) -> list[dict]:
    """`items` of a search's rounds (as a result stores them) at the configured threshold and length (at least
    one item, so that a not_found anything doubted is always known as one)."""
    from django.conf import settings

    return items(
        (verdict for round_ in rounds for verdict in round_.get("verdicts") or []),
        lowest_price,
        low_confidence=settings.LPS_REVIEW_LOW_CONFIDENCE,
        limit=max(1, settings.LPS_REVIEW_ITEMS),
    )


def of_result(result: Mapping) -> list[dict]:
    """`of_rounds` of a SEARCH result (§8) against its `lowest`."""
    lowest = result.get("lowest")
    return of_rounds(result.get("rounds") or [], lowest.get("price") if isinstance(lowest, Mapping) else None)


def _doubt(verdict: Mapping, price: int, lowest_price: int | None, low_confidence: float) -> str | None:
    """Why a person should look at this listing, or None when it cannot change the answer or was settled."""
    cheaper = lowest_price is None or price < lowest_price
    reason = str(verdict.get("reason") or "")
    if verdict.get("source") == "llm":
        confidence = float(verdict.get("confidence") or 0.0)
        if confidence >= low_confidence:
            return None
        accepted = bool(verdict.get("same_product"))
        if (price == lowest_price) if accepted else cheaper:
            said = "accepted it" if accepted else "turned it down"
            return f"the model {said} with low confidence ({confidence:.2f}): {reason}"
        return None
    if verdict.get("uncertain") and cheaper:
        return f"the rules could not decide: {reason.removeprefix('uncertain: ')}"
    if verdict.get("same_product") and price == lowest_price and float(verdict.get("confidence") or 0.0) < SURE:
        return f"the rules accepted it on its words, not sure: {reason}"
    return None
