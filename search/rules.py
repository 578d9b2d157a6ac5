"""The judge's rules (SPEC §4 step 3): one small rule per idea, in one ordered list, each weighing evidence.

Each rule reads the product and one listing (both read by search.titles) and says one of:
- `Reject`: the listing is not the product, and the rule is sure of it (a used unit, a case, a rental, a set …);
- `Doubt`: something in the listing speaks against it strongly enough that, without an LLM to ask, it is no
  match (uncertain);
- `Caution`: something the rules cannot place (a word the product does not have, a code extended by letters);
  the verdict may still be "same", but not sure — with an LLM it goes to the LLM;
- nothing (None).

RULES runs in order; the first Reject ends it. The last rule, Identity, decides "same" only when the product's
naming words or model code are there, and the verdict is *sure* only when Identity has a model code match and no
rule said Doubt or Caution: certainty is earned, never given by a model code alone. Price is evidence too
(PricePlausibility), judged against the page: see search.judge.judge_by_rules for how the page's reference price
is found. Every rule names the vocabulary file it reads (search/vocabulary/).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from search.listings import ProductQuery
from search.model_codes import code_in, numbered_tail, of_our_family, other_code, other_model_number
from search.titles import (
    GARMENT_GROUPS,
    MIN_CODE_CHARS,
    Title,
    brand_groups_of,
    compact,
    is_code_like,
    normalise,
    read_title,
    vowel_reading,
)
from search.vocabulary import (
    ABSENCE_LINES,
    AUDIENCE_LINES,
    BRAND_ALIASES,
    CLOTHING_SIZES,
    COLOUR_QUALIFIERS,
    COUNT_UNITS,
    DEFAULT_LINE_WORDS,
    DESCRIPTIVE_LINES,
    DOUBTFUL_VARIANTS,
    IMPLIED_BY,
    KIND_GROUPS,
    KIT_WORDS,
    MADE_FOR_MARKS,
    MATERIAL_OF,
    MEASURE_UNITS,
    NOT_WEIGHTS,
    ONE_SIDED_VARIANTS,
    OPPOSITES,
    SCALE_SIZES,
)
from search.word_evidence import (
    HARMLESS,
    KIND_GROUP_OF,
    KIND_WORDS,
    LINE_WORDS_OF,
    MIN_READING,
    before_a_colour,
    beside_name,
    brand_spelled,
    code_shaped,
    code_words,
    found_or_sized,
    glued_in,
    glued_to_a_colour,
    glued_to_name,
    inside_our_word,
    is_naming,
    kind_groups_of,
    maker_stem,
    naming_word_of,
    networks,
    other_script_may_say,
    overlaps,
    part_of_a_name,
    part_of_a_word,
    same_total,
    shape,
    shop_name,
    show,
    size_word,
    sounds_like_one_of,
    spelled_near,
    styled_after,
    unexplained_words,
    variant_spellings,
    word_found,
)

_CAN_BE_LEFT_OUT = KIND_WORDS | HARMLESS | DEFAULT_LINE_WORDS
"""Words a genuine title may leave out of the product's name: kind words, harmless marks, default lines."""
_SHORT_CODE = 4
"""Letters and digits this long, of our code's exact shape, are another model's code (SL1K for SL1M)."""
UNRELATED_SHARE = 0.34
"""Below this share of the product's naming words a title is about something else (sure)."""
SOLD_BY = frozenset({"volume", "weight"})
"""Measures a product is sold by: one named where the product names the other is another form of it."""
NAME_CODE_DIGITS = 2
"""A code read from the product name (no model_code given) needs this many digits: 6free is a line, not a model."""
BESIDE = True
YIELD_COUNT = 100
"""A count this large where the product states none is more likely a yield or a sheet count than that many units."""
SET_NUMBER_DIGITS = 5
"""A number this long in the product name is its model code (a LEGO set 42056, a book's ISBN), not a measure."""
FAR_BELOW_SHARE = 0.5
"""A candidate priced below this share of the page's reference price is not believed on words alone.

Why one half: on the labelled corpus no genuine listing costs less than 0.72 of the shop's own price or 0.84 of
the median of the page's genuine listings (marketplace discounts on new goods rarely pass 30-40 %), while what
undercuts a product by half is what is not it: a rental's monthly fee (1/20 to 1/60 of the price), an accessory
or a part carrying its name, a single unit of a multipack, a used or refurbished unit, a look-alike. Half leaves
room for a real sale and still catches those."""

PRICED_AS_PRODUCT_SHARE = 0.8
"""A listing naming an accessory word but priced at this share of the reference or more sells the product with it."""


_COUNTERS_AND_UNITS = frozenset(COUNT_UNITS) | frozenset(MEASURE_UNITS)
_COUNT_WORDS = _COUNTERS_AND_UNITS | {"단", "세대"}
_GIFT_SET = re.compile(r"선물세트|기획세트|세트\s*\d+\s*호|\d+\s*호\s*세트|gift\s*set")
_SET_WORD = re.compile(r"세트|(?<![a-z])set(?![a-z])")
"""A name that calls the product a set (게양세트, 공구세트, set): its title may list the pieces with pluses."""
_YEAR = re.compile(r"19[5-9]\d|20[0-4]\d")
"""A model number that is a year."""

_MACHINES = re.compile(r"(?<![0-9])\d+\s*대(?![가-힣])")
"""N대: a count of machines."""


@dataclass(frozen=True)
class Reject:
    """Not the product, and the rules are sure of it."""

    reason: str


@dataclass(frozen=True)
class Doubt:
    """Evidence against: no match without an LLM, and the LLM decides with one."""

    reason: str


@dataclass(frozen=True)
class Caution:
    """Evidence the rules cannot place: a "same" verdict is never sure with it."""

    reason: str


Finding = Reject | Doubt | Caution | None


@dataclass(frozen=True)
class Product:
    """The product as the rules compare it: its name read once, its brands and model codes."""

    query: ProductQuery
    title: Title
    brand_groups: frozenset[int]
    codes: tuple[str, ...]
    brand_in_name: bool
    """The shop wrote the brand in the name: a title must name it too (or a line only it sells)."""
    kind_groups: frozenset[str] = frozenset()
    """The KIND_GROUPS the product's kind words belong to (empty when it names no kind)."""
    sold_by_measure: bool = False
    """Sold by weight or volume (food, drink, cosmetics, detergent): such goods come in flavours, scents and
    lines no word list can hold, so a naming word the product lacks is a Doubt, not a Caution."""
    written: frozenset[str] = frozenset()
    """The product name's words as the shop wrote them, compacted (3m, before 3M is read as three metres)."""
    name_as_written: str = ""
    """The whole name normalised, what it says is included too (필터펌프 포함), which its title drops."""
    named_by_code: bool = False
    """The shop named the product by its model code alone ("SM-R510"): the name says no brand, line or variant."""
    numbered_words: dict[str, set[str]] = field(default_factory=dict)
    """The name's words written after a number that no vocabulary reads (패드 of 12패드), with their numbers."""

    def read(self, title: str) -> Title:
        """A listing's title read beside this product: what its words and sizes tell apart."""
        return read_title(
            title,
            brand=self.query.brand,
            product_words=frozenset(self.title.words),
            sizes=frozenset(self.title.sizes.get("dimension", ())),
        )

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
                    if (
                        is_code_like(number)
                        and len(compact(number)) >= MIN_CODE_CHARS
                        and sum(char.isdigit() for char in number) >= NAME_CODE_DIGITS
                    )
                    or (number.isdigit() and len(number) >= SET_NUMBER_DIGITS)
                )
            )
        spelled = compact(query.brand or "")
        brand_in_name = bool(name.brand_groups) or bool(spelled and spelled in compact(query.product_name))
        written = frozenset(compact(token) for token in name.plain.split())
        # The kinds the shop wrote as words of their own, or at the end of one (두부고양이모래); not a kind word
        # read from inside a name (캣 in 젤리캣).
        kinds = frozenset().union(*(kind_groups_of(word) for word in written))
        return cls(
            query=query,
            title=name,
            brand_groups=frozenset(groups),
            codes=codes,
            brand_in_name=brand_in_name,
            kind_groups=kinds,
            sold_by_measure=bool(set(name.measures) & SOLD_BY),
            written=written,
            name_as_written=normalise(query.product_name),
            named_by_code=bool(codes) and compact(query.product_name) in codes,
            numbered_words=_numbered_words(name.plain),
        )


@dataclass
class Context:
    """What the rules share while judging one listing."""

    product: Product
    listing: Title
    price: int | None = None
    reference_price: int | None = None
    """The page's reference price (search.judge.judge_by_rules): None on the first pass. Rules read both through
    page_prices(), never directly, so that judge_context knows which rule first looked at them."""
    code_found: str | None = None
    """Our model code as the listing writes it, set by OtherModel."""
    code_exact: bool = False
    """The code is ours exactly or with a known regional/colour tail (not extended by unknown letters)."""
    findings: list[Finding] = field(default_factory=list)
    price_read: bool = False
    """A rule has read the price (page_prices)."""
    priced_from: PricedFrom | None = None
    """Where the rules stood when one first read the price: the second pass resumes there (judge_priced)."""

    def page_prices(self) -> tuple[int | None, int | None]:
        """The listing's price and the page's reference price, the only way a rule reads them."""
        self.price_read = True
        return self.price, self.reference_price

    @property
    def name(self) -> Title:
        return self.product.title

    @cached_property
    def unexplained(self) -> list[str]:
        """The listing's words nothing explains (word_evidence.unexplained_words), read once for all the rules."""
        return unexplained_words(self.product, self.listing)

    @property
    def ours_named(self) -> bool:
        return bool(self.product.brand_groups & self.listing.brand_groups) or brand_spelled(
            self.product.query.brand, self.listing
        )


class Rule:
    """One idea of SPEC §4 step 3. `check` returns a Finding or None; `name` is how reasons and tests call it."""

    name = "rule"

    def check(self, context: Context) -> Finding:
        raise NotImplementedError


class RuleOfParts(Rule):
    """A rule of several parts, each one idea, run in order: the first that finds anything speaks for them all."""

    parts: tuple[Rule, ...] = ()

    def check(self, context: Context) -> Finding:
        for part in self.parts:
            finding = part.check(context)
            if finding is not None:
                return finding
        return None


