"""What a listing says beyond the product, word by word: the evidence the rules of search/rules.py weigh.

A title's word is explained (the product's own, a harmless mark, a kind word of its group, the same word in the
other script by its sound, a piece of a glued word) or it is evidence against the listing; these helpers say
which, and where a word stands (beside the name, glued to it, before a colour). Vocabularies: search/vocabulary/.
"""

from __future__ import annotations

import difflib
import itertools
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from search.titles import (
    MIN_CODE_CHARS,
    Title,
    canonical,
    colour_named,
    compact,
    is_code_like,
    letters_read,
    loan_spelling,
    normalise,
    read_title,
    sound_keys,
    vowel_reading,
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
    LINE_WORDS,
    LOOKALIKE_AFTER_BRAND,
    MADE_FOR_WORDS,
    MATERIAL_OF,
    NETWORKS,
    NOTICE_WORDS,
    PACKAGING_WORDS,
    PLAIN_WORDS,
    SCALE_SIZES,
    SELLER_WORDS,
    STOP_WORDS,
    TRANSLITERATIONS,
    USAGE_WORDS,
)

if TYPE_CHECKING:
    from search.rules import Product

FUZZY_WORD_RATIO = 0.85
"""difflib ratio at which a long word counts as found (spelling variants)."""
MIN_BRAND_WORD = 3
"""A brand of several words is named by its first word alone when that word has this many letters."""
MIN_SOUND_KEY = 3
"""Consonants a sound key needs before two words in different scripts count as one (icona ≈ 아이코나 is too short)."""
SHORT_SOUND_KEY = 2
MIN_READING = 3
"""Letters two words' vowel readings (search.titles.vowel_reading) must have to count as one word read the same."""
NEAR_SPELLING_KEY = 4
"""Consonants two spellings of one word in one script must share to be read as the same word misspelt."""
SHORT_KEY_LETTERS = 4
SHORT_KEY_SYLLABLES = 2
"""A two-consonant key is enough when the Latin word has this many letters and the Hangul this many syllables
(CURIO 큐리오, JUICY 쥬시): the vowels between carry the rest of the word's shape."""
HARMLESS = frozenset(
    STOP_WORDS
    | SELLER_WORDS
    | NOTICE_WORDS
    | PACKAGING_WORDS
    | DESCRIPTORS
    | PLAIN_WORDS
    | CORPORATE_WORDS
    | USAGE_WORDS
    | frozenset(MATERIAL_OF)
)
"""Words that say nothing about which product is sold (search/vocabulary/harmless.py)."""
_COLOUR_WORDS = frozenset(spelling for spellings in COLOURS.values() for spelling in spellings)
_BRAND_WORDS = frozenset(word for aliases in BRAND_ALIASES for alias in aliases for word in alias.split())
KIND_GROUP_OF: dict[str, frozenset[str]] = {}
for _group, _words in KIND_GROUPS.items():
    for _word in _words:
        # A kind word as titles read it too, in Latin letters (샴푸 is read as shampoo), unless that reading is a
        # line; a Hangul reading (팬티형 → 팬티, 올리브유 → 올리브오일) names a kind of its own.
        _read = TRANSLITERATIONS.get(_word, "")
        _spellings = [_word, _read] if _read and _read.isascii() and _read not in LINE_WORDS else [_word]
        for _spelling in _spellings:
            KIND_GROUP_OF[_spelling] = KIND_GROUP_OF.get(_spelling, frozenset()) | {_group}
KIND_WORDS = frozenset(KIND_GROUP_OF)
"""Every kind word (vocabulary/categories.py), in its own spelling and as titles read it."""
_BRAND_COMPACTS = frozenset(compact(alias) for aliases in BRAND_ALIASES for alias in aliases)
_ACCESSORY_SPELLINGS = {spelling: kind for kind, spellings in ACCESSORY_KINDS.items() for spelling in spellings}
_MADE_FOR_STEMS = ("리필", "교체", "전용")
LINE_WORDS_OF: dict[int, frozenset[str]] = {
    group: frozenset(piece for line in BRAND_LINES.get(aliases[0], ()) for piece in canonical(line))
    for group, aliases in enumerate(BRAND_ALIASES)
}
_DATE = re.compile(r"\d{2,4}[./-]\d{1,2}(?:[./-]\d{1,2})?|\d{4}년?")
# One Hangul syllable left over from a glued word (형, 용, 향, 맛): an ending, not a word.
_ONE_SYLLABLE = re.compile(r"[가-힣]")


