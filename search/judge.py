"""Decide which candidate listings are the product asked for: the LLM when one is configured, else rules.

The rules read a title the way a Korean marketplace writes it (brand, product line, model number, variant,
capacity, colour, pack count, free gifts) and decide per candidate, in this order:
1. an accessory, part or compatible item (케이스, 필름, 충전기, 호환 …) is rejected unless the product is one too;
2. a different known brand in the title, and not ours, is rejected;
3. the product's model code in the title accepts it; a sibling code (SM-S918N for SM-S928N) rejects it;
4. a different variant (Pro, Max, Ultra, Plus, mini …), capacity/size, colour or pack count rejects it —
   but only when both sides state one: a detail the title leaves out is not a mismatch. So the same model in
   another colour is the same product unless the product names its colour;
5. a different model number of the same shape (S23 for S24, 14 for 15) rejects it;
6. otherwise the share of the product name's words found in the title decides (SAME_THRESHOLD).
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from search.listings import Judgement, Listing, ProductQuery, Verdict

if TYPE_CHECKING:
    from search.llm import LlmClient

SAME_THRESHOLD = 0.75
"""Share of the product name's words a title must contain to be judged the same product."""
FUZZY_WORD_RATIO = 0.85
"""difflib ratio at which a long word counts as found (spelling variants such as 울트라/울트라)."""
RULES_MAX_CONFIDENCE = 0.9
"""Word overlap alone never earns more than this; a model code match earns CODE_CONFIDENCE."""
CODE_CONFIDENCE = 0.95
REJECT_CONFIDENCE = 0.9
MIN_CODE_CHARS = 5
"""A shorter letters-and-digits word (S24, X-T5) is a model number, not a model code that settles it alone."""

ACCESSORY_KINDS: dict[str, tuple[str, ...]] = {
    "case": ("케이스", "커버", "범퍼", "파우치", "case", "cover", "bumper", "pouch", "sleeve"),
    "screen film": ("필름", "강화유리", "액정보호", "film", "screen protector", "tempered glass"),
    "charger": ("충전기", "어댑터", "charger", "adapter"),
    "cable": ("케이블", "젠더", "cable"),
    "holder": ("거치대", "홀더", "holder", "mount"),
    "strap": ("스트랩", "키링", "strap", "lanyard"),
    "compatible part": ("호환", "교체용", "리필", "compatible", "replacement", "refill"),
}
# An accessory word next to one of these is a free gift or part of a bundle, not what the listing sells.
GIFT_AFTER = ("증정", "포함", "사은품", "제공", "무료")
GIFT_BEFORE = ("+", "&", "사은품", "증정")

COLOURS: dict[str, tuple[str, ...]] = {
    "black": ("블랙", "검정", "검정색", "검은색", "black"),
    "white": ("화이트", "흰색", "하얀색", "white"),
    "silver": ("실버", "은색", "silver"),
    "gray": ("그레이", "회색", "gray", "grey"),
    "blue": ("블루", "파랑", "파란색", "청색", "blue"),
    "navy": ("네이비", "남색", "navy"),
    "red": ("레드", "빨강", "빨간색", "red"),
    "pink": ("핑크", "분홍", "분홍색", "pink"),
    "gold": ("골드", "금색", "gold"),
    "rose gold": ("로즈골드", "rosegold"),
    "green": ("그린", "초록", "초록색", "녹색", "green"),
    "mint": ("민트", "mint"),
    "purple": ("퍼플", "보라", "보라색", "바이올렛", "purple", "violet"),
    "lavender": ("라벤더", "lavender"),
    "yellow": ("옐로우", "옐로", "노랑", "노란색", "yellow"),
    "orange": ("오렌지", "주황", "주황색", "orange"),
    "beige": ("베이지", "beige"),
    "brown": ("브라운", "갈색", "brown"),
    "ivory": ("아이보리", "ivory"),
    "graphite": ("그라파이트", "graphite"),
    "midnight": ("미드나이트", "midnight"),
    "starlight": ("스타라이트", "starlight"),
    "natural": ("내추럴", "네추럴", "내츄럴", "natural"),
}
COLOUR_SUFFIXES = ("", "색", "색상", "컬러")
# Words that only qualify a colour (블랙 티타늄, 스페이스 그레이): not part of what identifies the product.
COLOUR_QUALIFIERS = frozenset(
    {
        "티타늄",
        "titanium",
        "스페이스",
        "space",
        "메탈",
        "metal",
        "매트",
        "matte",
        "펄",
        "pearl",
        "딥",
        "deep",
        "다크",
        "dark",
    }
)

