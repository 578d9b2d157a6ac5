"""Read a product name or a listing title the way a Korean marketplace writes it.

A title is cut into what the judge's rules compare: free gifts dropped ("(+케이스 증정)"), the condition
(중고, 리퍼, S급 …), accessory kinds and "made for" marks (전용, 호환, 교체용, "에어팟용"), brands, model codes
with their regional and colour suffixes (SM-S928N, SM-S928NZKEKOO), measures (256GB, 500ml, 6인용, 2세대),
the pack count (1+1 = 2, "5개입, 8개" = 40, x 24, 총 40개; a title stating none sells one unit), colours,
variants, flavour and line words, model numbers, and the remaining naming words, each in one spelling
across scripts (갤럭시 → galaxy) so that "갤럭시버즈2프로" and "Galaxy Buds2 Pro" read alike.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from search.vocabulary import (
    ACCESSORY_KINDS,
    BEDDING_SIZES,
    BRAND_ALIASES,
    BRAND_LINES,
    BUNDLE_WORDS,
    CLOTHING_SIZES,
    COLOUR_QUALIFIERS,
    COLOUR_SUFFIXES,
    COLOURS,
    COMPATIBLE_WORDS,
    CONDITION_WORDS,
    COUNT_MULTIPLIERS,
    COUNT_UNITS,
    GARMENT_CAPACITY_PLUS,
    GIFT_WORDS,
    GLUED_COLOURS,
    GLUED_UNITS,
    KIND_GROUPS,
    KIND_WORDS,
    LARGE_UNITS_MAX,
    LATIN_COMPOUNDS,
    LINE_SPELLINGS,
    LINE_WORDS,
    LOOKALIKE_AFTER_BRAND,
    LOOKALIKE_WORDS,
    MADE_FOR_MARKS,
    MADE_FOR_WORDS,
    MEASURE_UNITS,
    MODIFIED_WORDS,
    MONTHLY_FEE,
    NOT_ACCESSORY,
    NOT_COMPATIBLE,
    NOT_CONDITION,
    NOT_GIFT_ENDINGS,
    NOT_WEIGHTS,
    ORIGINS,
    PACK_COUNTERS,
    PACK_WORDS,
    PHRASE_SPELLINGS,
    RATING_NOTATIONS,
    RENTAL_WHOLE_WORDS,
    RENTAL_WORDS,
    SCALE_SIZES,
    SELLER_WORDS,
    SERVICE_WORDS,
    SHOE_SIZE_RANGE,
    SMALL_UNITS_MIN,
    STOP_WORDS,
    TRANSLITERATIONS,
    VARIANTS,
)

MIN_CODE_CHARS = 5
"""A shorter letters-and-digits word (S24, V12) is a model number, not a model code that settles it alone."""
DIMENSION_MIN = 20
"""Both sides of a bare "AxB" at least this: a dimension (32x32, 50x70); else a count (100 x 10)."""
CODE_SUFFIX_CHARS = 8
"""Letters a seller may append to a model code for region or colour (SM-S928N → SM-S928NZKEKOO)."""

_HANGUL = "가-힣"
_BRACKET_GROUP = re.compile(r"\[[^\]]*\]|\([^)]*\)|【[^】]*】|<[^>]*>|\{[^}]*\}|「[^」]*」|〔[^〕]*〕")
_BRACKETS = re.compile(r"[\[\](){}<>【】「」『』〔〕]")
_GIFTS = "|".join(f"{word}(?!{'|'.join(NOT_GIFT_ENDINGS)})" for word in GIFT_WORDS)
# "+ 필름 증정", "+사은품", "+ 란셋 + 알콜솜 증정" outside brackets: from the first plus of a list to its gift word.
_PLUS_GIFT = re.compile(rf"\+[^+]*?(?:\+[^+]*?)*(?:{_GIFTS})")
_SET_WORDS = re.compile(r"세트|set|구성|묶음")
# "케이스 증정" without a plus sign: the gift word and up to two words before it that name an accessory.
_BARE_GIFT = re.compile(r"(?:\S+\s+){0,2}\S*(?:증정|사은품)")
# "필터 21개 포함": a counted consumable that comes in the box with the product is a gift, not what is sold
# (미포함 says the opposite and stays).
_INCLUDED = re.compile(r"(?<![0-9a-z가-힣])[0-9a-z가-힣]+\s*\d+\s*(?:개입|개|매|장|ea|p)\s*(?<!미)포함")
# "헤드레스트 미포함", "충전기 별매", "본체 제외": what the listing comes without; _NOT_INCLUDED where it names a
# part left out of the box (제외 and 없음 may name a feature: 광고없음).
_NOT_IN_THE_BOX = "미포함|불포함|별매"
_LEFT_OUT = re.compile(rf"([0-9a-z가-힣]{{2,}})\s*(?:{_NOT_IN_THE_BOX}|제외|없음)(?![가-힣])")
_NOT_INCLUDED = re.compile(rf"([0-9a-z가-힣]{{2,}})\s*(?:{_NOT_IN_THE_BOX})(?![가-힣])")
# "케이스포함", "전용 파우치 동봉": an accessory that comes in the box with the product is not what is sold.
_ACCESSORY_INCLUDED = re.compile(r"(?<![0-9a-z가-힣])([0-9a-z가-힣]+)\s*(?<!미)(?:포함|동봉)(?![가-힣])")
_RATINGS = re.compile(RATING_NOTATIONS)
# "150gX10캔", "2Lx6": a multiplication sign glued between a number (or its unit) and the next number.
# "150gX10캔", "2L x 6", "12캔 x 2": a multiplication sign after a number (or its unit) and before the next
# number becomes ×, so that an x elsewhere stays a letter (크롬소프트 X).
_GLUED_TIMES = re.compile(r"(\d(?:[a-z가-힣]{0,3}))\s*[x×*]\s*(?=\d)")
# "30m30롤": a measure glued to the next number.
# Not inside a code: ILCE-7M4 and A7M4 keep their 7M4.
_GLUED_NUMBER = re.compile(r"(?<![0-9a-z-])(\d+(?:ml|kg|mm|cm|gb|tb|g|l|m))(?=\d)")
# A grade written with plus signs (한우 1++, 1+ 등급): 1++ is not 1+, and neither is a count (1+1 has a digit after).
# Not a count glued to a word before a plus (핸들2+날4: two handles and four blades).
_GRADE_PLUS = re.compile(r"(?<![0-9a-z+])([1-3])(\+{1,2})(?![0-9+])(?!(?!등급)[가-힣])")
# "1,000 IU": a thousands separator, not a list.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# "50x70cm", "32x32": two sizes of ten or more multiplied are a dimension, not a count (150gX10캔 has a unit).
_DIMENSION = re.compile(
    # A third side (900x450x1800: a shelf's width, depth and height) is part of the same size. Sides under ten
    # (3x150mm, 20x10x2mm) are a size only where a length unit or a third side says so (_dimension_word).
    r"(?<![0-9a-z.])(\d{1,4}(?:\.\d+)?)\s*[x×*]\s*(\d{1,4}(?:\.\d+)?)((?:\s*[x×*]\s*\d{1,4}(?:\.\d+)?)?)"
    r"\s*(mm|cm|m)?(?![0-9a-z.])"
)
# "M8x40": a metric screw's thread and its length in millimetres, never a count of 40.
_THREAD_SIZE = re.compile(r"(?<![0-9a-z])m(\d{1,2})\s*[x×*]\s*(\d{1,3})(?:\s*mm)?(?![0-9a-z.])")
# "700x18-28C": a size and a range of widths (a bicycle tube, a tyre), never a count of 18.
_DIMENSION_RANGE = re.compile(r"(?<![0-9a-z.])(\d{2,4})\s*[x×*]\s*(\d{1,4})(-\d{1,4}[a-z]?)(?![0-9a-z.])")
# A tyre size: 245/45R18, 245/45ZR18, 245 45 18.
_TYRE_SIZE = re.compile(r"(?<![0-9])\d{3}/\d{2}r\d{2}(?![0-9])")
"""A tyre's size once normalised (205/55r16): a size, not a model code."""
_TYRE = re.compile(r"(?<![0-9])(\d{3})\s*[/ ]\s*(\d{2})\s*z?r?\s*(\d{2})(?![0-9])")
_GLUED_VARIANT = re.compile(r"(?<=\d)(pro|max|plus|ultra|mini|lite|fe|se)(?![a-z])")
# "s24+", "max+ 자동먼지비움": a + glued to a model word names the Plus variant; "본품+리필" (a word glued after
# it), "2+1", "s24+ 256gb" (a number after it, read as counts and measures) and "bausch+lomb" (a + between two
# words, as in a maker's name) do not.
_PLUS_SIGN = re.compile(rf"(?<=[0-9a-z])\+(?!\s*[0-9])(?![{_HANGUL}a-z])")
# "본품+리필", "본품1+리필1": a cosmetics set of the product and its refill, two units unless counted.
_WITH_REFILL = re.compile(r"본품\s*(\d*)\s*\+\s*리필\s*(\d*)")
# A Latin product word glued to its number (book4, buds2): cut apart like 북4 is.
_LATIN_WORD_NUMBER = re.compile(r"(?<![0-9a-z])([a-z]{3,})(\d+)(?![0-9a-z])")
_APOSTROPHE = re.compile(r"(?<=[a-z])['’](?=[a-z])")
"""An apostrophe inside a Latin word (PAK'R, Levi's) is part of it, not a gap."""
_NUMBER_SIGN = re.compile(r"(?<![0-9a-z])(?:no\.|no|#)\s?(?=\d)")
"""A number sign before a number (No.220, #06, no 5): the number alone is what it says."""
_NAMED_X = re.compile(r"(?<![0-9a-z-])([a-z]+)\s+x(\d{1,3})(?![0-9a-z.])")
"""A Latin word before "X20" glued to its number (Deco X20, BMW X3): a model's name, not "times 20"."""
# "Emberton II", "Mark III", "꽃갈피 둘": a Roman or a Korean numeral standing alone after a name is its number.
_ROMAN_NUMERAL = re.compile(r"(?<=[a-z가-힣] )(iii|ii|둘|셋|넷)(?![0-9a-z가-힣])")
_ROMAN_VALUES = {"ii": "2", "iii": "3", "둘": "2", "셋": "3", "넷": "4"}
_SCRIPT_BOUNDARY = re.compile(rf"(?<=[{_HANGUL}])(?=[0-9a-z])|(?<=[0-9a-z])(?=[{_HANGUL}])")
_WORD = re.compile(rf"[0-9a-z{_HANGUL}]+(?:[-./][0-9a-z{_HANGUL}]+)*")
_LATIN_CODE = re.compile(r"[0-9a-z]+(?:[-./][0-9a-z]+)*")
_GRADE = re.compile(r"(?<![0-9a-z])(?:특)?[sabc]\s*급|(?<![0-9a-z])[ab]\s*grade|(?<![0-9a-z])b품")


