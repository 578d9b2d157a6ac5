"""A fake Coupang: a real threaded HTTP server on 127.0.0.1 serving Coupang-shaped search pages.

Fixtures (loaded for every test package through tests/conftest.py):
- `fake_marketplace` — the test session's one server, reset before and after each test.
- `fake_coupang` — the same server, with `settings.LPS_COUPANG_URL` pointed at it (pytest-django `settings`).

Scripting (all thread-safe):
- `set_results(query, listings, *, markup="current"|"legacy")` — the page for `query` (exact, stripped).
  Each listing is a dict: `title`, `price` (int, won) and optionally `original_price` (shown struck through in
  a <del>, with the discount rate), `unit_price_text` (e.g. "(10개당 2,190원)"), `product_id` or `url`
  ("/vp/products/<id>…"), `seller`, `rocket`, `sold_out`, `ad`, and `delivery`: what the card says of the
  delivery fee — absent/None: nothing (a Rocket card shows its badge only); "free": 무료배송 (a badge image in
  current markup, text in legacy); an int: 배송비 N원; {"fee": N, "free_over": M}: 배송비 N원 (M원 이상 구매 시
  무료); {"free_over": M}: M원 이상 무료배송. An empty list serves the empty-result page.
  A query with no results set gets the empty-result page (검색결과가 없습니다) in current markup.
- `set_behaviour(query_or_None, kind, *, times=None, delay_seconds=5.0)` — misbehave for `query` (None: for
  every query; a query's own behaviour wins) for the next `times` search requests (None: until reset). Kinds:
  "http_403" (Akamai "Access Denied … Reference #18…", status 403), "http_429" (Too Many Requests),
  "http_500" (server error), "captcha" (a captcha page, 200), "challenge" (a bot-manager JS challenge, 200),
  "slow" (the results only after `delay_seconds`; `reset()` cuts the wait short), "malformed" (the results
  with broken, truncated markup: the last listing is cut off), "no_result_list" (a 200 page with neither a
  result list nor the empty-result message), "late_list" (the page arrives with an empty result list that
  its script fills `delay_seconds` after DOMContentLoaded, as a client-rendered page does), "blocking_script"
  (the results, then a synchronous <script src> that the server answers only after `delay_seconds`, so the
  tab's parser waits on it; `reset()` cuts the wait short), "normal" (undo a behaviour).
- `reset()` — forget results, behaviours, the request log and counters, and release slow requests.

Observation:
- `requests` — every request received, as `MarketplaceRequest(method, path, query, headers, via_proxy, kind)`;
  `search_queries` — the `q` of each search request in order.
- `resource_hits` — a Counter of requests received by kind ("search", "image", "font", "media",
  "stylesheet", "script", "other"); `hits(kind)` reads one.
- `bytes_served` — body bytes written as sent on the wire (gzip-encoded where the response was), which is
  what a proxy bills apart from headers; `bytes_served_by_kind` splits them by request kind.

Served like a real storefront behind a CDN: HTTP/1.1 keep-alive; HTML, CSS, JS and JSON gzip-encoded when the
client accepts gzip (Chromium always does); the HTML `no-store`, the hashed Next.js-style chunks and CSS
`max-age=31536000, immutable`, images a day. Asset weights follow a real result page: about 560 KB of
JavaScript (≈190 KB gzipped) in deferred chunks plus an async bot-manager sensor, about 90 KB of CSS, a
16 KB thumbnail per listing, a sprite, badges, a webfont, and the page's own data again as a JSON blob.

Every page references stylesheets (one pulls a sprite image), scripts, a webfont (@font-face used by the
body text), a logo, one thumbnail <img> per listing, badge images, a <video> and an <audio>, so that a
crawler's resource blocking and caching are measurable here. The results pages carry the decoys the parser must survive:
the original price in <del>, the discount rate, unit prices, a cashback amount in won, ads, sold-out
listings, non-rocket badge images, thumbnails whose alt text is the title, and a JSON blob in a <script>
holding the empty-result message.

The server also answers as an HTTP forward proxy (absolute-URI requests; `via_proxy` is then True), so the
crawler's proxy sessions can be tested against it with any host name in the base URL;
`require_proxy_auth(user, password)` makes that proxy answer 407 to requests without those credentials.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import html
import json
import random
import threading
import zlib
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests.fakes.loopback import LoopbackServer

MARKUPS = frozenset({"current", "legacy"})
BEHAVIOURS = frozenset(
    {
        *("normal", "http_403", "http_429", "http_500", "captcha", "challenge", "slow", "malformed"),
        *("no_result_list", "late_list", "blocking_script"),
    }
)
BLOCKING_SCRIPT = "/static/js/blocking.js"
"""A parser-blocking script at the end of a "blocking_script" page; answered after the behaviour's delay."""
NO_RESULT_TEXT = "검색결과가 없습니다"

