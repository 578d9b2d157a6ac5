"""The judge's labelled corpus (tests/search/judge_corpus/, described in its README): load and check its pages.

Used by bench/judge_eval.py and by the pipeline tests that serve corpus pages through the fake Coupang.
A page that contradicts itself (an expected price no genuine candidate has, an unknown key, a trap name
outside the vocabulary) is refused with the file and the field named, so a labelling slip never counts as a
judge's miss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from search.listings import Listing, ProductQuery

CORPUS_DIR = Path(__file__).resolve().parent / "judge_corpus"

PAGE_KEYS = frozenset({"product", "markup", "category", "traps", "note", "listings", "expected"})
PRODUCT_KEYS = frozenset({"product_name", "brand", "model_code", "price"})
RENDERED_KEYS = frozenset(
    {"title", "price", "seller", "rocket", "sold_out", "ad", "original_price", "unit_price_text"}
    | {"product_type", "hprice"}
)
LABEL_KEYS = frozenset({"same", "trap"})
COUPANG_MARKUPS = frozenset({"current", "legacy"})
"""The result markups of the fake Coupang (tests/fakes/marketplace.py)."""
MARKUPS = COUPANG_MARKUPS | {"naver"}
"""`naver`: the items of a Naver Shopping Search API answer, served by tests/fakes/naver_api.py."""
NAVER_ONLY_KEYS = frozenset({"product_type", "hprice"})
COUPANG_ONLY_KEYS = frozenset({"rocket", "sold_out", "ad", "original_price", "unit_price_text"})
NEW_PRODUCT_TYPES = frozenset({1, 2, 3})
TRAPS = frozenset(
    {
        "condition",
        "accessory",
        "accessory_with_code",
        "sibling_model",
        "capacity",
        "pack_count",
        "pack_arithmetic",
        "flavour_line",
        "colour",
        "other_brand",
        "rental",
        "bundle",
        "size",
        "lookalike",
        "option_text",
        "seller_tag",
        "cross_script",
        "word_variant",
        "gift",
        "refill",  # a refill or consumable of the product (리필, 교체용 카트리지) sold in its place
        "ad",
        "sold_out",
    }
)


class CorpusError(ValueError):
    """A corpus page that is not well formed or contradicts its own labels."""


@dataclass(frozen=True)
class CorpusListing:
    title: str
    price: int
    same: bool
    trap: str | None
    ad: bool
    sold_out: bool
    rendered: dict
    """The keys the fake marketplace renders (the labels stripped)."""
    marketplace: str = "coupang"

    @property
    def product_type(self) -> int | None:
        return self.rendered.get("product_type", 2) if self.marketplace == "naver" else None

    @property
    def is_candidate(self) -> bool:
        if self.product_type is not None and self.product_type not in NEW_PRODUCT_TYPES:
            return False
        return not self.ad and not self.sold_out

    def as_listing(self, position: int) -> Listing:
        if self.marketplace == "naver":
            return Listing(
                title=self.title,
                price=self.price,
                url=f"https://smartstore.naver.com/main/products/{8_000_000 + position}",
                seller=self.rendered.get("seller"),
                marketplace="naver",
                product_type=self.product_type,
            )
        return Listing(
            title=self.title,
            price=self.price,
            url=f"https://www.coupang.com/vp/products/{9_000_000 + position}",
            seller=self.rendered.get("seller"),
            rocket=bool(self.rendered.get("rocket")),
            sold_out=self.sold_out,
            ad=self.ad,
        )


@dataclass(frozen=True)
class CorpusPage:
    path: Path
    product: ProductQuery
    markup: str
    category: str
    traps: tuple[str, ...]
    listings: tuple[CorpusListing, ...]
    expected_outcome: str
    expected_price: int | None

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}"

    @property
    def marketplace(self) -> str:
        return "naver" if self.markup == "naver" else "coupang"

    @property
    def candidates(self) -> list[CorpusListing]:
        return [listing for listing in self.listings if listing.is_candidate]

    def rendered_listings(self) -> list[dict]:
        """The listings as `fake_coupang.set_results` takes them (no labels), or `fake_naver.set_results` for the
        naver markup (the seller as its mall)."""
        if self.markup == "naver":
            return [
                {key if key != "seller" else "mall": value for key, value in listing.rendered.items()}
                for listing in self.listings
            ]
        return [dict(listing.rendered) for listing in self.listings]


def corpus_files(root: Path = CORPUS_DIR) -> list[Path]:
    return sorted(root.glob("*/*.json"))


def load_pages(root: Path = CORPUS_DIR) -> list[CorpusPage]:
    """Every page of the corpus, checked; CorpusError names the first bad file."""
    return [load_page(path) for path in corpus_files(root)]


def load_page(path: Path) -> CorpusPage:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path}: not readable JSON: {exc}") from exc
    return _page(path, data)


def _fail(path: Path, message: str) -> CorpusError:
    return CorpusError(f"{path.parent.name}/{path.name}: {message}")


def _page(path: Path, data: object) -> CorpusPage:
    if not isinstance(data, dict):
        raise _fail(path, "a page is a JSON object")
    unknown = set(data) - PAGE_KEYS
    if unknown:
        raise _fail(path, f"unknown keys {sorted(unknown)}")
    product = data.get("product")
    if not isinstance(product, dict) or not str(product.get("product_name") or "").strip():
        raise _fail(path, "product.product_name is required")
    if set(product) - PRODUCT_KEYS:
        raise _fail(path, f"unknown product keys {sorted(set(product) - PRODUCT_KEYS)}")
    markup = data.get("markup")
    if markup not in MARKUPS:
        raise _fail(path, f"markup must be one of {sorted(MARKUPS)}, not {markup!r}")
    traps = data.get("traps") or []
    if not isinstance(traps, list) or set(traps) - TRAPS:
        raise _fail(path, f"traps outside the vocabulary: {sorted(set(traps) - TRAPS)}")
    raw_listings = data.get("listings")
    if not isinstance(raw_listings, list) or not raw_listings:
        raise _fail(path, "listings must be a non-empty list")
    marketplace = "naver" if markup == "naver" else "coupang"
    listings = tuple(_listing(path, position, raw, marketplace) for position, raw in enumerate(raw_listings))

    expected = data.get("expected")
    if not isinstance(expected, dict) or expected.get("outcome") not in ("found", "not_found"):
        raise _fail(path, "expected.outcome must be found or not_found")
    if set(expected) - {"outcome", "price"}:
        raise _fail(path, f"unknown expected keys {sorted(set(expected) - {'outcome', 'price'})}")
    genuine = [listing.price for listing in listings if listing.same and listing.is_candidate]
    lowest = min(genuine) if genuine else None
    if expected["outcome"] == "found" and expected.get("price") != lowest:
        raise _fail(path, f"expected.price {expected.get('price')} is not the lowest genuine candidate's ({lowest})")
    if expected["outcome"] == "not_found" and lowest is not None:
        raise _fail(path, f"expected not_found, but a genuine candidate costs {lowest}")
    return CorpusPage(
        path=path,
        product=ProductQuery(
            product_code=f"CORPUS-{path.stem}",
            product_name=str(product["product_name"]),
            brand=product.get("brand") or None,
            model_code=product.get("model_code") or None,
            price=product.get("price"),
        ),
        markup=markup,
        category=str(data.get("category") or ""),
        traps=tuple(traps),
        listings=listings,
        expected_outcome=expected["outcome"],
        expected_price=lowest if expected["outcome"] == "found" else None,
    )


def _listing(path: Path, position: int, raw: object, marketplace: str = "coupang") -> CorpusListing:
    where = f"listings[{position}]"
    if not isinstance(raw, dict):
        raise _fail(path, f"{where} is not an object")
    # A Naver item has no rocket badge, ad or sold-out flag; a Coupang card has no productType.
    allowed = RENDERED_KEYS - (COUPANG_ONLY_KEYS if marketplace == "naver" else NAVER_ONLY_KEYS)
    unknown = set(raw) - LABEL_KEYS - allowed
    if unknown:
        raise _fail(path, f"{where}: unknown keys {sorted(unknown)} for the {marketplace} markup")
    product_type = raw.get("product_type", 2)
    if isinstance(product_type, bool) or not isinstance(product_type, int) or not 1 <= product_type <= 12:
        raise _fail(path, f"{where}.product_type must be Naver's 1–12")
    if not isinstance(raw.get("title"), str) or not raw["title"].strip():
        raise _fail(path, f"{where}.title is required")
    price = raw.get("price")
    if isinstance(price, bool) or not isinstance(price, int) or price <= 0:
        raise _fail(path, f"{where}.price must be a positive whole number of won")
    if not isinstance(raw.get("same"), bool):
        raise _fail(path, f"{where}.same must be true or false")
    trap = raw.get("trap")
    if trap is not None and trap not in TRAPS:
        raise _fail(path, f"{where}.trap {trap!r} is outside the vocabulary")
    return CorpusListing(
        title=raw["title"],
        price=price,
        same=raw["same"],
        trap=trap,
        ad=bool(raw.get("ad")),
        sold_out=bool(raw.get("sold_out")),
        rendered={key: value for key, value in raw.items() if key in RENDERED_KEYS},
        marketplace=marketplace,
    )
