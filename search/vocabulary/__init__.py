"""The words the judge's rules know, one file per kind, each saying where its words come from.

Spellings are lower case, as titles are after search.titles.normalise. Add a word when a new kind of title shows
up in the corpus (tests/search/judge_corpus/, whose README says how to add a product category); never a word that
only one title uses. The rules (search/rules.py) name the file each of them reads.

| file | kind of word | rule |
|---|---|---|
| conditions.py | used, refurbished, display, returned; units the shop changed (업그레이드) | condition |
| accessories.py | accessories, parts, consumables, made-for marks, gifts | made-for, accessory and consumable |
| rentals.py | rental, subscription, contract, monthly fee | rental and contract |
| bundles.py | sets, bundles, machine counters, kits, a machine's capacity (5벌+바지) | set and bundle |
| categories.py | kind words grouped by what may name the same product | unexplained extra words |
| brands.py | brands and the lines only one brand sells | other brand and look-alike, identity |
| makers.py | makers and the line brands they sell under (merged into brands.py's groups) | other brand and look-alike, identity |
| lookalikes.py | substitutes and look-alikes | other brand and look-alike |
| codes.py | regional and colour suffixes of model codes (N only on Samsung's and LG's mobile codes) | other model and sibling |
| measures.py | units of capacity, volume, weight, size | measure and size |
| sizes.py | shoe, clothing and bedding sizes | measure and size |
| counts.py | counters (개, 개입, 입, 팩, EA, x3 …) | pack count |
| variants.py | variants, flavours, lines, editions | variant and line |
| colours.py | colours | variant and line |
| materials.py | what a product is made of | variant and line, identity |
| origins.py | where a food was grown or made (국내산, 중국산) | variant and line |
| spellings.py | one spelling across scripts | every rule (reading) |
| harmless.py | seller tags, shipping, genuineness, makers' company words, usage words, plain descriptors | unexplained extra words |
"""

from search.vocabulary.accessories import (
    ACCESSORY_KINDS,
    COMPATIBLE_WORDS,
    GIFT_WORDS,
    MADE_FOR_MARKS,
    MADE_FOR_WORDS,
    NOT_ACCESSORY,
    NOT_COMPATIBLE,
    NOT_GIFT_ENDINGS,
)
from search.vocabulary.brands import BRAND_ALIASES, BRAND_LINES
from search.vocabulary.bundles import (
    BUNDLE_WORDS,
    GARMENT_CAPACITY_PLUS,
    KIT_WORDS,
    MACHINE_COUNTERS,
    SERVICE_WORDS,
)
from search.vocabulary.categories import KIND_GROUPS, KIND_WORDS
from search.vocabulary.codes import (
    CODE_REGION_SUFFIXES,
    COLOUR_CODE_TAILS,
    KOREAN_MODEL_PREFIXES,
    KOREAN_MODEL_SUFFIX,
    LONG_SUFFIX_CHARS,
)
from search.vocabulary.colours import COLOUR_QUALIFIERS, COLOUR_SUFFIXES, COLOURS, GLUED_COLOURS
from search.vocabulary.conditions import CONDITION_WORDS, MODIFIED_WORDS, NOT_CONDITION
from search.vocabulary.counts import (
    COUNT_MULTIPLIERS,
    COUNT_UNITS,
    GLUED_UNITS,
    LARGE_UNITS_MAX,
    PACK_COUNTERS,
    PACK_WORDS,
    SMALL_UNITS_MIN,
)
from search.vocabulary.harmless import (
    CORPORATE_WORDS,
    DEFAULT_LINE_WORDS,
    DESCRIPTORS,
    NOTICE_WORDS,
    PACKAGING_WORDS,
    PLAIN_WORDS,
    SELLER_WORDS,
    STOP_WORDS,
    USAGE_WORDS,
)
from search.vocabulary.lookalikes import LOOKALIKE_AFTER_BRAND, LOOKALIKE_WORDS
from search.vocabulary.materials import MATERIAL_OF, MATERIALS
from search.vocabulary.measures import MEASURE_UNITS, NOT_WEIGHTS, RATING_NOTATIONS
from search.vocabulary.origins import ORIGINS
from search.vocabulary.rentals import MONTHLY_FEE, RENTAL_WHOLE_WORDS, RENTAL_WORDS
from search.vocabulary.sizes import BEDDING_SIZES, CLOTHING_SIZES, SCALE_SIZES, SHOE_SIZE_RANGE
from search.vocabulary.spellings import IMPLIED_BY, LATIN_COMPOUNDS, PHRASE_SPELLINGS, TRANSLITERATIONS
from search.vocabulary.variants import (
    ABSENCE_LINES,
    AUDIENCE_LINES,
    DESCRIPTIVE_LINES,
    DOUBTFUL_VARIANTS,
    LINE_SPELLINGS,
    LINE_WORDS,
    NETWORKS,
    ONE_SIDED_VARIANTS,
    OPPOSITES,
    VARIANTS,
)