def _units(units) -> str:
    """A regex alternative of `units`, longest first, each ending a word unless it is one of GLUED_UNITS."""
    ordered = sorted(set(units), key=len, reverse=True)
    glued = [unit for unit in ordered if unit in GLUED_UNITS]
    free = "|".join(map(re.escape, ordered))
    ending = rf"(?![0-9a-z{_HANGUL}])"
    if not glued:
        return rf"(?:{free}){ending}"
    return rf"(?:(?:{'|'.join(map(re.escape, glued))})(?![0-9a-z])|(?:{free}){ending})"


_MEASURE = re.compile(
    # Not inside a code (CHP-6310L is no 6310 litres, SDDDC4-128G-G46 no 128 grams).
    r"(?<![0-9a-z.])(?<![0-9a-z]-)(\d+(?:\.\d+)?)\s*(" + _units([*MEASURE_UNITS, "세대"]).replace("(?:", "(?:", 1) + ")"
)
_COUNT = re.compile(
    # Not inside a code written with a hyphen (VN-541PC is a model, not 541 pieces).
    # "3-Pack", "10-count": an English count may hang on its number by a hyphen.
    r"(?<![0-9a-z.])(?<![a-z]-)(\d+)\s*-?\s*(" + _units([unit + "입" for unit in COUNT_UNITS] + list(COUNT_UNITS)) + ")"
)
_COUNT_UNIT = "|".join(sorted(map(re.escape, COUNT_UNITS), key=len, reverse=True))
"""The counters as one regex alternative, longest first."""
# "5개 + 5개", "2팩+1팩": two counts of one unit added, one count of their sum.
_ADDED_COUNTS = re.compile(rf"(?<![0-9a-z.])(\d+)\s*({_COUNT_UNIT})\s*\+\s*(\d+)\s*\2(?![0-9a-z{_HANGUL}])")
# "5+5팩", "2+1개": two counts added before the one unit they share (a promotion's bonus units).
_ADDED_BEFORE_UNIT = re.compile(
    rf"(?<![0-9a-z.+])(\d{{1,3}})\s*\+\s*(\d{{1,3}})\s*({_COUNT_UNIT})(?![0-9a-z{_HANGUL}])"
)
_TOTAL_COUNT = re.compile(rf"총\s*(\d+)\s*(?:{_COUNT_UNIT})?입?")
_PACK_WORD = re.compile("|".join(map(re.escape, sorted(PACK_WORDS, key=len, reverse=True))))
_TIMES_COUNT = re.compile(r"(?<![0-9a-z-])[x×*]\s*(\d{1,3})(?![0-9a-z.])")
_TIMES_BEFORE = re.compile(r"[x×*]\s*$")
_PLUS_COUNT = re.compile(r"(?<![0-9a-z.])(\d(?:\s*\+\s*\d)+)(?![0-9a-z.])")
# "<word>용": made for that word (에어팟용, S24용) when the word is a product's own word or a model number.
_MADE_FOR_SUFFIX = re.compile(rf"([0-9a-z{_HANGUL}]+)용(?![{_HANGUL}])")
# One-syllable endings a product word takes when glued (라임향, 흑미밥, 밴드형): split off before reading.
_SUFFIX_SYLLABLES = frozenset("향맛밥형색면")
_TIMES_SIGNS = frozenset({"×"})
_LATIN_WORDS = frozenset(word for word in TRANSLITERATIONS.values() if word.isascii() and word.isalpha())

_COLOUR_FORMS = {
    name: frozenset(spelling + suffix for spelling in spellings for suffix in COLOUR_SUFFIXES)
    for name, spellings in COLOURS.items()
}
_COLOUR_WORDS = frozenset().union(*_COLOUR_FORMS.values())
_HANGUL_COLOUR_ENDINGS = sorted(
    (
        (form, name)
        for name, forms in _COLOUR_FORMS.items()
        if name in GLUED_COLOURS
        for form in forms
        if len(form) >= 2 and not form.isascii()
    ),
    key=lambda pair: len(pair[0]),
    reverse=True,
)


@lru_cache(maxsize=8192)
def colour_named(word: str) -> str | None:
    """The colour a word names: a colour word, or a Hangul word ending in one (린넨블랙, 올블랙, 새벽그레이 are
    black, black, gray: a shade's name before the colour)."""
    for name, forms in _COLOUR_FORMS.items():
        if word in forms:
            return name
    if len(word) < 3 or word.isascii():
        return None
    return next((name for form, name in _HANGUL_COLOUR_ENDINGS if word.endswith(form) and len(word) > len(form)), None)


_VARIANT_FORMS = {name: frozenset(spellings) for name, spellings in VARIANTS.items()}
_VARIANT_WORDS = frozenset().union(*_VARIANT_FORMS.values())
_LINE_WORDS = frozenset(LINE_WORDS) | frozenset(LINE_SPELLINGS)
_BRAND_WORDS = frozenset(alias for aliases in BRAND_ALIASES for alias in aliases if " " not in alias)
# Words a glued Hangul word may be cut into (갤럭시버즈 → 갤럭시 버즈, 필립스정품 → 필립스 정품).
_KNOWN_HANGUL = frozenset(
    word
    for word in (
        *TRANSLITERATIONS,
        *LINE_WORDS,
        *_BRAND_WORDS,
        *_COLOUR_WORDS,
        *STOP_WORDS,
        *COLOUR_QUALIFIERS,
        *LOOKALIKE_AFTER_BRAND,
        *KIND_WORDS,
    )
    if re.fullmatch(f"[{_HANGUL}]{{2,}}", word)
)
_ACCESSORY_PATTERNS = tuple(
    (
        kind,
        spelling,
        re.compile(rf"(?<![a-z]){re.escape(spelling)}(?![a-z])" if spelling.isascii() else re.escape(spelling)),
    )
    for kind, spellings in ACCESSORY_KINDS.items()
    for spelling in spellings
)