# Variant words that make a different product (iPhone 15 vs 15 Pro). `mini` only counts when the title has it
# and the product does not, because shops also use 미니 as a plain adjective for the same product.
VARIANTS: dict[str, tuple[str, ...]] = {
    "pro": ("프로", "pro"),
    "max": ("맥스", "max"),
    "plus": ("플러스", "plus"),
    "ultra": ("울트라", "ultra"),
    "mini": ("미니", "mini"),
    "se": ("se",),
    "fe": ("fe",),
}
ONE_SIDED_VARIANTS = frozenset({"mini"})

# Measures compared between product and title; each unit is scaled to the dimension's base unit.
MEASURE_UNITS: dict[str, tuple[str, float]] = {
    "tb": ("storage", 1024),
    "gb": ("storage", 1),
    "ml": ("volume", 1),
    "l": ("volume", 1000),
    "리터": ("volume", 1000),
    "kg": ("weight", 1000),
    "g": ("weight", 1),
    "그램": ("weight", 1),
    "mg": ("weight", 0.001),
    "인치": ("screen size", 1),
    "inch": ("screen size", 1),
    "mm": ("length", 1),
    "cm": ("length", 10),
    "m": ("length", 1000),
    "w": ("power", 1),
    "kw": ("power", 1000),
    "mah": ("battery", 1),
    "hz": ("refresh rate", 1),
    "인용": ("servings", 1),
}
COUNT_UNITS = (
    "개입", "개", "팩", "입", "병입", "병", "캔", "봉지", "봉", "포", "세트", "박스", "box", "롤", "매", "장",
    "켤레", "족", "알", "정", "캡슐", "ea", "pcs", "pc", "pack",
)  # fmt: skip
# Mobile network generations read like weights ("5G"); they are not.
NOT_WEIGHTS = frozenset({"3g", "4g", "5g"})

STOP_WORDS = frozenset(
    {"정품", "국내정품", "공식", "새상품", "신상품", "최신형", "무료배송", "당일발송", "빠른배송", "로켓배송", "특가"}
)

BRAND_ALIASES: tuple[tuple[str, ...], ...] = (
    ("삼성", "삼성전자", "samsung"),
    ("애플", "apple"),
    ("lg", "엘지", "lg전자"),
    ("소니", "sony"),
    ("다이슨", "dyson"),
    ("샤오미", "xiaomi"),
    ("필립스", "philips"),
    ("쿠쿠", "cuckoo"),
    ("쿠첸", "cuchen"),
    ("위닉스", "winix"),
    ("코웨이", "coway"),
    ("테팔", "tefal"),
    ("드롱기", "delonghi"),
    ("캐논", "canon"),
    ("니콘", "nikon"),
    ("후지필름", "fujifilm"),
    ("파나소닉", "panasonic"),
    ("화웨이", "huawei"),
    ("레노버", "lenovo"),
    ("에이수스", "asus"),
    ("로지텍", "logitech"),
    ("나이키", "nike"),
    ("아디다스", "adidas"),
    ("뉴발란스", "new balance", "newbalance"),
    ("닌텐도", "nintendo"),
    ("bose",),
    ("젠하이저", "sennheiser"),
    ("마샬", "marshall"),
    ("스피겐", "spigen"),
    ("벨킨", "belkin"),
    ("앤커", "anker"),
    ("농심", "nongshim"),
    ("오뚜기", "ottogi"),
    ("풀무원", "pulmuone"),
)