__all__ = [
    "ABSENCE_LINES",
    "ACCESSORY_KINDS",
    "AUDIENCE_LINES",
    "BEDDING_SIZES",
    "BRAND_ALIASES",
    "BRAND_LINES",
    "BUNDLE_WORDS",
    "CLOTHING_SIZES",
    "CODE_REGION_SUFFIXES",
    "COLOURS",
    "COLOUR_CODE_TAILS",
    "COLOUR_QUALIFIERS",
    "COLOUR_SUFFIXES",
    "COMPATIBLE_WORDS",
    "CONDITION_WORDS",
    "CORPORATE_WORDS",
    "COUNT_MULTIPLIERS",
    "COUNT_UNITS",
    "DEFAULT_LINE_WORDS",
    "DESCRIPTIVE_LINES",
    "DESCRIPTORS",
    "DOUBTFUL_VARIANTS",
    "GARMENT_CAPACITY_PLUS",
    "GIFT_WORDS",
    "GLUED_COLOURS",
    "GLUED_UNITS",
    "IMPLIED_BY",
    "KIND_GROUPS",
    "KIND_WORDS",
    "KIT_WORDS",
    "KOREAN_MODEL_PREFIXES",
    "KOREAN_MODEL_SUFFIX",
    "LARGE_UNITS_MAX",
    "LATIN_COMPOUNDS",
    "LINE_SPELLINGS",
    "LINE_WORDS",
    "LONG_SUFFIX_CHARS",
    "LOOKALIKE_AFTER_BRAND",
    "LOOKALIKE_WORDS",
    "MACHINE_COUNTERS",
    "MADE_FOR_MARKS",
    "MADE_FOR_WORDS",
    "MATERIALS",
    "MATERIAL_OF",
    "MEASURE_UNITS",
    "MODIFIED_WORDS",
    "MONTHLY_FEE",
    "NETWORKS",
    "NOTICE_WORDS",
    "NOT_ACCESSORY",
    "NOT_COMPATIBLE",
    "NOT_CONDITION",
    "NOT_GIFT_ENDINGS",
    "NOT_WEIGHTS",
    "ONE_SIDED_VARIANTS",
    "OPPOSITES",
    "ORIGINS",
    "PACKAGING_WORDS",
    "PACK_COUNTERS",
    "PACK_WORDS",
    "PHRASE_SPELLINGS",
    "PLAIN_WORDS",
    "RATING_NOTATIONS",
    "RENTAL_WHOLE_WORDS",
    "RENTAL_WORDS",
    "SCALE_SIZES",
    "SELLER_WORDS",
    "SERVICE_WORDS",
    "SHOE_SIZE_RANGE",
    "SMALL_UNITS_MIN",
    "STOP_WORDS",
    "TRANSLITERATIONS",
    "USAGE_WORDS",
    "VARIANTS",
]