# Asset weights of a real result page (sizes as stored; images and media do not compress further).
THUMBNAIL_BYTES = 16_000
"""A 212×212 WebP/JPEG product thumbnail."""
IMAGE_BYTES = {"/images/thumb/": THUMBNAIL_BYTES, "/images/sprite/": 24_000, "/images/logo/": 6_000}
OTHER_IMAGE_BYTES = 2_500
"""Badges, icons, banners and the captcha image."""
FONT_BYTES = 40_000
VIDEO_BYTES = 150_000
AUDIO_BYTES = 60_000

SCRIPTS = {
    # path: (size, how the page loads it). Next.js-style chunks with content hashes, so cached for a year.
    "/_next/static/chunks/webpack-5c1f3e9a2b7d4e61.js": (4_000, "defer"),
    "/_next/static/chunks/framework-0a4f9c2e8d1b7a35.js": (140_000, "defer"),
    "/_next/static/chunks/main-8e2d6b1f4c9a0e73.js": (110_000, "defer"),
    "/_next/static/chunks/pages/np/search-3b7e1d9c5f2a8046.js": (250_000, "defer"),
    "/akam/13/sensor-6f0b2d8e.js": (60_000, "async"),
}
STYLESHEETS = {
    "/_next/static/css/9d4c1a7e2f6b3085.css": 90_000,
    "/static/search.css": 0,  # the hand-written sheet below, as is
}
SEARCH_CSS = """
body { margin: 0; }
.Header_logo__q2Lx1 { width: 174px; height: 41px; background-image: url(/images/sprite/header-sprite.png); }
.ProductUnit_productUnit__Qd6sv { display: inline-block; width: 230px; vertical-align: top; }
del { color: #888; }
"""
FILTER_FACETS = 600
BRAND_WORDS = ("삼성전자", "LG전자", "로지텍", "다이슨", "필립스", "소니", "애플", "샤오미", "곰곰", "탐사")
STATIC_CACHE = "public, max-age=31536000, immutable"
IMAGE_CACHE = "public, max-age=86400"
PAGE_CACHE = "no-cache, no-store, must-revalidate"
COMPRESSIBLE = ("text/", "application/javascript", "application/json")
GZIP_LEVEL = 6
"""What nginx and most CDNs use by default."""