_COLOUR_FORMS = {
    name: frozenset(spelling + suffix for spelling in spellings for suffix in COLOUR_SUFFIXES)
    for name, spellings in COLOURS.items()
}
"""Each colour's words as a title may write them (블랙, 블랙색, black컬러)."""
_VARIANT_FORMS = {name: frozenset(spellings) for name, spellings in VARIANTS.items()}
_COLOUR_WORDS = frozenset().union(*_COLOUR_FORMS.values())
_VARIANT_WORDS = frozenset().union(*_VARIANT_FORMS.values())
_ACCESSORY_PATTERNS = tuple(
    # A Latin word only counts whole ("case", not "showcase"); a Hangul one anywhere (케이스 in 폰케이스).
    (
        kind,
        spelling,
        re.compile(rf"(?<![a-z]){re.escape(spelling)}(?![a-z])" if spelling.isascii() else re.escape(spelling)),
    )
    for kind, spellings in ACCESSORY_KINDS.items()
    for spelling in spellings
)
_HANGUL = "가-힣"
_BRACKETS = re.compile(r"[\[\](){}<>【】「」『』〔〕]")
# "15pro" and "s24+" name a variant glued to the model number.
_GLUED_VARIANT = re.compile(r"(?<=\d)(pro|max|plus|ultra|mini)(?![a-z])")
_PLUS_SIGN = re.compile(r"(?<=[0-9a-z])\+(?!\s*\d)")
_SCRIPT_BOUNDARY = re.compile(rf"(?<=[{_HANGUL}])(?=[0-9a-z])|(?<=[0-9a-z])(?=[{_HANGUL}])")
_WORD = re.compile(rf"[0-9a-z{_HANGUL}]+(?:[-./][0-9a-z{_HANGUL}]+)*")
_LATIN_CODE = re.compile(r"[0-9a-z]+(?:[-./][0-9a-z]+)*")
_MEASURE = re.compile(
    r"(?<![0-9a-z.])(\d+(?:\.\d+)?)\s*("
    + "|".join(sorted(map(re.escape, MEASURE_UNITS), key=len, reverse=True))
    + rf")(?![0-9a-z{_HANGUL}])"
)
_COUNT = re.compile(
    r"(?<![0-9a-z.])(\d+)\s*("
    + "|".join(sorted(map(re.escape, COUNT_UNITS), key=len, reverse=True))
    + rf")(?![0-9a-z{_HANGUL}])"
)
_TIMES_COUNT = re.compile(r"(?<![0-9a-z])[x×*]\s*(\d{1,2})(?![0-9a-z.])")
_PLUS_COUNT = re.compile(r"(?<![0-9a-z.])(\d)\s*\+\s*(\d)(?![0-9a-z.])")


def judge_listings(product: ProductQuery, candidates: list[Listing], *, llm: LlmClient | None) -> Judgement:
    """Judge each candidate: one LLM call for all of them when `llm` is given, else the rules."""
    if not candidates:
        return Judgement(verdicts=[], judge="llm" if llm is not None else "rules")
    if llm is not None:
        return llm.judge(product, list(candidates))
    wanted = read_title(product.product_name, brand=product.brand)
    return Judgement(
        verdicts=[judge_by_rules(product, wanted, index, listing.title) for index, listing in enumerate(candidates)],
        judge="rules",
    )


@dataclass
class Title:
    """What a product name or listing title says, normalised (NFKC, case-folded, scripts split apart)."""

    text: str
    words: list[str]
    compact: str
    """Letters and digits only: model codes are compared in this form."""
    latin_codes: list[str] = field(default_factory=list)
    measures: dict[str, set[float]] = field(default_factory=dict)
    pack_count: int = 1
    colours: set[str] = field(default_factory=set)
    variants: set[str] = field(default_factory=set)
    accessory_kinds: dict[str, str] = field(default_factory=dict)
    """Accessory kind → the word that showed it."""
    brand_groups: set[int] = field(default_factory=set)
    """Indexes into BRAND_ALIASES of the known brands named."""
    model_numbers: set[str] = field(default_factory=set)
    """Words with a digit that are not a measure or a count (s24, 15, sm-s928n)."""
    core_words: list[str] = field(default_factory=list)
    """Words that identify the product: no brand, colour, measure, count, variant or stop word."""