# --- what a listing says beyond the product -----------------------------------------------------------------


SHOP_SUFFIXES = (
    "마트", "샵", "몰", "스토어", "상회", "마켓", "상사", "유통", "닷컴", "전문점", "shop", "mall", "store", "mart",
)  # fmt: skip
"""How a seller's own name ends (공구마트, 유도용품샵, 스포츠몰, OO상회): what the shop is, never what it sells."""


_SELLER_ENDINGS = ("정품", "직송", "직구", "발송", "출고", "배송")


def shop_name(word: str) -> bool:
    """A seller's name by its ending: a suffix of SHOP_SUFFIXES after at least two more letters."""
    return any(word.endswith(suffix) and len(word) >= len(suffix) + 2 for suffix in SHOP_SUFFIXES)


def unexplained_words(product: Product, listing: Title) -> list[str]:
    """The listing's words that neither the product nor a known harmless mark explains (in title order)."""
    name = product.title
    extra = []
    for word in listing.words:
        if _explained(word, product, listing):
            continue
        if word not in extra and (not word_found(word, name, set()) or _holds_ours_and_more(word, name)):
            extra.append(word)
    return extra


def _holds_ours_and_more(word: str, name: Title) -> bool:
    """A title's word that is a word of our name with more glued to it (밤단팥죽 for 단팥죽): a flavour or a line
    stuck on, which a loose spelling match would otherwise read as ours."""
    if word.isascii() or word in name.words or word in name.compact:
        return False
    if loan_spelling(word) in loan_spelling(name.compact):
        return False  # 쉐프나이프 for 셰프나이프: our word in another loan spelling
    return any(len(ours) >= 2 and not ours.isascii() and ours in word for ours in name.core_words)


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
    if SCALE_SIZES.get(word) in name.sizes.get("scale", ()):
        return True  # 중형 for 중: our own size, said another way
    if shop_name(word) or (word.endswith(_SELLER_ENDINGS) and len(word) > 3):
        return True  # 공구마트; 본사직송, 와인샵정품, 일본직구: a shop's word glued to what it says of the sale
    if any(word in spellings for kind, spellings in ACCESSORY_KINDS.items() if kind in name.accessory_kinds):
        return True  # 어댑터 for a 충전기: the product's own kind of part, in another word
    if IMPLIED_BY.get(word) in listing.words:
        return True
    # A made-for mark where the product is itself a part or an accessory (교체용 칫솔모, 리필모 for 칫솔모).
    if name.accessory_kinds and (word in MADE_FOR_WORDS or word.startswith(_MADE_FOR_STEMS)):
        return True
    # A line only our brand sells (플스 for a PlayStation): it names the brand, not another product.
    if any(word in LINE_WORDS_OF.get(group, ()) for group in product.brand_groups):
        return True
    compacted = compact(word)
    if compacted and len(compacted) >= 2 and (compacted in name.compact or compacted in name.raw_compact):
        return True
    # A size the listing states (퀸사이즈, 270): the size rule compares it.
    if any(size_word(word) in values for values in listing.sizes.values()):
        return True
    # "펌프포함", "케이스포함": what comes in the box with the product.
    if len(word) >= 3 and word.endswith(("포함", "구성")):
        return True
    # The same word in the other script, by its sound (스타우브 = staub, 꼬꼬떼 = cocotte), alone or with its
    # neighbour (Mix Media for 믹스미디어).
    if sounds_like_one_of(word, name.words) or part_of_a_word(word, listing, name):
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
    # Two Latin letters are no part of it (AR in Arc'teryx is a line: Beta AR).
    if brand and len(compacted) >= (3 if compacted.isascii() else 2) and (compacted in brand or brand in compacted):
        return True
    # A model code where the product has none: evidence neither way (a sibling's code is OtherModel's business).
    if not product.codes and is_code_like(word) and len(compacted) >= MIN_CODE_CHARS:
        return True
    # A glued word made only of explained pieces (강아지사료, 라이트스탠다드, 흰검).
    pieces = _pieces(word, product)
    return pieces is not None