@dataclass(frozen=True)
class FakeListing:
    """One product card to render (normalised from the dict given to set_results)."""

    title: str
    price: int
    product_id: str
    href: str
    original_price: int | None = None
    unit_price_text: str | None = None
    seller: str | None = None
    rocket: bool = False
    sold_out: bool = False
    ad: bool = False
    delivery: str | int | tuple[int | None, int] | None = None
    """None, "free", a fee, or (fee or None, free from this amount)."""

    @classmethod
    def from_dict(cls, data: dict) -> FakeListing:
        known = {"title", "price", "original_price", "unit_price_text", "url", "product_id", "seller", "rocket"}
        known |= {"sold_out", "ad", "delivery"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown listing keys: {sorted(unknown)}")
        title = str(data["title"])
        price = int(data["price"])
        product_id = str(data.get("product_id") or "")
        href = str(data.get("url") or "")
        if not product_id and "/vp/products/" in href:
            product_id = href.split("/vp/products/", 1)[1].split("?", 1)[0].split("/", 1)[0]
        if not product_id:
            product_id = str(1_000_000_000 + zlib.crc32(title.encode()) % 8_999_999_999)
        item_id = 20_000_000_000 + int(product_id) % 1_000_000_000 if product_id.isdigit() else 20_000_000_001
        if not href:
            href = f"/vp/products/{product_id}?itemId={item_id}&vendorItemId={item_id + 70_000_000_000}"
            href += "&sourceType=search&clickEventId=5f0c-aa&searchId=7d1e2f"
        original = data.get("original_price")
        return cls(
            title=title,
            price=price,
            product_id=product_id,
            href=href,
            original_price=int(original) if original is not None else None,
            unit_price_text=data.get("unit_price_text"),
            seller=data.get("seller"),
            rocket=bool(data.get("rocket", False)),
            sold_out=bool(data.get("sold_out", False)),
            ad=bool(data.get("ad", False)),
            delivery=_delivery(data.get("delivery")),
        )

    @property
    def delivery_text(self) -> str:
        """The card's delivery wording as Coupang writes it ("" when it says nothing of the fee)."""
        if self.delivery is None:
            return ""
        if self.delivery == "free":
            return "무료배송"
        if isinstance(self.delivery, int):
            return f"배송비 {won(self.delivery)}"
        fee, free_over = self.delivery
        if fee is None:
            return f"{won(free_over)} 이상 무료배송"
        return f"배송비 {won(fee)} ({won(free_over)} 이상 구매 시 무료)"

    @property
    def discount_rate(self) -> int | None:
        if not self.original_price or self.original_price <= self.price:
            return None
        return round((self.original_price - self.price) * 100 / self.original_price)

    @property
    def thumbnail(self) -> str:
        """A CDN path named by a content hash, as real thumbnails are (so a page gzips no better than a real one)."""
        digest = hashlib.sha256(f"{self.product_id}:{self.title}".encode()).hexdigest()
        return f"/images/thumb/remote/230x230ex/image/vendor_inventory/{digest[:4]}/{digest[4:]}.jpg"

    @property
    def cashback(self) -> int:
        return max(10, self.price // 100)


def _delivery(value) -> str | int | tuple[int | None, int] | None:
    if value is None or value == "free":
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, dict) and set(value) <= {"fee", "free_over"} and isinstance(value.get("free_over"), int):
        return (value.get("fee"), value["free_over"])
    raise ValueError(f"delivery must be None, 'free', a fee or {{'fee'?, 'free_over'}}, not {value!r}")


def won(amount: int) -> str:
    return f"{amount:,}원"


def esc(text: str) -> str:
    return html.escape(text, quote=True)


# --- Pages ----------------------------------------------------------------------------------------------


def page(title: str, body: str, *, lang: str = "ko", products: list[FakeListing] = (), tail: str = "") -> str:
    """A whole document with the site chrome: stylesheets, scripts, webfont, logo, video and audio, and the
    page's data as a Next.js JSON blob (`products` in it, as the real page carries its props); `tail` goes
    before </body>."""
    props = {
        "messages": {"noResult": NO_RESULT_TEXT, "soldOut": "일시품절"},
        "products": [
            {
                "productId": item.product_id,
                "title": item.title,
                "salePrice": item.price,
                "basePrice": item.original_price,
                "link": item.href,
                "image": item.thumbnail,
                "rocket": item.rocket,
                "soldOut": item.sold_out,
                "ad": item.ad,
                "vendor": item.seller,
                "rating": 4.5,
                "reviewCount": 1234,
            }
            for item in products
        ],
    }
    # A real page also carries its filter facets and per-card tracking ids: data that gzip cannot squeeze much.
    rng = random.Random(title)
    props["filters"] = [
        {"id": f"{rng.getrandbits(64):016x}", "name": f"{BRAND_WORDS[n % len(BRAND_WORDS)]} {n}", "count": n * 7 % 997}
        for n in range(FILTER_FACETS)
    ]
    for product in props["products"]:
        product["tracking"] = {key: f"{rng.getrandbits(128):032x}" for key in ("clickId", "impressionId", "logId")}
    next_data = json.dumps({"props": {"pageProps": props}, "page": "/np/search"}, ensure_ascii=False)
    next_data = next_data.replace("</", "<\\/")  # a title holding "</script>" must not end the blob
    stylesheets = "\n".join(f'<link rel="stylesheet" href="{path}">' for path in STYLESHEETS)
    scripts = "\n".join(f'<script src="{path}" {loading}></script>' for path, (_size, loading) in SCRIPTS.items())
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{esc(title)}</title>
{stylesheets}
<style>
@font-face {{ font-family: "CoupangSans"; src: url("/static/fonts/coupang-sans.woff2") format("woff2"); }}
body {{ font-family: "CoupangSans", sans-serif; }}
</style>
{scripts}
</head>
<body>
<header id="header"><a href="/" class="Header_logo__q2Lx1"><img src="/images/logo/coupang-logo.png" alt="쿠팡"></a>
<form action="/np/search"><input name="q" value=""></form></header>
<div class="PromoBanner_banner__aP0x2"><video src="/media/promo.mp4" autoplay muted playsinline preload="auto"></video>
<audio src="/media/jingle.mp3" preload="auto"></audio></div>
{body}
<footer id="footer"><p>쿠팡(주) | 사업자등록번호 : 120-88-00767</p></footer>
<script id="__NEXT_DATA__" type="application/json">{next_data}</script>
{tail}
</body>
</html>
"""


def render_current_listing(item: FakeListing) -> str:
    before = ""
    if item.discount_rate is not None:
        before = (
            '<div class="PriceInfo_discountInfo__Xr1wz">'
            f'<span class="PriceInfo_discountRate__EsQ8I">{item.discount_rate}%</span>'
            f'<del class="PriceInfo_basePrice__8BQ32 custom-oos">{won(item.original_price)}</del></div>'
        )
    unit = (
        f'<span class="UnitPrice_unitPrice__R_ZcA">{esc(item.unit_price_text)}</span>' if item.unit_price_text else ""
    )
    if item.rocket:
        # 무료반품 (free returns) beside the badge is not about delivery.
        badge = '<img class="ImageBadge_badge__sQ4uF" src="/images/badges/logo_rocket_large@3x.png" alt="로켓배송">'
        badge += '<span class="DeliveryInfo_returns__p2Wq7">무료반품</span>'
    else:
        badge = '<img class="ImageBadge_badge__sQ4uF" src="/images/badges/seller-delivery.png" alt="판매자배송">'
    if item.delivery == "free":
        badge += '<img class="ImageBadge_badge__sQ4uF" src="/images/badges/free-shipping.png" alt="무료배송">'
    elif item.delivery is not None:
        badge += f'<span class="DeliveryInfo_deliveryFee__k2Jd8">{esc(item.delivery_text)}</span>'
    seller = f'<div class="VendorInfo_vendorName__b0kJd">판매자: {esc(item.seller)}</div>' if item.seller else ""
    sold_out = '<div class="ProductUnit_soldOutBadge__x9Kd2">일시품절</div>' if item.sold_out else ""
    ad = '<div class="AdMark_adMark__KPMsC"><span class="AdMark_text__n0hVe">AD</span></div>' if item.ad else ""
    return f"""<li class="ProductUnit_productUnit__Qd6sv" data-id="{esc(item.product_id)}"
 data-sentry-component="ProductItem">
<a href="{esc(item.href)}" target="_blank">
<figure class="ProductUnit_productImage__Mqcg1"><img src="{esc(item.thumbnail)}"
 alt="{esc(item.title)}" width="212" height="212"></figure>
<div class="ProductUnit_productInfo__1aWcX">
<div class="ProductUnit_productNameV2__cV9cw">{esc(item.title)}</div>
<div class="PriceArea_priceArea__NntJz"><div class="fw-flex fw-flex-col">{before}
<div class="Price_priceValue__A4KOr custom-oos"><strong class="fw-text-[20px]">{item.price:,}</strong>원</div>
{unit}</div>
<div class="DeliveryInfo_delivery__c7z4P">{badge}<span>내일(화) 도착 보장</span></div></div>
<div class="ProductRating_productRating__jjf7W"><div class="ProductRating_star__RGSlV" aria-label="4.5"></div>
<span class="ProductRating_ratingCount__R0Vhz">(1,234)</span></div>
<div class="RewardCash_reward__Kk1x9"><span>최대 {won(item.cashback)} 적립</span></div>
{seller}{sold_out}{ad}
</div></a></li>"""


def render_current(query: str, items: list[FakeListing], *, tail: str = "") -> str:
    cards = "\n".join(render_current_listing(item) for item in items)
    body = f"""<main class="SearchLayout_main__fN7Lz">
<div class="SearchResultHeader_header__wTb2a"><h1>'{esc(query)}' 검색결과</h1></div>
<ul id="product-list" class="ProductList_productList__Qk2hZ">
{cards}
</ul></main>"""
    return page(f"{query} - 쿠팡!", body, products=items, tail=tail)


def render_late(query: str, items: list[FakeListing], delay_seconds: float) -> str:
    """The current markup with the result list left empty by the server and filled by the page's script
    `delay_seconds` after DOMContentLoaded (the cards travel as a JSON string, not as markup)."""
    cards = json.dumps("\n".join(render_current_listing(item) for item in items)).replace("</", "<\\/")
    body = f"""<main class="SearchLayout_main__fN7Lz">
<div class="SearchResultHeader_header__wTb2a"><h1>'{esc(query)}' 검색결과</h1></div>
<ul id="product-list" class="ProductList_productList__Qk2hZ"></ul></main>"""
    tail = f"""<script>
document.addEventListener("DOMContentLoaded", () => setTimeout(() => {{
  document.getElementById("product-list").innerHTML = {cards};
}}, {int(delay_seconds * 1000)}));
</script>"""
    return page(f"{query} - 쿠팡!", body, products=items, tail=tail)


def render_legacy_listing(item: FakeListing) -> str:
    classes = "search-product search-product__ad" if item.ad else "search-product"
    ad = '<span class="search-product__ad-badge"><span class="ad-badge-text">AD</span></span>' if item.ad else ""
    price_info = ""
    if item.discount_rate is not None:
        price_info = (
            f'<span class="price-info"><span class="instant-discount-rate">{item.discount_rate}%</span>'
            f'<del class="base-price">{item.original_price:,}</del></span>'
        )
    rocket = (
        '<span class="badge rocket"><img src="//image6.coupangcdn.test/image/cmg/icon/ios/logo_rocket_large@3x.png"'
        ' height="16" alt="로켓배송"></span>'
        if item.rocket
        else ""
    )
    unit = f'<span class="unit-price">{esc(item.unit_price_text)}</span>' if item.unit_price_text else ""
    delivery = f'<span class="shipping-fee">{esc(item.delivery_text)}</span>' if item.delivery_text else ""
    seller = f'<span class="vendor-name">{esc(item.seller)}</span>' if item.seller else ""
    sold_out = '<div class="out-of-stock">품절</div>' if item.sold_out else ""
    return f"""<li class="{classes}" id="{esc(item.product_id)}" data-product-id="{esc(item.product_id)}">
<a class="search-product-link" href="{esc(item.href)}">
<dl class="search-product-wrap"><dt class="image"><img class="search-product-wrap-img"
 src="{esc(item.thumbnail)}" alt="{esc(item.title)}"></dt>
<dd class="descriptions"><div class="descriptions-inner">{ad}
<div class="name">{esc(item.title)}</div>
<div class="price-area"><div class="price-wrap"><div class="price">{price_info}
<em class="sale discount isInstantDiscount"><strong class="price-value">{item.price:,}</strong>원</em>{rocket}</div>
{unit}</div></div>
<div class="delivery">{delivery}<em class="arrival-info">내일(화) 도착 보장</em></div>
<div class="other-info"><span class="reward-cash-txt">최대 {won(item.cashback)} 적립</span>{seller}</div>
{sold_out}
</div></dd></dl></a></li>"""


def render_legacy(query: str, items: list[FakeListing]) -> str:
    cards = "\n".join(render_legacy_listing(item) for item in items)
    body = f"""<div id="searchOptionForm"><div class="search-query-result">'{esc(query)}'에 대한 검색결과</div>
<ul id="productList" class="search-product-list">
{cards}
</ul></div>"""
    return page(f"{query} - 쿠팡!", body, products=items)


def render_empty(query: str, markup: str) -> str:
    if markup == "legacy":
        body = f"""<div id="searchOptionForm"><div class="search-nodata">
<p><strong>'{esc(query)}'</strong>에 대한 {NO_RESULT_TEXT}.</p>
<ul><li>단어의 철자가 정확한지 확인해 보세요.</li></ul></div></div>"""
    else:
        body = f"""<main class="SearchLayout_main__fN7Lz"><div class="NoResult_noResult__Yp3kd">
<img src="/images/icons/no-result.png" alt="">
<p><strong>'{esc(query)}'</strong>에 대한 {NO_RESULT_TEXT}.</p>
<p>단어의 철자가 정확한지 확인해 보세요.</p></div></main>"""
    return page(f"{query} - 쿠팡!", body)


def render_malformed(query: str, items: list[FakeListing]) -> str:
    """The current markup broken the ways real pages break: unquoted attributes, unclosed, stray and
    mis-nested tags, bad entities, a bare "<" in text, no closing </body></html>, and a cut-off last card."""
    broken = []
    for index, item in enumerate(items):
        card = render_current_listing(item)
        card = card.replace('class="ProductUnit_productNameV2__cV9cw"', "class=ProductUnit_productNameV2__cV9cw")
        card = card.replace("</strong>", "", 1)
        card = card.replace("</li>", "</div></span></li>" if index % 2 else "", 1)
        broken.append(card + "\n<p>&nbsp &bogus; << 특가 >> <b><i>mis-nested</b></i>")
    if broken:
        broken[-1] = broken[-1][: len(broken[-1]) // 3]  # the last card is cut off mid-tag
    body = f"""<main class="SearchLayout_main__fN7Lz"><ul id="product-list" class="ProductList_productList__Qk2hZ">
{"".join(broken)}"""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{esc(query)} - 쿠팡!</title>
<link rel="stylesheet" href="/static/search.css"></head><body>{body}"""


def render_akamai_denied(url: str) -> str:
    encoded = "".join(f"&#{ord(ch)};" if ch in ":/.?=&" else ch for ch in url)
    return f"""<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "{encoded}" on this server.<P>
Reference&#32;&#35;18&#46;2f1e3b17&#46;1764478000&#46;4a5b6c7d
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;2f1e3b17&#46;1764478000&#46;4a5b6c7d</P>
</BODY>
</HTML>
"""


def render_too_many_requests() -> str:
    return """<html><head><title>429 Too Many Requests</title></head>
<body><h1>Too Many Requests</h1><p>요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.</p></body></html>"""


def render_server_error() -> str:
    return """<html><head><title>일시적인 오류</title></head>
<body><h1>일시적인 오류가 발생했습니다</h1></body></html>"""


def render_captcha() -> str:
    body = """<div id="captcha-container" class="captcha-wrap">
<h2>보안 확인</h2><p>자동입력 방지를 위해 아래 이미지의 문자를 입력해 주세요.</p>
<img src="/captcha/image.png?t=1" alt="captcha">
<form action="/captcha/verify" method="post"><input name="answer" autocomplete="off"><button>확인</button></form>
<div class="g-recaptcha" data-sitekey="6LdTest"></div></div>"""
    return page("보안 확인 - 쿠팡!", body)


def render_challenge() -> str:
    return """<!DOCTYPE html><html><head><title>Challenge Validation</title>
<script src="/_sec/cp_challenge/ak-challenge-4-3.js"></script></head>
<body><div id="sec-if-cpt-container" class="sec-container">
<p>Please wait while we verify your browser...</p>
<div id="sec-cpt-if" data-duration="5"></div></div></body></html>"""


def render_no_result_list() -> str:
    body = """<main class="SearchLayout_main__fN7Lz"><div class="Recommendation_carousel__Pq3sT">
<h2>이런 상품은 어떠세요?</h2><img src="/images/banner/recommend.jpg" alt=""></div>
<p>잠시 후 다시 시도해 주세요.</p></main>"""
    return page("쿠팡!", body)


def asset_body(size: int, seed: str) -> bytes:
    """`size` bytes that compress no better than a real image or media file does (not at all)."""
    return random.Random(seed).randbytes(size)


@functools.cache
def javascript(size: int, seed: str) -> bytes:
    """About `size` bytes of valid, minified-looking JavaScript that gzips about 3:1 like a real bundle."""
    rng = random.Random(seed)
    properties = ("props", "state", "children", "className", "length", "value", "key", "type", "ref", "current")
    templates = (
        'function {f}({a},{b}){{var {c}={a}.{p}+{b}["{q}"];return {c}?{a}.push({c}):null}}',
        'var {f}=function({a}){{return{{{p}:{a}.{q},{q}:"{s}"}}}};',
        'var {f}=function({a},{b}){{if(!{a})throw new Error("{s}");'
        "for(var {c}=0;{c}<{b}.length;{c}++){a}.{q}({b}[{c}])}};",
        "var {f}=({a},{b})=>{a}&&{a}.{p}?{b}.{q}({a}):void 0;",
    )
    parts, written = [], 0
    for number in range(10**9):
        if written >= size:
            break

        # Single letters are never keywords; distinct ones keep arrow-function parameters legal.
        a, b, c, f, text = rng.sample("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 5)
        statement = rng.choice(templates).format(
            f=f"{f}{number}", a=a, b=b, c=c, p=rng.choice(properties), q=rng.choice(properties), s=f"{text}{number}"
        )
        parts.append(statement)
        written += len(statement) + 1
    return ("\n".join(parts) + "\nwindow.__SEARCH_READY__=true;\n").encode()


@functools.cache
def stylesheet(size: int, seed: str) -> bytes:
    """About `size` bytes of CSS-module rules (or the hand-written sheet when `size` is 0), gzipping about 5:1."""
    if size == 0:
        return SEARCH_CSS.encode()
    rng = random.Random(seed)
    components = ("ProductUnit", "PriceArea", "Price", "AdMark", "SearchLayout", "Header", "Filter", "Banner")
    parts, written = [], 0
    while written < size:
        hash_ = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") for _ in range(5))
        rule = (
            f".{rng.choice(components)}_{rng.choice(('wrap', 'item', 'title', 'value', 'badge'))}__{hash_}"
            f"{{display:{rng.choice(('flex', 'block', 'inline-block'))};margin:{rng.randint(0, 24)}px "
            f"{rng.randint(0, 24)}px;color:#{rng.randint(0, 0xFFFFFF):06x};font-size:{rng.randint(11, 20)}px}}"
        )
        parts.append(rule)
        written += len(rule) + 1
    return "\n".join(parts).encode()


@functools.cache
def gzipped(body: bytes) -> bytes:
    return gzip.compress(body, GZIP_LEVEL, mtime=0)


# --- The server -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MarketplaceRequest:
    method: str
    path: str
    query: str | None
    """The `q` of a search request (URL-decoded), else None."""
    headers: dict[str, str]
    via_proxy: bool
    kind: str


@dataclass
class _Behaviour:
    kind: str
    times: int | None
    delay_seconds: float


@dataclass
class _Page:
    markup: str
    listings: list[FakeListing] = field(default_factory=list)


def resource_kind(path: str) -> str:
    if path == "/np/search":
        return "search"
    if path.startswith(("/images/", "/captcha/image")):
        return "image"
    if path.startswith("/static/fonts/"):
        return "font"
    if path.startswith("/media/"):
        return "media"
    if path.endswith(".css"):
        return "stylesheet"
    if path.endswith(".js"):
        return "script"
    return "other"


class FakeMarketplace(LoopbackServer):
    """The server and its script; see the module docstring."""

    handler_attribute = "marketplace"
    thread_name = "fake-marketplace"

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        self._pages: dict[str, _Page] = {}
        self._behaviours: dict[str | None, _Behaviour] = {}
        self._requests: list[MarketplaceRequest] = []
        self._hits: Counter[str] = Counter()
        self._bytes_served: Counter[str] = Counter()
        self._blocking_script_seconds = 0.0
        self._proxy_credentials: str | None = None

    # Lifecycle

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    def search_url(self, query: str) -> str:
        return f"{self.base_url}/np/search?q={quote(query)}"

    def reset(self) -> None:
        with self._lock:
            self._pages.clear()
            self._behaviours.clear()
            self._requests.clear()
            self._hits.clear()
            self._bytes_served.clear()
            self._proxy_credentials = None
            # Wake slow requests of the last test, then arm a fresh event for the next one.
            self._release.set()
            self._release = threading.Event()

    # Scripting

    def require_proxy_auth(self, user: str, password: str) -> None:
        """As a forward proxy, answer 407 to any request without these Basic credentials (until reset)."""
        with self._lock:
            self._proxy_credentials = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def set_results(self, query: str, listings: list[dict], *, markup: str = "current") -> list[FakeListing]:
        """Serve `listings` for `query`; returns them as rendered (with generated product ids)."""
        if markup not in MARKUPS:
            raise ValueError(f"markup must be one of {sorted(MARKUPS)}, not {markup!r}")
        items = [FakeListing.from_dict(listing) for listing in listings]
        with self._lock:
            self._pages[query.strip()] = _Page(markup=markup, listings=items)
        return items

    def set_behaviour(
        self, query: str | None, kind: str, *, times: int | None = None, delay_seconds: float = 5.0
    ) -> None:
        """Misbehave as `kind` for `query` (None: every query) for the next `times` searches (None: always)."""
        if kind not in BEHAVIOURS:
            raise ValueError(f"kind must be one of {sorted(BEHAVIOURS)}, not {kind!r}")
        if times is not None and times < 1:
            raise ValueError("times must be at least 1 (or None for always)")
        key = query.strip() if query is not None else None
        with self._lock:
            if kind == "normal":
                self._behaviours.pop(key, None)
            else:
                self._behaviours[key] = _Behaviour(kind, times, delay_seconds)

    # Observation

    @property
    def requests(self) -> list[MarketplaceRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def search_queries(self) -> list[str]:
        return [request.query or "" for request in self.requests if request.kind == "search"]

    @property
    def resource_hits(self) -> Counter[str]:
        with self._lock:
            return Counter(self._hits)

    def hits(self, kind: str) -> int:
        with self._lock:
            return self._hits[kind]

    @property
    def bytes_served(self) -> int:
        with self._lock:
            return self._bytes_served.total()

    @property
    def bytes_served_by_kind(self) -> Counter[str]:
        with self._lock:
            return Counter(self._bytes_served)

    # Used by the handler

    def _record(self, request: MarketplaceRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._hits[request.kind] += 1

    def _count_bytes(self, size: int, kind: str) -> None:
        with self._lock:
            self._bytes_served[kind] += size

    def _take_behaviour(self, query: str) -> tuple[_Behaviour | None, threading.Event]:
        with self._lock:
            key = query if query in self._behaviours else None
            behaviour = self._behaviours.get(key)
            if behaviour is not None and behaviour.times is not None:
                behaviour.times -= 1
                if behaviour.times <= 0:
                    del self._behaviours[key]
            return behaviour, self._release

    def _page_for(self, query: str) -> _Page:
        with self._lock:
            return self._pages.get(query, _Page(markup="current"))

    def search_response(self, query: str, url: str) -> tuple[int, dict[str, str], str] | None:
        """Status, extra headers and HTML for a search; None when the client went away while waiting."""
        behaviour, release = self._take_behaviour(query)
        kind = behaviour.kind if behaviour else "normal"
        if kind == "slow" and release.wait(behaviour.delay_seconds):
            return None
        found = self._page_for(query)
        if kind == "http_403":
            return 403, {"Server": "AkamaiGHost", "Mime-Version": "1.0"}, render_akamai_denied(url)
        if kind == "http_429":
            return 429, {"Retry-After": "60"}, render_too_many_requests()
        if kind == "http_500":
            return 500, {}, render_server_error()
        if kind == "captcha":
            return 200, {}, render_captcha()
        if kind == "challenge":
            return 200, {}, render_challenge()
        if kind == "no_result_list":
            return 200, {}, render_no_result_list()
        if kind == "malformed":
            return 200, {}, render_malformed(query, found.listings)
        if kind == "late_list":
            return 200, {}, render_late(query, found.listings, behaviour.delay_seconds)
        if kind == "blocking_script":
            with self._lock:
                self._blocking_script_seconds = behaviour.delay_seconds
            return 200, {}, render_current(query, found.listings, tail=f'<script src="{BLOCKING_SCRIPT}"></script>')
        if not found.listings:
            return 200, {}, render_empty(query, found.markup)
        render = render_legacy if found.markup == "legacy" else render_current
        return 200, {}, render(query, found.listings)


class _Handler(BaseHTTPRequestHandler):
    marketplace: FakeMarketplace
    server_version = "FakeCoupang/1.0"
    protocol_version = "HTTP/1.1"  # keep-alive, as every real storefront serves

    def log_message(self, format, *args):
        """Stay quiet: the request log is the record."""

    def do_GET(self):
        via_proxy = self.path.startswith(("http://", "https://"))
        with self.marketplace._lock:
            credentials = self.marketplace._proxy_credentials
        if via_proxy and credentials and self.headers.get("Proxy-Authorization") != credentials:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="fake-proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        parts = urlsplit(self.path)
        path = parts.path or "/"
        kind = resource_kind(path)
        query = None
        if kind == "search":
            query = (parse_qs(parts.query).get("q") or [""])[0].strip()
        self.marketplace._record(
            MarketplaceRequest(
                method="GET",
                path=path,
                query=query,
                headers={key.lower(): value for key, value in self.headers.items()},
                via_proxy=via_proxy,
                kind=kind,
            )
        )
        host = self.headers.get("Host") or f"127.0.0.1:{self.marketplace.port}"
        url = self.path if via_proxy else f"http://{host}{self.path}"
        try:
            if kind == "search":
                answer = self.marketplace.search_response(query or "", url)
                if answer is None:
                    self.close_connection = True  # nothing was answered: the client must not wait on this socket
                    return
                status, headers, text = answer
                self._send(status, "text/html; charset=utf-8", text.encode("utf-8"), headers, cache=PAGE_CACHE)
            elif kind == "image":
                size = next((size for prefix, size in IMAGE_BYTES.items() if path.startswith(prefix)), None)
                self._send(200, "image/jpeg", asset_body(size or OTHER_IMAGE_BYTES, path), cache=IMAGE_CACHE)
            elif kind == "font":
                self._send(200, "font/woff2", asset_body(FONT_BYTES, path), cache=STATIC_CACHE)
            elif kind == "media":
                size, content_type = (
                    (VIDEO_BYTES, "video/mp4") if path.endswith(".mp4") else (AUDIO_BYTES, "audio/mpeg")
                )
                self._send(200, content_type, asset_body(size, path), cache=STATIC_CACHE)
            elif kind == "stylesheet" and path in STYLESHEETS:
                self._send(200, "text/css", stylesheet(STYLESHEETS[path], path), cache=STATIC_CACHE)
            elif path == BLOCKING_SCRIPT:
                with self.marketplace._lock:
                    delay, release = self.marketplace._blocking_script_seconds, self.marketplace._release
                if release.wait(delay):
                    self.close_connection = True  # released by reset(): the test is over
                    return
                self._send(200, "application/javascript", b"window.blockingScriptRan = true;", cache=PAGE_CACHE)
            elif kind == "script" and path in SCRIPTS:
                self._send(200, "application/javascript", javascript(SCRIPTS[path][0], path), cache=STATIC_CACHE)
            elif path.startswith("/vp/products/"):
                self._send(200, "text/html; charset=utf-8", page("상품 - 쿠팡!", "<main>상품 상세</main>").encode())
            else:
                self._send(404, "text/plain", b"not found")
        except (BrokenPipeError, ConnectionResetError):
            # The browser gave up (timeout) or aborted the request: nothing to answer.
            pass

    def _send(
        self,
        status: int,
        content_type: str,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        cache: str = PAGE_CACHE,
    ) -> None:
        compress = content_type.startswith(COMPRESSIBLE) and "gzip" in self.headers.get("Accept-Encoding", "")
        if compress:
            body = gzipped(body) if cache == STATIC_CACHE else gzip.compress(body, GZIP_LEVEL, mtime=0)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        if content_type.startswith(COMPRESSIBLE):
            self.send_header("Vary", "Accept-Encoding")
        if compress:
            self.send_header("Content-Encoding", "gzip")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)
        self.marketplace._count_bytes(len(body), resource_kind(urlsplit(self.path).path or "/"))


@pytest.fixture(scope="session")
def fake_marketplace_server():
    """The test session's one fake marketplace (use `fake_marketplace` in tests: it is reset per test)."""
    marketplace = FakeMarketplace().start()
    yield marketplace
    marketplace.stop()


@pytest.fixture
def fake_marketplace(fake_marketplace_server):
    """The fake marketplace, with nothing scripted and an empty request log."""
    fake_marketplace_server.reset()
    yield fake_marketplace_server
    fake_marketplace_server.reset()


@pytest.fixture
def fake_coupang(fake_marketplace, settings):
    """The fake marketplace, with settings.LPS_COUPANG_URL pointing the Coupang adapter at it."""
    settings.LPS_COUPANG_URL = fake_marketplace.base_url
    return fake_marketplace


DEMO_CATALOGUE = {
    "삼성 갤럭시 버즈3 프로": [
        {
            "title": "삼성전자 갤럭시 버즈3 프로 SM-R630 실버",
            "price": 219_000,
            "original_price": 329_000,
            "rocket": True,
            "product_id": "7001",
        },
        {
            "title": "삼성전자 갤럭시 버즈3 프로 SM-R630 화이트",
            "price": 209_000,
            "seller": "삼성공식몰",
            "product_id": "7002",
        },
        {"title": "갤럭시 버즈3 프로 케이스 실리콘 커버", "price": 9_900, "product_id": "7003"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 199_000, "ad": True, "product_id": "7004"},
        {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630 블루", "price": 189_000, "sold_out": True, "product_id": "7005"},
    ],
    "SM-R510": [
        {
            "title": "삼성전자 갤럭시 버즈2 프로 SM-R510 그라파이트",
            "price": 129_000,
            "rocket": True,
            "product_id": "7010",
        }
    ],
}
"""The demo's listings (`python -m tests.fakes.marketplace`, `./bin/run --demo`); docs/ name their product ids."""


def main(argv: list[str] | None = None) -> None:
    """Serve the demo catalogue on a fixed port, for trying the whole service by hand (no internet needed)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8765)
    port = parser.parse_args(argv).port
    marketplace = FakeMarketplace().start(port)
    for query, listings in DEMO_CATALOGUE.items():
        marketplace.set_results(query, listings)
    print(f"fake Coupang at {marketplace.base_url} — run the service with LPS_COUPANG_URL={marketplace.base_url}")
    print("queries with results: " + ", ".join(DEMO_CATALOGUE), flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
