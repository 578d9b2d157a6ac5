"""Better search terms after a round with no match: a precise query, then a broad one.

With an LLM, one call gives both. Without one, rules:
- precise = brand + model code; else brand + the model codes written in the name; else brand + product line +
  model numbers + variant + capacity (갤럭시 S24 울트라 256GB); else the name without notes and colours;
- broad = the name without qualifiers: bracketed notes, colours, capacities, sizes, pack counts and model codes
  (삼성전자 갤럭시 S24 울트라); else that without the brand; else its first two words.
A query already tried is skipped for the next choice when there is one (case, spaces and hyphens ignored), and
precise and broad differ when they can. Neither is ever empty.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from search.listings import ProductQuery, RefinedQueries
from search.titles import compact, is_model_code, is_qualifier, is_variant, normalise
from search.vocabulary import STOP_WORDS

if TYPE_CHECKING:
    from search.llm import LlmClient

# "120g x 5개", "2L + 500ml": joiners between qualifiers, meaningless once the qualifiers are gone.
_SEPARATOR = re.compile(r"[x×*+&\-]+", re.IGNORECASE)
_NOTES = re.compile(r"\[[^\]]*\]|\([^)]*\)|【[^】]*】|<[^>]*>|\{[^}]*\}|「[^」]*」")
# Words that only say how the product is packed or sold, never what it is.
PACKING_WORDS = frozenset({"묶음", "세트", "대용량", "벌크", "박스", "번들", "기획", "기획세트", "단품", "1+1", "2+1"})


def refine_queries(product: ProductQuery, *, llm: LlmClient | None, tried: Sequence[str]) -> RefinedQueries:
    """A precise and a broad query not among `tried`: one LLM call when `llm` is given, else the rules.

    An LLM query that repeats one already tried (or precise = broad) is swapped for the rules' choice, so the
    round is not spent on a page already seen; the usage of the call is kept either way.
    """
    by_rules = rule_queries(product, tried)
    if llm is None:
        return by_rules
    refined = llm.refine(product, list(tried))
    seen = {compact(query) for query in tried}
    precise = refined.precise if compact(refined.precise) not in seen else by_rules.precise
    broad = refined.broad
    if compact(broad) in seen | {compact(precise)}:
        broad = by_rules.broad if compact(by_rules.broad) != compact(precise) else broad
    return RefinedQueries(precise=precise, broad=broad, usage=refined.usage, source="llm")


def rule_queries(product: ProductQuery, tried: Sequence[str] = ()) -> RefinedQueries:
    """The rules' precise and broad queries (see the module docstring)."""
    name_words = _name_words(product.product_name)
    brand = _clean(product.brand or "")
    last_resort = _clean(product.product_name) or _clean(product.model_code or "") or product.product_code

    seen = {compact(query) for query in tried}
    precise = _first_new(_precise_choices(name_words, brand, product.model_code), seen) or last_resort
    broad = _first_new(_broad_choices(name_words, brand), seen | {compact(precise)}) or last_resort
    return RefinedQueries(precise=precise, broad=broad, source="rules")


def _name_words(name: str) -> list[str]:
    """The name's words without bracketed notes and stop words, in their original spelling."""
    text = _NOTES.sub(" ", unicodedata.normalize("NFKC", name or ""))
    words = [word.strip(",;/|·") for word in text.split()]
    return [
        word for word in words if word and normalise(word).strip() not in STOP_WORDS and not _SEPARATOR.fullmatch(word)
    ]


def _precise_choices(words: list[str], brand: str, model_code: str | None) -> Iterable[str]:
    if model_code:
        yield _with_brand(brand, [_clean(model_code)])
    codes = [word for word in words if is_model_code(word)]
    if codes:
        yield _with_brand(brand, codes)
    numbered = [index for index, word in enumerate(words) if _has_digit(word) and not is_qualifier(word)]
    if numbered:
        # The word before the first model number is usually the product line (갤럭시 S24, 아이폰 15, 그램 16).
        start = max(0, numbered[0] - 1)
        specific = [
            word
            for index, word in enumerate(words)
            if index == start or (index > start and (_has_digit(word) or is_variant(word)))
        ]
        specific = [word for word in specific if not _is_colour_or_pack(word)]
        if len(specific) >= 2:
            yield _with_brand(brand, specific)
    yield _with_brand(brand, [word for word in words if not _is_colour_or_pack(word)])
    yield " ".join(words)


def _broad_choices(words: list[str], brand: str) -> Iterable[str]:
    core = [word for word in words if not is_qualifier(word) and not is_model_code(word) and not _is_packing(word)]
    yield _with_brand(brand, core)
    without_brand = [word for word in core if not _is_brand(word, brand)]
    yield " ".join(without_brand)
    yield " ".join(without_brand[:2])
    yield " ".join(core[:2])
    # A Korean name ends with what the product is (헤드폰, 충전기): the broadest query still about it.
    yield " ".join(without_brand[-1:])


def _first_new(choices: Iterable[str], seen: set[str]) -> str | None:
    for choice in choices:
        query = _clean(choice)
        if query and compact(query) not in seen:
            return query
    return None


def _with_brand(brand: str, words: list[str]) -> str:
    if brand and not any(_is_brand(word, brand) for word in words):
        return " ".join([brand, *words])
    return " ".join(words)


def _is_brand(word: str, brand: str) -> bool:
    return bool(brand) and compact(word).startswith(compact(brand))


def _is_colour_or_pack(word: str) -> bool:
    """A colour or a pack count, but not a capacity: a precise query keeps 256GB and drops 블랙 and 6개."""
    return _is_packing(word) or (is_qualifier(word) and not any(char.isdigit() for char in word)) or _is_count(word)


def _is_count(word: str) -> bool:
    folded = normalise(word).strip()
    return is_qualifier(word) and bool(re.search(r"[개팩입병캔봉포매장]|x|×|\+|ea|pcs|box|pack", folded))


def _is_packing(word: str) -> bool:
    return normalise(word).strip() in PACKING_WORDS


def _has_digit(word: str) -> bool:
    return any(char.isdigit() for char in word)


def _clean(query: str) -> str:
    return " ".join((query or "").split())
