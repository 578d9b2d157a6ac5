"""The Coupang adapter reads result pages as Coupang serves them (the fake marketplace renders both markups)."""

from __future__ import annotations

import re

import pytest

from search.sources.base import ParsedPage
from search.sources.coupang import CoupangSource, parse_result_page
from search.sources.delivery import read_delivery
from tests.fakes import marketplace as fake

BASE = "https://www.coupang.test"
PAGE_URL = f"{BASE}/np/search?q=q"

BUDS = {
    "title": "삼성전자 갤럭시 버즈3 프로 SM-R630",
    "price": 189_000,
    "original_price": 219_000,
    "unit_price_text": "(1개당 189,000원)",
    "product_id": "8614412541",
    "seller": "삼성전자 공식스토어",
    "rocket": True,
}
CASE = {"title": "갤럭시 버즈3 프로 케이스 실리콘 커버", "price": 9_900, "original_price": 15_000, "delivery": "free"}
MASKS = {
    "title": "KF94 마스크 대형 100매",
    "price": 21_900,
    "original_price": 39_000,
    "unit_price_text": "(10개당 2,190원)",
}
AD = {"title": "갤럭시 버즈3 프로 SM-R630 + 정품 케이스 세트", "price": 179_000, "ad": True, "rocket": True}
SOLD_OUT = {"title": "갤럭시 버즈3 프로 SM-R630 화이트", "price": 149_000, "sold_out": True}
ROCKET_TITLE = {"title": "로켓 모양 무드등 가습기", "price": 15_900}
CATALOGUE = [BUDS, CASE, MASKS, AD, SOLD_OUT, ROCKET_TITLE]


def render(listings: list[dict], markup: str = "current", query: str = "버즈3") -> str:
    items = [fake.FakeListing.from_dict(listing) for listing in listings]
    return (fake.render_legacy if markup == "legacy" else fake.render_current)(query, items)


def parse(html: str) -> ParsedPage:
    return parse_result_page(html, base_url=PAGE_URL)


def by_title(parsed: ParsedPage) -> dict:
    return {listing.title: listing for listing in parsed.listings}


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_every_card_is_read_with_title_sale_price_link_and_product_id(markup):
    parsed = parse(render(CATALOGUE, markup))

    assert parsed.healthy
    assert not parsed.empty
    assert parsed.unread_cards == 0
    assert [(listing.title, listing.price) for listing in parsed.listings] == [
        (listing["title"], listing["price"]) for listing in CATALOGUE
    ]
    buds = by_title(parsed)[BUDS["title"]]
    assert buds.product_id == "8614412541"
    assert buds.url.startswith(f"{BASE}/vp/products/8614412541?itemId=")


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_the_original_price_discount_rate_unit_price_and_cashback_are_never_taken_for_the_sale_price(markup):
    html = render([MASKS], markup)
    for decoy in ("39,000", "44%", "(10개당 2,190원)", "최대 219원 적립"):
        assert decoy in html  # the decoys really stand next to the price

    assert parse(html).listings[0].price == 21_900


def test_a_price_area_without_a_price_element_still_skips_del_unit_price_and_discount():
    html = """<ul id="product-list"><li class="ProductUnit_productUnit__Ab12c">
    <a href="/vp/products/77"><div class="ProductUnit_productName__x1Y2z">물티슈 캡형 100매 10팩</div>
    <div class="PriceArea_priceArea__Q9w8e"><span>(10팩당 1,290원)</span><span>35%</span><del>19,900원</del>
    <em>12,900원</em><span class="UnitPrice_unitPrice__p0o9i">10매당 129원</span></div></a></li></ul>"""

    [listing] = parse(html).listings

    assert listing.price == 12_900


def test_class_names_are_matched_by_prefix_whatever_their_hash_and_name_version():
    html = render(CATALOGUE)
    rehashed = re.sub(r"(ProductUnit|PriceArea|Price|AdMark|UnitPrice|PriceInfo)_(\w+?)__\w{5}", r"\1_\2__Zz9Q1", html)
    rehashed = rehashed.replace("ProductUnit_productNameV2__", "ProductUnit_productName__")
    assert "Qd6sv" not in rehashed
    assert "productNameV2" not in rehashed

    assert parse(rehashed).listings == parse(html).listings


def test_the_legacy_markup_reads_the_same_listings_as_the_current_one():
    current = parse(render(CATALOGUE, "current")).listings
    legacy = parse(render(CATALOGUE, "legacy")).listings

    assert legacy == current


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_ads_carry_their_mark_and_are_not_candidates(markup):
    listings = by_title(parse(render(CATALOGUE, markup)))

    assert listings[AD["title"]].ad
    assert not listings[AD["title"]].is_candidate
    assert [title for title, listing in listings.items() if listing.ad] == [AD["title"]]


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_sold_out_listings_are_flagged_and_not_candidates(markup):
    listings = by_title(parse(render(CATALOGUE, markup)))

    assert listings[SOLD_OUT["title"]].sold_out
    assert not listings[SOLD_OUT["title"]].is_candidate
    assert [title for title, listing in listings.items() if listing.sold_out] == [SOLD_OUT["title"]]


