"""Lengths are checked on the text LPS stores, the NFC-normalised one, over real HTTP (a live server): a code
that normalises past its limit is a 400 naming the field, never a 503 "the database is unavailable" that a client
would retry for ever, nor a 500; and nothing is written."""

from __future__ import annotations

import unicodedata

import pytest

from api import keys
from api.codes import ResultCode
from jobs.models import Job
from search.payload import PRODUCT_CODE_MAX, PRODUCT_NAME_MAX
from tests.watches.helpers import HttpCaller
from watches.models import Watch

pytestmark = [pytest.mark.django_db(transaction=True)]

# U+FB2C (HEBREW LETTER SHIN WITH DAGESH AND SHIN DOT) is one code point as typed and three in NFC.
GROWS = "\ufb2c"


def test_the_character_used_here_grows_threefold_in_nfc():
    assert len(unicodedata.normalize("NFC", GROWS)) == 3


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/v1/lps/search",
            {"products": [{"product_code": GROWS * PRODUCT_CODE_MAX, "product_name": "삼다수 2L 6개"}]},
            "products[0].product_code",
        ),
        (
            "/v1/lps/search",
            {"products": [{"product_code": "N-1", "product_name": "삼다수 " + GROWS * (PRODUCT_NAME_MAX - 4)}]},
            "products[0].product_name",
        ),
        (
            "/v1/lps/watches",
            {"watches": [{"product_code": GROWS * PRODUCT_CODE_MAX, "product_name": "삼다수 2L 6개", "every": "1h"}]},
            "watches[0].product_code",
        ),
    ],
)
def test_a_text_that_normalises_past_its_limit_is_a_400_naming_the_field_and_writes_nothing(
    live_server, path, body, field
):
    shop = keys.issue_key("shop")

    response = HttpCaller(live_server.url, shop.api_key).post(path, body)

    assert response.status_code == 400, response.text
    answer = response.json()
    assert (answer["result"], answer["field"]) == (ResultCode.INVALID_REQUEST_DATA, field)
    assert "NFC" in answer["error"]
    assert not Job.objects.exists()
    assert not Watch.objects.exists()