def normalise(text: str) -> str:
    """NFKC, case-folded, brackets as spaces, Hangul split from Latin letters and digits."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = _BRACKETS.sub(" ", text)
    text = _PLUS_SIGN.sub(" plus ", _GLUED_VARIANT.sub(r" \1", text.replace("promax", "pro max")))
    return _SCRIPT_BOUNDARY.sub(" ", text)


def compact(text: str) -> str:
    """Letters and digits only: `SM-S928N`, `sm s928n` and `SMS928N` all become `sms928n`."""
    return re.sub(rf"[^0-9a-z{_HANGUL}]", "", unicodedata.normalize("NFKC", text or "").casefold())


def read_title(raw: str, *, brand: str | None = None) -> Title:
    """Read a product name or a listing title into the parts the rules compare."""
    text = normalise(raw)
    measures: dict[str, set[float]] = {}
    for match in _MEASURE.finditer(text):
        value, unit = float(match.group(1)), match.group(2)
        if unit == "g" and match.group(0).replace(" ", "") in NOT_WEIGHTS:
            continue
        dimension, scale = MEASURE_UNITS[unit]
        measures.setdefault(dimension, set()).add(round(value * scale, 3))
    rest = _MEASURE.sub(" ", text)
    counts = [int(match.group(1)) for match in _COUNT.finditer(rest)]
    # "6개입 x 2팩": the "x" before a counted number is not a second count of it.
    rest = _COUNT.sub(" ", rest)
    counts += [int(match.group(1)) for match in _TIMES_COUNT.finditer(rest)]
    counts += [int(match.group(1)) + int(match.group(2)) for match in _PLUS_COUNT.finditer(rest)]
    pack_count = math.prod(count for count in counts if count > 0) if counts else 1

    # What remains once measures and counts are cut out holds the model numbers and the naming words.
    rest = _PLUS_COUNT.sub(" ", _TIMES_COUNT.sub(" ", rest))
    words = _WORD.findall(rest)
    brand_words = set(_WORD.findall(normalise(brand or "")))
    brand_groups = _brand_groups(words)
    brand_groups_words = {alias for group in brand_groups for alias in BRAND_ALIASES[group]}
    word_set = frozenset(words)
    colours = {name for name, forms in _COLOUR_FORMS.items() if not forms.isdisjoint(word_set)}
    variants = {name for name, forms in _VARIANT_FORMS.items() if not forms.isdisjoint(word_set)}
    model_numbers = {word for word in words if any(char.isdigit() for char in word) and word not in NOT_WEIGHTS}
    core_words = [
        word
        for word in words
        if word not in brand_words
        and word not in brand_groups_words
        and word not in _COLOUR_WORDS
        and word not in COLOUR_QUALIFIERS
        and word not in _VARIANT_WORDS
        and word not in STOP_WORDS
        and (len(word) > 1 or word.isdigit())
    ]
    return Title(
        text=text,
        words=words,
        compact=compact(raw),
        latin_codes=_LATIN_CODE.findall(unicodedata.normalize("NFKC", raw or "").casefold()),
        measures=measures,
        pack_count=pack_count,
        colours=colours,
        variants=variants,
        accessory_kinds=_accessory_kinds(text, brand_words),
        brand_groups=brand_groups,
        model_numbers=model_numbers,
        core_words=core_words,
    )


def is_qualifier(word: str) -> bool:
    """A word that narrows a product without naming it: colour, capacity or size, pack count (블랙, 256GB, 6개)."""
    folded = normalise(word).strip(" ,;:/")
    if not folded:
        return False
    if folded in _COLOUR_WORDS or folded in COLOUR_QUALIFIERS:
        return True
    whole = (_MEASURE, _COUNT, _TIMES_COUNT, _PLUS_COUNT)
    return folded not in NOT_WEIGHTS and any(pattern.fullmatch(folded) for pattern in whole)


def is_model_code(word: str) -> bool:
    """Letters and digits long enough to name one model (SM-S928N, WH-1000XM5), not a series number (S24)."""
    code = compact(word)
    return _is_code_like(code) and len(code) >= MIN_CODE_CHARS and not is_qualifier(word)


def is_variant(word: str) -> bool:
    return normalise(word).strip() in _VARIANT_WORDS


def judge_by_rules(product: ProductQuery, wanted: Title, index: int, title: str) -> Verdict:
    """The rules' verdict on one listing title (see the module docstring for the order)."""
    listing = read_title(title, brand=product.brand)

    def reject(reason: str, confidence: float = REJECT_CONFIDENCE) -> Verdict:
        return Verdict(index=index, same_product=False, confidence=confidence, reason=reason)

    extra_kinds = {kind: word for kind, word in listing.accessory_kinds.items() if kind not in wanted.accessory_kinds}
    if extra_kinds:
        kind, word = next(iter(extra_kinds.items()))
        return reject(f"{kind} ({word}), not the product itself", CODE_CONFIDENCE)

    brand_found = _brand_found(product.brand, listing) if product.brand else None
    other_brands = listing.brand_groups - _groups_of(product.brand)
    if product.brand and not brand_found and other_brands:
        return reject(f"brand {BRAND_ALIASES[min(other_brands)][0]}, not {product.brand}")

    codes = [product.model_code] if product.model_code else _codes_in_name(wanted)
    code_found = next((code for code in codes if _code_in(compact(code), listing)), None)
    if codes and not code_found:
        for code in codes:
            sibling = _sibling_code(compact(code), listing)
            if sibling:
                return reject(f"model code {sibling.upper()}, not {code.upper()}", CODE_CONFIDENCE)

    mismatch = _detail_mismatch(wanted, listing)
    if mismatch:
        return reject(mismatch)

    if code_found:
        confidence = CODE_CONFIDENCE if brand_found is not False else 0.85
        return Verdict(index, True, confidence, f"model code {code_found.upper()} matches")

    other_number = _other_model_number(wanted, listing)
    if other_number:
        return reject(other_number)

    found = sum(1 for word in wanted.core_words if _word_found(word, listing))
    share = found / len(wanted.core_words) if wanted.core_words else 0.5
    score = share + (0.05 if brand_found else -0.1 if brand_found is False else 0.0)
    same = score >= SAME_THRESHOLD
    confidence = round(min(RULES_MAX_CONFIDENCE, 0.5 + 2 * abs(score - SAME_THRESHOLD)), 2)
    reason = f"{found} of {len(wanted.core_words)} name words in the title"
    if brand_found is False:
        reason += f", brand {product.brand} not named"
    return Verdict(index, same, confidence, reason)