@dataclass
class Title:
    """What a product name or a listing title says, normalised (see the module docstring)."""

    text: str
    words: list[str]
    """Naming words in one spelling (갤럭시 → galaxy), measures and counts cut out."""
    compact: str
    """The words joined without spaces: a glued word is found in it (갤럭시북4 → galaxybook4)."""
    plain: str = ""
    """The title case-folded, gifts dropped, before scripts are split (C타입 still glued)."""
    raw_compact: str = ""
    """The title's own spelling without spaces (라이트스탠다드, where the words say lite)."""
    spellings: dict[str, set[str]] = field(default_factory=dict)
    """Each word's spellings in the title (lite → 라이트)."""
    codes: dict[str, str] = field(default_factory=dict)
    """Model-code candidates, compacted (sm-s928n → sms928n), cut at separators (nt940xgk-k51a → nt940xgk) and
    with neighbours joined (sm s928n → sms928n), each → the way the title writes it."""
    full_codes: list[str] = field(default_factory=list)
    """Each Latin letters-and-digits word whole, compacted."""
    separated_numbers: set[str] = field(default_factory=set)
    """Numbers written with a separator, as a code is (203591-060 → 203591060)."""
    measures: dict[str, set[float]] = field(default_factory=dict)
    pack_count: int = 1
    counted: bool = False
    """The title states a count (a title stating none sells one unit)."""
    bare_count: bool = False
    """The count comes from a bare multiplication ("+2x100", "3x150 100개입"): no counter word says it counts units
    (it may be a size)."""
    colours: set[str] = field(default_factory=set)
    variants: set[str] = field(default_factory=set)
    lines: set[str] = field(default_factory=set)
    condition: str | None = None
    condition_inside_a_word: bool = False
    """The condition word was read only inside a longer word (멀티테스터, 정품리퍼): a used unit, or a word of its
    own."""
    modified: str | None = None
    """A word saying the shop changed the unit (업그레이드, 증설), if the title has one."""
    origins: frozenset[str] = frozenset()
    """The countries the title's origin labels name (국내산 → korea, 중국산 → china)."""
    accessory_kinds: dict[str, str] = field(default_factory=dict)
    """Accessory kind → the word that showed it."""
    compatible: str | None = None
    """호환: a third-party item made to fit."""
    made_for: list[str] = field(default_factory=list)
    """전용 / 교체용 / 리필, or the stems of "<word>용" (에어팟용 → 에어팟)."""
    brand_groups: set[int] = field(default_factory=set)
    """Indexes into BRAND_ALIASES of the brands the title names outright."""
    line_brands: set[int] = field(default_factory=set)
    """Brands implied by a product line only they sell (갤럭시 → 삼성)."""
    model_numbers: set[str] = field(default_factory=set)
    """Words with a digit that are not a measure or a count (s24, 15, sm-s928n)."""
    core_words: list[str] = field(default_factory=list)
    """Words that identify the product: no brand, colour, variant, stop word or one-letter word."""
    rental: str | None = None
    """The word or fee that shows a rental or contract offer (렌탈, 약정, "월 29,900원")."""
    bundle: str | None = None
    """What shows a set of several products: "+ <another product>" (not a count, a refill or a gift), 세트구성."""
    lookalike: str | None = None
    """The word that shows a substitute or a copy (대체품, OEM, 짝퉁)."""
    sizes: dict[str, set[str]] = field(default_factory=dict)
    """Shoe ("260"), clothing ("m", "xl") and bedding ("queen") sizes, each in one spelling."""
    extras: str = ""
    """What the title says comes with it, read as gifts or box contents and left out of its words (+케이스 증정,
    어댑터 포함)."""
    left_out: set[str] = field(default_factory=set)
    """What the title says it comes without ("헤드레스트 미포함", "충전기 별매"), compacted."""


@lru_cache(maxsize=1024)
def normalise(text: str) -> str:
    """NFKC, case-folded, brackets as spaces, ratings (SPF50+) dropped, Hangul split from Latin and digits.

    Cached for one search's worth of titles: a title is normalised by several readers (its words, what its gifts
    took out, its codes) and in both of the judge's passes, and a product's own words on every candidate. Small on
    purpose: a search reuses its own readings, not another's, and a bench that repeats pages must not look faster
    for it."""
    text = _VULGAR_FRACTION.sub(lambda m: f"{m.group(1)}{_VULGAR_VALUES[m.group(2)]}", text or "")
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _MIXED_FRACTION.sub(_mixed_fraction, text)
    text = _THOUSANDS.sub("", _RATINGS.sub(" ", _BRACKETS.sub(" ", text)))
    text = _NUMBER_SIGN.sub(" ", _APOSTROPHE.sub("", text))
    text = _NAMED_X.sub(lambda m: m.group(0) if m.group(1) in _COUNTERS else f"{m.group(1)}-x{m.group(2)}", text)
    text = _GRADE_PLUS.sub(lambda m: f" {m.group(1)}{'p' * len(m.group(2))}grade ", text)
    text = _DIMENSION_RANGE.sub(r" \1by\2 \3", text)
    text = _THREAD_SIZE.sub(r" m\1 \2mm ", text)
    text = _DIMENSION.sub(_dimension_word, _TYRE.sub(r" \1/\2r\3 ", text))
    text = _GLUED_NUMBER.sub(r"\1 ", _GLUED_TIMES.sub(r"\1 × ", text))
    text = _PLUS_SIGN.sub(" plus ", _GLUED_VARIANT.sub(r" \1", text.replace("promax", "pro max")))
    for spaced, joined in LATIN_COMPOUNDS.items():
        text = text.replace(spaced, joined)
    for phrase, spelling in PHRASE_SPELLINGS.items():
        text = text.replace(phrase, spelling)
    text = _BARE_ZERO.sub(" zero ", text)
    text = _LATIN_WORD_NUMBER.sub(
        lambda m: f"{m.group(1)} {m.group(2)}" if m.group(1) in _LATIN_WORDS else m.group(0), text
    )
    text = _SCRIPT_BOUNDARY.sub(" ", text)
    return _ROMAN_NUMERAL.sub(lambda match: _ROMAN_VALUES[match.group(1)], text)


_VULGAR_VALUES = {"½": ".5", "¼": ".25", "¾": ".75"}
_VULGAR_FRACTION = re.compile(r"(\d)\s*([½¼¾])")
"""2½: a whole number and a fraction glued (NFKC would write 21⁄2): 2.5."""
_MIXED_FRACTION = re.compile(r"(?<![0-9./⁄])(\d{1,2})(?:\s+|-)([1-7])[/⁄]([248])(?![0-9./⁄])")
"""2 1/2, 1-3/4: a whole number and a proper fraction, as a reed's strength or a pipe's inch is written."""


def _mixed_fraction(match: re.Match) -> str:
    whole, numerator, denominator = (int(group) for group in match.groups())
    if numerator >= denominator:
        return match.group(0)
    return f"{whole + numerator / denominator:g}"


_COUNTERS = frozenset(COUNT_UNITS)
_BARE_ZERO = re.compile(r"(?<![\d.])0\.00?(?![\d.a-z%]|\s*(?:mm|cm|m|kg|g|ml|l|도|%)(?![a-z가-힣]))")
"""0.0 or 0.00 with no unit after it: a zero-alcohol beer's name (하이네켄 0.0, 하이트제로 0.00)."""


_BARE_PAIR = re.compile(r"(?<![0-9a-z.])(\d{1,4}(?:\.\d+)?)\s*[x×*]\s*(\d{1,4}(?:\.\d+)?)(?![0-9a-z.])")


def _our_size(match: re.Match, sizes: frozenset[str]) -> str:
    """A bare pair of numbers multiplied ("3 × 150") as the product's size word when the product states that size."""
    word = f"{match.group(1)}by{match.group(2)}"
    return f" {word} " if word in sizes else match.group(0)


