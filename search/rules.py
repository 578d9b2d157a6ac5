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

import difflib
import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache

from search.listings import ProductQuery
from search.model_codes import code_in, other_code, other_model_number
from search.titles import (
    GARMENT_GROUPS,
    MIN_CODE_CHARS,
    Title,
    brand_groups_of,
    canonical,
    colour_named,
    compact,
    is_code_like,
    loan_spelling,
    normalise,
    read_title,
    sound_keys,
)
from search.vocabulary import (
    ACCESSORY_KINDS,
    BRAND_ALIASES,
    BRAND_LINES,
    CLOTHING_SIZES,
    COLOUR_QUALIFIERS,
    COLOURS,
    CORPORATE_WORDS,
    DEFAULT_LINE_WORDS,
    DESCRIPTORS,
    IMPLIED_BY,
    KIND_GROUPS,
    KIND_WORDS,
    LOOKALIKE_AFTER_BRAND,
    MADE_FOR_WORDS,
    NETWORKS,
    NOT_WEIGHTS,
    NOTICE_WORDS,
    ONE_SIDED_VARIANTS,
    OPPOSITES,
    PACKAGING_WORDS,
    PLAIN_WORDS,
    SELLER_WORDS,
    STOP_WORDS,
    TRANSLITERATIONS,
    USAGE_WORDS,
)

FUZZY_WORD_RATIO = 0.85
"""difflib ratio at which a long word counts as found (spelling variants)."""
UNRELATED_SHARE = 0.34
"""Below this share of the product's naming words a title is about something else (sure)."""
SOLD_BY = frozenset({"volume", "weight"})
"""Measures a product is sold by: one named where the product names the other is another form of it."""
NAME_CODE_DIGITS = 2
"""A code read from the product name (no model_code given) needs this many digits: 6free is a line, not a model."""
BESIDE = True
YIELD_COUNT = 100
"""A count this large where the product states none is more likely a yield or a sheet count than that many units."""
MIN_SOUND_KEY = 3
"""Consonants a sound key needs before two words in different scripts count as one (icona ≈ 아이코나 is too short)."""
MIN_BRAND_WORD = 3
"""A brand of several words is named by its first word alone when that word has this many letters."""
SHORT_SOUND_KEY = 2
SHORT_KEY_LETTERS = 4
SHORT_KEY_SYLLABLES = 2
"""A two-consonant key is enough when the Latin word has this many letters and the Hangul this many syllables
(CURIO 큐리오, JUICY 쥬시): the vowels between carry the rest of the word's shape."""
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
HARMLESS = frozenset(
    STOP_WORDS
    | SELLER_WORDS
    | NOTICE_WORDS
    | PACKAGING_WORDS
    | DESCRIPTORS
    | PLAIN_WORDS
    | CORPORATE_WORDS
    | USAGE_WORDS
)
"""Words that say nothing about which product is sold (search/vocabulary/harmless.py)."""
_COLOUR_WORDS = frozenset(spelling for spellings in COLOURS.values() for spelling in spellings)
_BRAND_WORDS = frozenset(word for aliases in BRAND_ALIASES for alias in aliases for word in alias.split())
_KIND_GROUP_OF: dict[str, frozenset[str]] = {}
for _group, _words in KIND_GROUPS.items():
    for _word in _words:
        _KIND_GROUP_OF[_word] = _KIND_GROUP_OF.get(_word, frozenset()) | {_group}
_BRAND_COMPACTS = frozenset(compact(alias) for aliases in BRAND_ALIASES for alias in aliases)
_ACCESSORY_SPELLINGS = {spelling: kind for kind, spellings in ACCESSORY_KINDS.items() for spelling in spellings}
_MADE_FOR_STEMS = ("리필", "교체", "전용")
_LINE_WORDS_OF: dict[int, frozenset[str]] = {
    group: frozenset(piece for line in BRAND_LINES.get(aliases[0], ()) for piece in canonical(line))
    for group, aliases in enumerate(BRAND_ALIASES)
}
_DATE = re.compile(r"\d{2,4}[./-]\d{1,2}(?:[./-]\d{1,2})?|\d{4}년?")
# One Hangul syllable left over from a glued word (형, 용, 향, 맛): an ending, not a word.
_ONE_SYLLABLE = re.compile(r"[가-힣]")


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
        kinds = frozenset().union(*(_KIND_GROUP_OF.get(word, frozenset()) for word in name.words))
        return cls(
            query=query,
            title=name,
            brand_groups=frozenset(groups),
            codes=codes,
            brand_in_name=brand_in_name,
            kind_groups=kinds,
            sold_by_measure=bool(set(name.measures) & SOLD_BY),
        )


@dataclass
class Context:
    """What the rules share while judging one listing."""

    product: Product
    listing: Title
    price: int | None = None
    reference_price: int | None = None
    """The page's reference price (search.judge.judge_by_rules): None on the first pass."""
    code_found: str | None = None
    """Our model code as the listing writes it, set by OtherModel."""
    code_exact: bool = False
    """The code is ours exactly or with a known regional/colour tail (not extended by unknown letters)."""
    findings: list[Finding] = field(default_factory=list)

    @property
    def name(self) -> Title:
        return self.product.title

    @property
    def ours_named(self) -> bool:
        return bool(self.product.brand_groups & self.listing.brand_groups) or _brand_spelled(
            self.product.query.brand, self.listing
        )


