"""Letters a seller appends to a model code that leave the model the same (rule: other model and sibling).

Where the words come from: makers' regional and colour suffixes on Korean marketplaces — Samsung's N (Korea) and
its colour-and-region tails (SM-S928NZKEKOO), LG's region tails (OLED55C4KNA), KR/KO. A K alone is not one:
Sony's ILCE-7M4K is the lens kit. A code extended by
one or two letters that are not listed here may be a sibling model (XM5 → XM5S, S27CG510 → S27CG510E is not, but
the rules cannot tell): the verdict stays unsure.
"""

from __future__ import annotations

CODE_REGION_SUFFIXES = frozenset({"n", "kr", "ko"})
"""One- or two-letter tails known to mark a region, not another model."""
LONG_SUFFIX_CHARS = 3
"""A tail of this many letters or more is a colour-and-region code (ZKEKOO, EKXKR), not a sibling's letter."""
