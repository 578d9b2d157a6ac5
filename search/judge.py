"""Decide which candidate listings are the product asked for (SPEC §4 step 3): rules first, then the LLM.

The rules (search.titles reads each title) decide per candidate, in this order, and say whether they are sure:
1. a used, refurbished, display or returned unit (중고, 리퍼, 전시, 반품, S급 …) is not the product, unless the
   product is itself one;
2. an accessory, part or consumable (케이스, 필름, 이어팁 …), a compatible item (호환) or one made for the
   product (전용, 교체용, "에어팟용") is not the product, unless the product is itself such an item;
3. a listing that names another brand outright, and not ours, is not the product;
4. another model code of the same family (SM-S918N for SM-S928N) or any other model code where the product
   has one and the title lacks it is another model;
5. a different variant (Pro, Max, mini, FE …), measure (256GB, 500ml, 6인용, 2세대), colour where both name
   one, pack count (a title stating none sells one unit), an extra flavour or line (라임, 흑미, 디지털), or a
   sibling model number (S23 for S24, 13 for 14, 265 for 270) is another product;
6. the product's model code in the title, with no detail above against it, is the product (sure);
7. otherwise every naming word of the product must be in the title (in any script) and the brand named or
   implied: then it is the same product, but not sure; missing words leave it uncertain.

Without an LLM, "uncertain" counts as no match: a wrong price is worse than none. With one, the rules settle
what they are sure of and only the other candidates go to the one LLM call of the round; each verdict records
its source ("rules" or "llm").
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from search.listings import Judgement, Listing, ProductQuery, Verdict
from search.titles import (
    CODE_SUFFIX_CHARS,
    MIN_CODE_CHARS,
    Title,
    brand_groups_of,
    compact,
    is_code_like,
    normalise,
    read_title,
)
from search.vocabulary import BRAND_ALIASES, KIND_WORDS, ONE_SIDED_VARIANTS, PLAIN_WORDS

if TYPE_CHECKING:
    from search.llm import LlmClient

FUZZY_WORD_RATIO = 0.85
"""difflib ratio at which a long word counts as found (spelling variants)."""
SURE_CONFIDENCE = 0.95
WORDS_CONFIDENCE = 0.8
UNCERTAIN_CONFIDENCE = 0.5
UNRELATED_SHARE = 0.34
"""Below this share of the product's naming words a title is about something else (sure)."""
SOLD_BY = frozenset({"volume", "weight"})
"""Measures a product is sold by: one named where the product names the other is another form of it."""
NAME_CODE_DIGITS = 2
"""A code read from the product name (no model_code given) needs this many digits: 6free is a line, not a model."""


@dataclass(frozen=True)
class Product:
    """The product as the rules compare it: its name read once, its brands and model codes."""

    query: ProductQuery
    title: Title
    brand_groups: frozenset[int]
    codes: tuple[str, ...]
    brand_in_name: bool
    """The shop wrote the brand in the name: a title must name it too (or a line only it sells)."""

    @classmethod
    def of(cls, query: ProductQuery) -> Product:
        name = read_title(query.product_name, brand=query.brand)
        brand_text = normalise(query.brand or "")
        groups = name.brand_groups | name.line_brands | brand_groups_of(re.findall(r"\S+", brand_text), brand_text)
        # A name may glue its brand to the product (동원참치, 쿠쿠밥솥).
        groups |= {
            group
            for group, aliases in enumerate(BRAND_ALIASES)
            for alias in aliases
            if len(alias) >= 2 and not alias.isascii() and any(word.startswith(alias) for word in name.words)
        }
        if query.model_code:
            codes = (compact(query.model_code),)
        else:
            codes = tuple(
                sorted(
                    compact(number)
                    for number in name.model_numbers
                    if is_code_like(number)
                    and len(compact(number)) >= MIN_CODE_CHARS
                    and sum(char.isdigit() for char in number) >= NAME_CODE_DIGITS
                )
            )
        spelled = compact(query.brand or "")
        brand_in_name = bool(name.brand_groups) or bool(spelled and spelled in compact(query.product_name))
        return cls(query=query, title=name, brand_groups=frozenset(groups), codes=codes, brand_in_name=brand_in_name)