def _accessory_kinds(text: str, brand_words: set[str]) -> dict[str, str]:
    """The accessory kinds a text names, skipping free gifts (케이스 증정) and bundles (+ 충전기)."""
    for brand_word in brand_words:
        # A brand may contain an accessory word (후지필름): it does not make the product a film.
        text = text.replace(brand_word, " ")
    kinds: dict[str, str] = {}
    for kind, spelling, pattern in _ACCESSORY_PATTERNS:
        if spelling in text:  # most titles name no accessory: a substring test skips the regex
            for match in pattern.finditer(text):
                before = text[max(0, match.start() - 4) : match.start()].strip()
                after = text[match.end() : match.end() + 6].strip()
                if after.startswith(GIFT_AFTER) or before.endswith(GIFT_BEFORE):
                    continue
                kinds.setdefault(kind, spelling)
    return kinds


def _brand_groups(words: Sequence[str]) -> set[int]:
    joined = " " + " ".join(words) + " "
    groups = set()
    for group, aliases in enumerate(BRAND_ALIASES):
        for alias in aliases:
            if f" {alias} " in joined:
                groups.add(group)
                break
    return groups


def _groups_of(brand: str | None) -> set[int]:
    return _brand_groups(_WORD.findall(normalise(brand or "")))


def _brand_found(brand: str, listing: Title) -> bool:
    spelled = compact(brand)
    if spelled and any(word.startswith(spelled) for word in listing.words):
        return True
    return bool(_groups_of(brand) & listing.brand_groups)