def size_word(word: str) -> str:
    from search.vocabulary import BEDDING_SIZES

    return BEDDING_SIZES.get(word) or CLOTHING_SIZES.get(word) or word


def sounds_like_one_of(word: str, words: list[str]) -> bool:
    """`word` sounds like one of `words` written in the other script, or like two of them side by side
    (퍼마소프트 = PERMA SOFT), or like one followed by its number (플립 6 = flip6)."""
    latin = word.isascii()
    others = [other for other in words if other.isascii() != latin]
    pairs = [
        first + second
        for first, second in itertools.pairwise(words)
        if (first.isascii() == second.isascii() != latin) or (first.isascii() != latin and second.isdigit())
    ]
    return any(_sound_alike(word, other) for other in [*others, *pairs])


def _sound_alike(one: str, other: str) -> bool:
    """Two words in different scripts share a reading with MIN_SOUND_KEY consonants, or with two when both
    are long enough that two consonants are a shape, not a chance (큐리오 = CURIO, 트윈 = TWIN; icona is not
    enough for 아이코나 by sound alone)."""
    shared = sound_keys(one) & sound_keys(other)
    if not shared:
        return False
    if len(reading := vowel_reading(one)) >= MIN_READING and reading == vowel_reading(other):
        return True  # 이케아 = IKEA, 테팔 = Tefal: too few consonants, but read the same with their vowels
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


def glued_to_name(word: str, product: Product) -> bool:
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
        if len(rest) == 1 and word.startswith(rest) and "가" <= rest <= "힣":
            return True  # 밤단팥죽, 쑥떡: one syllable stuck before our name names a flavour
    return False


def part_of_a_name(words: list[str], position: int, product: Product) -> bool:
    """The word with a neighbour spells a word of the product or a brand (3 in 1 for 3in1, Levi's)."""
    word = words[position]
    joined = [words[position - 1] + word] if position else []
    joined += [word + words[position + 1]] if position + 1 < len(words) else []
    name = product.title.compact + compact(product.query.product_name)
    return any(compact(piece) in name or compact(piece) in _BRAND_COMPACTS for piece in joined)


def _as_spelled(word: str, listing: Title) -> set[str]:
    """`word` as the title spells it (라이트 for lite, 쿠션 for cushion) and in its one spelling, compacted."""
    return {compact(raw) for raw in listing.spellings.get(word, set())} | {compact(word)}


def glued_to_a_colour(line: str, listing: Title) -> bool:
    """The line's word glued before a colour in the title (라임그린, 피치핑크): a shade, not a flavour."""
    spelled = _as_spelled(line, listing)
    return any(
        word.startswith(piece) and word != piece and colour_named(word[len(piece) :])
        for word in listing.plain.split()
        for piece in spelled
        if piece
    )


def inside_our_word(word: str, listing: Title, product: Product) -> bool:
    """`word` as the title spells it is part of a longer word of the product that the title also spells (쿠션 in
    쿠션커버, written 쿠션 커버): the product's own word, written apart."""
    spelled = _as_spelled(word, listing)
    ours = [compact(theirs) for theirs in product.query.product_name.split() if len(compact(theirs)) >= 3]
    return any(
        piece and piece in our_word and piece != our_word and our_word in listing.raw_compact
        for piece in spelled
        for our_word in ours
    )