class Rule:
    """One idea of SPEC §4 step 3. `check` returns a Finding or None; `name` is how reasons and tests call it."""

    name = "rule"

    def check(self, context: Context) -> Finding:
        raise NotImplementedError


class Condition(Rule):
    """A used, refurbished, display or returned unit (중고, 리퍼, 전시, 반품, S급 …) is not a new unit of the
    product, unless the product is itself one. Words: vocabulary/conditions.py."""

    name = "condition"

    def check(self, context: Context) -> Finding:
        if context.listing.condition and not context.name.condition:
            return Reject(f"not a new unit ({context.listing.condition})")
        return None


class MadeFor(Rule):
    """An accessory, part or consumable (케이스, 필름, 이어팁 …), a compatible item (호환) or one made for the
    product (전용, 교체용, "에어팟용") is not the product, unless the product is itself such an item.
    Words: vocabulary/accessories.py."""

    name = "made-for, accessory and consumable"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        extra_kinds = {kind: word for kind, word in listing.accessory_kinds.items() if kind not in name.accessory_kinds}
        if extra_kinds:
            kind, word = next(iter(extra_kinds.items()))
            if _priced_as_the_product(context) and not listing.made_for and not listing.compatible:
                # A bidet "리모컨" or a drill "케이스포함" priced as the machine: the part comes with it.
                return Caution(f"{kind} ({word}) named, but priced as the product")
            return Reject(f"{kind} ({word}), not the product itself")
        if listing.compatible and not name.compatible:
            return Reject(f"a compatible item ({listing.compatible}), not the product itself")
        made_for = [word for word in listing.made_for if word not in name.made_for and not _platform_of(word, context)]
        if made_for and not name.accessory_kinds:
            stems = [word for word in made_for if word.endswith("용") and word not in ("전용", "교체용")]
            if len(stems) == len(made_for) and not _sells_something_else(context, stems):
                # "왼손용 골프장갑", "가솔린용" for a product that says 왼손, 가솔린: what it is for, said of itself.
                return Caution(f"{made_for[0]}: said of the product itself")
            return Reject(f"made for the product ({made_for[0]}), not the product itself")
        if (
            name.accessory_kinds
            and not set(name.accessory_kinds) & set(listing.accessory_kinds)
            # Our exact code names the part itself (HX9044 brush heads), unless the product is made for a machine
            # whose code it carries (교체용 고무패킹 for CCP-DH06): then the code names the machine.
            and not (not name.made_for and any(code_in(code, listing) == "exact" for code in context.product.codes))
        ):
            kind = next(iter(name.accessory_kinds))
            # Not proof: the title may name the part in the other script (Hose for 호스, brush heads for 칫솔모) or
            # only by its code; a device sold in its place is a Doubt the LLM settles.
            return Doubt(f"not a {kind} ({name.accessory_kinds[kind]}) like the product")
        return None


def _platform_of(word: str, context: Context) -> bool:
    """ "PS5용" where the product's own name says PS5 and PS5 is another brand's line: the product is itself made
    for that platform (a PS5 SSD), so the title says of the product what its name says."""
    stem = word.removesuffix("용")
    if not stem or stem == word or stem not in context.name.words:
        return False
    lines_of = [group for group, lines in _LINE_WORDS_OF.items() if stem in lines]
    spelled = context.name.brand_groups | brand_groups_of([normalise(context.product.query.brand or "")])
    return bool(lines_of) and not set(lines_of) & spelled


def _sells_something_else(context: Context, stems: list[str]) -> bool:
    """The listing names, besides "<our word>용", a thing the product lacks: that thing is what it sells."""
    stem_words = {piece for stem in stems for piece in read_title(stem.removesuffix("용")).words}
    extra = [word for word in unexplained_words(context.product, context.listing) if word not in stem_words]
    return any(_is_naming(word) for word in extra if not word.endswith("용"))


def _priced_as_the_product(context: Context) -> bool:
    """Our model code is there and the price is near the page's reference price (an accessory costs far less);
    the caller also asks that nothing marks the listing as made for the product (전용, 호환, "…용")."""
    return bool(
        context.product.codes
        and any(code_in(code, context.listing) == "exact" for code in context.product.codes)
        and context.price
        and context.reference_price
        and context.price >= PRICED_AS_PRODUCT_SHARE * context.reference_price
    )


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
            return Reject(f"a set with another product ({context.listing.bundle})")
        return None