def _dimension_word(match: re.Match) -> str:
    """ "50x70cm" → "50by70": one size word; "100 x 10" stays a count (a bare dimension needs both sides ≥ 20)."""
    first, second, third, unit = float(match.group(1)), float(match.group(2)), match.group(3), match.group(4)
    if not unit and not third and min(first, second) < DIMENSION_MIN:
        return match.group(0)
    height = re.sub(r"[^\d.]", "", third)
    return f" {match.group(1)}by{match.group(2)}{'by' + height if height else ''} "


@lru_cache(maxsize=1024)
def compact(text: str) -> str:
    """Letters and digits only: `SM-S928N`, `sm s928n` and `SMS928N` all become `sms928n`."""
    return _NOT_LETTER_OR_DIGIT.sub("", unicodedata.normalize("NFKC", text or "").casefold())


_NOT_LETTER_OR_DIGIT = re.compile(rf"[^0-9a-z{_HANGUL}]")


def without_gifts(raw: str) -> str:
    """The title without its free gifts: bracketed notes naming a gift, "+ … 증정", "케이스 증정"."""
    text = unicodedata.normalize("NFKC", raw or "").casefold()
    text = _BRACKET_GROUP.sub(lambda group: " " if _names_gift(group.group(0)) else group.group(0), text)
    text = _INCLUDED.sub(" ", _PLUS_GIFT.sub(_drop_plus_gifts, text))
    text = _ACCESSORY_INCLUDED.sub(_drop_included_accessory, text)
    return _BARE_GIFT.sub(_drop_bare_gift, text)


def _drop_plus_gifts(match: re.Match) -> str:
    """A list of pluses ending in a gift word is all gifts (+ 란셋 + 알콜솜 증정); where an earlier item names a set
    (+ 너트 세트 + 렌치 증정), only the last item is the gift and the set stays to be read."""
    items = match.group(0).split("+")[1:]
    if any(_SET_WORDS.search(item) for item in items[:-1]):
        return match.group(0)[: match.group(0).rfind("+")] + " "
    return " "


def _drop_included_accessory(match: re.Match) -> str:
    word = match.group(1)
    if word.endswith(("포함", "동봉")):
        word = word[:-2]
    if word.startswith(MADE_FOR_MARKS) and len(word) > 2:
        return " "  # 전용병 포함: a part made for the product comes in its box
    return " " if any(spelling in word for _, spelling, _ in _ACCESSORY_PATTERNS) else match.group(0)


def _names_gift(note: str) -> bool:
    note = re.sub(_NOT_IN_THE_BOX, " ", note)  # (배터리 미포함) says what is left out, not a gift
    names_one = any(word in note for word in GIFT_WORDS) or note[1:].lstrip().startswith("+")
    return names_one and not _condition(_beside_the_gift(note))


def _beside_the_gift(note: str) -> str:
    """A bracketed note's words that are not its gift: [중고 무료배송] and [택포함 미착용 중고] say the unit is
    used beside what comes free; [테스터 증정] names the gift only (the word before 증정 or 제공 is the gift)."""
    # Items joined by pluses before a 증정 are all given (+ 테스터 + 파우치 증정).
    words = re.split(r"[\s/,·]+", re.sub(r"\s*\+\s*", "+", note[1:-1]))
    given = {index - 1 for index, word in enumerate(words) if word in ("증정", "제공")}
    return " ".join(
        word for index, word in enumerate(words) if index not in given and not any(gift in word for gift in GIFT_WORDS)
    )


def _drop_bare_gift(match: re.Match) -> str:
    words = match.group(0).split()
    # The word right before 증정 is the gift ("운동장갑 증정"); keep the earlier ones that are not accessories: they
    # still describe the product.
    gift = words[-2:-1] if words[-1] in ("증정", "사은품") else []
    kept = [
        word
        for word in words[: len(words) - 1 - len(gift)]
        if not any(spelling in word for _, spelling, _ in _ACCESSORY_PATTERNS)
    ]
    return " " + " ".join(kept) + " "


@lru_cache(maxsize=4096)
def segments(word: str) -> tuple[str, ...]:
    """A word cut where it glues known words, in its own spelling (갤럭시버즈 → 갤럭시, 버즈)."""
    if (
        word in TRANSLITERATIONS
        or word in _BRAND_WORDS
        or word in _COLOUR_WORDS
        or not re.fullmatch(f"[{_HANGUL}]{{3,}}", word)
    ):
        return (word,)
    for size in range(len(word) - 1, 1, -1):
        head, rest = word[:size], word[size:]
        if head in _KNOWN_HANGUL and (
            rest in _KNOWN_HANGUL or rest in TRANSLITERATIONS or rest in _SUFFIX_SYLLABLES or len(segments(rest)) > 1
        ):
            return (*segments(head), *segments(rest))
    for size in range(len(word) - 2, 1, -1):
        # A flavour glued in front of the product (김치왕교자, 바나나우유) is a word of its own.
        head, rest = word[:size], word[size:]
        if head in _LINE_WORDS and len(rest) >= 2:
            return (*segments(head), *segments(rest))
    for size in range(len(word) - 2, 1, -1):
        head, tail = word[: len(word) - size], word[len(word) - size :]
        if tail in _KNOWN_HANGUL and len(head) >= 2 and (tail in _LINE_WORDS or tail in TRANSLITERATIONS):
            return (*segments(head), *segments(tail))
    return (word,)


def canonical(word: str) -> tuple[str, ...]:
    """A word in the rules' one spelling, cut where it glues known words (갤럭시버즈 → galaxy, buds)."""
    return tuple(TRANSLITERATIONS.get(piece, piece) for piece in segments(word))


def read_title(
    raw: str,
    *,
    brand: str | None = None,
    product_words: frozenset[str] = frozenset(),
    sizes: frozenset[str] = frozenset(),
) -> Title:
    """Read a product name or a listing title into the parts the rules compare.

    `product_words` are the product's own naming words: "<word>용" is an item made for the product only when
    <word> is one of them or a model number (에어팟용 yes, 가정용 no). `sizes` are the product's dimensions
    (3by150): a bare "3x150" in the title is that size, not a count of 150.
    """
    plain = without_gifts(raw)
    # What the title says it comes without (스트링 미포함) is read once, as left_out, and no longer as a word.
    text = normalise(_NOT_INCLUDED.sub(" ", plain))
    if sizes:
        text = _BARE_PAIR.sub(lambda m: _our_size(m, sizes), text)
    condition = _condition(text)
    measures: dict[str, set[float]] = {}
    for match in _MEASURE.finditer(text):
        value, unit = float(match.group(1)), match.group(2)
        if unit == "g" and match.group(0).replace(" ", "") in NOT_WEIGHTS:
            continue
        dimension, scale = MEASURE_UNITS.get(unit, ("generation", 1))
        measures.setdefault(dimension, set()).add(round(value * scale, 3))
    rest = _MEASURE.sub(lambda m: m.group(0) if m.group(0).replace(" ", "") in NOT_WEIGHTS else " ", text)
    counted_text = _DIMENSION_WORD.sub(" ", rest)
    pack_count, rest = _pack_count(counted_text)
    pack_count = _restated(plain, pack_count)

    words: list[str] = []
    spellings: dict[str, set[str]] = {}
    for word in _words(rest):
        if word in _TIMES_SIGNS:
            continue
        for piece in segments(word):
            spelled = TRANSLITERATIONS.get(piece, piece)
            words.append(spelled)
            spellings.setdefault(spelled, set()).add(piece)
    brand_words = set(_WORD.findall(normalise(brand or "")))
    brand_groups = brand_groups_of(words, rest)
    brand_group_words = {alias for group in brand_groups for alias in BRAND_ALIASES[group]}
    word_set = frozenset(words)
    fits = text
    for phrase in NOT_COMPATIBLE:
        fits = fits.replace(phrase, " ")
    compatible = next((word for word in COMPATIBLE_WORDS if _has_word(fits, word)), None)
    made_for = [MADE_FOR_WORDS.get(word, word) for word in MADE_FOR_WORDS if _has_word(text, word)]
    made_for += _made_for_stems(plain, product_words)
    core_words = [
        word
        for word in words
        if word not in brand_words
        and word not in brand_group_words
        and word not in _COLOUR_WORDS
        and word not in COLOUR_QUALIFIERS
        and word not in _VARIANT_WORDS
        and word not in STOP_WORDS
        and word not in MADE_FOR_MARKS
        and word not in COMPATIBLE_WORDS
        # One Latin letter or digit names a model (제로S, MX Keys S); one Hangul syllable does not.
        and (len(word) > 1 or word.isascii())
    ]
    return Title(
        text=text,
        words=words,
        compact="".join(compact(word) for word in words),
        plain=plain,
        raw_compact=compact(text),
        spellings=spellings,
        codes=_code_candidates(rest),
        full_codes=[compact(token) for token in _LATIN_CODE.findall(rest)],
        separated_numbers={
            compact(token) for token in _LATIN_CODE.findall(rest) if re.fullmatch(r"\d+(?:-\d+)+", token)
        },
        measures=measures,
        pack_count=pack_count,
        counted=pack_count != 1 or _states_a_count(text),
        bare_count=pack_count != 1
        and ((not _COUNT.search(text) and not _TOTAL_COUNT.search(text)) or _times_a_bare_number(counted_text)),
        colours={name for name in map(colour_named, word_set) if name},
        variants={name for name, forms in _VARIANT_FORMS.items() if not forms.isdisjoint(word_set)},
        lines={LINE_SPELLINGS.get(word, word) for word in _LINE_WORDS & word_set},
        condition=condition,
        condition_inside_a_word=bool(condition) and _inside_a_word(condition, text),
        modified=_modified(text),
        origins=frozenset(ORIGINS[label] for label in _ORIGIN.findall(text)),
        accessory_kinds=_accessory_kinds(text, brand_words | brand_group_words),
        compatible=compatible,
        made_for=made_for,
        brand_groups=brand_groups,
        line_brands={group for group, lines in _LINE_BRANDS.items() if not word_set.isdisjoint(lines)},
        model_numbers={word for word in words if any(char.isdigit() for char in word)},
        core_words=core_words,
        rental=_rental(text),
        bundle=_bundle(text),
        lookalike=next((word for word in LOOKALIKE_WORDS if _has_word(text, word)), None),
        left_out={compact(match) for match in _LEFT_OUT.findall(plain)},
        extras=_dropped(raw, plain),
        sizes=_sizes(text),
    )