def part_of_a_word(word: str, listing: Title, name: Title) -> bool:
    """`word` with a neighbour is a word of the product's name written in the other script (GOAL ZERO = 골제로):
    part of a name, not a flavour or a line of its own."""
    words = listing.words
    for position, candidate in enumerate(words):
        if candidate != word:
            continue
        joined = [words[position - 1] + word] if position else []
        joined += [word + words[position + 1]] if position + 1 < len(words) else []
        if any(sounds_like_one_of(piece, name.words) for piece in joined):
            return True
    return False


def networks(title: Title) -> set[str]:
    words = set(title.words) | set(title.text.split())
    return {network for network, spellings in NETWORKS.items() if words & set(spellings)}


def variant_spellings(variant: str) -> set[str]:
    """A variant's word in both scripts (pro and 프로): its name and the Hangul words read as it."""
    return {variant} | {hangul for hangul, latin in TRANSLITERATIONS.items() if latin == variant}


def glued_in(variant: str, title: Title) -> bool:
    """The variant written inside a longer word of `title`, in either script (프로스태프 holds 프로)."""
    spellings = variant_spellings(variant)
    return any(spelling in word and spelling != word for word in title.text.split() for spelling in spellings)


def beside_name(word: str, product: Product, listing: Title) -> bool:
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
            if any(word_found(core_word, _one(neighbour)) for core_word in core):
                return True
    return False


def before_a_colour(word: str, listing: Title) -> bool:
    """A Hangul `word` right before a colour word (린넨 블랙, 새벽 그레이): a shade's name, not a line of the product
    (still a word the product lacks: the verdict is not sure). A Latin one may be a colour code (BKS 블랙)."""
    words = listing.words
    return not word.isascii() and any(
        candidate == word and position + 1 < len(words) and colour_named(words[position + 1])
        for position, candidate in enumerate(words)
    )


def naming_word_of(word: str, product: Product) -> bool:
    """`word` is one of the product's naming words (not its brand, kind or a harmless mark)."""
    return is_naming(word) and word in product.title.core_words and word not in KIND_WORDS and word not in HARMLESS


@lru_cache(maxsize=8192)
def _one(word: str) -> Title:
    """One word read as a title (cached: a page asks for the same neighbours again; callers only read it)."""
    return read_title(word)


def shape(word: str) -> str:
    """A code's shape: letters as a, digits as 9 (PG945 and CL946 are both aa999; 60337 and 60205 are 99999)."""
    return re.sub("[a-z가-힣]", "a", re.sub("[0-9]", "9", compact(word)))


def other_script_may_say(missing: list[str], listing: Title) -> bool:
    """Our missing words are in one script and the title names things in the other (Hangul name, Latin title)."""
    scripts = {word.isascii() for word in missing if is_naming(word)}
    return any(
        len(word) >= 3 and word.isascii() != script and not any(char.isdigit() for char in word)
        for word in listing.words
        for script in scripts
    )


def spelled_near(missing: list[str], listing: Title) -> bool:
    """One of our missing words is in the title in another spelling of the same script: the same consonants, at
    least NEAR_SPELLING_KEY of them (샤인머스켓 for 샤인머스캣, 블루트스 for 블루투스), where only a vowel differs."""
    for word in missing:
        if not is_naming(word):
            continue
        ours = {key for key in sound_keys(word) if len(key) >= NEAR_SPELLING_KEY}
        for theirs in listing.words:
            if theirs.isascii() == word.isascii() and any(
                key in other or other in key
                for key in ours
                for other in sound_keys(theirs)
                if len(other) >= NEAR_SPELLING_KEY
            ):
                return True  # the same consonants, or ours inside a glued word of the title (캠밸포두 for 캠벨)
    return False


def same_total(name: Title, listing: Title) -> bool:
    """The title sells our measure in smaller units (5kg x 2 for 10kg, 500ml x 2 for 1L) where we sell one."""
    if listing.pack_count <= 1 or name.pack_count != 1:
        return False
    return any(
        {value * listing.pack_count for value in listing.measures.get(dimension, ())} & values
        for dimension, values in name.measures.items()
    )