def test_a_title_that_mentions_품절_does_not_make_the_listing_sold_out():
    [listing] = parse(render([{"title": "품절대란 그 마스크 KF94 50매", "price": 12_000}])).listings

    assert not listing.sold_out


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_the_rocket_badge_is_read_from_its_image_but_never_from_the_thumbnail_title(markup):
    listings = by_title(parse(render(CATALOGUE, markup)))

    assert listings[BUDS["title"]].rocket
    assert listings[AD["title"]].rocket
    assert not listings[ROCKET_TITLE["title"]].rocket  # its thumbnail's alt text says 로켓
    assert not listings[CASE["title"]].rocket  # a free-shipping badge is not rocket delivery


@pytest.mark.parametrize(
    "badge",
    [
        '<img src="/badges/free.png" alt="로켓와우">',
        '<img src="https://image.coupangcdn.test/badges/rocketwow-bi-16@2x.png" alt="">',
        '<img data-src="/img/ROCKET_fresh.png">',
    ],
)
def test_the_rocket_badge_is_recognised_by_alt_or_src(badge):
    html = f"""<ul id="product-list"><li class="ProductUnit_productUnit__a1b2c"><a href="/vp/products/5">
    <div class="ProductUnit_productNameV2__d3e4f">생수 2L 12개</div>
    <div class="PriceArea_priceArea__g5h6i"><div class="Price_priceValue__j7k8l">7,990원</div>{badge}</div>
    </a></li></ul>"""

    assert parse(html).listings[0].rocket


@pytest.mark.parametrize("markup", ["current", "legacy"])
@pytest.mark.parametrize(
    ("delivery", "price", "shipping_fee", "free_shipping_over"),
    [
        pytest.param("free", 9_900, 0, None, id="무료배송"),
        pytest.param(3_000, 9_900, 3_000, None, id="배송비 N원"),
        pytest.param({"fee": 3_000, "free_over": 19_800}, 9_900, 3_000, 19_800, id="fee below the threshold"),
        pytest.param({"fee": 3_000, "free_over": 19_800}, 19_800, 0, 19_800, id="free at the threshold"),
        pytest.param({"free_over": 30_000}, 45_000, 0, 30_000, id="threshold only, price above it"),
        pytest.param({"free_over": 30_000}, 9_900, None, 30_000, id="threshold only, fee unsaid below it"),
        pytest.param(None, 9_900, None, None, id="nothing said"),
    ],
)
def test_the_delivery_fee_a_buyer_pays_is_read_from_each_wording(
    markup, delivery, price, shipping_fee, free_shipping_over
):
    card = {"title": "갤럭시 버즈3 프로 케이스 실리콘 커버", "price": price, "delivery": delivery}
    html = render([card], markup)

    [listing] = parse(html).listings

    assert (listing.shipping_fee, listing.free_shipping_over) == (shipping_fee, free_shipping_over)
    assert listing.price == price  # the fee and the threshold are never taken for the price


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_a_rocket_card_that_names_no_fee_has_none_and_its_free_returns_are_not_free_delivery(markup):
    rocket = {"title": "삼성전자 갤럭시 버즈3 프로 SM-R630", "price": 189_000, "rocket": True}
    with_free = {**rocket, "title": "삼성전자 갤럭시 버즈3 SM-R530", "delivery": "free"}
    html = render([rocket, with_free], markup)
    if markup == "current":
        assert "무료반품" in html

    listings = by_title(parse(html))

    assert listings[rocket["title"]].rocket
    assert listings[rocket["title"]].shipping_fee is None
    assert (listings[with_free["title"]].rocket, listings[with_free["title"]].shipping_fee) == (True, 0)


def test_무료배송_in_a_title_says_nothing_of_the_delivery_fee():
    [listing] = parse(render([{"title": "아이드롭 10ml 무료배송 특가", "price": 5_900}])).listings

    assert listing.shipping_fee is None


@pytest.mark.parametrize(
    ("words", "fee", "free_over"),
    [
        ("무료배송", 0, None),
        ("배송비 무료", 0, None),
        ("배송비: 2,500원", 2_500, None),
        ("배송비3000원", 3_000, None),
        ("+3,000원 배송", 3_000, None),
        ("배송비 3,000원 (19,800원 이상 구매 시 무료)", 3_000, 19_800),
        ("19,800원이상 주문시 무료배송", None, 19_800),
        ("무료배송 (19,800원 이상)", None, 19_800),
        ("로켓배송 내일(화) 도착 보장 무료반품", None, None),
        ("", None, None),
    ],
)
def test_delivery_wordings_as_storefronts_write_them(words, fee, free_over):
    delivery = read_delivery(words)

    assert (delivery.fee, delivery.free_over) == (fee, free_over)


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_the_seller_is_read_when_shown(markup):
    listings = by_title(parse(render(CATALOGUE, markup)))

    assert listings[BUDS["title"]].seller == "삼성전자 공식스토어"
    assert listings[CASE["title"]].seller is None