class OtherBrand(Rule):
    """A listing that names another brand and not ours is another maker's product; a look-alike or substitute
    (대체품, OEM, "다이슨 스타일") is not the product even when it names ours. Words: vocabulary/brands.py,
    vocabulary/lookalikes.py."""

    name = "other brand and look-alike"

    def check(self, context: Context) -> Finding:
        listing, product = context.listing, context.product
        if listing.lookalike and not context.name.lookalike:
            return Reject(f"a look-alike or substitute ({listing.lookalike})")
        styled = _styled_after(listing, product)
        if styled:
            return Reject(f"a look-alike or substitute ({styled})")
        others = {
            group
            for group in listing.brand_groups - product.brand_groups
            # Braun for 브라운: the product's own word in the other script, not another maker.
            if not any(_sounds_like_one_of(compact(alias), context.name.words) for alias in BRAND_ALIASES[group])
        }
        if others and not context.ours_named:
            return Reject(f"brand {BRAND_ALIASES[min(others)][0]}, not {product.query.brand or 'ours'}")
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
            return Reject(f"model code {listing.codes[other].upper()}, not {ours.upper()}")
        return None


class MeasureAndSize(Rule):
    """A different capacity, volume, weight, screen or servings (256GB, 500ml, 65인치, 6인용), a different shoe,
    clothing or bedding size (260 vs 270, M vs L, 퀸 vs 킹), or a model number of the same shape as ours (S23 for
    S24, 14 for 15) is another product. Several measures or sizes where the product has one (28cm + 24cm, 250~280)
    are a set or a choice: Caution when ours is among them. Words: vocabulary/measures.py, vocabulary/sizes.py."""

    name = "measure and size"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        for dimension, values in name.measures.items():
            offered = listing.measures.get(dimension)
            if dimension == "weight" and not offered:
                # "5g" reads as a network where nothing says otherwise; beside a product sold by weight it is one.
                offered = {float(word[:-1]) for word in listing.words if word in NOT_WEIGHTS} or None
            if offered and not offered & values:
                if _same_total(name, listing):
                    # 5kg x 2 for 10kg: the same total in smaller units, or two products; never sure.
                    return Doubt(f"{_show(offered)} x {listing.pack_count} for {_show(values)}")
                return Reject(f"different {dimension}: {_show(offered)} instead of {_show(values)}")
        for dimension, values in name.sizes.items():
            offered = listing.sizes.get(dimension)
            if offered and not offered & values:
                return Reject(f"different {dimension} size: {'/'.join(sorted(offered))} instead of {'/'.join(values)}")
            if offered and offered - values:
                return Caution(f"{dimension} sizes {'/'.join(sorted(offered))}: a choice")
        other = other_model_number(name, listing)
        if other:
            return Reject(other)
        if name.measures and not set(name.measures) & set(listing.measures):
            other_measures = set(listing.measures) & SOLD_BY - set(name.measures)
            if other_measures and set(name.measures) & SOLD_BY:
                sold_by = ", ".join(sorted(name.measures))
                return Doubt(f"sold by {', '.join(sorted(other_measures))}, the product by {sold_by}")
        for dimension, values in name.measures.items():
            offered = listing.measures.get(dimension) or set()
            if offered - values:
                return Doubt(f"{dimension} {_show(offered)} for {_show(values)}")
        return None


class PackCount(Rule):
    """Another number of units (5개입 vs 40개, 1+1 = 2, 2대) is another product; counts agree by arithmetic
    (30개 = 30개입 = x 30, 5개입 x 8 = 40) and a listing stating none sells one. Words: vocabulary/counts.py."""

    name = "pack count"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        if not name.counted and listing.pack_count >= YIELD_COUNT:
            # "1,000매" on a toner the shop names without a count: a yield or a sheet count, not 1,000 units.
            return Doubt(f"a count of {listing.pack_count} where the product states none")
        if (name.bare_count and listing.pack_count == 1) or (listing.bare_count and name.pack_count == 1):
            # "+2x100" may be a size (#2 x 100mm) as well as a count: no counter word says which.
            return Doubt(f"a count of {max(name.pack_count, listing.pack_count)} read from a bare multiplication")
        if _same_total(name, listing):
            return Doubt(f"{listing.pack_count} smaller units for the product's one")
        if name.counted and name.pack_count > 1 and not listing.counted:
            # The title states no count: one unit, or the count written where no counter shows it (EB50-4).
            return Doubt(f"no count stated where the product has {name.pack_count}")
        if not name.counted and listing.pack_count > 1 and not _MACHINES.search(listing.text):
            # The shop states no count: its product may be a pair or a box (poles 2pcs, nail tips 30P), or one;
            # two machines (2대) are two, whatever the shop states (SPEC §4.3: a set of two units).
            return Doubt(f"a count of {listing.pack_count} where the product states none")
        if context.name.pack_count != context.listing.pack_count:
            return Reject(f"different pack count: {context.listing.pack_count} instead of {context.name.pack_count}")
        return None


