"""How a title's model codes compare with the product's (rules: other model and sibling, identity).

A code is matched compacted (SM-S928N = sms928n) and then by its tail: a known regional or colour-and-region tail
leaves it ours, letters written apart after it (H6005-IGMP) or one or two glued letters (XM5S) may be a sibling,
a code lacking our last letters (DUE6BG for DUE6BGE) may be another model. Vocabulary: vocabulary/codes.py.
"""

from __future__ import annotations

import difflib
import re

from search.titles import CODE_SUFFIX_CHARS, MIN_CODE_CHARS, Title, compact, is_code_like
from search.vocabulary.codes import (
    CODE_REGION_SUFFIXES,
    COLOUR_CODE_TAILS,
    KOREAN_MODEL_PREFIXES,
    KOREAN_MODEL_SUFFIX,
    LONG_SUFFIX_CHARS,
)

_RATE_OR_MEASURE = re.compile(r"\d+(?:\.\d+)?(?:mb/s|gb/s|mbps|gbps|mb|kb|oz|floz|fps|k|p)")
MIN_CODE_PART = 3
"""A code written in parts is the product's own when each part of this length or more is in its name (SN850P PS5)."""


def code_in(code: str, listing: Title) -> str | None:
    """Our code in the title: "exact" when it is there exactly, with a known regional tail (SM-R630N) or a long
    colour-and-region tail (SM-S928NZKEKOO), after a maker's prefix (LS27CG510EKXKR), or followed by a separator
    and more (NT940XGK-K51A, HX9044/67), or shorter when ours only adds such letters; "extended" when a title's
    code is ours plus one or two other letters (a sibling may be named so); "shorter" when the title's code lacks
    letters that end ours and are no such tail (DUE6BG for DUE6BGE: another model, or ours written short); None
    when it is not there."""
    extended = shorter_seen = False
    for candidate in listing.codes:
        if candidate == code:
            if any(_tailed(code, whole, listing) for whole in listing.full_codes):
                # H6005-IGMP for H6005: letters written apart after our code name a model of their own (a
                # colour-and-region tail is glued on: SM-S928NZKEKOO) or an option: never sure.
                return "extended"
            return "exact"
        head, _, tail = candidate.partition(code)
        prefixed = bool(_) and head.isalpha() and len(head) <= 2
        if len(code) >= MIN_CODE_CHARS and prefixed and (not tail or tail.isalpha()) and len(tail) <= CODE_SUFFIX_CHARS:
            if not tail or _leaves_ours(code, tail):
                return "exact"
            extended = True  # LG MLJ32ERSK for MLJ32ERS: the maker's letters, then ours with a letter of its own
            continue
        longer, shorter = (candidate, code) if len(candidate) > len(code) else (code, candidate)
        suffix = longer[len(shorter) :]
        extends = len(shorter) >= MIN_CODE_CHARS and longer.startswith(shorter) and suffix.isalpha()
        if extends and len(suffix) <= CODE_SUFFIX_CHARS and not _continued(shorter, listing):
            if longer == code:
                if _leaves_ours(shorter, suffix):
                    return "exact"  # ours without its region's letter (SM-S928 for SM-S928N)
                # The title's code lacks our trailing letters (DUE6BG for DUE6BGE): another model of the family,
                # or ours written short; never sure.
                shorter_seen = True
                continue
            if _separated_after(code, candidate, listing):
                return "exact"  # ours, then a word of its own (GX-300 XL)
            if _leaves_ours(code, suffix) and _glued_on(code, candidate, listing):
                return "exact"
            extended = True
    if extended:
        return "extended"
    return "shorter" if shorter_seen else None


def _leaves_ours(code: str, tail: str) -> bool:
    """Letters after a code that leave the model the same: a region's (KR, Samsung's and LG's N for Korea) or a
    long colour-and-region tail (ZKEKOO)."""
    korean = tail == KOREAN_MODEL_SUFFIX and code.startswith(KOREAN_MODEL_PREFIXES)
    return tail in CODE_REGION_SUFFIXES or korean or len(tail) >= LONG_SUFFIX_CHARS


