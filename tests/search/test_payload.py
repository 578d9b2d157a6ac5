"""The SEARCH payload: the one model the API validates a posted product with and the handler reads a job's
payload back with, so a stored payload is held to the limits the API promised clients."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from search.exceptions import InvalidProduct
from search.listings import ProductQuery
from search.payload import PRODUCT_CODE_MAX, REFUSED_CATEGORIES, REFUSED_RANGES, SearchPayload, SearchProduct

BUDS = "삼성전자 갤럭시 버즈3 프로 SM-R630"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"product_name": BUDS}, "product_code"),
        ({"product_code": "A", "product_name": "   "}, "product_name"),
        ({"product_code": 12, "product_name": BUDS}, "product_code"),
        ({"product_code": "A", "product_name": BUDS, "price": -1}, "price"),
        ({"product_code": "A", "product_name": BUDS, "price": "1000"}, "price"),
        ({"product_code": "A", "product_name": BUDS, "price": True}, "price"),
        ({"product_code": "A", "product_name": BUDS, "brand": ["삼성"]}, "brand"),
        ({"product_code": "A", "product_name": BUDS, "callback_url": "ftp://client.test/hook"}, "callback_url"),
        ({"product_code": "A" * 201, "product_name": BUDS}, "product_code"),
        (["not", "an", "object"], "payload"),
    ],
)
def test_a_bad_payload_is_refused_naming_the_field_and_is_not_retried(payload, field):
    with pytest.raises(InvalidProduct, match=field) as raised:
        SearchPayload.from_payload(payload)

    assert raised.value.retryable is False


def test_a_good_payload_becomes_a_product_query_with_blank_optionals_left_out():
    payload = SearchPayload.from_payload(
        {"product_code": " A-1 ", "product_name": BUDS, "brand": "", "model_code": "SM-R630", "price": 230_000}
    )

    assert payload.product == ProductQuery("A-1", BUDS, brand=None, model_code="SM-R630", price=230_000)
    assert (payload.callback_url, payload.client_id) == (None, None)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"product_code": "C" * (PRODUCT_CODE_MAX + 1), "product_name": BUDS}, "product_code"),
        ({"product_code": "A", "product_name": "\u200b\u200b"}, "product_name"),
        ({"product_code": "A", "product_name": BUDS, "brand": "x\u0007"}, "brand"),
        ({"product_code": "A", "product_name": BUDS, "price": 2**31}, "price"),
        ({"product_code": "A", "product_name": BUDS, "callback_url": "https://a.test/\u0000"}, "callback_url"),
        ({"product_code": "A", "product_name": BUDS, "client_id": True}, "client_id"),
        ({"product_code": "A", "product_name": BUDS, "client_id": "7"}, "client_id"),
    ],
)
def test_a_stored_payload_is_held_to_the_limits_the_api_promised(payload, field):
    with pytest.raises(InvalidProduct, match=field):
        SearchPayload.from_payload(payload)


def test_a_bad_callback_url_is_named_in_the_words_the_api_uses():
    with pytest.raises(InvalidProduct) as raised:
        SearchPayload.from_payload({"product_code": "A", "product_name": BUDS, "callback_url": "client.test/hook"})

    assert str(raised.value) == "callback_url must be an http:// or https:// URL without spaces or control characters"


def test_what_the_api_enqueues_reads_back_as_the_same_payload():
    posted = SearchProduct.model_validate(
        {
            "product_code": " SKU-1 ",
            "product_name": BUDS,
            "brand": "",
            "model_code": "SM-R630",
            "price": 15000.0,
            "callback_url": "https://client.test/lps",
            "shop_note": "ignored",
        }
    )

    stored = SearchPayload.from_product(posted, client_id=7).as_payload()

    assert stored == {
        "product_code": "SKU-1",
        "product_name": BUDS,
        "model_code": "SM-R630",
        "price": 15000,
        "callback_url": "https://client.test/lps",
        "client_id": 7,
    }
    assert SearchPayload.from_payload(stored) == SearchPayload(
        ProductQuery("SKU-1", BUDS, model_code="SM-R630", price=15000),
        callback_url="https://client.test/lps",
        client_id=7,
    )


def test_identifiers_are_nfc_normalised_so_one_product_typed_two_ways_is_one_product():
    decomposed = SearchProduct(
        product_code="CAFE\u0301-1",
        product_name="Cafe\u0301 \u1100\u1161\u11a8 2L",
        brand="Nestle\u0301",
        model_code="e\u0301",
    )
    assert decomposed.product_code == "CAF\u00c9-1"
    assert decomposed.product_name == "Caf\u00e9 \uac01 2L"
    assert (decomposed.brand, decomposed.model_code) == ("Nestl\u00e9", "\u00e9")


@pytest.mark.parametrize("field", ["product_code", "product_name", "brand", "model_code"])
@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u2060", "\u061c"])
def test_no_identifier_may_carry_a_format_or_direction_character(field, char):
    product = {"product_code": "A1", "product_name": BUDS, field: f"ab{char}cd"}
    with pytest.raises(InvalidProduct, match=f"{field}.*U\\+{ord(char):04X}"):
        SearchPayload.from_payload(product)


@pytest.mark.parametrize("name", ["\u0301\u0302", "...", "- / -", "\u3000!\u3000"])
def test_a_product_name_needs_a_letter_or_a_digit(name):
    with pytest.raises(InvalidProduct, match="product_name"):
        SearchPayload.from_payload({"product_code": "A1", "product_name": name})


@pytest.mark.parametrize("name", ["7", "삼다수", "ＳＭ－Ｒ６３０", "iPhone 15"])
def test_a_product_name_with_a_letter_or_a_digit_is_taken(name):
    assert SearchPayload.from_payload({"product_code": "A1", "product_name": name}).product.product_name == name


def test_the_refused_ranges_of_the_openapi_patterns_are_exactly_unicodes_format_and_separator_characters():
    refused = [code for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) in REFUSED_CATEGORIES]
    in_ranges = [code for low, high in REFUSED_RANGES for code in range(low, high + 1)]
    assert in_ranges == refused