def judge_listings(product: ProductQuery, candidates: list[Listing], *, llm: LlmClient | None) -> Judgement:
    """Judge each candidate: the rules, then (when `llm` is given) one LLM call for those they are unsure of."""
    if not candidates:
        return Judgement(verdicts=[], judge="llm" if llm is not None else "rules")
    ruled = judge_by_rules(product, [listing.title for listing in candidates])
    if llm is None:
        return Judgement(verdicts=[verdict for verdict, _ in ruled], judge="rules", settled_by_rules=len(ruled))
    unsure = [index for index, (_, sure) in enumerate(ruled) if not sure]
    if not unsure:
        return Judgement(verdicts=[verdict for verdict, _ in ruled], judge="rules", settled_by_rules=len(ruled))
    asked = llm.judge(product, [candidates[index] for index in unsure])
    verdicts = [verdict for verdict, _ in ruled]
    for answer in asked.verdicts:
        index = unsure[answer.index]
        verdicts[index] = Verdict(index, answer.same_product, answer.confidence, answer.reason, source="llm")
    return Judgement(
        verdicts=verdicts,
        usage=asked.usage,
        judge="llm",
        settled_by_rules=len(ruled) - len(unsure),
        sent_to_llm=len(unsure),
    )


def judge_by_rules(product: ProductQuery, titles: list[str]) -> list[tuple[Verdict, bool]]:
    """The rules' verdict on each title, and whether the rules are sure of it."""
    wanted = Product.of(product)
    product_words = frozenset(wanted.title.words)
    return [
        judge_title(wanted, index, read_title(title, brand=product.brand, product_words=product_words))
        for index, title in enumerate(titles)
    ]


def judge_title(wanted: Product, index: int, listing: Title) -> tuple[Verdict, bool]:
    """The rules' verdict on one read title (see the module docstring for the order)."""
    name = wanted.title

    def reject(reason: str) -> tuple[Verdict, bool]:
        return Verdict(index, False, SURE_CONFIDENCE, reason), True

    def uncertain(reason: str) -> tuple[Verdict, bool]:
        return Verdict(index, False, UNCERTAIN_CONFIDENCE, f"uncertain: {reason}", uncertain=True), False

    if listing.condition and not name.condition:
        return reject(f"not a new unit ({listing.condition})")
    extra_kinds = {kind: word for kind, word in listing.accessory_kinds.items() if kind not in name.accessory_kinds}
    if extra_kinds:
        kind, word = next(iter(extra_kinds.items()))
        return reject(f"{kind} ({word}), not the product itself")
    if listing.compatible and not name.compatible:
        return reject(f"a compatible item ({listing.compatible}), not the product itself")
    made_for = [word for word in listing.made_for if word not in name.made_for]
    if made_for and not name.accessory_kinds:
        return reject(f"made for the product ({made_for[0]}), not the product itself")
    if name.accessory_kinds and not set(name.accessory_kinds) & set(listing.accessory_kinds):
        kind = next(iter(name.accessory_kinds))
        return reject(f"not a {kind} ({name.accessory_kinds[kind]}) like the product")

    ours_named = bool(wanted.brand_groups & listing.brand_groups) or _brand_spelled(wanted.query.brand, listing)
    others = listing.brand_groups - wanted.brand_groups
    if others and not ours_named:
        return reject(f"brand {BRAND_ALIASES[min(others)][0]}, not {wanted.query.brand or 'ours'}")

    code_found = next((code for code in wanted.codes if _code_in(code, listing)), None)
    if wanted.codes and not code_found:
        other = _other_code(wanted.codes, listing)
        if other:
            ours = wanted.query.model_code or wanted.codes[0]
            return reject(f"model code {listing.codes[other].upper()}, not {ours.upper()}")

    mismatch = _detail_mismatch(name, listing)
    if mismatch:
        return reject(mismatch)
    more = _more_than_the_product(name, listing)
    if more:
        return uncertain(more)

    if code_found:
        ours = wanted.query.model_code or code_found
        return Verdict(index, True, SURE_CONFIDENCE, f"model code {ours.upper()} matches"), True

    core = name.core_words
    missing = [word for word in core if not _word_found(word, listing, name.spellings.get(word, set()))]
    found = len(core) - len(missing)
    share = found / len(core) if core else 0.0
    said = f"{found} of {len(core)} name words in the title"
    if core and share < UNRELATED_SHARE and not ours_named and not _overlaps(core, listing):
        return reject(said)
    other_kinds = [word for word in listing.words if word in KIND_WORDS and not _word_found(word, name)]
    can_be_left_out = KIND_WORDS | PLAIN_WORDS
    if not core:
        # A product named by nothing but its brand, size and count (제주삼다수 2L 12개) says no line: a title that
        # names one (그린 무라벨, 스파클링) may be another product of the brand, and no word of ours can tell.
        named = [word for word in listing.core_words if word not in can_be_left_out and not _word_found(word, name)]
        if named:
            return uncertain(f"the product names only its brand and size; the title adds {' '.join(named[:3])}")
    if missing and (other_kinds or not all(word in can_be_left_out for word in missing) or found == 0):
        return uncertain(f"{said}, missing {' '.join(missing[:3])}")
    if wanted.brand_in_name and not ours_named and not (wanted.brand_groups & listing.line_brands):
        return uncertain(f"{said}, brand {wanted.query.brand or 'of the product'} not named")
    return Verdict(index, True, WORDS_CONFIDENCE, said), False