def test_listing_urls_are_absolute_and_keep_only_the_option_parameters():
    html = render([{**CASE, "url": "/vp/products/123?itemId=4&vendorItemId=5&sourceType=search&rank=3&q=x"}])

    [listing] = parse(html).listings

    assert listing.url == f"{BASE}/vp/products/123?itemId=4&vendorItemId=5"
    assert listing.product_id == "123"


def test_the_product_id_comes_from_data_attributes_when_the_link_has_none():
    html = """<ul id="product-list"><li class="ProductUnit_productUnit__a1b2c" data-id="998877">
    <a href="/np/click?id=1"><div class="ProductUnit_productNameV2__d3e4f">생수 2L 12개</div>
    <div class="Price_priceValue__j7k8l">7,990원</div></a></li></ul>"""

    [listing] = parse(html).listings

    assert listing.product_id == "998877"


@pytest.mark.parametrize("markup", ["current", "legacy"])
def test_an_empty_result_page_is_healthy_and_empty(markup):
    parsed = parse(fake.render_empty("존재하지않는상품", markup))

    assert parsed == ParsedPage(listings=[], empty=True, blocked_kind=None)


def test_the_empty_result_message_hidden_in_a_script_does_not_make_a_page_empty():
    html = fake.render_no_result_list()
    assert fake.NO_RESULT_TEXT in html  # in the page's JSON, not on the page

    parsed = parse(html)

    assert not parsed.empty
    assert parsed.blocked_kind == "no_result_list"


@pytest.mark.parametrize(
    ("html", "kind"),
    [
        (fake.render_akamai_denied("https://www.coupang.com/np/search?q=x"), "akamai"),
        (fake.render_captcha(), "captcha"),
        (fake.render_challenge(), "challenge"),
        (fake.render_too_many_requests(), "rate_limited"),
        (fake.render_no_result_list(), "no_result_list"),
        (fake.page("쿠팡!", "<main><p>점검 중입니다</p></main>"), "no_result_list"),
    ],
)
def test_pages_that_are_not_result_pages_are_named_as_blocks(html, kind):
    parsed = parse(html)

    assert parsed.listings == []
    assert parsed.blocked_kind == kind


def test_malformed_markup_still_yields_every_card_that_is_whole():
    html = fake.render_malformed("버즈3", [fake.FakeListing.from_dict(listing) for listing in CATALOGUE])

    parsed = parse(html)

    whole = CATALOGUE[:-1]  # the last card is cut off mid-tag
    assert [(listing.title, listing.price) for listing in parsed.listings] == [
        (listing["title"], listing["price"]) for listing in whole
    ]
    assert by_title(parsed)[AD["title"]].ad


def test_the_parser_never_raises_on_truncated_or_garbage_input():
    page = render(CATALOGUE)
    inputs = [page[:cut] for cut in range(0, len(page), 97)]
    inputs += ["", " ", "\x00", "\x00" * 10 + page, "\ud800" + page, "<<<<>>>>&&&&", "<html", "</li></ul>" * 50]
    inputs += ["<div>" * 5000, "<svg><foreignObject><li class='ProductUnit_productUnit__a'>" * 20]
    declared = '<?xml version="1.0" encoding="euc-kr"?>' + page

    results = [parse(html) for html in inputs]

    assert all(isinstance(result, ParsedPage) for result in results)
    assert parse(declared).listings == parse(page).listings  # a declared legacy encoding is not believed


def test_cards_that_cannot_be_read_are_counted_not_silently_dropped():
    html = """<ul id="product-list">
    <li class="ProductUnit_productUnit__a1b2c"><a href="/vp/products/1">
    <div class="ProductUnit_productNameV2__x">A</div></a></li>
    <li class="ProductUnit_productUnit__a1b2c"><a href="/vp/products/2">
    <div class="Price_priceValue__y">1,000원</div></a></li>
    </ul>"""

    parsed = parse(html)

    assert parsed.listings == []
    assert parsed.unread_cards == 2
    assert parsed.blocked_kind is None
    assert not parsed.empty


def test_the_search_url_carries_the_encoded_query_under_np_search():
    source = CoupangSource("https://www.coupang.test/")

    assert source.search_url("  삼성 버즈3 &  프로 ") == (
        "https://www.coupang.test/np/search?q=%EC%82%BC%EC%84%B1+%EB%B2%84%EC%A6%883+%26+%ED%94%84%EB%A1%9C&channel=user"
    )


def test_a_blank_query_is_refused():
    with pytest.raises(ValueError, match="blank"):
        CoupangSource(BASE).search_url("   ")


def test_the_base_url_defaults_to_the_setting(settings):
    settings.LPS_COUPANG_URL = "http://127.0.0.1:9/"

    assert CoupangSource().search_url("a").startswith("http://127.0.0.1:9/np/search?q=a")
