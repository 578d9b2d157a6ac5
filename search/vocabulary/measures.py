"""Measures compared between product and listing, each scaled to one base unit (rule: measure and size).

Where the words come from: the units Korean titles write (GB/기가, ml/리터, g/그램/키로, 인치, 인용 …);
NFKC folds the compatibility forms (㎖, ㎏, ㎝) into these before they are read.
"""

from __future__ import annotations

# Measures compared between product and title; each unit is scaled to its dimension's base unit.
MEASURE_UNITS: dict[str, tuple[str, float]] = {
    "tb": ("storage", 1024),
    "gb": ("storage", 1),
    "기가": ("storage", 1),
    "테라": ("storage", 1024),
    "ml": ("volume", 1),
    "l": ("volume", 1000),
    "리터": ("volume", 1000),
    "kg": ("weight", 1000),
    "g": ("weight", 1),
    "그램": ("weight", 1),
    "키로": ("weight", 1000),
    "킬로": ("weight", 1000),
    "킬로그램": ("weight", 1000),
    # A tonne, as tanks, sacks and trucks are sold (물탱크 1톤 holds a tonne of water, not 500 litres).
    "톤": ("weight", 1_000_000),
    "밀리리터": ("volume", 1),
    "미리": ("volume", 1),  # sellers' "250미리"
    "와트": ("power", 1),
    "미터": ("length", 1000),
    "mg": ("weight", 0.001),
    "mcg": ("weight", 0.000001),
    # A vitamin's dose in international units (비타민D3 1000IU): a dose, never a model code.
    "iu": ("dose", 1),
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
    "인분": ("servings", 1),
    "단계": ("stage", 1),
    "gen": ("generation", 1),
    "겹": ("ply", 1),
    # Ports of a hub, a charger or a switch (3포트, 8 ports): a 3-port charger is not the 2-port one.
    "포트": ("ports", 1),
    "ports": ("ports", 1),
}
# Mobile network generations read like weights ("5G"); they are not.
NOT_WEIGHTS = frozenset({"3g", "4g", "5g"})
# Ratings written with + that are not the "plus" variant (SPF50+, PA++++).
RATING_NOTATIONS = r"spf\s*\d+\+*|pa\+{1,4}"