class VariantAndLine(Rule):
    """A different variant (Pro, Max, mini, FE …), colour where both name one, or an extra flavour or line
    (라임, 흑미, 디지털) is another product; other colours offered beside ours are a choice (Caution).
    Words: vocabulary/variants.py, vocabulary/colours.py."""

    name = "variant and line"

    def check(self, context: Context) -> Finding:
        name, listing = context.name, context.listing
        for variant in sorted(listing.variants ^ name.variants):
            if variant in ONE_SIDED_VARIANTS and variant not in listing.variants:
                continue
            says = variant in listing.variants
            if _glued_in(variant, name if says else listing):
                # 프로스태프 for Pro Staff: the variant's word is glued inside a word of the other side.
                continue
            side = "the title says" if says else "the title lacks"
            if context.code_found:
                # Our model code is there: a variant word the title leaves out may be a platform name (20V MAX).
                if says or variant in _code_words(context.product):
                    # A variant word of our own model code (Archer T3U Plus) missing: another model's code.
                    return Doubt(f"different variant: {side} {variant}")
                return Caution(f"{side} {variant}")
            return Reject(f"different variant: {side} {variant}")
        if name.colours and listing.colours and not name.colours & listing.colours:
            return Reject(f"different colour: {', '.join(sorted(listing.colours))}")
        for one, other in (*OPPOSITES, *((b, a) for a, b in OPPOSITES)):
            said = one in name.text.split() + name.words and other in listing.text.split() + listing.words
            if said and other not in name.words:
                return Reject(f"{other} where the product is {one}")
        ours, theirs = _networks(name), _networks(listing)
        if ours and theirs and not ours & theirs:
            return Reject(f"another connection: {', '.join(sorted(theirs))} instead of {', '.join(sorted(ours))}")
        shades_ours = set(name.words) & COLOUR_QUALIFIERS
        shades_theirs = set(listing.words) & COLOUR_QUALIFIERS
        added = {shade for shade in shades_theirs - shades_ours if not _sounds_like_one_of(shade, list(shades_ours))}
        dropped = {
            shade for shade in shades_ours - shades_theirs if not _sounds_like_one_of(shade, list(shades_theirs))
        }
        if added and dropped:
            # 다크 스톤워시 for 미디엄 스톤워시: one shade put in place of the product's.
            return Doubt(f"another shade: {', '.join(sorted(added))} for {', '.join(sorted(dropped))}")
        extra_lines = {
            line
            for line in listing.lines - name.lines
            if not _part_of_a_word(line, listing, name)
            # 라이트 스탠다드 for 라이트스탠다드: our own word written apart; 라임그린 is a colour, not lime.
            and not _inside_our_word(line, listing, context.product)
            and not _glued_to_a_colour(line, listing)
        }
        if extra_lines:
            return Reject(f"another flavour or line: {', '.join(sorted(extra_lines))}")
        if name.colours and listing.colours - name.colours:
            return Doubt(f"colours {', '.join(sorted(listing.colours))} for {', '.join(sorted(name.colours))}")
        return None


class ExtraWords(Rule):
    """What a listing says beyond the product is evidence, never noise (SPEC §4 step 3). A word the product does
    not have and that is no known harmless mark (seller tags, shipping, 정품/국내정발, notices, plain descriptors,
    the product's own kind words: vocabulary/harmless.py, vocabulary/categories.py) is a Caution: a "same"
    verdict is not sure with it. It is a Doubt when it is likely to name another product: glued to a word of the
    product's name (김치왕교자 for 왕교자), a kind word of another group (궁중팬 for 프라이팬), or any naming word
    where the product is sold by weight or volume (a flavour, scent or line no list names: 초코파이 쿠키앤크림)."""

    name = "unexplained extra words"

    def check(self, context: Context) -> Finding:
        product, listing = context.product, context.listing
        other_kinds = [
            word
            for position, word in enumerate(listing.words)
            if word in _KIND_GROUP_OF
            and product.kind_groups
            and not _KIND_GROUP_OF[word] & product.kind_groups
            and not _word_found(word, context.name)
            # 쿠션 커버 for 쿠션커버: with its neighbour it is the product's own kind word.
            and not _part_of_a_name(listing.words, position, product)
            and not _inside_our_word(word, listing, product)
        ]
        if other_kinds:
            return Doubt(f"another kind of product: {other_kinds[0]}")
        if not product.kind_groups and product.sold_by_measure:
            # A drink or food named by its brand and line alone: a kind word set inside the name (아몬드브리즈
            # 프로틴 언스위트) names another line of it.
            words = listing.words
            inside = [
                word
                for position, word in enumerate(words[1:-1], start=1)
                if word in KIND_WORDS
                and not _word_found(word, context.name)
                and all(_naming_word_of(words[position + step], product) for step in (-1, 1))
            ]
            if inside:
                return Doubt(f"a kind word inside the name: {inside[0]}")
        letters = [
            word
            for position, word in enumerate(listing.words)
            if word.isascii()
            and len(word) == 1
            and word not in context.name.words
            # S, M, L read as a size where the title is a garment's; elsewhere a variant letter (I/O MAG S).
            and not any(_size_word(word) in values for values in listing.sizes.values())
            and not _part_of_a_name(listing.words, position, product)
        ]
        letters = [
            word
            for word in letters
            if _beside_name(word, product, listing)
            and not re.search(rf"(?<![0-9a-z]){word}(?=[가-힣]|-?type)", listing.plain)
        ]
        if letters:
            # One Latin letter or a small number beside the name names a variant or a successor (Chrome Soft X,
            # 스위치 2); a letter glued to a Hangul word names a type or a part (C타입, S펜).
            return Doubt(f"a letter or number beside the name: {' '.join(letters[:3])}")
        extra = unexplained_words(product, listing)
        if not extra:
            return None
        glued = [word for word in extra if _glued_to_name(word, product)]
        if glued:
            return Doubt(f"a word glued to the name: {glued[0]}")
        codes = [word for word in extra if _code_shaped(word) and any(_shape(word) == _shape(c) for c in product.codes)]
        if codes:
            return Doubt(f"another model code of our code's shape: {codes[0]} (a set or a choice)")
        naming = [word for word in extra if _is_naming(word) and not word.isascii()]
        naming += [word for word in extra if word.isascii() and word.isalpha() and len(word) <= 3]
        beside = [
            word for word in naming if _beside_name(word, product, listing) and not _before_a_colour(word, listing)
        ]
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