_MONTHLY_FEE = re.compile(MONTHLY_FEE)
# "A + B": a plus sign before a word that is not a number (1+1 is a count) — what a gift, a refill or the Plus
# variant leave behind was read before.
_PLUS_WORD = re.compile(rf"\+\s*([a-z{_HANGUL}][0-9a-z{_HANGUL}]*|\d{{4,}}(?![0-9a-z]))")
# "C200 + 64GB 마이크로SD": a plus sign set apart, a measure, then what that measure is of — another product.
# (A + glued to a name, "S24+ 256GB", is the Plus variant; "1+1" has no unit.)
_PLUS_MEASURE_WORD = re.compile(rf"(?<=\s)\+\s*\d+(?:\.\d+)?\s*[a-z가-힣]+\s+([a-z{_HANGUL}][0-9a-z{_HANGUL}]*)")
_BUNDLE_PATTERN = re.compile("|".join(map(re.escape, BUNDLE_WORDS)))
_SHOE_NUMBER = re.compile(r"(?<![0-9a-z.\-/])(\d{3})(?:\s*mm)?(?![0-9a-z.\-/]|\s*(?:ml|g|kg|l|gb|원))")
_DIMENSION_WORD = re.compile(r"(?<![0-9a-z.])(\d+(?:\.\d+)?by\d+(?:\.\d+)?(?:by\d+(?:\.\d+)?)?)(?![0-9a-z])")
_SHOE_RANGE = re.compile(r"(?<![0-9])(\d{3})\s*(?:mm)?\s*[~-]\s*(\d{3})(?![0-9])")
_SIZE_TOKEN = re.compile(rf"(?<![0-9a-z{_HANGUL}])([0-9a-z{_HANGUL}]+)(?![0-9a-z{_HANGUL}])")
# Kind words of clothes: in a title naming one, a lone S/M/L/XL is its size.
GARMENT_GROUPS = frozenset({"tops", "bottoms", "outer", "vests", "underwear"})
_GARMENT_WORDS = frozenset().union(*(KIND_GROUPS[group] for group in GARMENT_GROUPS))
_SIZE_CONTEXT = re.compile(r"사이즈|size|치수")
_NOT_BESIDE_A_SIZE = SELLER_WORDS | STOP_WORDS


def _rental(text: str) -> str | None:
    """The word or the monthly fee that shows a rental or a contract offer."""
    for word in RENTAL_WORDS:
        if _has_word(text, word):
            return word
    for word in RENTAL_WHOLE_WORDS:
        if re.search(rf"(?<![0-9a-z{_HANGUL}]){word}(?![0-9a-z{_HANGUL}])", text):
            return word
    fee = _MONTHLY_FEE.search(text)
    return fee.group(0) if fee else None


_PLUS_BRANDS = re.compile(
    "|".join(
        r"\s*\+\s*".join(re.escape(part.strip()) for part in alias.split("+"))
        for aliases in BRAND_ALIASES
        for alias in aliases
        if "+" in alias
    )
)
"""Brands written with a plus sign (aden + anais): the sign joins the brand's name, it adds no product."""


def _bundle(text: str) -> str | None:
    """What shows a set of several products: a plus sign before another word (not "plus", a refill or a count),
    or a set word (세트구성, 더블팩)."""
    text = _PLUS_BRANDS.sub(lambda match: match.group(0).replace("+", " "), text)
    for match in _PLUS_WORD.finditer(text):
        word = match.group(1)
        if word in ("리필", "refill", "plus") or word.startswith("리필") or word in SELLER_WORDS:
            continue  # a refill, the Plus variant, or what the shop says of the sale (+ 무료설치, + 정품등록)
        added = text[match.start() + 1 :].split("+")[0]
        if any(service in added for service in SERVICE_WORDS):
            continue  # + 스트링 작업, + 각인 서비스: work the shop does on the product, not another product
        before, after = text[match.start() - 1 : match.start()], text[match.start() + 1 : match.start() + 2]
        if before.isascii() and before.isalpha() and after.isascii() and after.isalpha():
            continue  # Bausch+Lomb, Dolce+Gabbana: a + glued between two Latin words joins a maker's name
        if before.strip() and not after.strip():
            continue  # 플립+ LR150: a + glued to the end of a name is its mark (Flip+), not a second product
        preceding = text[: match.start()].split()
        if word in GARMENT_CAPACITY_PLUS and re.search(r"\d+\s*벌$", text[: match.start()].rstrip()):
            continue  # 5벌+바지: a clothing-care machine's capacity
        if colour_named(word) and preceding and colour_named(preceding[-1].rstrip(",/")):
            continue  # 화이트+블루: a colourway of two colours, not a second product
        return "+ " + word
    measured = _PLUS_MEASURE_WORD.search(text)
    if measured and measured.group(1) not in SELLER_WORDS:
        return "+ " + measured.group(1)
    found = _BUNDLE_PATTERN.search(text)
    return found.group(0) if found else None


_COUNTED_SYLLABLE = re.compile(rf"(?<![0-9a-z{_HANGUL}.])\d+\s*(?:대|소|중)(?![0-9a-z{_HANGUL}])")
"""1대, 2 대: a number before a one-syllable size word makes it a counter (one machine), not a size."""


def _scale_words(text: str) -> list[str]:
    """The words that may say a size in words, less a syllable counted by the number before it (세단기, 1대)."""
    return _SIZE_TOKEN.findall(_COUNTED_SYLLABLE.sub(" ", text))


