"""The Coupang adapter: the search URL and a parser for the result page as Coupang really serves it.

Two markups are read:
- current: CSS-module class names with hashed suffixes (`ProductUnit_productUnit__Qd6sv`). The hash changes
  with every deploy, so elements are found by class-name PREFIX, never by the whole class.
- legacy: `#productList li.search-product`, `.name`, `strong.price-value`, `.search-product__ad-badge`.

Each card's delivery wording (무료배송, 배송비 N원, free from an amount, or nothing but a Rocket badge) becomes
the listing's `shipping_fee` and `free_shipping_over` (search/sources/delivery.py reads the words); a card that
says nothing of the fee leaves both None.

Decoys next to the sale price are never taken for it: the original price (in a <del>), the discount rate,
a unit price such as "(10개당 2,190원)", and cashback ("최대 1,495원 적립").

lxml parses: libxml2's HTML parser recovers from broken markup the way browsers do (unclosed and stray tags,
bad entities, a truncated tail), so a damaged page still yields the cards it holds.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from django.conf import settings
from lxml import etree

from search.listings import Listing
from search.sources.base import MarketplaceSource, ParsedPage
from search.sources.delivery import read_delivery

logger = logging.getLogger(__name__)

# Current markup: class-name prefixes (module name, local name, and the "__" that precedes the hash).
CARD_PREFIXES = ("ProductUnit_productUnit__",)
NAME_PREFIXES = ("ProductUnit_productName",)  # productName__… and productNameV2__…
IMAGE_PREFIXES = ("ProductUnit_productImage",)
PRICE_AREA_PREFIXES = ("PriceArea_priceArea__",)
PRICE_VALUE_PREFIXES = ("Price_priceValue__",)
AD_MARK_PREFIXES = ("AdMark_adMark__",)
DELIVERY_PREFIXES = ("DeliveryInfo_",)  # DeliveryInfo_delivery__…, DeliveryInfo_deliveryFee__…

# Class-name fragments (lower case) that mark what must not be read as the sale price.
UNIT_PRICE_FRAGMENTS = ("unitprice", "unit-price")
SELLER_FRAGMENTS = ("vendorname", "vendor-name", "sellername", "seller-name")
DELIVERY_FRAGMENTS = ("delivery", "shipping")

NO_RESULT_TEXT = "검색결과가없습니다"  # compared with all whitespace removed
SOLD_OUT_WORDS = ("일시품절", "품절")
ROCKET_WORDS = ("로켓", "rocket")
PRODUCT_PATH = re.compile(r"/vp/products/(\d+)")
AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
AMOUNT_IN_WON = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)\s*원")
PARENTHESISED = re.compile(r"\([^()]*\)")
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
AKAMAI_REFERENCE = re.compile(r"reference\s*#\s*\d+\.")
LISTING_URL_PARAMS = ("itemId", "vendorItemId")
"""Query parameters kept in a listing's URL: they pick the option; the rest is click tracking."""

CHALLENGE_MARKERS = (
    "sec-if-cpt-container",
    "_sec/cp_challenge",
    "ak-challenge",
    "please wait while we verify",
    "checking your browser",
    "pardon our interruption",
    "challenge-platform",
)
CAPTCHA_MARKERS = ("captcha", "보안문자", "자동입력 방지", "자동입력방지", "로봇이 아닙니다")
RATE_LIMIT_MARKERS = ("too many requests",)


class CoupangSource(MarketplaceSource):
    """Coupang's search: `{base_url}/np/search?q=<query>` and its result page."""

    name = "coupang"

    def __init__(self, base_url: str | None = None):
        self.base_url = (base_url or settings.LPS_COUPANG_URL).rstrip("/")

    def __repr__(self) -> str:
        return f"CoupangSource({self.base_url!r})"

    def search_url(self, query: str) -> str:
        query = " ".join(str(query).split())
        if not query:
            raise ValueError("the search query must not be blank")
        return f"{self.base_url}/np/search?{urlencode({'q': query, 'channel': 'user'})}"

    def parse(self, html: str, *, base_url: str) -> ParsedPage:
        return parse_result_page(html, base_url=base_url)