def _tailed(code: str, whole: str, listing: Title) -> bool:
    """`whole` is our code, a separator and a tail of letters (H6005-IGMP for H6005, A1-S for A1), not a glued
    tail nor a region's letters (SM-S928-KR) nor a colour's (MX-12B-BK)."""
    tail = whole.removeprefix(code)
    if tail == whole or not tail.isalpha() or tail in COLOUR_CODE_TAILS:
        return False
    if _leaves_ours(code, tail) and len(tail) < LONG_SUFFIX_CHARS:
        return False
    return _separated_after(code, whole, listing)


def numbered_tail(code: str, listing: Title) -> str | None:
    """The digits a title writes after our code and a separator (BKR6E-11 for BKR6E, HX9044/67 for HX9044): an
    option's or a pack's code as often as another model of the line's (a spark plug's gap, a market's edition);
    None when it writes none."""
    for whole in listing.full_codes:
        tail = whole.removeprefix(code)
        if tail != whole and tail.isdigit() and _separated_after(code, whole, listing):
            return tail
    return None


def _after_our_code(code: str, candidate: str, listing: Title) -> str | None:
    """What the title writes after the characters of our code, in its writing of `candidate`; None if it ends first."""
    written = listing.codes.get(candidate, "")
    seen = 0
    for position, char in enumerate(written):
        if char.isalnum():
            seen += 1
            if seen == len(code):
                return written[position + 1 :]
    return None


def _separated_after(code: str, candidate: str, listing: Title) -> bool:
    """The title writes a separator right after our code, before the candidate's tail (HX9044/67, NT940XGK-K51A):
    the tail is an option code, not a sibling's letter."""
    after = _after_our_code(code, candidate, listing)
    return bool(after) and not after[0].isalnum()


def _glued_on(code: str, candidate: str, listing: Title) -> bool:
    """The title writes the candidate's tail glued onto our code (SM-S928NZKEKOO), not as words after it
    (GX-300N XL is GX-300N, then a size)."""
    after = _after_our_code(code, candidate, listing)
    return after is not None and after.isalnum()


def _continued(shorter: str, listing: Title) -> bool:
    """The title writes `shorter` only as the head of a longer code of its own (KBOV2001.BL)."""
    return shorter in listing.codes and any(
        other.startswith(shorter) and other != shorter for other in listing.full_codes
    )


def _names_part(part: str, name_compact: str, name_words: frozenset[str]) -> bool:
    """A part of a code written apart is the product's: a word of its name, or a longer piece its name holds."""
    return part in name_words or (len(part) >= MIN_CODE_PART and part in name_compact)


def other_code(
    codes: tuple[str, ...], listing: Title, name_compact: str = "", name_words: frozenset[str] = frozenset()
) -> str | None:
    """A model code in the title that is not ours: a sibling (SM-S918N) or another model altogether."""
    digits_only = any(code.isdigit() for code in codes)
    for candidate in listing.codes:
        if len(candidate) < MIN_CODE_CHARS or not (is_code_like(candidate) or (digits_only and candidate.isdigit())):
            continue
        if candidate.isdigit() and candidate not in listing.separated_numbers:
            continue
        written = listing.codes.get(candidate, "")
        if any(_RATE_OR_MEASURE.fullmatch(part) for part in written.split()):
            continue  # a rate or a measure (200MB/s, 0.5oz, 4K) is no model, nor part of one
        if " " in written and re.fullmatch(r"[a-z]{4,}|\d+", written.split()[0]):
            continue  # a word or a number beside another (FACE 1996, 1996 ECO), not a code written apart (SM S928N)
        if candidate in name_compact or all(
            _names_part(compact(part), name_compact, name_words) for part in written.split()
        ):
            continue  # the product's own name holds it (HP 680 in "HP 680 검정 잉크 F6V27AA"), maybe in parts
        if any(_extended_by_digits(candidate, code) for code in codes):
            return candidate  # GK-2203 for GK-220: a number of its own, another model
        if any(candidate.startswith(code) or code.startswith(candidate) or code in candidate for code in codes):
            continue
        if any(_sibling(candidate, code) for code in codes) or sum(char.isdigit() for char in candidate) >= 2:
            return candidate
    return None


def of_our_family(candidate: str, codes: tuple[str, ...]) -> bool:
    """The title's other code is a sibling of ours (SM-S918N for SM-S928N, GK-2203 for GK-220), not a code of
    another shape, which may as well be a spec (AX1800) or a part number as another model."""
    return any(
        _extended_by_digits(candidate, code) or _sibling(candidate, code) or _same_letters(candidate, code)
        for code in codes
    )