def _sizes(text: str) -> dict[str, set[str]]:
    """Shoe sizes (a bare number 200-320 by 5, or in mm), clothing sizes after a size word or standing
    alone after a comma or slash, dimensions, bedding sizes, tyre sizes and sizes said in words (대형); only the
    kinds the text states."""
    words = _SIZE_TOKEN.findall(text)
    low, high = SHOE_SIZE_RANGE
    shoes = {int(number) for number in _SHOE_NUMBER.findall(text)}
    for start, end in _SHOE_RANGE.findall(text):
        shoes |= set(range(int(start), int(end) + 1, 5)) if 0 < int(end) - int(start) <= high - low else set()
    shoes = {number for number in shoes if low <= number <= high and number % 5 == 0}
    clothing = set()
    garment = bool(set(words) & _GARMENT_WORDS)
    for part in re.split(r"[,/]", text):
        # A seller's or delivery word after the size (M/L 당일발송) leaves it standing alone.
        tokens = [token for token in _SIZE_TOKEN.findall(part) if token not in _NOT_BESIDE_A_SIZE]
        sized = bool(_SIZE_CONTEXT.search(part))
        for token in tokens:
            spelled = CLOTHING_SIZES.get(token)
            if spelled and (sized or len(tokens) == 1 or garment) and not token.isdigit():
                clothing.add(spelled)
    sizes = {
        "shoe": {str(number) for number in shoes},
        "clothing": clothing,
        "dimension": set(_DIMENSION_WORD.findall(text)),
        "bedding": {BEDDING_SIZES[word] for word in words if word in BEDDING_SIZES},
        "tyre": set(_TYRE_SIZE.findall(text)),
        "scale": {SCALE_SIZES[word] for word in _scale_words(text) if word in SCALE_SIZES},
    }
    return {dimension: values for dimension, values in sizes.items() if values}


def _words(text: str) -> list[str]:
    """The words of a text; a slash between Hangul words lists choices (블랙/화이트), it does not join a code."""
    words = []
    for word in _WORD.findall(text):
        words.extend(word.split("/") if "/" in word and re.search(f"[{_HANGUL}]", word) else [word])
    return words


def _condition(text: str) -> str | None:
    """The word that shows a used, refurbished, display or returned unit, if any."""
    grade = _GRADE.search(text)
    if grade:
        return grade.group(0).replace(" ", "")
    cleaned = text
    for word in NOT_CONDITION:
        cleaned = cleaned.replace(word, " ")
    # "박스 훼손" is 박스훼손: Hangul words are looked for with the spaces between Hangul taken out.
    joined = re.sub(rf"(?<=[{_HANGUL}])\s+(?=[{_HANGUL}])", "", cleaned)
    for word in NOT_CONDITION:
        joined = joined.replace(word.replace(" ", ""), " ")
    for word in CONDITION_WORDS:
        if (
            (word in cleaned or word in joined)
            if not word.isascii()
            else re.search(rf"(?<![a-z]){word}(?![a-z])", cleaned)
        ):
            return word
    if re.search(r"(?<![a-z])open\s*box(?![a-z])", cleaned):
        return "open box"
    return None


def _dropped(raw: str, plain: str) -> str:
    """The words of `raw` that reading it without its gifts took out."""
    kept = set(normalise(plain).split())
    return " ".join(word for word in normalise(raw).split() if word not in kept and re.search(r"\w", word))


def _inside_a_word(word: str, text: str) -> bool:
    """A Hangul condition word the text holds only glued after other syllables (멀티테스터 for 테스터)."""
    if word.isascii() or word not in text:
        return False
    return not re.search(rf"(?<![{_HANGUL}]){re.escape(word)}", text)


_ORIGIN = re.compile("|".join(sorted(map(re.escape, ORIGINS), key=len, reverse=True)))
"""Origin labels, longest first, read glued or not (국산콩 is Korean soybeans; 중국산 holds no 국산)."""
_MODIFIED = [
    (word, re.compile(re.escape(word) if not word.isascii() else rf"(?<![a-z]){re.escape(word)}(?![a-z])"))
    for word in MODIFIED_WORDS
]
"""Each word saying the shop changed the unit: Hangul anywhere in a word, Latin only whole."""


def _modified(text: str) -> str | None:
    return next((word for word, pattern in _MODIFIED if pattern.search(text)), None)


def _pack_count(text: str) -> tuple[int, str]:
    """Units sold (the product of every count; "총 N" overrides) and the text with the counts cut out."""
    total = _TOTAL_COUNT.search(text)
    text = _ADDED_COUNTS.sub(lambda match: f"{int(match.group(1)) + int(match.group(3))}{match.group(2)}", text)
    text = _ADDED_BEFORE_UNIT.sub(lambda match: f"{int(match.group(1)) + int(match.group(2))}{match.group(3)}", text)
    packs = [PACK_WORDS[word] for word in _PACK_WORD.findall(text)]
    text = _PACK_WORD.sub(" ", text)
    counts = []
    packs_of = set()  # what a pack counter counted
    for match in _COUNT.finditer(text):
        number, unit = int(match.group(1)), match.group(2).removesuffix("입") or match.group(2)
        if number >= SMALL_UNITS_MIN.get(unit, 0) and number <= LARGE_UNITS_MAX.get(unit, number):
            counts.append(number * COUNT_MULTIPLIERS.get(unit, 1))
            if unit in PACK_COUNTERS and not _TIMES_BEFORE.search(text, 0, match.start()):
                packs_of.add(number)
    for number in packs_of:
        if counts.count(number) > 1:
            counts.remove(number)  # "4 Pack 4개입": the pack's count said again
    # "2개입 트윈팩": the pack word says the stated count again, not twice as many.
    counts += [pack for pack in packs if pack not in counts]
    in_set = [int(match.group(1) or 1) + int(match.group(2) or 1) for match in _WITH_REFILL.finditer(text)]
    # "6개입 x 2팩": the "x" before a counted number is not a second count of it.
    rest = _WITH_REFILL.sub(" 본품 리필 ", _COUNT.sub(" ", _TOTAL_COUNT.sub(" ", text)))
    # "본품+리필 15g x 2" says the set's two units again.
    times = [m for m in _TIMES_COUNT.finditer(rest) if not (counts and _names_a_model(m, rest))]
    counts += in_set + [int(m.group(1)) for m in times if int(m.group(1)) not in in_set]
    counts += [sum(int(part) for part in match.group(1).split("+")) for match in _PLUS_COUNT.finditer(rest)]
    rest = _PLUS_COUNT.sub(" ", _TIMES_COUNT.sub(" ", rest))
    if total:
        return int(total.group(1)), rest
    return (math.prod(count for count in counts if count > 0) if counts else 1), rest


_BARE_TIMES = re.compile(r"\d\s*[x×*]\s*\d{1,3}(?![0-9a-z.])")
"""A number multiplied by a number, neither with a counter or a unit (3x150, 8 × 40): a size as much as a count."""


def _times_a_bare_number(text: str) -> bool:
    """A factor of the count multiplies a bare number (3x150 100개입 x 10봉): read as a count, it may be a size."""
    return bool(_BARE_TIMES.search(_COUNT.sub(" ", _TOTAL_COUNT.sub(" ", text))))


def _names_a_model(match: re.Match, text: str) -> bool:
    """ "데코 X20 3팩": an X glued to its number after a word, where a counter word states the count, is a model's
    name (X20), not "times 20"."""
    return (
        match.group(0)[:1] == "x"
        and match.group(0)[1:2].isdigit()
        and bool(re.search(r"[^\W\d]\s$", text[: match.start()]))
    )


def _states_a_count(text: str) -> bool:
    return bool(_COUNT.search(text) or _TOTAL_COUNT.search(text) or _TIMES_COUNT.search(text))


def _restated(plain: str, pack_count: int) -> int:
    """The count once when a bracket only breaks it down: "120매 (40매x3팩)", "12병 (6병x2묶음)"."""
    notes = _BRACKET_GROUP.findall(plain)
    if not notes:
        return pack_count
    outside = _pack_count(_measureless(_BRACKET_GROUP.sub(" ", plain)))[0]
    for note in notes:
        inside = _pack_count(_measureless(note))[0]
        if inside > 1 and inside == outside:
            return outside
    return pack_count


def _measureless(raw: str) -> str:
    text = normalise(raw)
    return _MEASURE.sub(lambda m: m.group(0) if m.group(0).replace(" ", "") in NOT_WEIGHTS else " ", text)


def _has_word(text: str, word: str) -> bool:
    return bool(re.search(rf"(?<![a-z]){word}(?![a-z])", text)) if word.isascii() else word in text