def parse_result_page(html: str, *, base_url: str) -> ParsedPage:
    """Read a Coupang result page (current or legacy markup); never raises."""
    raw = CONTROL_CHARACTERS.sub("", html or "")
    document = _document(raw)
    if document is None:
        return ParsedPage(blocked_kind=_block_kind(raw.lower(), ""))
    # Scripts hold JSON with the site's messages ("검색결과가 없습니다" among them): read only what is shown.
    etree.strip_elements(document, "script", "style", "noscript", "template", etree.Comment, with_tail=False)

    cards = list(_current_cards(document))
    # The cards' ancestors are mostly the same few (the list and the page above it): each asked once a page.
    above_current_cards = _Ancestors()
    read = functools.partial(_read_current_card, ancestors=above_current_cards)
    if not cards:
        cards = list(_legacy_cards(document))
        read = _read_legacy_card
    listings = []
    unread = 0
    for card in cards:
        listing = read(card, base_url)
        if listing is None:
            unread += 1
        else:
            listings.append(listing)
    if unread:
        logger.warning("coupang: %d of %d product cards could not be read", unread, len(cards))
    if listings:
        return ParsedPage(listings=listings, unread_cards=unread)
    text = "".join(_text_parts(document.find("body") if document.find("body") is not None else document))
    if NO_RESULT_TEXT in "".join(text.split()):
        return ParsedPage(empty=True)
    if unread:
        return ParsedPage(unread_cards=unread)
    return ParsedPage(blocked_kind=_block_kind(raw.lower(), " ".join(text.split()).lower()))


def _document(raw: str):
    if not raw.strip():
        return None
    # Plain etree elements: lxml.html's element classes cost a Python lookup per element, and nothing here
    # needs their methods.
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        return etree.fromstring(raw.encode("utf-8", "replace"), parser=parser)  # None for an empty document
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _block_kind(raw_lower: str, text_lower: str) -> str:
    """Name the kind of page that is neither results nor the empty-result message."""
    if "access denied" in raw_lower and (AKAMAI_REFERENCE.search(raw_lower) or "edgesuite" in raw_lower):
        return "akamai"
    if any(marker in raw_lower for marker in CHALLENGE_MARKERS):
        return "challenge"
    if any(marker in raw_lower for marker in CAPTCHA_MARKERS):
        return "captcha"
    if any(marker in text_lower for marker in RATE_LIMIT_MARKERS):
        return "rate_limited"
    return "no_result_list"


# --- Element helpers ------------------------------------------------------------------------------------


def _classes(element) -> list[str]:
    return (element.get("class") or "").split()


def _has_class_prefix(element, prefixes: Iterable[str]) -> bool:
    return any(token.startswith(prefix) for token in _classes(element) for prefix in prefixes)


@functools.cache
def _class_prefix_query(prefixes: tuple[str, ...]) -> etree.XPath:
    """The XPath form of `_has_class_prefix` over a subtree: a class token starts with a prefix exactly when
    " " + the normalised class attribute contains " " + prefix. Evaluated in C, it spares Python a visit to
    every element of the page."""
    tests = " or ".join(f"contains(concat(' ', normalize-space(@class)), ' {prefix}')" for prefix in prefixes)
    return etree.XPath(f"descendant-or-self::*[{tests}]")


def _with_class_prefix(root, prefixes: tuple[str, ...]) -> list:
    """The elements under `root` (itself included), in document order, with a class starting with a prefix."""
    return _class_prefix_query(prefixes)(root)


def _first_with_class_prefix(root, prefixes: tuple[str, ...]):
    found = _with_class_prefix(root, prefixes)
    return found[0] if found else None


def _has_class_fragment(element, fragments: Iterable[str]) -> bool:
    return any(fragment in token.lower() for token in _classes(element) for fragment in fragments)


def _elements(root) -> Iterator:
    """Every element under `root` (itself included), skipping comments and processing instructions."""
    return root.iter(etree.Element)


def _first(root, predicate):
    return next((element for element in _elements(root) if predicate(element)), None)


