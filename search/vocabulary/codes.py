"""Letters a seller appends to a model code that leave the model the same (rule: other model and sibling).

Where the words come from: makers' regional and colour suffixes on Korean marketplaces — Samsung's N (Korea) and
its colour-and-region tails (SM-S928NZKEKOO), LG's region tails (OLED55C4KNA), KR/KO. A K alone is not one:
Sony's ILCE-7M4K is the lens kit. A code extended by
one or two letters that are not listed here may be a sibling model (XM5 → XM5S, S27CG510 → S27CG510E is not, but
the rules cannot tell): the verdict stays unsure.
"""

from __future__ import annotations

CODE_REGION_SUFFIXES = frozenset({"kr", "ko"})
"""One- or two-letter tails known to mark a region, not another model, on any maker's code."""
KOREAN_MODEL_SUFFIX = "n"
KOREAN_MODEL_PREFIXES = ("sm", "lm")
"""Samsung's and LG's phones, watches and earbuds sold in Korea end in N (SM-S928N, SM-R630N, LM-G900N); on other
makers' codes an N is a letter of its own (DL-L3210N is not DL-L3210)."""
LONG_SUFFIX_CHARS = 3
"""A tail of this many letters or more is a colour-and-region code (ZKEKOO, EKXKR), not a sibling's letter."""
COLOUR_CODE_TAILS = frozenset({"bk", "wh", "wk", "wa", "bg", "bl", "gr", "gy", "rd", "pk", "nv", "sl", "be", "br"})
"""Makers' two-letter colour codes written apart after a model code (Casio MX-12B-BK, Balmuda EGF-1600-WK,
Zojirushi EE-DC35-WA, De'Longhi KBOV2001.BG): a colour of the model, which the colour rule compares, not a sibling.
A single letter written apart (A1-S, XM5/B) may be either, so it is none of them."""