def _made_for_stems(plain: str, product_words: frozenset[str]) -> list[str]:
    stems = []
    for match in _MADE_FOR_SUFFIX.finditer(normalise_for_suffix(plain)):
        stem = match.group(1)
        if re.search(f"\\d[{_HANGUL}]{{1,2}}$", stem):
            continue  # a number and its unit: 6인용 is a size for six, not an item made for something
        last = _WORD.findall(normalise(stem))[-1:] or [stem]
        pieces = canonical(last[0])
        if any(char.isdigit() for char in stem) or re.search("[a-z]", stem) or product_words & set(pieces):
            stems.append(stem + "용")
    return stems


def normalise_for_suffix(text: str) -> str:
    return _BRACKETS.sub(" ", unicodedata.normalize("NFKC", text or "").casefold())


def _accessory_kinds(text: str, brand_words: set[str]) -> dict[str, str]:
    """The accessory kinds a text names (a brand holding an accessory word, 후지필름, does not count)."""
    for word in (*brand_words, *NOT_ACCESSORY):
        text = text.replace(word, " ")
    kinds: dict[str, str] = {}
    for kind, spelling, pattern in _ACCESSORY_PATTERNS:
        if spelling in text and pattern.search(text):
            kinds.setdefault(kind, spelling)
    return kinds


# A plain alias is a whole word or nothing: it is looked up among the words, not searched for alias by alias.
_PLAIN_ALIAS_GROUPS: dict[str, set[int]] = {}
for _group, _aliases in enumerate(BRAND_ALIASES):
    for _alias in _aliases:
        if _alias.isalnum():
            _PLAIN_ALIAS_GROUPS.setdefault(_alias, set()).add(_group)
_SIGNED_ALIASES = [
    (group, alias) for group, aliases in enumerate(BRAND_ALIASES) for alias in aliases if not alias.isalnum()
]


def brand_groups_of(words: list[str], text: str = "") -> set[int]:
    """The brands named outright, as indexes into BRAND_ALIASES (a word starting with one counts: 테팔공식)."""
    joined = " " + " ".join(words) + " "
    spaced = " " + text + " "
    groups = set()
    for word in set(joined.split(" ")) & _PLAIN_ALIAS_GROUPS.keys():
        groups |= _PLAIN_ALIAS_GROUPS[word]
    for group, alias in _SIGNED_ALIASES:
        # An alias with a space or a sign (round lab, rom&nd, dr.forhair) is looked for in the text itself.
        if group not in groups and (f" {alias} " in joined or f" {alias} " in spaced):
            groups.add(group)
    return groups


def _code_candidates(text: str) -> dict[str, str]:
    """Latin letters-and-digits words, compacted, each also cut at its separators and joined to its neighbours;
    each mapped to the way the title writes it."""
    # A tyre's size (225/45r17) is a size for MeasureAndSize, not a model code.
    tokens = [token for token in _LATIN_CODE.findall(text) if not _TYRE_SIZE.fullmatch(token)]
    found: dict[str, str] = {}
    for token in tokens:
        parts = re.split(r"[-./]", token)
        for end in range(len(parts)):
            written = "-".join(parts[: end + 1]) if end < len(parts) - 1 else token
            found.setdefault(compact("".join(parts[: end + 1])), written)
    for first, second in itertools.pairwise(tokens):
        found.setdefault(compact(first + second), f"{first} {second}")
    found.pop("", None)
    return found


def is_code_like(word: str) -> bool:
    """Letters and digits together (s928n, 1000xm5)."""
    return any(char.isdigit() for char in word) and any(char.isalpha() for char in word)


def is_model_code(word: str) -> bool:
    """Letters and digits long enough to name one model (SM-S928N, WH-1000XM5), not a series number (S24)."""
    code = compact(word)
    return is_code_like(code) and len(code) >= MIN_CODE_CHARS and not is_qualifier(word)


def is_qualifier(word: str) -> bool:
    """A word that narrows a product without naming it: colour, capacity or size, pack count (블랙, 256GB, 6개)."""
    folded = normalise(word).strip(" ,;:/")
    if not folded:
        return False
    if folded in _COLOUR_WORDS or folded in COLOUR_QUALIFIERS:
        return True
    whole = (_MEASURE, _COUNT, _TIMES_COUNT, _PLUS_COUNT)
    return folded not in NOT_WEIGHTS and any(pattern.fullmatch(folded) for pattern in whole)


def is_variant(word: str) -> bool:
    return any(piece in _VARIANT_WORDS for piece in canonical(normalise(word).strip()))


def _line_brands() -> dict[int, frozenset[str]]:
    groups = {}
    for group, aliases in enumerate(BRAND_ALIASES):
        lines = BRAND_LINES.get(aliases[0])
        if lines:
            groups[group] = frozenset(piece for line in lines for piece in canonical(line))
    return groups


_LINE_BRANDS = _line_brands()


# --- the same word in the other script, by its sound ------------------------------------------------------

_INITIALS = ("k", "k", "n", "t", "t", "l", "m", "p", "p", "s", "s", "", "j", "j", "j", "k", "t", "p", "")
_FINALS = (
    "", "k", "k", "k", "n", "n", "n", "t", "l", "l", "l", "l", "l", "l", "l", "l", "m", "p", "p", "s", "s", "nk",
    "j", "j", "k", "t", "p", "",
)  # fmt: skip
_FINAL_S = (19, 20)
"""ㅅ and ㅆ under a syllable: a loanword's t (캣 for cat, 로봇 for robot), or an s in native words."""
_LATIN_SOUNDS = (
    ("tch", "ch"), ("sch", "s"), ("ph", "p"), ("ck", "k"), ("sh", "s"), ("ch", "j"), ("th", "t"), ("qu", "kw"),
    ("x", "ks"), ("ce", "se"), ("ci", "si"), ("cy", "sy"), ("ge", "je"), ("gi", "ji"), ("gy", "jy"),
)  # fmt: skip
_LATIN_CONSONANTS = str.maketrans("cgzqbfvdr", "kkjkppptl", "aeiouwyh")
_LETTER_NAMES = {
    "a": "에이", "b": "비", "c": "씨", "d": "디", "e": "이", "f": "에프", "g": "지", "h": "에이치", "i": "아이",
    "j": "제이", "k": "케이", "l": "엘", "m": "엠", "n": "엔", "o": "오", "p": "피", "q": "큐", "r": "알",
    "s": "에스", "t": "티", "u": "유", "v": "브이", "w": "더블유", "x": "엑스", "y": "와이", "z": "지",
}  # fmt: skip
"""Latin letters as Korean reads them one by one (C-LITE is 씨라이트, i-Size 아이사이즈, LG 엘지)."""
_SPELLED_OUT_LETTERS = 3
"""A Latin word this short may be read letter by letter (LG 엘지, MX 엠엑스) as well as as a word."""
_LATIN_READINGS = (
    # Each is another way Korean writes a Latin spelling; a word may be read with any of them.
    ("gh_silent", r"gh(?=t|$)", ""),  # light 라이트, high 하이
    ("ch_hard", r"ch", "k"),  # Keychron 키크론, chrome 크롬
    ("s_voiced", r"(?<=[aeiouy])s$", "z"),  # keys 키즈, jeans 진즈
    ("tu_soft", r"t(?=u)", "ch"),  # Vertuo 버츄오, tube 튜브 keeps its t as the plain reading
    ("th_hissed", r"th", "s"),  # smooth 스무스, think 씽크
    ("ch_french", r"ch", "sh"),  # Chanel 샤넬, chef 셰프
    ("r_kept", r"r(?![aeiouy])", "l"),  # Dior 디올, Carl 칼: a final r Korean writes as ㄹ
    ("plural_dropped", r"(?<=[a-z]{3})s$", ""),  # Wafers 웨이퍼, Flakes 플레이크: Korean names the thing once
    ("re_silent", r"(?<=[a-z]{3})re$", ""),  # Sapphire 사파이어, fire 파이어
    ("f_as_h", r"^f", "h"),  # Fissler 휘슬러, Fuji 후지, Fila 휠라: an older loanword's f is ㅎ
    ("s_between_vowels", r"(?<=[aeiouy])s(?=[aeiouy])", "z"),  # invisible 인비저블, resin 레진, music 뮤직
    ("ti_as_sh", r"(?<=[a-z])ti(?=[aeo])", "sh"),  # sensational 센세이셔널, station 스테이션, lotion 로션
    ("s_before_voiced", r"(?<=[aeiouy])s(?=[mnbdg])", "z"),  # Osmo 오즈모, Cosmo 코즈모 (plasma keeps 플라스마)
)


