"""The fields beside a result's contract that tell a shop how far to trust it (search/trust.py): what was left out
and why, when it was searched, a cached answer's age and expiry, the shop's own price against the lowest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from negative_cache import cache
from search import overrides, trust
from search.listings import Listing, ProductQuery
from tests.search.test_pipeline import PRODUCT, Refiner, Shelf, TitleJudge, identity_key, listing, run

pytestmark = pytest.mark.django_db


def test_cheaper_listings_that_were_never_candidates_are_listed_with_why_cheapest_first_and_once():
    shelf = Shelf(
        {
            PRODUCT.product_name: [
                listing("갤럭시 버즈3 프로 SM-R630 화이트", 209_000, product_id="7002"),
                listing("갤럭시 버즈3 프로 SM-R630", 199_000, product_id="7004", ad=True),
                listing("갤럭시 버즈3 프로 SM-R630 블루", 189_000, product_id="7005", sold_out=True),
                listing("갤럭시 버즈3 프로 케이스", 9_900, product_id="7003"),
            ],
        }
    )

    result = run(shelf=shelf, judge=TitleJudge(), refine=Refiner())

    assert result["lowest"]["price"] == 209_000
    assert result["left_out"] == [
        {
            "marketplace": "coupang",
            "price": 189_000,
            "title": "갤럭시 버즈3 프로 SM-R630 블루",
            "why": "sold_out",
            "product_id": "7005",
        },
        {
            "marketplace": "coupang",
            "price": 199_000,
            "title": "갤럭시 버즈3 프로 SM-R630",
            "why": "ad",
            "product_id": "7004",
        },
    ]
    assert "left_out_more" not in result


def test_a_listing_seen_again_in_a_later_round_is_left_out_once():
    ad = listing("갤럭시 버즈3 프로 SM-R630 광고", 99_000, product_id="9", ad=True)
    shelf = Shelf({PRODUCT.product_name: [ad], "삼성 SM-R630": [ad], "갤럭시 버즈3 프로": [ad]})

    result = run(shelf=shelf, judge=TitleJudge(), refine=Refiner())

    assert result["outcome"] == "not_found"
    assert len(result["rounds"]) == 3
    assert [(shown["product_id"], shown["why"]) for shown in result["left_out"]] == [("9", "ad")]


@pytest.mark.parametrize(
    ("listing_fields", "why"),
    [
        ({"ad": True}, "ad"),
        ({"sold_out": True}, "sold_out"),
        ({"rental": True}, "rental"),
        ({"product_type": 5, "marketplace": "naver"}, "used"),
        ({"product_type": 8, "marketplace": "naver"}, "discontinued"),
        ({"product_type": 11, "marketplace": "naver"}, "not_yet_on_sale"),
        ({"product_type": 2, "marketplace": "naver"}, None),
        ({}, None),
    ],
)
def test_why_a_listing_is_left_out_names_the_reason_a_shop_can_check(listing_fields, why):
    assert trust.left_out_why(Listing(title="t", price=1, url="https://shop.test/1", **listing_fields)) == why


def test_left_out_lists_ten_and_counts_the_rest():
    ads = [Listing(title=f"광고 {n}", price=1000 + n, url=f"https://shop.test/{n}", ad=True) for n in range(13)]

    shown, more = trust.left_out(ads)

    assert [item["price"] for item in shown] == [1000 + n for n in range(10)]
    assert more == 3


def test_a_cached_not_found_says_when_it_was_found_its_age_and_when_it_expires():
    entry = cache.remember(identity_key(PRODUCT), ttl=timedelta(hours=24))

    result = run(shelf=Shelf(), judge=TitleJudge(), refine=Refiner())
    trust.describe(result, PRODUCT)

    assert result["cached"] is True
    remembered = datetime.fromisoformat(result["cache"]["remembered_at"])
    expires = datetime.fromisoformat(result["cache"]["expires_at"])
    assert abs((remembered - entry.created_at).total_seconds()) < 1
    assert abs((expires - entry.until).total_seconds()) < 1
    assert 0 <= result["cache"]["age_seconds"] <= (timezone.now() - entry.created_at).total_seconds() + 1
    assert result["searched_at"] == result["cache"]["remembered_at"]
    assert "left_out" not in result


def test_describe_names_the_product_code_the_time_and_sets_the_shop_price_against_the_lowest():
    product = ProductQuery(product_code="SKU-1", product_name="버즈3 프로", price=259_000)
    result = {"outcome": "found", "lowest": {"price": 197_000, "title": "버즈3 프로", "url": "https://shop.test/1"}}
    now = datetime(2026, 12, 2, 6, 4, 38, tzinfo=UTC)

    trust.describe(result, product, now=now)

    assert result["product_code"] == "SKU-1"
    assert result["searched_at"] == "2026-12-02T06:04:38Z"
    assert result["price_check"] == {
        "your_price": 259_000,
        "lowest_price": 197_000,
        "gap_won": 62_000,
        "gap_percent": 31.5,
    }


def test_a_shop_cheaper_than_the_lowest_gets_a_negative_gap_and_no_price_means_no_check():
    cheaper = ProductQuery(product_code="SKU-1", product_name="버즈3 프로", price=190_000)
    priceless = ProductQuery(product_code="SKU-2", product_name="버즈3 프로")
    found = {"outcome": "found", "lowest": {"price": 200_000, "title": "버즈3 프로", "url": "https://shop.test/1"}}

    assert trust.describe(dict(found), cheaper)["price_check"]["gap_won"] == -10_000
    assert trust.describe(dict(found), cheaper)["price_check"]["gap_percent"] == -5.0
    assert "price_check" not in trust.describe(dict(found), priceless)
    assert "price_check" not in trust.describe({"outcome": "not_found"}, cheaper)


def test_a_reused_result_keeps_the_time_its_own_search_read_the_marketplaces():
    product = ProductQuery(product_code="SKU-9", product_name="버즈3 프로")
    reused = {"outcome": "not_found", "product_code": "SKU-1", "searched_at": "2026-12-01T00:00:00Z"}

    trust.describe(reused, product)

    assert reused["product_code"] == "SKU-9"
    assert reused["searched_at"] == "2026-12-01T00:00:00Z"


def test_a_correction_that_changes_the_lowest_sets_the_price_check_against_the_new_one():
    product = ProductQuery(
        product_code="SKU-1", product_name="삼성 갤럭시 버즈3 프로 SM-R630", model_code="SM-R630", price=259_000
    )
    shelf = Shelf(
        {
            product.product_name: [
                listing("갤럭시 버즈3 프로 SM-R630 화이트", 209_000, product_id="7002"),
                listing("갤럭시 버즈3 프로 SM-R630 실버", 219_000, product_id="7001"),
            ]
        }
    )
    result = trust.describe(run(product, shelf=shelf, judge=TitleJudge(), refine=Refiner()), product)
    assert result["price_check"]["lowest_price"] == 209_000

    corrected = overrides.rejudge(result, {("coupang", "7002"): overrides.Override(False, "correction: not ours")})

    assert corrected["lowest"]["price"] == 219_000
    assert corrected["price_check"] == {
        "your_price": 259_000,
        "lowest_price": 219_000,
        "gap_won": 40_000,
        "gap_percent": 18.3,
    }


def test_a_naver_listing_carries_no_rocket_and_a_coupang_one_does():
    naver = Listing(title="버즈3 SM-R630", price=197_000, url="https://n.test/1", marketplace="naver", product_id="8")
    coupang = Listing(title="버즈3 SM-R630", price=209_000, url="https://c.test/1", product_id="7002")
    shelf = Shelf({PRODUCT.product_name: [naver, coupang]})

    result = run(shelf=shelf, judge=TitleJudge(), refine=Refiner())

    by_price = {match["price"]: match for match in result["matches"]}
    assert "rocket" not in by_price[197_000]
    assert by_price[209_000]["rocket"] is False
    verdicts = {verdict["price"]: verdict for verdict in result["rounds"][0]["verdicts"]}
    assert "rocket" not in verdicts[197_000]
    assert verdicts[209_000]["rocket"] is False