class Condition(Rule):
    """A used, refurbished, display or returned unit (중고, 리퍼, 전시, 반품, S급 …) is not a new unit of the
    product, unless the product is itself one; one the shop changed (업그레이드, 증설) is uncertain.
    Words: vocabulary/conditions.py."""

    name = "condition"

    def check(self, context: Context) -> Finding:
        if context.listing.condition and not context.name.condition:
            if context.listing.condition_inside_a_word:
                # 멀티테스터 is a multimeter, 정품리퍼 a refurbished unit: a condition word glued after other syllables
                # may be one, or part of a word of its own. Never sure.
                return Doubt(f"a condition word inside a word ({context.listing.condition}): a used unit, or not")
            return Reject(f"not a new unit ({context.listing.condition})")
        if context.listing.modified and not context.name.modified:
            # 32GB 램 업그레이드: more memory fitted by the shop, or an upgraded version of the line.
            return Doubt(f"a unit changed from how its maker sells it ({context.listing.modified})")
        return None


class AccessoryWord(Rule):
    """An accessory, part or consumable word (케이스, 필름, 이어팁 …) the product's name lacks: the part, not the
    product, unless a plus adds it, the price says it comes with the product, or nothing can tell."""

    name = "accessory word"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        extra_kinds = {
            kind: word
            for kind, word in listing.accessory_kinds.items()
            if kind not in name.accessory_kinds
            # 파우치 for a porridge or a sauce: the food's packing, not a case.
            and not (kind == "case" and context.product.sold_by_measure and not name.accessory_kinds)
            # 학생가방 for a 백팩: a word of the product's own kind, not a bag for it.
            and not kind_groups_of(word) & context.product.kind_groups
            # Note Sleeve for 노트 슬리브: the product's own name in the other script.
            and not sounds_like_one_of(word, name.words)
        }
        if not extra_kinds:
            return None
        kind, word = next(iter(extra_kinds.items()))
        if _only_after_a_plus(extra_kinds.values(), context):
            # NE-U100 + 전용 파우치 + 마스크 세트: the part is what a plus adds to the product, in the box or beside it.
            return Doubt(f"{kind} ({word}) added by a plus after the product: included with it, or a set")
        marked = bool(listing.made_for or listing.compatible)
        if _priced_as_the_product(context) and not marked:
            # A bidet "리모컨" or a drill "케이스포함" priced as the machine: the part comes with it.
            return Caution(f"{kind} ({word}) named, but priced as the product")
        if not marked and _priced_as_a_product(context):
            # An accessory word priced as the product is one reading of several: the part may come with it, the
            # word say what it does (짐벌 셀카봉 삼각대) or name its own kind in another sense (멀티포트 어댑터 for a
            # hub). Sure takes a second witness: a made-for mark, or a price an accessory has.
            return Doubt(f"{kind} ({word}) named, but with no made-for mark and priced as the product")
        if not marked and not all(context.page_prices()):
            # No price to tell a part's from the product's and no mark that it is made for the product: the word is
            # the only witness, and it has other readings (민지 커버 on an album: the cover it comes in).
            return Doubt(f"{kind} ({word}) named, with no made-for mark and no price to tell")
        return Reject(f"{kind} ({word}), not the product itself")


class CompatibleMark(Rule):
    """A compatible item (호환) is another maker's part for the product, unless the product is itself one or the
    title names the product in full and then what it fits."""

    name = "compatible mark"

    def check(self, context: Context) -> Finding:
        listing = context.listing
        if not listing.compatible or context.name.compatible:
            return None
        fits = _fits_others_beside_ours(context)
        if fits:
            # 불스원 … 바디커버 SUV 대형 팰리세이드 모하비 호환: the product named in full, maker and all, then what it
            # fits (a car cover's cars, a filter's machines), as much as a part made for those. Never sure.
            return Doubt(f"the product named in full, then what it fits ({fits} {listing.compatible})")
        return Reject(f"a compatible item ({listing.compatible}), not the product itself")


class MadeForMark(Rule):
    """An item made for the product (전용, 교체용, "에어팟용") is not the product, unless the product is itself a
    part, the mark says what the product is for, or the price says it is the product."""

    name = "made-for mark"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        made_for = [word for word in listing.made_for if word not in name.made_for and not _platform_of(word, context)]
        if not made_for or name.accessory_kinds:
            return None
        if _only_after_a_plus(made_for, context):
            return Doubt(f"{made_for[0]} after a plus that follows the product: a part included with it, or a set")
        stems = [word for word in made_for if word.endswith("용") and word not in MADE_FOR_MARKS]
        if len(stems) == len(made_for) and not _sells_something_else(context, stems):
            # "왼손용 골프장갑", "가솔린용" for a product that says 왼손, 가솔린: what it is for, said of itself.
            return Caution(f"{made_for[0]}: said of the product itself")
        if _mark_inside_our_name(made_for, context):
            # "음주측정기 전용 마우스피스" for "음주측정기 마우스피스": the product is itself a part for the device its
            # name names first; the mark says so again. Never surely not ours.
            return Doubt(f"{made_for[0]} between words of our own name: the part the product is, or one for it")
        if _names_a_kit(name) and _priced_as_the_product(context):
            # 용기 + 리필 5포 for a starter kit, priced as the kit: what is in it. Never sure.
            return Caution(f"{made_for[0]} named, but the product is a kit and priced as it")
        if _priced_as_a_product(context) and not listing.accessory_kinds:
            # "아기옷 속옷 전용" on a washing machine priced as the machine: what it is for, not a part made for it
            # (a part costs far less). Never sure.
            return Doubt(f"{made_for[0]} named, but priced as the product and naming no part")
        return Reject(f"made for the product ({made_for[0]}), not the product itself")


class NotOurKindOfPart(Rule):
    """The product is a part (칫솔모, 필터, 호스): a listing naming none of its part words may be a device sold in
    its place, unless our exact code names the part itself."""

    name = "not our kind of part"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        if (
            name.accessory_kinds
            and not set(name.accessory_kinds) & set(listing.accessory_kinds)
            # Our exact code names the part itself (HX9044 brush heads), unless the product is made for a machine
            # whose code it carries (교체용 고무패킹 for CCP-DH06): then the code names the machine.
            and not (not name.made_for and _our_code_exact(context))
        ):
            kind = next(iter(name.accessory_kinds))
            # Not proof: the title may name the part in the other script (Hose for 호스, brush heads for 칫솔모) or
            # only by its code; a device sold in its place is a Doubt the LLM settles.
            return Doubt(f"not a {kind} ({name.accessory_kinds[kind]}) like the product")
        return None


class MadeFor(RuleOfParts):
    """An accessory, part or consumable (케이스, 필름, 이어팁 …), a compatible item (호환) or one made for the
    product (전용, 교체용, "에어팟용") is not the product, unless the product is itself such an item. One rule of
    several parts, each one idea, run in order: the first that finds anything speaks for them all.
    Words: vocabulary/accessories.py."""

    name = "made-for, accessory and consumable"
    parts: tuple[Rule, ...] = (AccessoryWord(), CompatibleMark(), MadeForMark(), NotOurKindOfPart())


def _mark_inside_our_name(made_for: list[str], context: Context) -> bool:
    """Every naming word of ours is in the title, every made-for word is a mark (전용, not a "…용" stem), and naming
    words of ours stand before and after each: the mark sits inside our own name, between the device it names and
    the part (음주측정기 전용 마우스피스)."""
    if not _every_word_of_ours(context) or not set(made_for) <= set(MADE_FOR_MARKS):
        return False
    ours = set(context.name.words)
    for mark in made_for:
        before, found, after = context.listing.text.partition(mark)
        if not found or not ours & set(before.split()) or not ours & set(after.split()):
            return False
    return True


def _fits_others_beside_ours(context: Context) -> str | None:
    """The word a compatible mark follows when the title names every naming word of ours (and our maker, when the
    product has a known one), and that word is none of ours (팰리세이드 in "불스원 … SUV 대형 팰리세이드 모하비
    호환"): what the product fits. None otherwise: "다이슨 V12 호환 필터" is for our product, and a title without our
    maker may be anyone's part."""
    listing = context.listing
    head = listing.text.partition(listing.compatible)[0].split()
    has_maker = bool(context.product.brand_groups or context.product.query.brand)
    if not head or (has_maker and not context.ours_named) or not _every_word_of_ours(context):
        return None
    before = head[-1]
    ours = (
        before in context.name.words
        or compact(before) in compact(context.product.query.brand or "")
        or bool(brand_groups_of([before], before) & context.product.brand_groups)
    )
    return None if ours else before


def _only_after_a_plus(words: Iterable[str], context: Context) -> bool:
    """Every one of `words` is named only after a plus, and the title names the product before it by our code or
    all our words (NE-U100 + 전용 파우치): what the plus adds, not what is sold."""
    head, plus, _ = context.listing.text.partition("+")
    return (
        bool(plus)
        and all(word not in head for word in words)
        and (_our_code_exact(context) or _every_word_of_ours(context))
    )


def _our_opening_word_there(context: Context) -> bool:
    """The product's first name word, a naming word, is in the title (in either script)."""
    words = context.name.words
    return bool(words) and is_naming(words[0]) and found_or_sized(words[0], context.listing, context.name)


def _names_maker_first(group: int, listing: Title) -> bool:
    """The title opens with the brand (its first word or two), where a maker's name stands."""
    opening = listing.words[:2]
    spelled = {compact(word) for word in opening} | {compact("".join(opening))}
    return any(compact(alias) in spelled for alias in BRAND_ALIASES[group])


def _platform_of(word: str, context: Context) -> bool:
    """ "PS5용" where the product's own name says PS5 and PS5 is another brand's line: the product is itself made
    for that platform (a PS5 SSD), so the title says of the product what its name says."""
    stem = word.removesuffix("용")
    if not stem or stem == word or stem not in context.name.words:
        return False
    lines_of = [group for group, lines in LINE_WORDS_OF.items() if stem in lines]
    spelled = context.name.brand_groups | brand_groups_of([normalise(context.product.query.brand or "")])
    return bool(lines_of) and not set(lines_of) & spelled


def _sells_something_else(context: Context, stems: list[str]) -> bool:
    """The listing names, besides "<our word>용", a thing the product lacks: that thing is what it sells."""
    stem_words = {piece for stem in stems for piece in read_title(stem.removesuffix("용")).words}
    extra = [word for word in context.unexplained if word not in stem_words]
    return any(is_naming(word) for word in extra if not word.endswith("용"))