class PricePlausibility(Rule):
    """A candidate far below the page's reference price (FAR_BELOW_SHARE of it) is not believed on words alone:
    Doubt. The reference is the lower of the shop's own price, when sent, and the median price of the page's
    strong matches (search.judge.judge_by_rules computes it from the whole candidate list of the round)."""

    name = "price plausibility"

    def check(self, context: Context) -> Finding:
        if context.price is None or not context.reference_price:
            return None
        if context.price < FAR_BELOW_SHARE * context.reference_price:
            return Doubt(f"price {context.price:,}원 is under half of the page's {context.reference_price:,}원")
        return None


class Identity(Rule):
    """The product's model code in the listing, or every naming word of the product (in any script) with the
    brand named or implied, makes it the same product; a title about something else (few of our words) is not.
    Returns None when it is the product: judge_context reads code_found and the other findings to say how sure."""

    name = "identity"

    def check(self, context: Context) -> Finding:
        if context.code_found:
            return None
        product, listing, name = context.product, context.listing, context.name
        core = name.core_words
        missing = [word for word in core if not _found_or_sized(word, listing, name)]
        found = len(core) - len(missing)
        share = found / len(core) if core else 0.0
        said = f"{found} of {len(core)} name words in the title"
        if core and share < UNRELATED_SHARE and not context.ours_named and not _overlaps(core, listing):
            if not _other_script_may_say(missing, listing):
                return Reject(said)
            # 믹스넛 for Mixed Nuts, 빠르펭 for Parfum: the title may say our words in the other script, in a
            # spelling no sound key reads; the LLM settles it.
            return Doubt(f"{said}; the title may say them in the other script")
        # A kind word of the product's own group (홈캠 for 홈카메라, 이소가스 for 이소부탄가스) names the same kind.
        own_kinds = [word for word in listing.words if _KIND_GROUP_OF.get(word, frozenset()) & product.kind_groups]
        other_kinds = [
            word
            for word in listing.words
            if word in KIND_WORDS and not _word_found(word, name) and word not in own_kinds
        ]
        replaced = [
            (ours, theirs)
            for ours in missing
            for theirs in own_kinds
            if ours in _KIND_GROUP_OF
            and not _KIND_GROUP_OF[ours] & _KIND_GROUP_OF[theirs]
            # Garments only: there a kind names the cut (a vest, a jacket); elsewhere a product names several
            # kinds of one thing (헤어 드라이어, 정품 필터 for an air purifier's filter).
            and _KIND_GROUP_OF[ours] | _KIND_GROUP_OF[theirs] <= GARMENT_GROUPS
        ]
        if replaced:
            # 자켓 where the product says 패딩 베스트: a kind word of the product's other group put in place of ours.
            ours, theirs = replaced[0]
            return Doubt(f"{theirs} where the product is a {ours}")
        if own_kinds:
            missing = [word for word in missing if not _KIND_GROUP_OF.get(word, frozenset()) & product.kind_groups]
            found = len(core) - len(missing)
            said = f"{found} of {len(core)} name words in the title"
        can_be_left_out = KIND_WORDS | HARMLESS | DEFAULT_LINE_WORDS
        if not core:
            # A product named by nothing but its brand, size and count (제주삼다수 2L 12개) says no line: a title
            # that names one (그린 무라벨, 스파클링) may be another product of the brand.
            named = [word for word in listing.core_words if word not in can_be_left_out and not _word_found(word, name)]
            if named:
                return Doubt(f"the product names only its brand and size; the title adds {' '.join(named[:3])}")
        if missing and (other_kinds or not all(word in can_be_left_out for word in missing) or found == 0):
            return Doubt(f"{said}, missing {' '.join(missing[:3])}")
        if product.brand_in_name and not context.ours_named and not (product.brand_groups & listing.line_brands):
            return Doubt(f"{said}, brand {product.query.brand or 'of the product'} not named")
        return None


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


def judge_context(context: Context) -> RuleVerdict:
    """Run RULES in order over one listing: the first Reject decides; Doubts make it uncertain; a model code
    match with no Doubt or Caution is sure; a word match is "same" but never sure."""
    for rule in RULES:
        finding = rule.check(context)
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
        return RuleVerdict(True, context.code_exact, False, f"model code {ours} matches", strong=True)
    core = context.name.core_words
    found = sum(_word_found(word, context.listing, context.name.spellings.get(word, set())) for word in core)
    said = f"{found} of {len(core)} name words in the title"
    if cautions:
        return RuleVerdict(True, False, False, f"{said}, but {'; '.join(cautions[:2])}")
    return RuleVerdict(True, False, False, said, strong=True)