def _latin_sound(text: str) -> str:
    for spelled, sound in _LATIN_SOUNDS:
        text = text.replace(spelled, sound)
    # Korean spells a Latin r before a consonant or at the end as nothing (솔가 for solgar, 퍼마 for perma).
    text = re.sub(r"r(?![aeiouy])", "", re.sub("[^a-z]", "", text))
    return text.translate(_LATIN_CONSONANTS)


def _hangul_sound(text: str, final_s: str, vowels: tuple[str, ...] | None = None) -> str:
    """Each syllable's initial and final consonant (a final ㅅ/ㅆ as `final_s`), with its vowel between them read
    by `vowels` when given (vowel_reading)."""
    sounds = []
    for char in text:
        code = ord(char) - 0xAC00
        if not 0 <= code < 11172:
            continue
        final = code % 28
        vowel = vowels[(code // 28) % 21] if vowels else ""
        sounds += [_INITIALS[code // 588], vowel, final_s if final in _FINAL_S else _FINALS[final]]
    return "".join(sounds)


def _latin_keys(word: str) -> set[str]:
    text = re.sub(r"[^a-z-]", "", word.lower())
    parts = [part for part in text.split("-") if part]
    if not parts:
        return set()
    readings = set()
    # Only the readings the word gives a hold to: each doubles the ways it is read.
    applicable = [reading for reading in _LATIN_READINGS if any(re.search(reading[1], part) for part in parts)]
    for chosen in itertools.product((False, True), repeat=len(applicable)):
        spelled = []
        for part in parts:
            for (_, pattern, sound), on in zip(applicable, chosen, strict=True):
                if on:
                    part = re.sub(pattern, sound, part)
            spelled.append(part)
        readings.add("".join(
            # A lone letter between hyphens is read by its name (C-LITE, i-Size, G-SHOCK).
            _hangul_sound(_LETTER_NAMES[part], "s") if len(part) == 1 else _latin_sound(part) for part in spelled
        ))  # fmt: skip
    letters = "".join(parts)
    if len(letters) <= _SPELLED_OUT_LETTERS:
        readings.add(_hangul_sound(letters_read(letters), "s"))
    return readings


_READING_VOWELS = (
    "a", "e", "a", "e", "o", "e", "o", "e", "o", "a", "e", "e", "o", "u", "o", "e", "i", "u", "", "i", "i",
)  # fmt: skip
"""Each Hangul vowel as the Latin vowel a loanword writes for it (ㅐ, ㅔ → e; ㅓ, ㅗ → o; ㅡ, the vowel Korean adds
after a lone consonant, → nothing)."""
_READING_LETTERS = str.maketrans("cgzqbfvdryw", "kkjkppptliu", "h")


@lru_cache(maxsize=8192)
def vowel_reading(word: str) -> str:
    """A word read with its vowels, one spelling for both scripts (이케아 and IKEA → ikea, 레고 and LEGO → leko,
    테팔 and Tefal → tepal): for a short name whose consonants alone (sound_keys) are too few to tell it apart.
    Empty for a word with digits or no letters."""
    if not word or any(char.isdigit() for char in word):
        return ""
    if word.isascii():
        text = re.sub("[^a-z]", "", word.lower())
        for spelled, sound in _LATIN_SOUNDS:
            text = text.replace(spelled, sound)
        # A silent final e (dole, dove) and an r before a consonant or at the end (Korean writes neither); a final
        # ey is an i (honey 허니, jersey 저지).
        text = re.sub(r"r(?![aeiouy])", "", re.sub(r"(?<=[^aeiou])e$", "", re.sub(r"ey$", "i", text)))
        return _squeezed(text.translate(_READING_LETTERS))
    return _squeezed(_hangul_sound(word, "t", _READING_VOWELS))


def letters_read(word: str) -> str:
    """A short Latin word read letter by letter as Korean names the letters (JBL 제이비엘, LG 엘지, HP 에이치피)."""
    letters = re.sub("[^a-z]", "", word.lower())
    return "".join(_LETTER_NAMES[letter] for letter in letters) if letters else ""


def _squeezed(key: str) -> str:
    return re.sub(r"(.)\1+", r"\1", key)


@lru_cache(maxsize=8192)
def sound_keys(word: str) -> frozenset[str]:
    """Every way a word may sound as its consonants, so that its Hangul and its Latin spellings share one
    (스타우브 and staub → stp, 지누스 and zinus → jns, 라이트하우스 and lighthouse → lts, 캣잇 and catit → kt,
    씨라이트 and C-LITE → slt): vowels, h, w and y dropped, b/p/f/v as p, d/t as t, g/k/c/q as k, j/z/ch as j,
    l/r as l, doubled sounds once. A number in the word stays as it is, after the sound of its letters
    (플립6 and flip6 → plp6). Empty for a word with no letters."""
    pieces = re.findall(r"\d+(?:\.\d+)?|[^\d]+", word)
    if not pieces:
        return frozenset()
    keys = {""}
    for piece in pieces:
        if piece[0].isdigit():
            piece_keys = {"#" + piece}
        elif piece.isascii():
            piece_keys = _latin_keys(piece)
        else:
            piece_keys = {_hangul_sound(piece, "s"), _hangul_sound(piece, "t")}
        piece_keys = {key for key in piece_keys if key}
        if not piece_keys:
            return frozenset()
        keys = {key + piece_key for key in keys for piece_key in piece_keys}
    if all(key.startswith("#") and key.count("#") == 1 for key in keys):
        return frozenset()  # a bare number is no word to sound
    return frozenset(_squeezed(key) for key in keys)


def sound_key(word: str) -> str:
    """The plain reading of sound_keys (no alternative spelling rules): "" for a word with no letters."""
    if not word or any(char.isdigit() for char in word):
        return ""
    if word.isascii():
        return _squeezed(_latin_sound(word.lower()))
    return _squeezed(_hangul_sound(word, "s"))


# --- loanwords spelled two ways in Hangul ---------------------------------------------------------------------

_PALATALS = frozenset({9, 10, 12, 13, 14})  # ㅅ ㅆ ㅈ ㅉ ㅊ
_PLAIN_VOWEL = {2: 0, 3: 1, 6: 4, 7: 5, 12: 8, 15: 5, 16: 20, 17: 13}  # ㅑ→ㅏ ㅒ→ㅐ ㅕ→ㅓ ㅖ→ㅔ ㅛ→ㅗ ㅞ→ㅔ ㅟ→ㅣ ㅠ→ㅜ
_PLAIN_INITIAL = {10: 9, 13: 14}  # ㅆ→ㅅ (쏘바쥬 소바쥬), ㅉ→ㅊ (요쯔아미 요츠아미)


_NO_INITIAL, _WO, _O = 11, 14, 8
"""ㅇ as an initial, and the vowels ㅝ and ㅗ, by their index in a Hangul syllable."""


@lru_cache(maxsize=8192)
def loan_spelling(text: str) -> str:
    """Hangul with a loanword's two spellings made one: after ㅅ, ㅈ and ㅊ a y- or w-vowel is the plain one
    (셰프 and 쉐프 are 세프, 쥬스 is 주스, 메쉬 메시, 죠리퐁 조리퐁), and a tense ㅆ or ㅉ the plain one (쏘바쥬
    소바쥬, 요쯔아미 요츠아미), and a wo after no consonant an o (타월 and 타올 are 타올): the standard spelling and
    sellers' differ there."""
    chars = []
    for char in text:
        code = ord(char) - 0xAC00
        if 0 <= code < 11172 and code // 588 == _NO_INITIAL and (code // 28) % 21 == _WO:
            char = chr(ord(char) - (_WO - _O) * 28)
            code = ord(char) - 0xAC00
        if 0 <= code < 11172 and code // 588 in _PALATALS:
            initial, vowel, final = code // 588, (code // 28) % 21, code % 28
            initial = _PLAIN_INITIAL.get(initial, initial)
            char = chr(0xAC00 + initial * 588 + _PLAIN_VOWEL.get(vowel, vowel) * 28 + final)
        chars.append(char)
    return "".join(chars)