def _our_code_exact(context: Context) -> bool:
    """The product's model code is in the title exactly (with at most a regional tail): see code_in."""
    return any(code_in(code, context.listing) == "exact" for code in context.product.codes)


def _names_a_kit(name: Title) -> bool:
    return any(word in name.compact for word in KIT_WORDS)


def _priced_as_the_product(context: Context) -> bool:
    """Our model code (or every word of our name) is there and the price is near the page's reference price (an
    accessory costs far less);
    the caller also asks that nothing marks the listing as made for the product (전용, 호환, "…용")."""
    return bool((_our_code_exact(context) or _every_word_of_ours(context)) and _priced_as_a_product(context))


def _priced_as_a_product(context: Context) -> bool:
    """The price is PRICED_AS_PRODUCT_SHARE of the page's reference price or more: not what an accessory costs."""
    price, reference = context.page_prices()
    return bool(price and reference and price >= PRICED_AS_PRODUCT_SHARE * reference)


def _every_word_of_ours(context: Context) -> bool:
    """Every naming word of the product's name is in the title (a product without a model code, named in full)."""
    core = context.name.core_words
    return bool(core) and all(found_or_sized(word, context.listing, context.name) for word in core)


class Rental(Rule):
    """A rental, subscription or contract offer (렌탈, 구독, 약정, 대여, "월 29,900원") is priced as a fee, not a
    purchase: not a price of the product, unless the product is itself a rental. Words: vocabulary/rentals.py."""

    name = "rental and contract"

    def check(self, context: Context) -> Finding:
        if context.listing.rental and not context.name.rental:
            return Reject(f"a rental or contract offer ({context.listing.rental}), priced as a fee")
        return None


class Bundle(Rule):
    """A set that adds another product (A + B 세트) or more machines (2대) than the shop asked for is not a price
    of the product; a free gift was dropped before (+케이스 증정). Words: vocabulary/bundles.py; machine counts
    are pack counts (PackCount)."""

    name = "set and bundle"

    def check(self, context: Context) -> Finding:
        if context.listing.bundle and not context.name.bundle:
            if _GIFT_SET.search(context.name.text):
                # The shop's product is itself a gift set (선물세트 3호): a "+" may list what is in it. Never sure.
                return Caution(f"a set, and the product is one: {context.listing.bundle}")
            if _SET_WORD.search(context.name.text) or _names_a_kit(context.name):
                # 태극기 가정용 게양세트 for "… 게양세트 깃대+깃봉+국기함": a product that names itself a set or kit may
                # be listed by its pieces, or sold with one more. Which one, no rule reads.
                return Doubt(f"a plus, and the product names itself a set ({context.listing.bundle})")
            added = context.listing.bundle.removeprefix("+ ")
            if added != context.listing.bundle and _names_its_pieces(added, context) and _our_own_piece(added, context):
                # 퀸+슈퍼싱글 for a family bed Q+SS: a product named with a plus of its own, and the title's plus adds
                # what the product's name holds. Never sure.
                return Caution(f"a set of what the product names itself ({context.listing.bundle})")
            if _one_of_the_options(context.listing):
                # "옵션: 본체만 / 본체+매트세트": the set is one choice of a list, the product alone another.
                return Doubt(f"a set offered as one option of several ({context.listing.bundle})")
            joined = _joined_to_its_like(added, context.listing)
            if joined:
                # 번호키+카드키 for a door lock: two of one kind, the ways a product opens or the options it comes
                # in (as 화이트+블루 is a colourway), as much as a set of two. Never sure.
                return Doubt(f"a plus between two of one kind ({joined}+{added}): options of one product, or a set")
            phrase = _added_phrase(added, context.listing) if added != context.listing.bundle else None
            if phrase is not None and _a_part_of_it(phrase):
                # 필름 + 부착키트, 청소기 + 거치대, "+ SD어댑터": a part or kit that comes with the product is listed
                # as much as sold beside it. Never sure.
                return Doubt(f"a plus adding a part or kit ({added}): included with the product, or a set")
            if phrase is not None and _names_no_product_we_know(phrase, context):
                # "양면 제사병풍 8폭 축문+화조도" for the two-sided screen: the product named in full, then a plus
                # joining words no vocabulary names as a product (its two faces, designs, a pattern's parts). A set,
                # or what the one product shows. Never sure.
                return Doubt(f"a plus adding {added}, which names no product the vocabulary knows")
            return Reject(f"a set with another product ({context.listing.bundle})")
        return None


_OPTION_LIST = re.compile(r"(?:옵션|선택|option)\s*:?[^+]*/[^/]*\+|/[^/+]*\+[^/]*$|\+[^/]*/\s*\S")
"""A plus inside a list of choices split by slashes (옵션: 단품 / 본체+매트 세트)."""


def _names_no_product_we_know(phrase: str, context: Context) -> bool:
    """The title names every naming word of ours, and what a plus adds (`phrase`, which _a_part_of_it found no
    accessory, part or kit in) is no kind of product or brand the vocabulary knows, nor a word with a digit (a count
    or a model)."""
    words = phrase.split()
    return (
        _every_word_of_ours(context)
        and bool(words)
        and not any(char.isdigit() for char in phrase)
        and not any(kind_groups_of(word) or brand_groups_of([word], word) for word in words)
    )


def _one_of_the_options(listing: Title) -> bool:
    return (
        "/" in listing.text
        and bool(_OPTION_LIST.search(listing.text))
        and bool(re.search(r"옵션|선택|option|단품|본체만|only", listing.text))
    )


def _added_phrase(added: str, listing: Title) -> str:
    """All a plus adds, up to the next plus ("+ sd 어댑터" where the bundle word read is sd)."""
    found = re.search(rf"\+\s*{re.escape(added)}[^+]*", listing.text)
    return found.group(0).removeprefix("+").strip() if found else added


def _a_part_of_it(added: str) -> bool:
    """What a plus adds is an accessory, part or kit (부착키트, 거치대, 케이스), or made for the product (전용받침대):
    what sellers list as in the box."""
    read = read_title(added)
    return bool(read.accessory_kinds or read.made_for) or any(word in compact(added) for word in KIT_WORDS)


def _joined_to_its_like(added: str, listing: Title) -> str | None:
    """The Hangul word before the plus that adds `added`, when the two end alike (번호키+카드키): else None."""
    before = re.search(rf"([가-힣]{{2,}})\s*\+\s*{re.escape(added)}", listing.text)
    if before and len(added) >= 2 and before.group(1)[-1] == added[-1] and before.group(1) != added:
        return before.group(1)
    return None


def _both_imported(ours: set[str], theirs: set[str]) -> bool:
    """One side says only "imported" and the other a foreign country: the same, said less exactly."""
    return ("imported" in ours and "korea" not in theirs) or ("imported" in theirs and "korea" not in ours)


def _names_its_pieces(word: str, context: Context) -> bool:
    """The product's name is itself a set of pieces: written with a plus (Q+SS), or saying the word comes with it
    (필터펌프 포함)."""
    text = context.product.name_as_written
    return "+" in text or bool(re.search(rf"{re.escape(word)}\s*(?:포함|구성)", text))


def _our_own_piece(word: str, context: Context) -> bool:
    """A word added after a plus sign that the product's name holds, in any spelling or script."""
    name = context.name
    written = context.product.name_as_written.split()
    return word in written or found_or_sized(word, name, context.listing) or sounds_like_one_of(word, name.words)


class OtherBrand(Rule):
    """A listing that names another brand and not ours is another maker's product; a look-alike or substitute
    (대체품, OEM, "다이슨 스타일") is not the product even when it names ours. Words: vocabulary/brands.py,
    vocabulary/lookalikes.py."""

    name = "other brand and look-alike"

    def check(self, context: Context) -> Finding:
        listing, product = context.listing, context.product
        if listing.lookalike and not context.name.lookalike:
            return Reject(f"a look-alike or substitute ({listing.lookalike})")
        styled = styled_after(listing, product)
        if styled:
            return Reject(f"a look-alike or substitute ({styled})")
        others = {
            group
            for group in listing.brand_groups - product.brand_groups
            # Braun for 브라운: the product's own word in the other script, not another maker; 쓰리엠 where the
            # product writes 3M (read as three metres there): its own maker.
            if not any(
                sounds_like_one_of(compact(alias), context.name.words) or compact(alias) in product.written
                for alias in BRAND_ALIASES[group]
            )
        }
        if others and not context.ours_named:
            said = f"brand {BRAND_ALIASES[min(others)][0]}, not {product.query.brand or 'ours'}"
            if product.named_by_code and not (product.brand_groups or product.query.brand):
                # "SM-R510" and no brand: a brand named beside our code is no other maker, for we know none. The
                # code outweighs a guess; another model's code would be OtherModel's.
                return None if _our_code_exact(context) else Doubt(said)
            if not (product.brand_groups or product.query.brand) and _our_opening_word_there(context):
                # D'Addario Rico for 리코 …: the word our name opens with (its maker, as shops name products, in
                # a brand list or not) is there too, in any script; the brand before it may be its parent company
                # or importer. Never sure.
                return Doubt(f"{said}, though the title names {context.name.words[0]} too")
            if not (product.brand_groups or product.query.brand) and not any(
                _names_maker_first(group, listing) for group in others
            ):
                # A product whose maker we do not know, and a brand word after the title's first: it may be a
                # flavour or a material (Dole 스퀴즈 애플: apple, not Apple) as much as a maker.
                return Doubt(said)
            return Reject(said)
        return None