# --- what a listing says beyond the product -----------------------------------------------------------------


def unexplained_words(product: Product, listing: Title) -> list[str]:
    """The listing's words that neither the product nor a known harmless mark explains (in title order)."""
    name = product.title
    extra = []
    for word in listing.words:
        if _explained(word, product, listing):
            continue
        if word not in extra and not _word_found(word, name, set()):
            extra.append(word)
    return extra


def _explained(word: str, product: Product, listing: Title) -> bool:
    name = product.title
    if word in name.words or word in HARMLESS or word in KIND_WORDS or word in DEFAULT_LINE_WORDS:
        return True
    if word in _COLOUR_WORDS or word in COLOUR_QUALIFIERS or word in _BRAND_WORDS or colour_named(word):
        return True
    if _ONE_SYLLABLE.fullmatch(word) or (len(word) == 1 and word.isascii()):
        return True
    if _DATE.fullmatch(word):
        return True
    if IMPLIED_BY.get(word) in listing.words:
        return True
    # A made-for mark where the product is itself a part or an accessory (교체용 칫솔모, 리필모 for 칫솔모).
    if name.accessory_kinds and (word in MADE_FOR_WORDS or word.startswith(_MADE_FOR_STEMS)):
        return True
    # A line only our brand sells (플스 for a PlayStation): it names the brand, not another product.
    if any(word in _LINE_WORDS_OF.get(group, ()) for group in product.brand_groups):
        return True
    compacted = compact(word)
    if compacted and len(compacted) >= 2 and (compacted in name.compact or compacted in name.raw_compact):
        return True
    # A size the listing states (퀸사이즈, 270): the size rule compares it.
    if any(_size_word(word) in values for values in listing.sizes.values()):
        return True
    # "펌프포함", "케이스포함": what comes in the box with the product.
    if len(word) >= 3 and word.endswith(("포함", "구성")):
        return True
    # The same word in the other script, by its sound (스타우브 = staub, 꼬꼬떼 = cocotte), alone or with its
    # neighbour (Mix Media for 믹스미디어).
    if _sounds_like_one_of(word, name.words) or _part_of_a_word(word, listing, name):
        return True
    if any(
        compacted.startswith(code) or compacted in code or code in compacted
        for code in product.codes
        if len(compacted) >= 3
    ):
        return True  # our code, whole, extended or written in parts (SM S928N)
    # An accessory word the accessory reading set aside (알루미늄 케이스 is a watch's own case).
    if word in _ACCESSORY_SPELLINGS and _ACCESSORY_SPELLINGS[word] not in listing.accessory_kinds:
        return True
    # The product's brand as the shop spelled it, or a part of it (매일 for 매일유업).
    brand = compact(product.query.brand or "")
    if brand and len(compacted) >= 2 and (compacted in brand or brand in compacted):
        return True
    # A model code where the product has none: evidence neither way (a sibling's code is OtherModel's business).
    if not product.codes and is_code_like(word) and len(compacted) >= MIN_CODE_CHARS:
        return True
    # A glued word made only of explained pieces (강아지사료, 라이트스탠다드, 흰검).
    pieces = _pieces(word, product)
    return pieces is not None


def _size_word(word: str) -> str:
    from search.vocabulary import BEDDING_SIZES

    return BEDDING_SIZES.get(word) or CLOTHING_SIZES.get(word) or word


def _sounds_like_one_of(word: str, words: list[str]) -> bool:
    """`word` sounds like one of `words` written in the other script, or like two of them side by side
    (퍼마소프트 = PERMA SOFT)."""
    latin = word.isascii()
    others = [other for other in words if other.isascii() != latin]
    pairs = [
        first + second for first, second in itertools.pairwise(words) if first.isascii() == second.isascii() != latin
    ]
    return any(_sound_alike(word, other) for other in [*others, *pairs])


def _sound_alike(one: str, other: str) -> bool:
    """Two words in different scripts share a reading with MIN_SOUND_KEY consonants, or with two when both
    are long enough that two consonants are a shape, not a chance (큐리오 = CURIO, 트윈 = TWIN; icona is not
    enough for 아이코나 by sound alone)."""
    shared = sound_keys(one) & sound_keys(other)
    if not shared:
        return False
    longest = max(len(re.sub(r"#[\d.]+", "", key)) for key in shared)
    if longest >= MIN_SOUND_KEY:
        return True
    latin, hangul = (one, other) if one.isascii() else (other, one)
    letters = sum(char.isalpha() for char in latin)
    syllables = sum(0xAC00 <= ord(char) < 0xAC00 + 11172 for char in hangul)
    return longest == SHORT_SOUND_KEY and letters >= SHORT_KEY_LETTERS and syllables >= SHORT_KEY_SYLLABLES