def _text_parts(element, skip=()) -> Iterator[str]:
    """The text under `element`, leaving out the subtrees in `skip` (their tails are kept)."""
    skip = skip if isinstance(skip, (set, frozenset)) else set(skip)
    walker = etree.iterwalk(element, events=("start", "end"))
    for event, node in walker:
        if event == "start":
            if node in skip:
                walker.skip_subtree()
            elif isinstance(node.tag, str) and node.text:
                yield node.text
        elif node is not element and node.tail:
            yield node.tail


def _text(element, skip=()) -> str:
    return " ".join("".join(_text_parts(element, skip)).split())


def _inside(element, ancestor_predicate) -> bool:
    parent = element.getparent()
    while parent is not None:
        if ancestor_predicate(parent):
            return True
        parent = parent.getparent()
    return False


class _Ancestors:
    """`_inside` for the cards of one page, each ancestor's answer kept per predicate: the cards share theirs."""

    def __init__(self):
        self.known: dict = {}

    def inside(self, element, predicate) -> bool:
        known = self.known.setdefault(predicate, {})
        chain = []
        parent = element.getparent()
        while parent is not None and parent not in known:
            chain.append(parent)
            parent = parent.getparent()
        answer = known[parent] if parent is not None else False
        for node in reversed(chain):
            answer = answer or predicate(node)
            known[node] = answer
        first = element.getparent()
        return known[first] if first is not None else False


def _amount(text: str) -> int | None:
    """The first amount in `text` ("29,900원" → 29900)."""
    match = AMOUNT.search(text)
    if not match:
        return None
    value = int(match.group(0).replace(",", ""))
    return value if value > 0 else None


def _sale_amount(text: str) -> int | None:
    """The first amount in won that is not in parentheses nor a per-unit price ("10개당 2,190원")."""
    text = PARENTHESISED.sub(" ", text)
    for match in AMOUNT_IN_WON.finditer(text):
        if text[: match.start()].rstrip().endswith("당"):
            continue
        value = int(match.group(1).replace(",", ""))
        if value > 0:
            return value
    return None


def _is_decoy_price(element) -> bool:
    return element.tag == "del" or _has_class_fragment(element, UNIT_PRICE_FRAGMENTS)


def _decoys(root) -> set:
    """The decoy prices under `root`, itself included."""
    return {element for element in _elements(root) if _is_decoy_price(element)}


def _under_member(element, card, decoys: set, card_under_decoy: bool) -> bool:
    """Whether an ancestor of `element` (inside `card`) is one of `decoys` (decoy prices, or thumbnails): up to the
    card the set found in advance says, above it `card_under_decoy`."""
    parent = element.getparent()
    while parent is not None:
        if parent in decoys:
            return True
        if parent is card:
            return card_under_decoy
        parent = parent.getparent()
    return False


def _price_from(
    values: list, area, card, decoys: set | None = None, card_under_decoy: bool | None = None
) -> int | None:
    """The sale price: the first price element outside the decoys (`card`'s, found here unless given), else the
    first clean amount in `area`. `card_under_decoy`, unless given, is found here."""
    decoys = _decoys(card) if decoys is None else decoys
    if card_under_decoy is None:  # nothing above the card was looked at in advance
        card_under_decoy = _inside(card, _is_decoy_price)
    for value in values:
        if value in decoys or _under_member(value, card, decoys, card_under_decoy):
            continue
        amount = _amount(_text(value, skip=decoys - {value}))
        if amount is not None:
            return amount
    if area is None:
        return None
    return _sale_amount(_text(area, skip=decoys - {area}))


def _sold_out(card, title_element) -> bool:
    text = _text(card, skip=[title_element] if title_element is not None else ())
    return any(word in text for word in SOLD_OUT_WORDS)


def _rocket(card, is_thumbnail, inside_thumbnail=None) -> bool:
    """Whether a badge image outside the card's thumbnail says rocket delivery. `inside_thumbnail(element)`, when
    given, answers `_inside(element, is_thumbnail)` faster (from the card's scan)."""
    inside_thumbnail = inside_thumbnail or (lambda element: _inside(element, is_thumbnail))
    for image in card.iter("img"):
        if inside_thumbnail(image) or is_thumbnail(image):
            continue
        names = f"{image.get('alt') or ''} {image.get('src') or ''} {image.get('data-src') or ''}".lower()
        if any(word in names for word in ROCKET_WORDS):
            return True
    return False