def _title_codes(listing: Title) -> list[str]:
    """Latin code candidates of a title, compacted, with neighbours joined (`sm s928n` → `sms928n`)."""
    parts = [compact(code) for code in listing.latin_codes]
    joined = [a + b for a, b in itertools.pairwise(parts)]
    joined += [a + b + c for a, b, c in zip(parts, parts[1:], parts[2:], strict=False)]
    return parts + joined


def _code_in(code: str, listing: Title) -> bool:
    """The product's model code is in the title, exactly or with a short colour/region suffix (SM-S928NZKA)."""
    for candidate in _title_codes(listing):
        if candidate == code:
            return True
        longer, shorter = (candidate, code) if len(candidate) > len(code) else (code, candidate)
        if len(shorter) >= MIN_CODE_CHARS and longer.startswith(shorter) and len(longer) - len(shorter) <= 6:
            return True
    return False


def _codes_in_name(wanted: Title) -> list[str]:
    """Model codes written in the product name itself (WH-1000XM5), for when no model_code was given."""
    return sorted(
        number for number in wanted.model_numbers if _is_code_like(number) and len(compact(number)) >= MIN_CODE_CHARS
    )


def _sibling_code(code: str, listing: Title) -> str | None:
    """A code in the title from the same family as ours but not ours (SM-S918N for SM-S928N)."""
    for written in listing.latin_codes:
        candidate = compact(written)
        if len(candidate) < 4 or not _is_code_like(candidate) or candidate[0] != code[0]:
            continue
        if candidate.startswith(code) or code.startswith(candidate):
            continue
        prefix = len(_common_prefix(candidate, code))
        if prefix >= 3 or difflib.SequenceMatcher(None, candidate, code).ratio() >= 0.6:
            return written
    return None


def _is_code_like(word: str) -> bool:
    return any(char.isdigit() for char in word) and any(char.isalpha() for char in word)


def _common_prefix(a: str, b: str) -> str:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return a[:size]


def _detail_mismatch(wanted: Title, listing: Title) -> str | None:
    """A variant, measure, colour or pack count that both state and that differs."""
    for variant in sorted(listing.variants ^ wanted.variants):
        if variant in ONE_SIDED_VARIANTS and variant not in listing.variants:
            continue
        side = "the title says" if variant in listing.variants else "the title lacks"
        return f"different variant: {side} {variant}"
    for dimension, values in wanted.measures.items():
        offered = listing.measures.get(dimension)
        if offered and not values <= offered:
            return f"different {dimension}: {_show(offered)} instead of {_show(values)}"
    if wanted.colours and listing.colours and not wanted.colours & listing.colours:
        return f"different colour: {', '.join(sorted(listing.colours))}"
    if wanted.pack_count != listing.pack_count:
        return f"different pack count: {listing.pack_count} instead of {wanted.pack_count}"
    return None


def _other_model_number(wanted: Title, listing: Title) -> str | None:
    """A model number of the same shape as one of ours that the title has instead (S23 for S24, 14 for 15)."""
    missing = [number for number in wanted.model_numbers if not _number_in(number, listing)]
    extra = listing.model_numbers - wanted.model_numbers
    for ours in sorted(missing):
        for theirs in sorted(extra):
            if _same_shape(ours, theirs):
                return f"different model: {theirs} instead of {ours}"
    return None


def _number_in(number: str, listing: Title) -> bool:
    return number in listing.model_numbers or compact(number) in {compact(word) for word in listing.model_numbers}


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


def _word_found(word: str, listing: Title) -> bool:
    if word in listing.words:
        return True
    if len(word) >= 2 and compact(word) in listing.compact:
        return True
    if len(word) >= 4:
        return any(difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_WORD_RATIO for other in listing.words)
    return False


def _show(values: set[float]) -> str:
    return "/".join(f"{value:g}" for value in sorted(values))