def code_words(product: Product) -> set[str]:
    """The words of the shop's model code (archer, t3u, plus for "Archer T3U Plus")."""
    return set(normalise(product.query.model_code or "").split())


def code_shaped(word: str) -> bool:
    """A model code or a set number: letters with two digits or more, or four digits or more (60205)."""
    compacted = compact(word)
    digits = sum(char.isdigit() for char in compacted)
    return (is_code_like(compacted) and digits >= 2 and len(compacted) >= 4) or (compacted.isdigit() and digits >= 4)


def is_naming(word: str) -> bool:
    """A word that may name a product, a flavour or a line: two or more letters, no digit."""
    if any(char.isdigit() for char in word):
        return False
    return len(word) >= 2 and (bool(re.search("[가-힣]", word)) or word.isalpha())


def styled_after(listing: Title, product: Product) -> str | None:
    """A look-alike word right after a brand, the product's own name or its model code ("다이슨 스타일",
    "다이슨st", "VB-100R 스타일")."""
    words = listing.words
    anchors = _BRAND_WORDS | set(product.title.core_words)
    own_pairs = set(itertools.pairwise(product.title.words))
    for before, word in itertools.pairwise(words):
        if word not in LOOKALIKE_AFTER_BRAND or (before, word) in own_pairs:
            continue  # 프로스타일 in the product's own name is its name, not "in the style of"
        # 엘리트 스타일 for 엘리트스크린: the head of our own glued word, then the look-alike mark.
        head_of_ours = len(before) >= 2 and any(
            ours.startswith(before) and ours != before for ours in product.title.words if not ours.isascii()
        )
        if word == "type":
            # 타입 (read as type) also names a kind of ours (늘어나는 타입, USB-C타입): a look-alike mark only after
            # a brand or the shop's own model code (MW-100 타입, 꼭꼬핀 타입).
            if before in _BRAND_WORDS or compact(before) == compact(product.query.model_code or ""):
                return f"{before} {word}"
            continue
        if before in anchors or before in product.title.words or head_of_ours or compact(before) in product.codes:
            return f"{before} {word}"
    return None


# --- model codes --------------------------------------------------------------------------------------------


def _brand_piece(piece: str) -> bool:
    """A word of a brand long enough to name it alone: MIN_BRAND_WORD letters, or two Hangul syllables."""
    return len(piece) >= (MIN_BRAND_WORD if piece.isascii() else 2)


def brand_spelled(brand: str | None, listing: Title) -> bool:
    """The shop's brand in the title as the shop spells it, or in the other script by its sound (지누스 = ZINUS)."""
    spelled = compact(brand or "")
    if not spelled:
        return False
    if spelled in listing.raw_compact and not spelled.isascii():
        return True  # 반석 스포츠 for 반석스포츠
    pieces = [compact(piece) for piece in (brand or "").split()] if len((brand or "").split()) > 1 else []
    words = [compact(word) for word in listing.text.split()]
    if any(_brand_piece(piece) and piece in words for piece in pieces):
        # 커클랜드 for 커클랜드 시그니춰, 백설 for CJ 백설: a brand of several words named by one of them (a maker's
        # prefix before its line brand is often left out).
        return True
    return any(word.startswith(spelled) for word in words) or sounds_like_one_of(spelled, words)


# --- naming words -------------------------------------------------------------------------------------------


def _code_found_whole(code: str, listing: Title) -> bool:
    if code in listing.codes:
        return True
    written = r"[-./ ]?".join(map(re.escape, code))
    return bool(re.search(rf"(?<![0-9a-z]){written}(?![0-9a-z])", listing.text))