def _seller(card, element=None) -> str | None:
    """The seller the card names (in `element`, when the caller found it already)."""
    if element is None:
        element = _first(card, lambda element: _has_class_fragment(element, SELLER_FRAGMENTS))
    if element is None:
        return None
    seller = _text(element)
    for label in ("판매자:", "판매자 :", "판매자"):
        if seller.startswith(label):
            seller = seller[len(label) :].strip()
            break
    return seller or None


def _delivery_words(elements, is_thumbnail, inside_thumbnail=None) -> str:
    """The text and badge alt texts of a card's delivery elements (nested ones read once, by their outermost).
    `inside_thumbnail` as for `_rocket`."""
    inside_thumbnail = inside_thumbnail or (lambda element: _inside(element, is_thumbnail))
    members = set(elements)
    words = []
    for element in elements:
        if _inside(element, members.__contains__):
            continue
        words.append(_text(element))
        words.extend(image.get("alt") or "" for image in element.iter("img") if not inside_thumbnail(image))
    return " ".join(words)


def _with_delivery(listing: Listing, words: str) -> Listing:
    delivery = read_delivery(words)
    if delivery.fee is None and delivery.free_over is None:
        return listing
    return replace(listing, shipping_fee=delivery.fee_at(listing.price), free_shipping_over=delivery.free_over)


def _link_and_id(card, base_url: str, id_attributes: tuple[str, ...]) -> tuple[str | None, str | None]:
    links = [anchor.get("href") or "" for anchor in card.iter("a")]
    href = next((link for link in links if PRODUCT_PATH.search(link)), None) or next(
        (link for link in links if link and not link.startswith(("#", "javascript:"))), None
    )
    product_id = None
    if href:
        match = PRODUCT_PATH.search(href)
        product_id = match.group(1) if match else None
    if product_id is None:
        product_id = next((card.get(name) for name in id_attributes if (card.get(name) or "").strip()), None)
    if href:
        return _listing_url(urljoin(base_url, href.strip())), product_id
    if product_id:
        return urljoin(base_url, f"/vp/products/{product_id}"), product_id
    return None, None


def _listing_url(url: str) -> str:
    """`url` without click-tracking parameters when it is a product page."""
    parts = urlsplit(url)
    if not PRODUCT_PATH.search(parts.path):
        return url
    kept = [(key, value) for key, value in parse_qsl(parts.query) if key in LISTING_URL_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))


# --- Current markup -------------------------------------------------------------------------------------


def _current_cards(document) -> Iterator:
    return iter(_with_class_prefix(document, CARD_PREFIXES))


def _is_current_thumbnail(element) -> bool:
    return _has_class_prefix(element, IMAGE_PREFIXES)


CARD_PART_PREFIXES = (
    NAME_PREFIXES,
    IMAGE_PREFIXES,
    PRICE_AREA_PREFIXES,
    PRICE_VALUE_PREFIXES,
    AD_MARK_PREFIXES,
    DELIVERY_PREFIXES,
)


@dataclass
class _CardScan:
    """What a current card's reading looks for, found in one walk over its elements (a walk per question took
    most of a page's parse): per CARD_PART_PREFIXES group its elements in document order, the decoy prices, and
    the first element naming the seller."""

    parts: list[list] = field(default_factory=lambda: [[] for _ in CARD_PART_PREFIXES])
    decoys: set = field(default_factory=set)
    seller: object = None


_ANY_PART_PREFIX = tuple(prefix for prefixes in CARD_PART_PREFIXES for prefix in prefixes)
# A fragment holds no space: it is in one of the class's tokens exactly when it is in the whole attribute.
_DECOY_CLASS = re.compile("|".join(map(re.escape, UNIT_PRICE_FRAGMENTS)))
_SELLER_CLASS = re.compile("|".join(map(re.escape, SELLER_FRAGMENTS)))