def _pieces(word: str, product: Product) -> list[str] | None:
    """`word` cut into pieces each explained on its own (product words, kind words, harmless marks), if it can be."""
    if len(word) < 3 or word.isascii():
        return None
    known = set(product.title.words) | HARMLESS | KIND_WORDS | _COLOUR_WORDS | _BRAND_WORDS | DEFAULT_LINE_WORDS
    known |= COLOUR_QUALIFIERS
    known |= {spelling for spellings in product.title.spellings.values() for spelling in spellings}

    def cut(rest: str) -> list[str] | None:
        if not rest:
            return []
        for size in range(len(rest), 0, -1):
            head = rest[:size]
            spelled = canonical(head)
            if head in known or (len(spelled) == 1 and spelled[0] in known) or (size == 1 and rest == head):
                tail = cut(rest[size:])
                if tail is not None:
                    return [head, *tail]
        return None

    found = cut(word)
    return found if found and len(found) > 1 else None


def _glued_to_name(word: str, product: Product) -> bool:
    """A naming word glued to a word of the product's name: the name with something stuck before or after it
    (김치왕교자 for 왕교자, 초코파이바나나) that is not an explained piece."""
    if word.isascii() or len(word) < 3:
        return False
    for core in product.title.core_words:
        if len(core) < 2 or core.isascii() or core == word or core not in word:
            continue
        rest = word.replace(core, "", 1)
        if len(rest) >= 2 and not _explained(rest, product, product.title):
            return True
    return False


def _part_of_a_name(words: list[str], position: int, product: Product) -> bool:
    """The word with a neighbour spells a word of the product or a brand (3 in 1 for 3in1, Levi's)."""
    word = words[position]
    joined = [words[position - 1] + word] if position else []
    joined += [word + words[position + 1]] if position + 1 < len(words) else []
    name = product.title.compact + compact(product.query.product_name)
    return any(compact(piece) in name or compact(piece) in _BRAND_COMPACTS for piece in joined)


def _glued_to_a_colour(line: str, listing: Title) -> bool:
    """The line's word glued before a colour in the title (라임그린, 피치핑크): a shade, not a flavour."""
    spelled = {compact(raw) for raw in listing.spellings.get(line, set())} | {compact(line)}
    return any(
        word.startswith(piece) and word != piece and colour_named(word[len(piece) :])
        for word in listing.plain.split()
        for piece in spelled
        if piece
    )


def _inside_our_word(word: str, listing: Title, product: Product) -> bool:
    """`word` as the title spells it is part of a longer word of the product that the title also spells (쿠션 in
    쿠션커버, written 쿠션 커버): the product's own word, written apart."""
    spelled = {compact(raw) for raw in listing.spellings.get(word, set())} | {compact(word)}
    ours = [compact(theirs) for theirs in product.query.product_name.split() if len(compact(theirs)) >= 3]
    return any(
        piece and piece in our_word and piece != our_word and our_word in listing.raw_compact
        for piece in spelled
        for our_word in ours
    )


def _part_of_a_word(word: str, listing: Title, name: Title) -> bool:
    """`word` with a neighbour is a word of the product's name written in the other script (GOAL ZERO = 골제로):
    part of a name, not a flavour or a line of its own."""
    words = listing.words
    for position, candidate in enumerate(words):
        if candidate != word:
            continue
        joined = [words[position - 1] + word] if position else []
        joined += [word + words[position + 1]] if position + 1 < len(words) else []
        if any(_sounds_like_one_of(piece, name.words) for piece in joined):
            return True
    return False


def _networks(title: Title) -> set[str]:
    words = set(title.words) | set(title.text.split())
    return {network for network, spellings in NETWORKS.items() if words & set(spellings)}


def _glued_in(variant: str, title: Title) -> bool:
    """The variant written inside a longer word of `title`, in either script (프로스태프 holds 프로)."""
    spellings = {variant} | {hangul for hangul, latin in TRANSLITERATIONS.items() if latin == variant}
    return any(spelling in word and spelling != word for word in title.text.split() for spelling in spellings)


def _beside_name(word: str, product: Product, listing: Title) -> bool:
    """`word` stands right before or after a naming word of the product (초코파이 쿠키앤크림, 수제 왕교자): a
    flavour, line or edition is written there; descriptions come after the whole name."""
    words = listing.words
    core = [word for word in product.title.core_words if word not in KIND_WORDS and word not in HARMLESS]
    for position, candidate in enumerate(words):
        if candidate != word:
            continue
        neighbours = words[max(position - 1, 0) : position] + words[position + 1 : position + 2]
        for neighbour in neighbours:
            codes = [code for code in product.codes if len(code) >= MIN_CODE_CHARS]
            if not word.isascii() and any(compact(neighbour).startswith(code) for code in codes):
                return True  # beside our model code (QXD8000 알파)
            if any(_word_found(core_word, _one(neighbour)) for core_word in core):
                return True
    return False


def _before_a_colour(word: str, listing: Title) -> bool:
    """A Hangul `word` right before a colour word (린넨 블랙, 새벽 그레이): a shade's name, not a line of the product
    (still a word the product lacks: the verdict is not sure). A Latin one may be a colour code (BKS 블랙)."""
    words = listing.words
    return not word.isascii() and any(
        candidate == word and position + 1 < len(words) and colour_named(words[position + 1])
        for position, candidate in enumerate(words)
    )


def _naming_word_of(word: str, product: Product) -> bool:
    """`word` is one of the product's naming words (not its brand, kind or a harmless mark)."""
    return _is_naming(word) and word in product.title.core_words and word not in KIND_WORDS and word not in HARMLESS