def word_found(word: str, listing: Title, spellings: set[str] = frozenset()) -> bool:
    """A product word in the title: whole, inside a glued word, in its own spelling, or glued apart."""
    if word in listing.words:
        return True
    if word.isascii() and len(compact(word)) < 4:
        # Short Latin words only count whole (I/O as IO): AA is not AAA, S is not S9; or read letter by letter in
        # Hangul (제이비엘 for JBL).
        spelled = letters_read(word) if len(compact(word)) >= 2 and compact(word).isalpha() else ""
        return bool(compact(word)) and any(
            compact(other) == compact(word) or (spelled and other == spelled) for other in listing.words
        )
    if len(word) >= 2 and compact(word) in listing.compact:
        # A code-shaped word (C922) is found whole, or glued to a word of the other script (로지텍C922), not as
        # the head of a longer code (C922x is another model).
        return not (word.isascii() and is_code_like(word) and code_shaped(word)) or _code_found_whole(
            compact(word), listing
        )
    if len(word) >= 2 and not word.isascii() and loan_spelling(compact(word)) in loan_spelling(listing.compact):
        return True
    if len(word) >= 3 and word[-1] in "용형" and word_found(word[:-1], listing):
        return True
    if maker_stem(word) in listing.words:
        # 송학 for 송학식품, 대웅 for 대웅제약: the maker named without its company word.
        return True
    if any(len(spelled) >= 2 and spelled in listing.raw_compact for spelled in spellings):
        return True
    # "동원참치" for "동원 … 참치", "중목양말" for "중목 양말": each part of a glued word is there.
    if len(word) >= 4 and not word.isascii():
        for cut in range(2, len(word) - 1):
            if word_found(word[:cut], listing) and word_found(word[cut:], listing):
                return True
    if sounds_like_one_of(word, listing.words):
        return True
    if len(word) >= 4 and not any(char.isdigit() for char in word):
        # Spelling variants of a word; never of a number (1pgrade is not 1ppgrade, S23 is not S24).
        # Not a word held inside the other (와이어 in 노와이어, 설탕 in 무설탕): that is a word added, not misspelt.
        return any(
            difflib.SequenceMatcher(None, word, other).ratio() >= FUZZY_WORD_RATIO
            and other not in word
            and word not in other
            for other in listing.words
        )
    return False


def maker_stem(word: str) -> str:
    """A maker's name without the company word it ends in (송학식품 → 송학, LG전자 → lg); "" when it ends in none
    or too little is left."""
    for ending in CORPORATE_WORDS:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            return word[: -len(ending)]
    return ""


def kind_groups_of(word: str) -> frozenset[str]:
    """The KIND_GROUPS a word names: its own, or for a Hangul compound those of the longest kind word of two
    syllables or more it ends in (쌀떡볶이떡 ends in 떡볶이떡, 헤어왁스 in 왁스: the kind, said more exactly)."""
    if word in KIND_GROUP_OF:
        return KIND_GROUP_OF[word]
    if word.isascii():
        return frozenset()
    for start in range(1, len(word) - 1):
        groups = KIND_GROUP_OF.get(word[start:])
        if groups and not word[start:].isascii():
            return groups
    return frozenset()


def found_or_sized(word: str, listing: Title, name: Title) -> bool:
    """A product word in the title, or the product's size written as a size (265 as 265mm)."""
    if word_found(word, listing, name.spellings.get(word, set())):
        return True
    if re.fullmatch(r"\d+(?:\.\d+)?", word) and re.search(
        rf"(?<![0-9.]){re.escape(word)}(?:\s*(?:인치|형|inch)|/\d)", listing.text
    ):
        # A bare number of the product (27.5, 17, 69) that the title writes with a size unit (27.5인치, 17형) or as
        # the first of a size pair (69/25).
        return True
    sized = size_word(word)
    if sized != word and any(sized in values for values in listing.sizes.values()):
        return True  # 슈퍼싱글 as SS: the same size in its other spelling
    return any(word in values for values in listing.sizes.values()) and any(word in v for v in name.sizes.values())


def overlaps(core: list[str], listing: Title) -> bool:
    """A title word inside a product word or around it (삼다수 in 제주삼다수): a shorter or longer name, not
    another product for sure."""
    return any(
        len(word) >= 2 and len(theirs) >= 2 and not word.isascii() and (theirs in word or word in theirs)
        for word in core
        for theirs in listing.words
    )


def show(values: set[float]) -> str:
    return "/".join(f"{value:g}" for value in sorted(values))