def _scan_card(card) -> _CardScan:
    scan = _CardScan()
    for element in _elements(card):
        classes = element.get("class")
        if element.tag == "del":
            scan.decoys.add(element)
        if not classes:
            continue
        folded = classes.lower()
        if _DECOY_CLASS.search(folded):
            scan.decoys.add(element)
        if scan.seller is None and _SELLER_CLASS.search(folded):
            scan.seller = element
        tokens = [token for token in classes.split() if token.startswith(_ANY_PART_PREFIX)]
        if tokens:
            for found, prefixes in zip(scan.parts, CARD_PART_PREFIXES, strict=True):
                if any(token.startswith(prefixes) for token in tokens):
                    found.append(element)
    return scan


def _read_current_card(card, base_url: str, ancestors: _Ancestors | None = None) -> Listing | None:
    ancestors = ancestors or _Ancestors()
    scan = _scan_card(card)
    names, thumbnails, areas, values, ad_marks, delivery = scan.parts
    title_element = names[0] if names else None
    title = _text(title_element) if title_element is not None else ""
    if not title:
        thumbnail = thumbnails[0] if thumbnails else None
        image = next(thumbnail.iter("img"), None) if thumbnail is not None else None
        title = " ".join((image.get("alt") or "").split()) if image is not None else ""
    area = areas[0] if areas else None
    price = _price_from(values, area, card, scan.decoys, ancestors.inside(card, _is_decoy_price))
    url, product_id = _link_and_id(card, base_url, ("data-product-id", "data-id"))
    if not title or price is None or url is None:
        return None
    # Whether an element of the card has a thumbnail among its ancestors: up to the card the scan's thumbnails
    # say, above it one walk for the whole card (a walk to the root per image was a fifth of the parse).
    thumbnail_set = set(thumbnails)
    card_in_thumbnail = ancestors.inside(card, _is_current_thumbnail)

    def inside_thumbnail(element) -> bool:
        return _under_member(element, card, thumbnail_set, card_in_thumbnail)

    listing = Listing(
        title=title,
        price=price,
        url=url,
        product_id=product_id,
        seller=_seller(card, scan.seller),
        rocket=_rocket(card, _is_current_thumbnail, inside_thumbnail),
        sold_out=_sold_out(card, title_element),
        ad=bool(ad_marks),
    )
    return _with_delivery(listing, _delivery_words(delivery, _is_current_thumbnail, inside_thumbnail))


# --- Legacy markup --------------------------------------------------------------------------------------


def _legacy_cards(document) -> Iterator:
    product_list = _first(document, lambda element: element.get("id") == "productList")
    root = product_list if product_list is not None else document
    return (element for element in root.iter("li") if "search-product" in _classes(element))


def _is_legacy_thumbnail(element) -> bool:
    classes = _classes(element)
    return "search-product-wrap-img" in classes or (element.tag == "dt" and "image" in classes)


def _read_legacy_card(card, base_url: str) -> Listing | None:
    title_element = _first(card, lambda element: "name" in _classes(element))
    title = _text(title_element) if title_element is not None else ""
    values = [element for element in _elements(card) if "price-value" in _classes(element)]
    area = _first(card, lambda element: "price-area" in _classes(element) or "price" in _classes(element))
    price = _price_from(values, area, card)
    url, product_id = _link_and_id(card, base_url, ("data-product-id", "id"))
    if not title or price is None or url is None:
        return None
    ad = "search-product__ad" in _classes(card) or (
        _first(card, lambda element: "search-product__ad-badge" in _classes(element)) is not None
    )
    rocket = _rocket(card, _is_legacy_thumbnail) or (
        _first(card, lambda element: {"badge", "rocket"} <= set(_classes(element))) is not None
    )
    listing = Listing(
        title=title,
        price=price,
        url=url,
        product_id=product_id,
        seller=_seller(card),
        rocket=rocket,
        sold_out=_sold_out(card, title_element),
        ad=ad,
    )
    delivery = [element for element in _elements(card) if _has_class_fragment(element, DELIVERY_FRAGMENTS)]
    return _with_delivery(listing, _delivery_words(delivery, _is_legacy_thumbnail))
