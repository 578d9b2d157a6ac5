"""What the rules read of a candidate, for the LLM's question (SPEC §4 step 3): the model sees the evidence.

A candidate the rules could not settle goes to the LLM with its title and price and, beside them, what the rules
found in the title — the codes, counts, measures and sizes read, the words the product does not have, the
condition, rental, accessory, made-for, bundle and look-alike words — and the rule's reason for doubting it.
Only what is there is written (an empty finding costs tokens and says nothing); the title stays the evidence that
decides, these are the rules' reading of it.
"""

from __future__ import annotations

from search.listings import ProductQuery
from search.rules import Product
from search.titles import Title
from search.word_evidence import unexplained_words

UNSURE_PREFIX = "uncertain: "


def evidence_of(product: ProductQuery, titles: list[str], reasons: list[str]) -> list[dict]:
    """Per title, what the rules read of it and why they doubted it (`reasons`: the rules' verdict reasons)."""
    wanted = Product.of(product)
    return [_read(wanted, wanted.read(title), reason) for title, reason in zip(titles, reasons, strict=True)]


def _read(product: Product, listing: Title, reason: str) -> dict:
    read: dict[str, object] = {}
    codes = sorted(number for number in listing.model_numbers if any(char.isalpha() for char in number))
    if codes:
        read["codes"] = codes
    if listing.counted:
        read["count"] = listing.pack_count
    if listing.measures:
        read["measures"] = {
            kind: sorted(_number(value) for value in values) for kind, values in listing.measures.items()
        }
    if listing.sizes:
        read["sizes"] = {kind: sorted(values) for kind, values in listing.sizes.items()}
    extra = unexplained_words(product, listing)
    if extra:
        read["extra_words"] = extra[:8]
    flags = {
        "condition": listing.condition,
        "rental": listing.rental,
        "compatible": listing.compatible,
        "bundle": listing.bundle,
        "lookalike": listing.lookalike,
        "modified": listing.modified,
    }
    read |= {key: value for key, value in flags.items() if value}
    if listing.made_for:
        read["made_for"] = listing.made_for[:3]
    if listing.accessory_kinds:
        read["accessory"] = sorted(listing.accessory_kinds.values())
    if listing.left_out:
        read["left_out"] = sorted(listing.left_out)
    shown: dict[str, object] = {"read": read} if read else {}
    doubt = reason.removeprefix(UNSURE_PREFIX).strip()
    if doubt:
        shown["rules"] = doubt
    return shown


def _number(value: float) -> int | float:
    return int(value) if value == int(value) else value
