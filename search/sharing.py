"""Whether a finished search's result may answer another shop: never when a client's own correction shaped it.

A client's correction (SPEC §10) is that client's word about its own product, and its note is its own text; a result
it shaped (a listing it rejected or confirmed, the lowest recomputed from that) must reach no other client, whether
through the negative cache (the pipeline asks `Corrections.used_private`) or through a result reused for another
shop's search (watches/reuse.py asks `shareable`). An operator's `global` correction is every shop's, so a result
only those shaped may be shared.

`shareable` reads the result itself: every verdict a correction settled names its listing and says
`"source": "correction"`; it is shared only when the product's global corrections, as they stand now, gave that very
verdict. A correction deleted or changed since errs on the side of not sharing.
"""

from __future__ import annotations

from collections.abc import Mapping

from search import overrides
from search.listings import ProductQuery
from search.result import SearchResult


def shareable(result: Mapping, product: ProductQuery) -> bool:
    """True when no client's own correction shaped `result` (a SEARCH result of `product`)."""
    settled = [verdict for verdict in SearchResult.from_json(result).verdicts if verdict.source == "correction"]
    if not settled:
        return True
    # client_id None: the shared (operator, global) corrections of the product identity, and no client's.
    shared = overrides.for_product(product, None).by_listing
    for verdict in settled:
        override = shared.get(verdict.key)
        if override is None or not override.shared or override.reason != verdict.reason:
            return False
    return True