class OtherModel(Rule):
    """Another model code of the family (SM-S918N for SM-S928N), or any other code where the product has one and
    the listing lacks it, is another model. Our code extended by one or two letters that are not a known regional
    tail (XM5 → XM5S) may be a sibling: Doubt. Words: vocabulary/codes.py."""

    name = "other model and sibling"

    def check(self, context: Context) -> Finding:
        product, listing = context.product, context.listing
        if not product.codes:
            return None
        for code in product.codes:
            quality = code_in(code, listing)
            if quality:
                context.code_found = code
                context.code_exact = quality == "exact"
                words = code_words(product)
                lacking = [
                    word for word in words if not word_found(word, listing) and not code_in(compact(word), listing)
                ]
                whole = compact(product.query.model_code or "")
                if len(words) > 1 and lacking and whole not in listing.compact and whole not in listing.raw_compact:
                    # B650-PLUS for "B650-PLUS WIFI": a word of our model code left out may be another model's.
                    return Doubt(f"the title lacks {lacking[0]} of our model code")
                tail = numbered_tail(code, listing) if quality == "exact" else None
                if tail:
                    # BKR6E-11 for BKR6E: a number written after our code names an option, a pack or another
                    # model of the line; the code alone does not say which. Never sure.
                    context.findings.append(Caution(f"a number written after our model code (-{tail})"))
                plus = _plus_after(code, listing)
                if plus:
                    # EXL110+ for EXL110, s24+ 256gb: a plus sign on the code names a Plus version as often as not.
                    context.findings.append(Caution(f"a plus sign on the model code ({plus})"))
                if quality == "extended":
                    ours = product.query.model_code or code
                    return Doubt(f"model code {ours.upper()} extended by letters: maybe a sibling model")
                if quality == "shorter":
                    ours = product.query.model_code or code
                    return Doubt(
                        f"model code shorter than {ours.upper()} (lacks its last letters): maybe another model"
                    )
                return None
        other = other_code(
            product.codes, listing, compact(product.query.product_name), frozenset(map(compact, context.name.words))
        )
        if other:
            ours = product.query.model_code or product.codes[0]
            said = f"model code {listing.codes[other].upper()}, not {ours.upper()}"
            if not of_our_family(other, product.codes):
                # A code of another shape (AX1800 for Deco X20, 200MB for SDSDXXD): another model, or a spec or
                # a part number beside ours written some way no rule reads; the LLM settles it.
                return Doubt(said)
            base = _our_base_in(other, context)
            if base:
                # GCA2100 USB for GCA2100/20: our code without its tail (a region's, a pack's), then a word or tail
                # of the title's own; another region's unit or ours with a spec glued on. Never sure.
                return Doubt(f"{said}: our {base.upper()} with another tail")
            if _our_count_in_smaller_packs(context):
                # HX9042 2개입 x 2 for the 4-pack HX9044: a family's codes may name its pack sizes, and the title's
                # packs add up to ours. Never sure.
                return Doubt(f"{said}, in packs adding up to our count: maybe a smaller pack's code")
            return Reject(said)
        return None


def _our_base_in(other: str, context: Context) -> str | None:
    """Our code as written up to its last separator (GCA2100 of GCA2100/20), when the title's other code opens with
    it; None when ours has no such tail or the base is too short to name a model."""
    for code in context.product.codes:
        written = context.name.codes.get(code) or context.product.query.model_code or ""
        parts = re.split(r"[/\s-]+", written.strip())
        base = compact("".join(parts[:-1]))
        if len(parts) > 1 and len(base) >= _SHORT_CODE and any(c.isdigit() for c in base) and other.startswith(base):
            return base
    return None


def _plus_after(code: str, listing: Title) -> str | None:
    """The title's code with a plus sign glued after it (exl110+), if any."""
    spelled = r"[-\s]?".join(map(re.escape, code))
    match = re.search(rf"(?<![0-9a-z]){spelled}\+", listing.text)
    return match.group(0) if match else None


_MULTIPLIED = re.compile(r"\d\s*[가-힣a-z]*\s*[x×*]\s*\d")
"""A count multiplied (2개입 x 2, 6병*2): packs of a smaller size."""


def _our_count_in_smaller_packs(context: Context) -> bool:
    """The title sells several packs whose units add up to the product's count (2개입 x 2 for 4개입)."""
    name, listing = context.name, context.listing
    return name.pack_count > 1 and listing.pack_count == name.pack_count and bool(_MULTIPLIED.search(listing.text))


MEASURES_APART = 100
"""Two measures of one dimension this many times apart or more measure different things (a 3.5mm jack on a 6m
cable), not two sizes of one product."""


def _orders_apart(offered: set[float], values: set[float]) -> bool:
    pairs = [(one, other) for one in offered for other in values if one > 0 and other > 0]
    return bool(pairs) and all(max(a, b) / min(a, b) >= MEASURES_APART for a, b in pairs)


_MEASURE_SHAPED_BRANDS = frozenset(
    alias for aliases in BRAND_ALIASES for alias in aliases if re.fullmatch(r"\d+(?:\.\d+)?[a-z]{1,2}", alias)
)
"""Brands written as a number and a unit's letters (3M): read as a measure as readily as a maker."""


def _brand_spelled_as_a_measure(name: Title, listing: Title) -> str | None:
    """A measure-shaped brand (3M) either side writes as a word of its own, which the measures may have read."""
    words = set(name.text.split()) | set(listing.text.split())
    return min(words & _MEASURE_SHAPED_BRANDS, default=None)


class OtherMeasure(Rule):
    """A different capacity, volume, weight, screen or servings (256GB, 500ml, 65인치, 6인용) is another product;
    the same total in smaller units, or a measure of something else entirely, is uncertain."""

    name = "other measure"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        for dimension, values in name.measures.items():
            offered = listing.measures.get(dimension)
            if dimension == "weight" and not offered:
                # "5g" reads as a network where nothing says otherwise; beside a product sold by weight it is one.
                offered = {float(word[:-1]) for word in listing.words if word in NOT_WEIGHTS} or None
            if offered and not offered & values:
                if len(values) > 1 and sum(values) in offered and re.search(r"\d\s*[a-z]*\s*\+\s*\d", name.text):
                    # 60W for 45W+15W: the ports' total, as a multi-port charger is also sold. Never sure.
                    return Caution(f"{show(offered)}, the total of {show(values)}")
                if same_total(name, listing):
                    # 5kg x 2 for 10kg: the same total in smaller units, or two products; never sure.
                    return Doubt(f"{show(offered)} x {listing.pack_count} for {show(values)}")
                if _orders_apart(offered, values):
                    # 3.5mm for a 6m cable: a jack, a thread or a part measured, not another length of the product.
                    return Doubt(f"{dimension} {show(offered)} for {show(values)}: a measure of something else")
                brand = _brand_spelled_as_a_measure(name, listing)
                if brand:
                    # 3M 포스트잇 read as 3 metres: a maker whose name is a number and a unit. Never sure.
                    return Doubt(f"{dimension} {show(offered)} for {show(values)}, and {brand} may be a brand")
                return Reject(f"different {dimension}: {show(offered)} instead of {show(values)}")
        return None


class OtherSize(Rule):
    """A different shoe, clothing, bedding or letter size (260 vs 270, M vs L, 퀸 vs 킹) is another product;
    several sizes where the product has one are a choice (Caution)."""

    name = "other size"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        for dimension, values in name.sizes.items():
            offered = listing.sizes.get(dimension)
            if offered and not offered & values:
                if dimension == "dimension" and _at_another_scale(offered, values):
                    # 120x60cm for 1200x600, 400x500cm for 4x5m: the same size in another metric unit. Never sure.
                    return Caution(f"size {'/'.join(sorted(offered))} for {'/'.join(sorted(values))}, in another unit")
                return Reject(f"different {dimension} size: {'/'.join(sorted(offered))} instead of {'/'.join(values)}")
            if offered and offered - values:
                return Caution(f"{dimension} sizes {'/'.join(sorted(offered))}: a choice")
        ours, theirs = _letter_sizes(name), _letter_sizes(listing)
        if ours and theirs and not ours & theirs:
            # XL gloves, L helmet: a letter size of anything, where both say one.
            return Reject(f"different size: {'/'.join(sorted(theirs))} instead of {'/'.join(sorted(ours))}")
        return None


class UnstatedGeneration(Rule):
    """2세대, 2nd Gen where the product names no generation: a later model, or ours written in full (uncertain)."""

    name = "generation not stated"

    def check(self, context: Context) -> Finding:
        generation = context.listing.measures.get("generation")
        if generation and "generation" not in context.name.measures:
            return Doubt(f"a generation the product does not state: {show(generation)}")
        return None


class ShortWordSwapped(Rule):
    """One short word of ours put in place of another (지퍼백 소 for 지퍼백 중, 숏 for 롱): uncertain."""

    name = "short word swapped"

    def check(self, context: Context) -> Finding:
        ours_short, theirs_short = _one_syllable_words(context.name), _one_syllable_words(context.listing)
        if ours_short - theirs_short and theirs_short - ours_short:
            swapped = f"{'/'.join(sorted(theirs_short - ours_short))} for {'/'.join(sorted(ours_short - theirs_short))}"
            return Doubt(f"one short word in place of ours: {swapped}")
        return None


class UnstatedScale(Rule):
    """A size said in words (대형, 소형) the product does not state: uncertain."""

    name = "scale not stated"

    def check(self, context: Context) -> Finding:
        scale = context.listing.sizes.get("scale")
        if scale and "scale" not in context.name.sizes:
            return Doubt(f"a size the product does not state: {'/'.join(sorted(scale))}")
        return None


class OtherModelNumber(Rule):
    """A model number of the same shape as ours (S23 for S24, 14 for 15, 265 for 270) is another model; one that
    is a piece of our own code, or a year, is uncertain."""

    name = "other model number"

    def check(self, context: Context) -> Finding:
        other = other_model_number(context.name, context.listing)
        if not other:
            return None
        said = f"different model: {other[0]} instead of {other[1]}"
        if other[0] in _pieces_of_our_code(context.product):
            # DMC 117 … 310 for 25번 자수실 with the code 117/310: the title writes our own code apart, and the
            # name's number may be a size or a grade as much as a model. Never sure.
            return Doubt(f"{said}, but {other[0]} is a piece of our model code")
        if all(_YEAR.fullmatch(number) for number in other):
            # 2025 for 2022: an edition, a model year or the year a book was printed; which one, no rule reads.
            return Doubt(f"{said} (a year)")
        if _multiplied_to(other[0], other[1], context.listing.text):
            # 6패드 x 2개 for 12패드: the number is a count or a size in smaller packs, as much as a model's. Never
            # sure.
            return Doubt(f"{said}, but {other[0]} times the title's multiplier is {other[1]}")
        return Reject(said)


_TIMES = re.compile(r"(?<![0-9.])(\d+)\s*[가-힣a-z]*\s*[x×*]\s*(\d+)(?![0-9.])")
"""A number (with a word after it or none) times a number: 6패드 x 2, 7일 x 2칸."""