def _same_letters(candidate: str, code: str) -> bool:
    """Both codes open with the same maker's letters (CHP-6310L and CHP-7211NS), two or more."""
    ours, theirs = re.match(r"[a-z]*", code).group(0), re.match(r"[a-z]*", candidate).group(0)
    return len(ours) >= 2 and ours == theirs


def _extended_by_digits(candidate: str, code: str) -> bool:
    """One code is the other with more digits at its end (gk2203 and gk220): never the same model."""
    longer, shorter = (candidate, code) if len(candidate) > len(code) else (code, candidate)
    return (
        len(shorter) >= MIN_CODE_CHARS
        and longer != shorter
        and longer.startswith(shorter)
        and shorter[-1].isdigit()
        and longer[len(shorter)].isdigit()
    )


def _sibling(candidate: str, code: str) -> bool:
    return candidate[0] == code[0] and difflib.SequenceMatcher(None, candidate, code).ratio() >= 0.6


def other_model_number(name: Title, listing: Title) -> tuple[str, str] | None:
    """A model number of the same shape as ours that the title has instead (S23 for S24, 14 for 15, 265 for 270):
    (theirs, ours), or None."""
    ours = {number for number in name.model_numbers if len(compact(number)) < MIN_CODE_CHARS}
    missing = [number for number in ours if not _number_in(number, listing)]
    extra = {number for number in listing.model_numbers - name.model_numbers if len(compact(number)) < MIN_CODE_CHARS}
    theirs_numbers = set(re.findall(r"\d+(?:\.\d+)?", listing.text))
    ours_numbers = set(re.findall(r"\d+(?:\.\d+)?", name.text))
    # A number the other side also writes, in another form (700c for 700x18-28c, 18/28 for 18-28c): the same spec.
    missing = [number for number in missing if not set(re.findall(r"\d+", number)) <= theirs_numbers]
    extra = {number for number in extra if not set(re.findall(r"\d+", number)) <= ours_numbers}
    for number in sorted(missing):
        for theirs in sorted(extra):
            if _same_shape(number, theirs):
                return theirs, number
    return None


def _number_in(number: str, listing: Title) -> bool:
    """Our model number among the title's: whole, after the maker's letters (HP680 for 680), or as a measure's value
    (0.7mm for 0.7)."""
    ours = compact(number)
    for word in listing.model_numbers:
        theirs = compact(word)
        if theirs == ours or (theirs.endswith(ours) and theirs[: -len(ours)].isalpha() and ours[0].isdigit()):
            return True
    try:
        value = float(number)
    except ValueError:
        return False
    return any(value in values for values in listing.measures.values())


def _in_parts(number: str) -> bool:
    return bool(re.search(r"\d[-/.]\d", number))


_DECIMAL = re.compile(r"(\d+)(?:\.\d+)?")


def _same_shape(ours: str, theirs: str) -> bool:
    """Same letter prefix and about as many digits, neither an extension of the other: a sibling model. A number
    written in parts (10-46, a string set's gauges; 18/28) is a range or a spec beside a plain one, not its sibling."""
    if _in_parts(ours) != _in_parts(theirs):
        return False
    ours_c, theirs_c = compact(ours), compact(theirs)
    if ours_c.startswith(theirs_c) or theirs_c.startswith(ours_c):
        return False
    decimals = [_DECIMAL.fullmatch(number) for number in (ours, theirs)]
    if all(decimals) and "." in ours + theirs:
        # 7.375 for 7.5 (a hat's 7 3/8 and 7 1/2), 2.5 for 3: a number with a fraction beside one as long before
        # its point, however many places follow it.
        return len(decimals[0].group(1)) == len(decimals[1].group(1))
    prefix_ours = re.match(r"[a-z]*", ours_c).group(0)
    prefix_theirs = re.match(r"[a-z]*", theirs_c).group(0)
    digits_ours = sum(char.isdigit() for char in ours_c)
    digits_theirs = sum(char.isdigit() for char in theirs_c)
    return (
        prefix_ours == prefix_theirs and abs(digits_ours - digits_theirs) <= 1 and abs(len(ours_c) - len(theirs_c)) <= 2
    )
