"""Text that shows nothing, or shows something else, is refused over real HTTP (a live server), naming the field:
blank letters (Hangul fillers, the blank braille pattern), a no-break space alone, line separators, combining
marks on nothing, direction overrides in a correction's note; and numbers and intervals that only look valid
(1e999, an Arabic-Indic digit, a trailing line feed). Nothing is written."""

from __future__ import annotations

import uuid

import pytest
import requests

from api import keys
from api.codes import ResultCode
from corrections.models import Correction
from jobs.models import Job
from tests.watches.helpers import HttpCaller
from watches.models import Watch

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("product", "field"),
    [
        ({"product_code": "I-1", "product_name": "\u3164"}, "product_name"),
        ({"product_code": "I-1", "product_name": "\u115f\u1160"}, "product_name"),
        ({"product_code": "I-1", "product_name": "\u2800\u2800"}, "product_name"),
        ({"product_code": "I-1", "product_name": "\u00a0"}, "product_name"),
        ({"product_code": "I-1", "product_name": "\u0301\u0308"}, "product_name"),
        ({"product_code": "\u3164", "product_name": "삼다수 2L 6개"}, "product_code"),
        ({"product_code": "I\u20281", "product_name": "삼다수 2L 6개"}, "product_code"),
        ({"product_code": "I-1", "product_name": "삼다수\u2029 2L"}, "product_name"),
    ],
)
def test_text_that_shows_nothing_or_breaks_a_line_is_a_400_naming_the_field(live_server, product, field):
    shop = keys.issue_key("shop")

    response = HttpCaller(live_server.url, shop.api_key).post("/v1/lps/search", {"products": [product]})

    assert response.status_code == 400, response.text
    assert response.json()["field"] == f"products[0].{field}"
    assert not Job.objects.exists()


def test_a_number_too_large_for_any_float_is_a_400_not_infinity(live_server):
    shop = keys.issue_key("shop")
    body = '{"products": [{"product_code": "I-1", "product_name": "삼다수", "price": 1e999}]}'.encode()

    response = requests.post(
        f"{live_server.url}/v1/lps/search",
        data=body,
        headers={"X-API-Key": shop.api_key, "Content-Type": "application/json"},
        timeout=30,
    )

    assert response.status_code == 400, response.text
    assert (response.json()["result"], response.json()["field"]) == (ResultCode.JSON_PARSE_ERROR, "body")
    assert not Job.objects.exists()


@pytest.mark.parametrize("every", ["\u0666h", "6h\n", "\uff16h"])
def test_an_interval_of_other_digits_or_with_a_trailing_line_feed_is_a_400(live_server, every):
    shop = keys.issue_key("shop")
    watch = {"product_code": "I-1", "product_name": "삼다수 2L 6개", "every": every}

    response = HttpCaller(live_server.url, shop.api_key).post("/v1/lps/watches", {"watches": [watch]})

    assert response.status_code == 400, response.text
    assert response.json()["field"] == "watches[0].every"
    assert not Watch.objects.exists()


@pytest.mark.parametrize("path", ["corrections", "reports"])
def test_a_note_with_a_direction_override_is_a_400_naming_the_note(live_server, path):
    shop = keys.issue_key("shop")
    body = {"marketplace": "coupang", "product_id": "9001", "same_product": False, "note": "case \u202eesac"}

    response = HttpCaller(live_server.url, shop.api_key).post(f"/v1/lps/jobs/{uuid.uuid4()}/{path}", body)

    assert response.status_code == 400, response.text
    assert response.json()["field"] == "note"
    assert not Correction.objects.exists()