def _multiplied_to(theirs: str, ours: str, text: str) -> bool:
    """The title writes `theirs` times a number that makes `ours` (6패드 x 2 for 12), wherever it begins."""
    if not (theirs.isdigit() and ours.isdigit()):
        return False
    return any(
        (match := _TIMES.match(text, start))
        and match.group(1) == theirs
        and int(theirs) * int(match.group(2)) == int(ours)
        for start in range(len(text))
    )


class OtherNumberOfOurWord(Rule):
    """A number glued to a word of our name that no vocabulary reads (12패드, 30롤 where 롤 is unknown) and the same
    word with another number in the title (1패드): another count, size or model, which no rule can name; uncertain."""

    name = "other number of our word"

    def check(self, context: Context) -> Finding:
        ours = context.product.numbered_words
        if not ours:
            return None
        theirs = _numbered_words(context.listing.plain)
        for word, numbers in ours.items():
            offered = theirs.get(word)
            if offered and not offered & numbers and not numbers & _products_written(context.listing.plain):
                return Doubt(f"{'/'.join(sorted(offered))}{word} for {'/'.join(sorted(numbers))}{word}")
        return None


_ADDED = re.compile(r"(?<![0-9.])(\d+)\s*[가-힣a-z]*\s*\+\s*(\d+)(?![0-9.])")


def _products_written(text: str) -> set[str]:
    """Each total the text writes as two numbers multiplied or added (7일 x 2칸: 14; 5+5볼: 10), as digits."""
    return {str(int(one) * int(other)) for one, other in _TIMES.findall(text)} | {
        str(int(one) + int(other)) for one, other in _ADDED.findall(text)
    }


_DATE_WORDS = frozenset({"년", "월", "일", "호", "월호", "년도", "년식"})
"""Words after a number that date an issue or a model year (24년 10월호): compared by the year rules, if at all."""


def _read_elsewhere(word: str) -> bool:
    """A word after a number that the counts, measures or sizes already read (개입, 매, 인치, 세대)."""
    return word in COUNT_UNITS or word.removesuffix("입") in COUNT_UNITS or word in MEASURE_UNITS or word in _DATE_WORDS


_NUMBERED_WORD = re.compile(r"(?<![0-9a-z.])(\d+)([가-힣]{1,3})(?![가-힣])")


def _numbered_words(text: str) -> dict[str, set[str]]:
    """Each Hangul word of one to three syllables written right after a number (12패드), with its numbers."""
    found: dict[str, set[str]] = {}
    for number, word in _NUMBERED_WORD.findall(text):
        if not _read_elsewhere(word):
            found.setdefault(word, set()).add(number)
    return found


class MeasureLeftOpen(Rule):
    """A product sold by one measure listed by another (a weight for a volume), or measures beside ours where the
    product states one: uncertain."""

    name = "measure left open"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        if name.measures and not set(name.measures) & set(listing.measures):
            other_measures = set(listing.measures) & SOLD_BY - set(name.measures)
            if other_measures and set(name.measures) & SOLD_BY:
                sold_by = ", ".join(sorted(name.measures))
                return Doubt(f"sold by {', '.join(sorted(other_measures))}, the product by {sold_by}")
        for dimension, values in name.measures.items():
            offered = listing.measures.get(dimension) or set()
            if offered - values:
                return Doubt(f"{dimension} {show(offered)} for {show(values)}")
        return None


class MeasureAndSize(RuleOfParts):
    """A different capacity, volume, weight, screen or servings (256GB, 500ml, 65인치, 6인용), a different shoe,
    clothing or bedding size (260 vs 270, M vs L, 퀸 vs 킹), or a model number of the same shape as ours (S23 for
    S24, 14 for 15) is another product. Several measures or sizes where the product has one (28cm + 24cm, 250~280)
    are a set or a choice: Caution when ours is among them. One rule of several parts, each one idea, run in order:
    the first that finds anything speaks for them all. Words: vocabulary/measures.py, vocabulary/sizes.py."""

    name = "measure and size"
    parts: tuple[Rule, ...] = (
        OtherMeasure(),
        OtherSize(),
        UnstatedGeneration(),
        ShortWordSwapped(),
        UnstatedScale(),
        OtherModelNumber(),
        OtherNumberOfOurWord(),
        MeasureLeftOpen(),
    )


def _pieces_of_our_code(product: Product) -> set[str]:
    """The letters-and-digits pieces of the shop's model code (117 and 310 of 117/310)."""
    return set(re.findall(r"[0-9a-z]+", normalise(product.query.model_code or "")))


class PackCount(Rule):
    """Another number of units (5개입 vs 40개, 1+1 = 2, 2대) is another product; counts agree by arithmetic
    (30개 = 30개입 = x 30, 5개입 x 8 = 40) and a listing stating none sells one. Words: vocabulary/counts.py."""

    name = "pack count"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        if not name.counted and listing.pack_count >= YIELD_COUNT:
            # "1,000매" on a toner the shop names without a count: a yield or a sheet count, not 1,000 units.
            return Doubt(f"a count of {listing.pack_count} where the product states none")
        if (name.bare_count or listing.bare_count) and name.pack_count != listing.pack_count:
            # "+2x100", "3x150 100개입" may hold a size (#2 x 100mm, a tie 3 by 150) as well as a count: no counter
            # word says which.
            bare = listing if listing.bare_count else name
            return Doubt(f"a count of {bare.pack_count} read from a bare multiplication")
        if same_total(name, listing):
            return Doubt(f"{listing.pack_count} smaller units for the product's one")
        if name.counted and name.pack_count > 1 and not listing.counted:
            # The title states no count: one unit, or the count written where no counter shows it (EB50-4).
            return Doubt(f"no count stated where the product has {name.pack_count}")
        if not name.counted and listing.pack_count > 1 and not _MACHINES.search(listing.text):
            # The shop states no count: its product may be a pair or a box (poles 2pcs, nail tips 30P), or one;
            # two machines (2대) are two, whatever the shop states (SPEC §4.3: a set of two units).
            return Doubt(f"a count of {listing.pack_count} where the product states none")
        if name.pack_count != listing.pack_count:
            shared = _p_numbers(name) & _p_numbers(listing)
            if any(_same_but_for(number, name.pack_count, listing.pack_count) for number in shared):
                # 실루엣 41P 10개 for 실루엣 41/P 10개: a number both titles write beside a P may be the model's
                # (a hanger's width) or a count; read one way the counts agree.
                return Doubt(f"a count of {listing.pack_count} that may hold a model's number beside a P")
            if _MULTIPLIED.search(listing.text) and _PLUS_AFTER_A_COUNT.search(listing.text):
                # 20T x 2개 + 10T for 50개입: packs multiplied, then more added; read as one product of every count,
                # a sum is misread. Never sure.
                return Doubt(f"a count of {listing.pack_count} read from packs multiplied and added")
            unread = _our_count_beside_an_unread_word(name.pack_count, listing.text)
            if unread:
                # "12 picks" for 12개: our count, with a counter no vocabulary reads (the product's own noun). Never
                # surely another count.
                return Doubt(f"our count {name.pack_count} written beside {unread}, a word no counter reads")
            return Reject(f"different pack count: {listing.pack_count} instead of {name.pack_count}")
        return None


_PLUS_AFTER_A_COUNT = re.compile(r"\d\s*[가-힣a-z]*\s*\+\s*\d")
"""A count with a plus and another number after it (2개 + 10T): units added to the packs before."""


def _our_count_beside_an_unread_word(count: int, text: str) -> str | None:
    """The word after our count (picks of "12 picks") when the title writes our count, not as a piece of a code
    (HT-24), before a word that is no counter or unit the vocabulary reads; None when it does not."""
    if count <= 1:
        return None
    for match in re.finditer(rf"(?<![0-9a-z./-]){count}\s*([a-z가-힣]+)", text):
        word = match.group(1)
        if word not in _COUNTERS_AND_UNITS and not any(word.startswith(unit) for unit in COUNT_UNITS if len(unit) > 1):
            return word
    return None


_P_NUMBER = re.compile(r"(?<![0-9a-z.])(\d+)\s*/?\s*p(?![0-9a-z])")


def _p_numbers(title: Title) -> set[int]:
    """Numbers a title writes beside a P (41P, 42/P): a count of pieces, or a model's number."""
    return {int(number) for number in _P_NUMBER.findall(title.text) if int(number) > 1}


def _same_but_for(number: int, ours: int, theirs: int) -> bool:
    """The two counts agree once `number` is taken out of one or both."""
    ours_out = ours // number if ours % number == 0 else ours
    theirs_out = theirs // number if theirs % number == 0 else theirs
    return ours_out in (theirs, theirs_out) or theirs_out == ours


class SoldWithout(Rule):
    """A title saying it comes without a part the product names (헤드레스트 미포함 for a chair 헤드레스트형) is
    another product. Words: search/titles.py (미포함, 불포함, 별매, 제외: a title's left_out)."""

    name = "sold without"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        without = [
            word
            for word in name.words
            if any(word.startswith(left) for left in listing.left_out - name.left_out)  # 광고없음 of an ad-free model
        ]
        if without:
            # 헤드레스트 미포함 for a chair 헤드레스트형: the title says it comes without a part the product names.
            return Reject(f"sold without {without[0]}, which the product has")
        return None


class Variant(Rule):
    """A different variant (Pro, Max, mini, FE …) said by one side and not the other is another product; the
    one the title lacks, a "+" read as Plus or a doubtful variant is uncertain. Words: vocabulary/variants.py."""

    name = "variant"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        # What the title says before what it lacks: a word said is stronger evidence than one left out.
        for variant in sorted(listing.variants ^ name.variants, key=lambda word: (word not in listing.variants, word)):
            if variant in ONE_SIDED_VARIANTS and variant not in listing.variants:
                continue
            says = variant in listing.variants
            if says and _only_inside_our_kind(variant, listing, context.product):
                # 미니냉장고 for a 소형냉장고: the kind's own name, said more exactly, not the Mini variant.
                continue
            if glued_in(variant, name if says else listing):
                # 프로스태프 for Pro Staff: the variant's word is glued inside a word of the other side.
                continue
            return _variant_finding(context, variant, says)
        return None