def _brand_spelled(brand: str | None, listing: Title) -> bool:
    spelled = compact(brand or "")
    return bool(spelled) and any(compact(word).startswith(spelled) for word in listing.text.split())


def _code_in(code: str, listing: Title) -> bool:
    """Our code in the title: exactly, with a region/colour suffix of letters (SM-S928NZKEKOO), or followed by a
    separator and more (NT940XGK-K51A, HX9044/67); a title's shorter code counts when ours only adds letters."""
    for candidate in listing.codes:
        if candidate == code:
            return True
        # Samsung writes a monitor's code with a leading L and a trailing region (LS27CG510EKXKR for S27CG510).
        head, _, tail = candidate.partition(code)
        prefixed = bool(_) and head.isalpha() and len(head) <= 2
        if len(code) >= MIN_CODE_CHARS and prefixed and (not tail or tail.isalpha()) and len(tail) <= CODE_SUFFIX_CHARS:
            return True
        longer, shorter = (candidate, code) if len(candidate) > len(code) else (code, candidate)
        suffix = longer[len(shorter) :]
        extends = len(shorter) >= MIN_CODE_CHARS and longer.startswith(shorter) and suffix.isalpha()
        if extends and len(suffix) <= CODE_SUFFIX_CHARS and not _continued(shorter, listing):
            return True
    return False


def _continued(shorter: str, listing: Title) -> bool:
    """The title writes `shorter` only as the head of a longer code of its own (KBOV2001.BL)."""
    return shorter in listing.codes and any(
        other.startswith(shorter) and other != shorter for other in listing.full_codes
    )


def _other_code(codes: tuple[str, ...], listing: Title) -> str | None:
    """A model code in the title that is not ours: a sibling (SM-S918N) or another model altogether."""
    digits_only = any(code.isdigit() for code in codes)
    for candidate in listing.codes:
        if len(candidate) < MIN_CODE_CHARS or not (is_code_like(candidate) or (digits_only and candidate.isdigit())):
            continue
        if candidate.isdigit() and candidate not in listing.separated_numbers:
            continue
        if any(candidate.startswith(code) or code.startswith(candidate) or code in candidate for code in codes):
            continue
        if any(_sibling(candidate, code) for code in codes) or sum(char.isdigit() for char in candidate) >= 2:
            return candidate
    return None


def _sibling(candidate: str, code: str) -> bool:
    return candidate[0] == code[0] and difflib.SequenceMatcher(None, candidate, code).ratio() >= 0.6


def _detail_mismatch(name: Title, listing: Title) -> str | None:
    """A variant, measure, colour, pack count, line or model number that differs from the product's."""
    for variant in sorted(listing.variants ^ name.variants):
        if variant in ONE_SIDED_VARIANTS and variant not in listing.variants:
            continue
        side = "the title says" if variant in listing.variants else "the title lacks"
        return f"different variant: {side} {variant}"
    for dimension, values in name.measures.items():
        offered = listing.measures.get(dimension)
        if offered and not offered & values:
            return f"different {dimension}: {_show(offered)} instead of {_show(values)}"
    if name.colours and listing.colours and not name.colours & listing.colours:
        return f"different colour: {', '.join(sorted(listing.colours))}"
    if name.pack_count != listing.pack_count:
        return f"different pack count: {listing.pack_count} instead of {name.pack_count}"
    extra_lines = listing.lines - name.lines
    if extra_lines:
        return f"another flavour or line: {', '.join(sorted(extra_lines))}"
    return _other_model_number(name, listing)