@lru_cache(maxsize=8192)
def _one(word: str) -> Title:
    """One word read as a title (cached: a page asks for the same neighbours again; callers only read it)."""
    return read_title(word)


def _shape(word: str) -> str:
    """A code's shape: letters as a, digits as 9 (PG945 and CL946 are both aa999; 60337 and 60205 are 99999)."""
    return re.sub("[a-z가-힣]", "a", re.sub("[0-9]", "9", compact(word)))


def _other_script_may_say(missing: list[str], listing: Title) -> bool:
    """Our missing words are in one script and the title names things in the other (Hangul name, Latin title)."""
    scripts = {word.isascii() for word in missing if _is_naming(word)}
    return any(
        len(word) >= 3 and word.isascii() != script and not any(char.isdigit() for char in word)
        for word in listing.words
        for script in scripts
    )


_MACHINES = re.compile(r"(?<![0-9])\d+\s*대(?![가-힣])")


def _same_total(name: Title, listing: Title) -> bool:
    """The title sells our measure in smaller units (5kg x 2 for 10kg, 500ml x 2 for 1L) where we sell one."""
    if listing.pack_count <= 1 or name.pack_count != 1:
        return False
    return any(
        {value * listing.pack_count for value in listing.measures.get(dimension, ())} & values
        for dimension, values in name.measures.items()
    )


def _code_words(product: Product) -> set[str]:
    """The words of the shop's model code (archer, t3u, plus for "Archer T3U Plus")."""
    return set(normalise(product.query.model_code or "").split())


def _code_shaped(word: str) -> bool:
    """A model code or a set number: letters with two digits or more, or four digits or more (60205)."""
    compacted = compact(word)
    digits = sum(char.isdigit() for char in compacted)
    return (is_code_like(compacted) and digits >= 2 and len(compacted) >= 4) or (compacted.isdigit() and digits >= 4)


def _is_naming(word: str) -> bool:
    """A word that may name a product, a flavour or a line: two or more letters, no digit."""
    if any(char.isdigit() for char in word):
        return False
    return len(word) >= 2 and (bool(re.search("[가-힣]", word)) or word.isalpha())


def _styled_after(listing: Title, product: Product) -> str | None:
    """A look-alike word right after a brand or the product's own name ("다이슨 스타일", "다이슨st")."""
    words = listing.words
    anchors = _BRAND_WORDS | set(product.title.core_words)
    for before, word in itertools.pairwise(words):
        if word in LOOKALIKE_AFTER_BRAND and (before in anchors or before in product.title.words):
            return f"{before} {word}"
    return None


# --- model codes --------------------------------------------------------------------------------------------


def _brand_spelled(brand: str | None, listing: Title) -> bool:
    """The shop's brand in the title as the shop spells it, or in the other script by its sound (지누스 = ZINUS)."""
    spelled = compact(brand or "")
    if not spelled:
        return False
    if spelled in listing.raw_compact and not spelled.isascii():
        return True  # 반석 스포츠 for 반석스포츠
    first = compact((brand or "").split()[0]) if len((brand or "").split()) > 1 else ""
    if len(first) >= MIN_BRAND_WORD and any(compact(word) == first for word in listing.text.split()):
        return True  # 커클랜드 for 커클랜드 시그니춰: a brand of several words named by its first
    return any(compact(word).startswith(spelled) for word in listing.text.split()) or _sounds_like_one_of(
        spelled, [compact(word) for word in listing.text.split()]
    )


# --- naming words -------------------------------------------------------------------------------------------


def _word_found(word: str, listing: Title, spellings: set[str] = frozenset()) -> bool:
    """A product word in the title: whole, inside a glued word, in its own spelling, or glued apart."""
    if word in listing.words:
        return True
    if word.isascii() and len(compact(word)) < 4:
        # Short Latin words only count whole (I/O as IO): AA is not AAA, S is not S9.
        return bool(compact(word)) and any(compact(other) == compact(word) for other in listing.words)
    if len(word) >= 2 and compact(word) in listing.compact:
        return True
    if len(word) >= 2 and not word.isascii() and loan_spelling(compact(word)) in loan_spelling(listing.compact):
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
    if _sounds_like_one_of(word, listing.words):
        return True
    if len(word) >= 4 and not any(char.isdigit() for char in word):
        # Spelling variants of a word; never of a number (1pgrade is not 1ppgrade, S23 is not S24).
        return any(difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_WORD_RATIO for other in listing.words)
    return False


def _found_or_sized(word: str, listing: Title, name: Title) -> bool:
    """A product word in the title, or the product's size written as a size (265 as 265mm)."""
    if _word_found(word, listing, name.spellings.get(word, set())):
        return True
    if re.fullmatch(r"\d+(?:\.\d+)?", word) and re.search(
        rf"(?<![0-9.]){re.escape(word)}(?:\s*(?:인치|형|inch)|/\d)", listing.text
    ):
        # A bare number of the product (27.5, 17, 69) that the title writes with a size unit (27.5인치, 17형) or as
        # the first of a size pair (69/25).
        return True
    return any(word in values for values in listing.sizes.values()) and any(word in v for v in name.sizes.values())


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