def _variant_finding(context: Context, variant: str, says: bool) -> Finding:
    """What one variant word said by one side only is worth, given whether our model code is in the title."""
    side = "the title says" if says else "the title lacks"
    if context.code_found:
        if context.product.named_by_code and context.code_exact:
            # "SM-R510" alone: the name says no variant, so the title's 프로 describes our model. Never sure.
            return Caution(f"{side} {variant}, where the product is named by its code alone")
        # Our model code is there: a variant word the title leaves out may be a platform name (20V MAX).
        if says or variant in code_words(context.product):
            # A variant word of our own model code (Archer T3U Plus) missing: another model's code.
            return Doubt(f"different variant: {side} {variant}")
        return Caution(f"{side} {variant}")
    if not says or _read_from_a_sign(variant, context.listing) or variant in DOUBTFUL_VARIANTS:
        # Absence is weaker evidence than presence: sellers leave words out (듀얼드라이브 럭스 for Ultra
        # Dual Drive Luxe), and a "+" after a name may be the line's own mark (Endurance+). Never sure.
        return Doubt(f"different variant: {side} {variant}")
    return Reject(f"different variant: {side} {variant}")


class Colour(Rule):
    """A colour where both name one and none is shared is another product. Words: vocabulary/colours.py."""

    name = "colour"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        if name.colours and listing.colours and not name.colours & listing.colours:
            return Reject(f"different colour: {', '.join(sorted(listing.colours))}")
        return None


class Material(Rule):
    """Another material where both name one (스웨이드 for 가죽) is likely another product, unless the material
    names a part (a steel frame of a wooden desk): uncertain. Words: vocabulary/materials.py."""

    name = "material"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        ours_made_of = {MATERIAL_OF[word] for word in name.words if word in MATERIAL_OF}
        theirs_made_of = {MATERIAL_OF[word] for word in listing.words if word in MATERIAL_OF}
        if ours_made_of and theirs_made_of and not ours_made_of & theirs_made_of:
            return Doubt(
                f"made of {', '.join(sorted(theirs_made_of))}, the product of {', '.join(sorted(ours_made_of))}"
            )
        return None


class Opposite(Rule):
    """A word opposite to the product's (냉동 for 냉장, 여성 for 남성) is another product. Words:
    vocabulary/variants.py (OPPOSITES)."""

    name = "opposite"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        ours_said, theirs_said = _said(name), _said(listing)
        for one, other in (*OPPOSITES, *((b, a) for a, b in OPPOSITES)):
            if one in ours_said and other in theirs_said and other not in name.words:
                return Reject(f"{other} where the product is {one}")
        return None


def _said(title: Title) -> set[str]:
    """A title's words, and each "<word>용" (for whom or what: 성인용, 여성용) as its <word> too."""
    words = {*title.text.split(), *title.words}
    return words | {word.removesuffix("용") for word in words if len(word) > 2}


class Origin(Rule):
    """Another origin where both name one (중국산 양파 for 국내산 양파) is another product, at another price; "imported"
    against a foreign country is the same said less exactly. Words: vocabulary/origins.py."""

    name = "origin"

    def check(self, context: Context) -> Finding:
        ours, theirs = context.name.origins, context.listing.origins
        if ours and theirs and not ours & theirs and not _both_imported(ours, theirs):
            return Reject(
                f"grown or made elsewhere: {', '.join(sorted(theirs))} where the product is {', '.join(sorted(ours))}"
            )
        return None


class Network(Rule):
    """Another connection where both name one (a Wi-Fi tablet for its 5G sibling) is another product. Words:
    vocabulary/variants.py (NETWORKS)."""

    name = "network"

    def check(self, context: Context) -> Finding:
        ours, theirs = networks(context.name), networks(context.listing)
        if ours and theirs and not ours & theirs:
            return Reject(f"another connection: {', '.join(sorted(theirs))} instead of {', '.join(sorted(ours))}")
        return None


class Shade(Rule):
    """One shade put in place of the product's (다크 스톤워시 for 미디엄 스톤워시) is likely another product:
    uncertain. Words: vocabulary/colours.py (COLOUR_QUALIFIERS)."""

    name = "shade"

    def check(self, context: Context) -> Finding:
        shades_ours = set(context.name.words) & COLOUR_QUALIFIERS
        shades_theirs = set(context.listing.words) & COLOUR_QUALIFIERS
        added = {shade for shade in shades_theirs - shades_ours if not sounds_like_one_of(shade, list(shades_ours))}
        dropped = {shade for shade in shades_ours - shades_theirs if not sounds_like_one_of(shade, list(shades_theirs))}
        if added and dropped:
            return Doubt(f"another shade: {', '.join(sorted(added))} for {', '.join(sorted(dropped))}")
        return None


class ExtraLine(Rule):
    """An extra flavour or line the product does not name (라임, 흑미, 디지털) is another product; whom it is for,
    what the product may be without, or a line read from inside a longer word is uncertain. Words:
    vocabulary/variants.py (LINE_WORDS, AUDIENCE_LINES, ABSENCE_LINES), vocabulary/spellings.py (IMPLIED_BY)."""

    name = "extra line"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        extra_lines = _extra_lines(context)
        if extra_lines and extra_lines <= AUDIENCE_LINES and not name.lines & AUDIENCE_LINES:
            # 키즈 for a kids' skate the shop did not call so: whom it is for may be said of the product itself.
            return Doubt(f"for {', '.join(sorted(extra_lines))}, which the product does not say")
        if not extra_lines:
            return None
        said = f"another flavour or line: {', '.join(sorted(extra_lines))}"
        if extra_lines <= ABSENCE_LINES:
            # 무향 for a hand cream whose name states no scent: it may be the one made without.
            return Doubt(f"{said} (what the product may be without)")
        if extra_lines <= DESCRIPTIVE_LINES:
            # 슬림 for a 5cm tie: a word of how the product looks may say so of the product itself.
            return Doubt(f"{said} (or a word describing the product)")
        if context.code_found or not any(_stands_alone(line, listing, context.product) for line in extra_lines):
            # Our model code outweighs a line word (YES-031 디지털 금고), even with letters after it (DW-5600E-1VDF
            # 오리진: the maker's name for the family the code is of), and one read from inside a longer word
            # (파인디지털, 디지털도어락) may be a maker's or a kind's name: the LLM settles it.
            return Doubt(said)
        return Reject(said)


def _extra_lines(context: Context) -> set[str]:
    """The title's lines the product does not name, less those its own words or kinds explain."""
    name, listing = context.name, context.listing
    return {
        line
        for line in listing.lines - name.lines
        if not part_of_a_word(line, listing, name)
        # 라이트 스탠다드 for 라이트스탠다드: our own word written apart; 라임그린 is a colour, not lime.
        and not inside_our_word(line, listing, context.product)
        and not glued_to_a_colour(line, listing)
        # 귀리 오트밀 for an 오트밀, 잡곡 for a 곤약쌀: a kind word of the product's own kind, not a line of it; 허니
        # for a 꿀: the kind's name as a loanword (honey).
        and not kind_groups_of(line) & _own_kind_groups(context.product)
        and not _read_as_our_kind(line, context.product)
        # 무알콜 for a zero beer: what the product's own word already says.
        and IMPLIED_BY.get(line) not in name.words
    }


class ColourLeftOpen(Rule):
    """A shade named in place of our colour (네온 where the product is black), or other colours offered beside
    ours, leave the colour open: uncertain. Words: vocabulary/colours.py."""

    name = "colour left open"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        shades = set(listing.words) & COLOUR_QUALIFIERS - set(name.words)
        if name.colours and not listing.colours and shades:
            return Doubt(f"{'/'.join(sorted(shades))} where the product is {'/'.join(sorted(name.colours))}")
        if name.colours and listing.colours - name.colours:
            return Doubt(f"colours {', '.join(sorted(listing.colours))} for {', '.join(sorted(name.colours))}")
        if listing.colours and not name.colours and context.code_found:
            missing = _naming_words_left_out(context)
            if missing:
                # FFAS1401 무광블랙 where the product says FFAS1401 크롬, 1106872 블랙 where it says 체스트넛: a word of
                # ours left out where a title our code matches names a colour may be our colour or finish, which
                # vocabulary does not know as one (a code is often shared by a model's finishes). Never sure.
                return Doubt(f"colour {', '.join(sorted(listing.colours))} where the product says {' '.join(missing)}")
        return None


def _naming_words_left_out(context: Context) -> list[str]:
    """The word the product's name ends with (numbers and sizes after it aside), when it names no kind of product
    and the title leaves it out, and the name states its model code before it or the shop gave the code apart
    (FFAS1401 크롬; 스커페트 2 … 체스트넛 240 for 1106872; not QX200 전기면도기): the model's variant, written last."""
    name, listing = context.name, context.listing
    words = name.words
    naming = [index for index, word in enumerate(words) if is_naming(word)]
    if not naming:
        return []
    last = words[naming[-1]]
    at = [index for index, word in enumerate(words) if compact(word) in context.product.codes]
    if not (at and at[-1] < naming[-1]) and not context.product.query.model_code:
        return []
    if any(compact(last) in code for code in context.product.codes):
        return []  # GLL of GLL 3-80: a piece of our code, which the title matched
    if kind_groups_of(last) or _may_be_left_out(last) or found_or_sized(last, listing, name):
        return []
    return [last]


class VariantAndLine(RuleOfParts):
    """A different variant (Pro, Max, mini, FE …), colour where both name one, origin where both name one (중국산
    for 국내산), or an extra flavour or line (라임, 흑미, 디지털) is another product; other colours offered beside
    ours are a choice. One rule of several parts, each one idea, run in order: the first that finds anything
    speaks for them all (a variant's Doubt is not followed by a colour's Reject). Words: vocabulary/variants.py,
    vocabulary/colours.py, vocabulary/origins.py, vocabulary/materials.py."""

    name = "variant and line"
    parts: tuple[Rule, ...] = (
        SoldWithout(),
        Variant(),
        Colour(),
        Material(),
        Opposite(),
        Origin(),
        Network(),
        Shade(),
        ExtraLine(),
        ColourLeftOpen(),
    )