def _more_than_the_product(name: Title, listing: Title) -> str | None:
    """The title also names other measures or colours (28cm + 24cm, 블랙/화이트/그레이): a set or a choice;
    or it measures the product another way (19g for 50ml: a stick, not the cream)."""
    if name.measures and not set(name.measures) & set(listing.measures):
        other = set(listing.measures) & SOLD_BY - set(name.measures)
        if other and set(name.measures) & SOLD_BY:
            return f"sold by {', '.join(sorted(other))}, the product by {', '.join(sorted(name.measures))}"
    for dimension, values in name.measures.items():
        offered = listing.measures.get(dimension) or set()
        if offered - values:
            return f"{dimension} {_show(offered)} for {_show(values)}"
    if name.colours and listing.colours - name.colours:
        return f"colours {', '.join(sorted(listing.colours))} for {', '.join(sorted(name.colours))}"
    return None


def _other_model_number(name: Title, listing: Title) -> str | None:
    """A model number of the same shape as ours that the title has instead (S23 for S24, 14 for 15, 265 for 270)."""
    ours = {number for number in name.model_numbers if len(compact(number)) < MIN_CODE_CHARS}
    missing = [number for number in ours if not _number_in(number, listing)]
    extra = {number for number in listing.model_numbers - name.model_numbers if len(compact(number)) < MIN_CODE_CHARS}
    for number in sorted(missing):
        for theirs in sorted(extra):
            if _same_shape(number, theirs):
                return f"different model: {theirs} instead of {number}"
    return None


def _number_in(number: str, listing: Title) -> bool:
    return compact(number) in {compact(word) for word in listing.model_numbers}


def _same_shape(ours: str, theirs: str) -> bool:
    """Same letter prefix and about as many digits, neither an extension of the other: a sibling model."""
    ours_c, theirs_c = compact(ours), compact(theirs)
    if ours_c.startswith(theirs_c) or theirs_c.startswith(ours_c):
        return False
    prefix_ours = re.match(r"[a-z]*", ours_c).group(0)
    prefix_theirs = re.match(r"[a-z]*", theirs_c).group(0)
    digits_ours = sum(char.isdigit() for char in ours_c)
    digits_theirs = sum(char.isdigit() for char in theirs_c)
    return (
        prefix_ours == prefix_theirs and abs(digits_ours - digits_theirs) <= 1 and abs(len(ours_c) - len(theirs_c)) <= 2
    )


def _word_found(word: str, listing: Title, spellings: set[str] = frozenset()) -> bool:
    """A product word in the title: whole, inside a glued word, in its own spelling, or glued apart."""
    if word in listing.words:
        return True
    if word.isascii() and len(compact(word)) < 4:
        # Short Latin words only count whole: AA is not AAA, S is not S9.
        return False
    if len(word) >= 2 and compact(word) in listing.compact:
        return True
    if len(word) >= 3 and word[-1] in "용형" and _word_found(word[:-1], listing):
        return True
    if any(len(spelled) >= 2 and spelled in listing.raw_compact for spelled in spellings):
        return True
    # "동원참치" for "동원 … 참치", "중목양말" for "중목 양말": each part of a glued word is there.
    if len(word) >= 4 and not word.isascii():
        for cut in range(2, len(word) - 1):
            if _word_found(word[:cut], listing) and _word_found(word[cut:], listing):
                return True
    if len(word) >= 4:
        return any(difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_WORD_RATIO for other in listing.words)
    return False


def _overlaps(core: list[str], listing: Title) -> bool:
    """A title word inside a product word or around it (삼다수 in 제주삼다수): a shorter or longer name, not
    another product for sure."""
    return any(
        len(word) >= 2 and len(theirs) >= 2 and not word.isascii() and (theirs in word or word in theirs)
        for word in core
        for theirs in listing.words
    )


def _show(values: set[float]) -> str:
    return "/".join(f"{value:g}" for value in sorted(values))