def _read_as_our_kind(word: str, product: Product) -> bool:
    """`word` read with its vowels is a kind word of the product's in the other script (허니 and honey: oni). The
    product's kinds count those of a one-syllable kind a word of its name ends with (마누카꿀: 꿀, honey), which
    kind_groups_of leaves unread (군밤 is no 밤 to every rule)."""
    reading = vowel_reading(word)
    if len(reading) < MIN_READING:
        return False
    return any(
        kind.isascii() != word.isascii() and vowel_reading(kind) == reading
        for group in _own_kind_groups(product)
        for kind in KIND_GROUPS[group]
    )


def _own_kind_groups(product: Product) -> set[str]:
    """The product's kind groups, with those of a one-syllable kind a word of its name ends with (마누카꿀: 꿀,
    곤약쌀: 쌀), which kind_groups_of leaves unread (군밤 is no 밤 to every rule)."""
    groups = set(product.kind_groups)
    for name_word in product.title.words:
        if len(name_word) >= 2 and not name_word.isascii():
            groups |= KIND_GROUP_OF.get(name_word[-1], frozenset())
    return groups


class OtherKindWord(Rule):
    """A kind word of another group than the product's (궁중팬 for 프라이팬): likely another product."""

    name = "another kind of product"

    def check(self, context: Context) -> Finding:
        product, listing = context.product, context.listing
        if not product.kind_groups:
            return None
        other_kinds = [
            word
            for position, word in enumerate(listing.words)
            if kind_groups_of(word)
            and not kind_groups_of(word) & product.kind_groups
            and not word_found(word, context.name)
            # 쿠션 커버 for 쿠션커버: with its neighbour it is the product's own kind word.
            and not part_of_a_name(listing.words, position, product)
            and not inside_our_word(word, listing, product)
            # 캡슐 커피머신 for a coffee machine: a kind word right before ours says which kind of ours it is.
            and not _before_our_kind(listing.words, position, product)
        ]
        return Doubt(f"another kind of product: {other_kinds[0]}") if other_kinds else None


class KindWordInsideName(Rule):
    """A drink or food named by its brand and line alone: a kind word set inside the name (아몬드브리즈 프로틴
    언스위트) names another line of it."""

    name = "a kind word inside the name"

    def check(self, context: Context) -> Finding:
        product, words = context.product, context.listing.words
        if product.kind_groups or not product.sold_by_measure:
            return None
        inside = [
            word
            for position, word in enumerate(words[1:-1], start=1)
            if word in KIND_WORDS
            and not word_found(word, context.name)
            and all(naming_word_of(words[position + step], product) for step in (-1, 1))
        ]
        return Doubt(f"a kind word inside the name: {inside[0]}") if inside else None


class LetterBesideName(Rule):
    """One Latin letter or a small number beside the name names a variant or a successor (Chrome Soft X, 스위치
    2); a letter glued to a Hangul word names a type or a part (C타입, S펜) and says nothing of the model."""

    name = "a letter beside the name"

    def check(self, context: Context) -> Finding:
        product, listing = context.product, context.listing
        letters = [
            word
            for position, word in enumerate(listing.words)
            if word.isascii()
            and len(word) == 1
            and word not in context.name.words
            # S, M, L read as a size where the title is a garment's; elsewhere a variant letter (I/O MAG S).
            and not any(size_word(word) in values for values in listing.sizes.values())
            and not part_of_a_name(listing.words, position, product)
            and beside_name(word, product, listing)
            and not re.search(rf"(?<![0-9a-z]){word}(?=[가-힣]|-?type)", listing.plain)
        ]
        return Doubt(f"a letter or number beside the name: {' '.join(letters[:3])}") if letters else None


class UnexplainedWords(Rule):
    """A word the product does not have and that is no known harmless mark is a Caution; a Doubt when it is
    likely to name another product: of our code's shape, glued to a word of the name, a naming word beside the
    name, or any naming word where the product is sold by weight or volume."""

    name = "words the product lacks"

    def check(self, context: Context) -> Finding:
        product, listing = context.product, context.listing
        extra = context.unexplained
        if not extra:
            return None
        # SL1K for SL1M: a word of our code's exact shape, even one too short to be read as a code on its own.
        codes = [
            word
            for word in extra
            if (code_shaped(word) or (is_code_like(word) and len(word) >= _SHORT_CODE))
            and any(shape(word) == shape(c) for c in product.codes)
        ]
        if codes:
            return Doubt(f"another model code of our code's shape: {codes[0]} (a set or a choice)")
        if context.code_exact and (product.query.model_code or product.named_by_code):
            # The shop's exact model code names the product; a word it does not explain then more likely describes
            # it (풀오토 턴테이블, 스탠드형, 공인구) than names another one, which has a code of its own. Never sure.
            return Caution(f"words the product lacks: {' '.join(extra[:3])}")
        glued = [word for word in extra if glued_to_name(word, product)]
        if glued:
            return Doubt(f"a word glued to the name: {glued[0]}")
        naming = [word for word in extra if is_naming(word) and not word.isascii()]
        naming += [word for word in extra if word.isascii() and word.isalpha() and len(word) <= 3]
        beside = [word for word in naming if beside_name(word, product, listing) and not before_a_colour(word, listing)]
        if beside:
            return Doubt(f"a word beside the name: {' '.join(beside[:3])}")
        if naming and product.sold_by_measure:
            return Doubt(f"words the product lacks: {' '.join(naming[:3])}")
        naming = [word for word in naming if not word.isascii()]
        if naming and context.name.colours and not listing.colours:
            # The product names its colour, the title none and a word the product lacks: likely another colour
            # (미네랄 for 그라파이트) no colour list holds.
            return Doubt(f"no colour of ours, and words the product lacks: {' '.join(naming[:3])}")
        return Caution(f"words the product lacks: {' '.join(extra[:3])}")


class ExtraWords(RuleOfParts):
    """What a listing says beyond the product is evidence, never noise (SPEC §4 step 3). A word the product does
    not have and that is no known harmless mark (seller tags, shipping, 정품/국내정발, notices, plain descriptors,
    the product's own kind words: vocabulary/harmless.py, vocabulary/categories.py) is a Caution: a "same"
    verdict is not sure with it. It is a Doubt when it is likely to name another product: glued to a word of the
    product's name (김치왕교자 for 왕교자), a kind word of another group (궁중팬 for 프라이팬), or any naming word
    where the product is sold by weight or volume (a flavour, scent or line no list names: 초코파이 쿠키앤크림).
    One rule of several parts, each one idea, run in order: the first that finds anything speaks for them all."""

    name = "unexplained extra words"
    parts: tuple[Rule, ...] = (OtherKindWord(), KindWordInsideName(), LetterBesideName(), UnexplainedWords())


class ListedExtras(Rule):
    """A title matched by our code that lists what comes with it (+ 어댑터 포함 세트, + 케이스 증정) sells the
    product with its box, a gift, or a set with something more: which one, the price may tell; never sure."""

    name = "listed extras"

    def check(self, context: Context) -> Finding:
        extras = context.listing.extras
        if context.code_found and extras and not context.name.extras:
            return Caution(f"the title lists what comes with it ({extras[:30]})")
        return None


class PricePlausibility(Rule):
    """A candidate far below the page's reference price (FAR_BELOW_SHARE of it) is not believed on words alone:
    Doubt. The reference is the lower of the shop's own price, when sent, and the median price of the page's
    strong matches (search.judge.judge_by_rules computes it from the whole candidate list of the round)."""

    name = "price plausibility"

    def check(self, context: Context) -> Finding:
        price, reference = context.page_prices()
        if price is None or not reference:
            return None
        if price < FAR_BELOW_SHARE * reference:
            return Doubt(f"price {price:,}원 is under half of the page's {reference:,}원")
        return None


class Identity(Rule):
    """The product's model code in the listing, or every naming word of the product (in any script) with the
    brand named or implied, makes it the same product; a title about something else (few of our words) is not.
    Returns None when it is the product: judge_context reads code_found and the other findings to say how sure."""

    name = "identity"

    def check(self, context: Context) -> Finding:
        product, listing, name = context.product, context.listing, context.name
        if context.code_found:
            return _code_but_words_left_out(context)
        core = name.core_words
        missing = [word for word in core if not found_or_sized(word, listing, name)]
        found = len(core) - len(missing)
        share = found / len(core) if core else 0.0
        said = f"{found} of {len(core)} name words in the title"
        if core and share < UNRELATED_SHARE and not context.ours_named and not overlaps(core, listing):
            if not other_script_may_say(missing, listing) and not spelled_near(missing, listing):
                return Reject(said)
            # 믹스넛 for Mixed Nuts, 빠르펭 for Parfum: the title may say our words in the other script, in a
            # spelling no sound key reads, or in another spelling of one script (샤인머스켓 for 샤인머스캣); the
            # LLM settles it.
            return Doubt(f"{said}; the title may say them in the other script")
        # A kind word of the product's own group (홈캠 for 홈카메라, 이소가스 for 이소부탄가스) names the same kind.
        own_kinds = [word for word in listing.words if kind_groups_of(word) & product.kind_groups]
        other_kinds = [
            word
            for word in listing.words
            if word in KIND_WORDS and not word_found(word, name) and word not in own_kinds
        ]
        replaced = [
            (ours, theirs)
            for ours in missing
            for theirs in own_kinds
            if ours in KIND_GROUP_OF
            and not KIND_GROUP_OF[ours] & kind_groups_of(theirs)
            # Garments only: there a kind names the cut (a vest, a jacket); elsewhere a product names several
            # kinds of one thing (헤어 드라이어, 정품 필터 for an air purifier's filter).
            and KIND_GROUP_OF[ours] | kind_groups_of(theirs) <= GARMENT_GROUPS
        ]
        if replaced:
            # 자켓 where the product says 패딩 베스트: a kind word of the product's other group put in place of ours.
            ours, theirs = replaced[0]
            return Doubt(f"{theirs} where the product is a {ours}")
        if own_kinds:
            missing = [word for word in missing if not KIND_GROUP_OF.get(word, frozenset()) & product.kind_groups]
            found = len(core) - len(missing)
            said = f"{found} of {len(core)} name words in the title"
        ours = code_words(product)
        our_words = {compact(word) for word in name.words}
        theirs = [word for word in listing.words if code_shaped(word) and compact(word) not in our_words]
        # Only where the title names the product by a word of its own beyond its brand and kind (소니 헤드폰
        # alone may be any of Sony's headphones: the code is all that tells them apart).
        naming = [word for word in core if word not in missing and word not in _CAN_BE_LEFT_OUT and word not in ours]
        if ours and set(missing) & ours and naming and not theirs:
            # The shop's model code left out of a title that names everything else (HP 680 잉크 for F6V27AA): sellers
            # often leave it out; another model's code would have been another model (OtherModel). Never sure.
            missing = [word for word in missing if word not in ours]
            context.findings.append(Caution(f"the title gives no model code ({product.query.model_code})"))
        if not [word for word in core if not _may_be_left_out(word)]:
            # A product named by nothing but its brand, kind, size and count (제주삼다수 2L 12개, 새틴 리본끈 25mm)
            # says no line: a title that names one (그린 무라벨, 스파클링, 오간디) may be another product of the
            # brand or another kind of its kind.
            unexplained = set(context.unexplained)
            named = [
                word
                for word in listing.core_words
                if word in unexplained  # no kind word, harmless mark or default line: those are explained
                and word not in SCALE_SIZES  # 중형 for 중: a size, which MeasureAndSize reads
                and not shop_name(word)
            ]
            if named:
                return Doubt(f"the product names only its brand and size; the title adds {' '.join(named[:3])}")
        if missing and (other_kinds or not all(_may_be_left_out(word) for word in missing) or found == 0):
            return Doubt(f"{said}, missing {' '.join(missing[:3])}")
        if missing:
            named = [word for word in context.unexplained if is_naming(word) and not word.isascii()]
            if named:
                # 버츄오 넥스트 for 버츄오 팝: a word of ours left out and a naming word of its own in the title: likely
                # another line in place of ours, as much as a word sellers drop.
                return Doubt(f"{named[0]} where the product says {missing[0]}")
        if product.brand_in_name and not context.ours_named and not (product.brand_groups & listing.line_brands):
            return Doubt(f"{said}, brand {product.query.brand or 'of the product'} not named")
        return None


def _code_but_words_left_out(context: Context) -> Finding:
    """A code read from the product's name (the shop gave none) in a title that leaves out words naming the product
    beyond its code, kind and marks (59FIFTY 베이직 for 59FIFTY 어센틱 온필드): a code in a name may be a line's,
    shared by its siblings; never sure. A code the shop gives names its one model, which titles often name by it
    alone."""
    if context.product.query.model_code:
        return None
    name, listing = context.name, context.listing
    ours = code_words(context.product)
    missing = [
        word
        for word in name.core_words
        if word not in ours
        and not code_shaped(word)
        and not _may_be_left_out(word)
        and not found_or_sized(word, listing, name)
    ]
    if missing:
        return Caution(f"the title leaves out {' '.join(missing[:3])}")
    return None


def _unconfirmed(context: Context) -> str | None:
    """A size or measure the product states and the title does not: the first one's name, or None."""
    name, listing = context.name, context.listing
    for dimension in name.measures:
        if dimension not in listing.measures:
            return dimension
    for dimension in name.sizes:
        if dimension not in listing.sizes:
            return f"{dimension} size"
    if _letter_sizes(name) and not _letter_sizes(listing):
        return "size"
    return None


def _may_be_left_out(word: str) -> bool:
    """A word a genuine title may leave out: a kind word, a harmless mark, a default line, a maker's stem, or a
    compound ending in a kind word (엔진오일 ends in 오일, 헤어왁스 in 왁스: the kind, said more exactly)."""
    if word in _CAN_BE_LEFT_OUT or maker_stem(word):
        # 동아제약 left out of 박카스F 120ml: the maker, whose line the title names.
        return True
    return bool(kind_groups_of(word))


def _stands_alone(word: str, listing: Title, product: Product) -> bool:
    """The title writes `word` as a word of its own, or glued to a word of our name (말차초코파이): not only inside
    some other longer word (파인디지털, 디지털도어락)."""
    spellings = listing.spellings.get(word, set()) | {word}
    ours = [compact(word) for word in product.title.core_words if len(word) >= 2]
    for token in re.findall(r"[0-9a-z가-힣]+", listing.plain):
        if token in spellings:
            return True
        if any(spelled in token for spelled in spellings) and any(our in token for our in ours):
            return True
    return False


def _before_our_kind(words: list[str], position: int, product: Product) -> bool:
    """The word at `position` stands right before a kind word of the product's own group."""
    following = words[position + 1] if position + 1 < len(words) else ""
    return bool(KIND_GROUP_OF.get(following, frozenset()) & product.kind_groups)


def _one_syllable_words(title: Title) -> set[str]:
    """The one-syllable Hangul words of a title that are no count or unit (소, 중, 대, 롱): sizes, cuts."""
    return {word for word in title.words if len(word) == 1 and "가" <= word <= "힣" and word not in _COUNT_WORDS}


def _only_inside_our_kind(variant: str, listing: Title, product: Product) -> bool:
    """The title writes `variant` only inside kind words of the product's own kind (미니냉장고), never alone."""
    spellings = variant_spellings(variant)
    holders = [word for word in listing.text.split() if any(spelling in word for spelling in spellings)]
    return bool(holders) and all(
        word not in spellings and kind_groups_of(word) & product.kind_groups for word in holders
    )


_METRIC_STEPS = (10, 100, 1000)
"""How far apart one length is in two metric units: mm and cm, cm and m, mm and m."""


def _at_another_scale(offered: set[str], values: set[str]) -> bool:
    """One of the title's dimensions is one of the product's in another metric unit, every side by the same step
    (120by60 and 1200by600: cm and mm; 400by500 and 4by5: cm and m)."""

    def sides(word: str) -> list[float]:
        return [float(side) for side in word.split("by")]

    def scaled(theirs: list[float], ours: list[float], step: int) -> bool:
        return all(math.isclose(a * step, b) for a, b in zip(theirs, ours, strict=True)) or all(
            math.isclose(b * step, a) for a, b in zip(theirs, ours, strict=True)
        )

    return any(
        len(sides(theirs)) == len(sides(ours))
        and any(scaled(sides(theirs), sides(ours), step) for step in _METRIC_STEPS)
        for theirs in offered
        for ours in values
    )


def _read_from_a_sign(variant: str, listing: Title) -> bool:
    """The title's Plus comes from a "+" sign alone, not from the word (plus, 플러스) written out."""
    return variant == "plus" and not re.search(r"plus|플러스", listing.plain)


def _letter_sizes(title: Title) -> set[str]:
    """The letter sizes a title states as words of their own (S, M, L, XL, 2XL), read the same on any product."""
    return {CLOTHING_SIZES[word] for word in title.words if word in CLOTHING_SIZES and not word.isdigit()}


RULES: tuple[Rule, ...] = (
    Condition(),
    MadeFor(),
    Rental(),
    Bundle(),
    OtherBrand(),
    OtherModel(),
    MeasureAndSize(),
    PackCount(),
    VariantAndLine(),
    ExtraWords(),
    ListedExtras(),
    PricePlausibility(),
    Identity(),
)
"""The rules in the order they run: what a listing *is* (condition, accessory, rental, set, maker) before which
model, measure, count and line it is, then what it says beyond the product, its price, and last its identity."""


@dataclass(frozen=True)
class RuleVerdict:
    """The rules' word on one listing: same or not, whether they are sure, and why."""

    same: bool
    sure: bool
    uncertain: bool
    reason: str
    strong: bool = False
    """A match with nothing against it but its price unknown: counted into the page's reference price."""


@dataclass(frozen=True)
class PricedFrom:
    """The rules' state just before the first rule that read the price ran: its place in RULES, how many findings
    the rules before it had made, and the code OtherModel had found by then."""

    position: int
    findings: int
    code_found: str | None
    code_exact: bool


def judge_context(context: Context, start: int = 0) -> RuleVerdict:
    """Run RULES in order (from `start`) over one listing: the first Reject decides; Doubts make it uncertain; a
    model code match with no Doubt or Caution is sure; a word match is "same" but never sure."""
    for position in range(start, len(RULES)):
        before = (len(context.findings), context.code_found, context.code_exact)
        finding = RULES[position].check(context)
        if context.price_read and context.priced_from is None:
            context.priced_from = PricedFrom(position, *before)
        if isinstance(finding, Reject):
            return RuleVerdict(False, True, False, finding.reason)
        if finding is not None:
            context.findings.append(finding)
    doubts = [finding.reason for finding in context.findings if isinstance(finding, Doubt)]
    cautions = [finding.reason for finding in context.findings if isinstance(finding, Caution)]
    if doubts:
        return RuleVerdict(False, False, True, f"uncertain: {'; '.join(doubts[:2])}")
    if context.code_found:
        ours = (context.product.query.model_code or context.code_found).upper()
        if cautions:
            return RuleVerdict(True, False, False, f"model code {ours} matches, but {'; '.join(cautions[:2])}")
        unsaid = _unconfirmed(context)
        if unsaid:
            # Silence is no confirmation: a title that does not state our size or measure may sell any of them.
            return RuleVerdict(
                True, False, False, f"model code {ours} matches, but the title states no {unsaid}", strong=True
            )
        return RuleVerdict(True, context.code_exact, False, f"model code {ours} matches", strong=True)
    core = context.name.core_words
    found = sum(word_found(word, context.listing, context.name.spellings.get(word, set())) for word in core)
    said = f"{found} of {len(core)} name words in the title"
    if cautions:
        return RuleVerdict(True, False, False, f"{said}, but {'; '.join(cautions[:2])}")
    return RuleVerdict(True, False, False, said, strong=True)


def judge_priced(first: Context, first_verdict: RuleVerdict, price: int | None, reference: int | None) -> RuleVerdict:
    """The listing judged again with its price and the page's reference price, after a first pass without them.

    The rules are functions of what they read: those that ran before any rule read the price say the same again,
    so the second pass resumes where the first read it (first.priced_from), with the findings and code the rules
    before it made; when no rule read it, the first verdict stands. The same verdict as judging from the start."""
    resume = first.priced_from
    if resume is None:
        return first_verdict
    again = Context(
        first.product,
        first.listing,
        price=price,
        reference_price=reference,
        code_found=resume.code_found,
        code_exact=resume.code_exact,
        findings=first.findings[: resume.findings],
    )
    if "unexplained" in vars(first):
        # What no vocabulary explains in the title does not depend on its price: read once for both passes.
        again.unexplained = first.unexplained
    return judge_context(again, start=resume.position)
