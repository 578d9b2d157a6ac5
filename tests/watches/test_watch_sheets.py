"""A catalogue as a spreadsheet, over real HTTP: watches posted as CSV (all or nothing, errors naming row and
column) and the position report streamed as CSV for Excel, which posted back changes nothing."""

from __future__ import annotations

import csv
import io
import uuid

import pytest
import requests

from api import keys
from watches import changes
from watches.models import Watch

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = "product_code,product_name,model_code,brand,price,every,notify_events,min_change_percent\r\n"
ROWS = [
    "SKU-1,삼성전자 갤럭시 버즈3 프로,SM-R630,삼성전자,200000,6h,price_down undercut,5",
    'SKU-2,"다이슨 V15 디텍트, 무선청소기",SV47,,"899,000",1d,,',
    "SKU-3,제주 삼다수 2L 12개,,,,1d,none,",
]


class Sheets:
    """A shop's client of the live server: CSV in, CSV or JSON out."""

    def __init__(self, base_url: str, api_key: str):
        self.base_url = base_url
        self.headers = {"X-API-Key": api_key}

    def upload(self, body: str | bytes, content_type: str = "text/csv; charset=utf-8") -> requests.Response:
        data = body.encode("utf-8") if isinstance(body, str) else body
        return requests.post(
            self.base_url + "/v1/lps/watches",
            data=data,
            headers={**self.headers, "Content-Type": content_type},
            timeout=60,
        )

    def download(self, **params) -> requests.Response:
        return requests.get(
            self.base_url + "/v1/lps/watches",
            params=params or None,
            headers={**self.headers, "Accept": "text/csv"},
            timeout=60,
        )


@pytest.fixture
def sheets(live_server) -> Sheets:
    return Sheets(live_server.url, keys.issue_key("shop").api_key)


def test_a_csv_sheet_with_a_byte_order_mark_creates_its_watches_with_korean_and_quoted_cells_intact(sheets):
    response = sheets.upload("\ufeff" + HEADER + "\r\n".join(ROWS) + "\r\n\r\n")

    assert response.status_code == 200, response.text
    assert response.json() == {
        "result": 0,
        "watches": [{"product_code": code, "created": True} for code in ("SKU-1", "SKU-2", "SKU-3")],
    }
    first, second, third = Watch.objects.order_by("product_code")
    assert first.product == {
        "product_code": "SKU-1", "product_name": "삼성전자 갤럭시 버즈3 프로", "model_code": "SM-R630",
        "brand": "삼성전자", "price": 200_000,
    }  # fmt: skip
    assert (first.every_seconds, first.notify_events, first.min_change_percent) == (
        21_600,
        ["price_down", "undercut"],
        5,
    )
    assert (second.product["product_name"], second.product["price"]) == ("다이슨 V15 디텍트, 무선청소기", 899_000)
    assert second.notify_events == ["price_down", "price_up", "found", "not_found"]  # empty: the default
    assert third.notify_events == []


def test_a_sheet_with_bad_rows_writes_nothing_and_names_each_row_and_column(sheets):
    rows = [ROWS[0], "SKU-9,우유 1L,,,19천원,1d,,", "SKU-10,,,,,2h,,", "SKU-11,두유,,,,90s,,", ROWS[2]]

    response = sheets.upload(HEADER + "\r\n".join(rows))

    assert response.status_code == 400
    body = response.json()
    assert body["result"] != 0
    assert body["field"] == "row 3.price"
    assert body["error"].startswith("row 3, column price: must be a whole number of won")
    assert "nothing was written" in body["error"]
    assert [(error["row"], error["column"]) for error in body["errors"]] == [
        (3, "price"),
        (4, "product_name"),
        (5, "every"),
    ]
    assert not Watch.objects.exists()


def test_a_sheet_without_a_required_column_or_with_an_unknown_one_is_refused_naming_it(sheets):
    missing = sheets.upload("product_code,product_name\r\nSKU-1,우유\r\n")
    unknown = sheets.upload("product_code,product_name,every,prcie\r\nSKU-1,우유,1d,1000\r\n")

    assert (missing.status_code, missing.json()["field"]) == (400, "row 1.every")
    assert (unknown.status_code, unknown.json()["field"]) == (400, "row 1.prcie")
    assert "unknown column" in unknown.json()["error"]
    assert not Watch.objects.exists()


def test_csv_is_accepted_on_the_watches_upload_only(sheets):
    search = requests.post(
        sheets.base_url + "/v1/lps/search",
        data=(HEADER + ROWS[0]).encode(),
        headers={**sheets.headers, "Content-Type": "text/csv"},
        timeout=30,
    )
    latin = sheets.upload((HEADER + ROWS[2]).encode(), content_type="text/csv; charset=euc-kr")

    assert search.status_code == 415
    assert latin.status_code == 415
    assert "UTF-8 CSV" in latin.json()["error"]


def test_five_thousand_rows_are_upserted_in_one_request(sheets):
    rows = [
        f"BULK-{index:05d},상품 {index} 무선 이어폰,M-{index},브랜드,{10_000 + index},1d,," for index in range(5000)
    ]

    response = sheets.upload(HEADER + "\r\n".join(rows))

    assert response.status_code == 200, response.text[:500]
    assert len(response.json()["watches"]) == 5000
    assert Watch.objects.count() == 5000


def record(code: str, lowest: dict) -> None:
    changes.record_run(Watch.objects.get(product_code=code), uuid.uuid4(), {"outcome": "found", "lowest": lowest})


def test_the_position_report_opens_as_utf8_with_a_byte_order_mark_and_posted_back_changes_nothing(sheets):
    assert sheets.upload(HEADER + "\r\n".join(ROWS)).status_code == 200
    record("SKU-1", {"price": 190_000, "url": "https://www.coupang.com/vp/products/1", "shipping_fee": 3_000})
    record("SKU-2", {"price": 910_000, "url": "https://search.shopping.naver.com/1", "marketplace": "naver"})

    download = sheets.download()

    assert download.status_code == 200
    assert download.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in download.headers["Content-Disposition"]
    raw = download.content
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [row["product_code"] for row in rows] == ["SKU-1", "SKU-2", "SKU-3"]
    undercut, cheapest, unseen = rows
    assert {key: undercut[key] for key in ("product_name", "price", "market_price", "marketplace", "shipping_fee",
                                           "price_with_delivery", "gap_won", "gap_percent")} == {
        "product_name": "삼성전자 갤럭시 버즈3 프로", "price": "200000", "market_price": "190000",
        "marketplace": "coupang", "shipping_fee": "3000", "price_with_delivery": "193000", "gap_won": "10000",
        "gap_percent": "5.26",
    }  # fmt: skip
    assert undercut["last_checked"]
    assert (cheapest["marketplace"], cheapest["shipping_fee"], cheapest["gap_percent"]) == ("naver", "", "-1.21")
    assert (unseen["market_price"], unseen["gap_percent"], unseen["last_checked"]) == ("", "", "")

    before = list(Watch.objects.order_by("pk").values())
    posted_back = sheets.upload(raw)
    assert posted_back.status_code == 200, posted_back.text
    assert all(not row["created"] for row in posted_back.json()["watches"])
    assert list(Watch.objects.order_by("pk").values()) == before
    assert sheets.download().content == raw


def test_the_report_follows_the_lists_filters_and_reads_only_the_keys_own_watches(sheets, live_server):
    assert sheets.upload(HEADER + "\r\n".join(ROWS)).status_code == 200
    other = Sheets(live_server.url, keys.issue_key("other-shop").api_key)
    assert other.upload(HEADER + ROWS[0]).status_code == 200

    mine = list(csv.DictReader(io.StringIO(sheets.download(q="SKU-2").content.decode("utf-8-sig"))))
    theirs = list(csv.DictReader(io.StringIO(other.download().content.decode("utf-8-sig"))))

    assert [row["product_code"] for row in mine] == ["SKU-2"]
    assert [row["product_code"] for row in theirs] == ["SKU-1"]


def test_a_cell_a_spreadsheet_would_run_as_a_formula_is_written_as_text_and_round_trips_as_typed(sheets):
    rows = ['SKU-9,"=HYPERLINK(""http://evil.example"",""click"")",,,,6h,,', "SKU-10,-5도 미니 냉풍기,,@brand,,1d,,"]
    assert sheets.upload(HEADER + "\r\n".join(rows)).status_code == 200
    raw = sheets.download().content

    rows_read = {row["product_code"]: row for row in csv.DictReader(io.StringIO(raw.decode("utf-8-sig")))}
    assert rows_read["SKU-9"]["product_name"] == '\'=HYPERLINK("http://evil.example","click")'
    assert (rows_read["SKU-10"]["product_name"], rows_read["SKU-10"]["brand"]) == ("'-5도 미니 냉풍기", "'@brand")

    before = list(Watch.objects.order_by("pk").values())
    assert sheets.upload(raw).status_code == 200
    assert list(Watch.objects.order_by("pk").values()) == before
    assert Watch.objects.get(product_code="SKU-9").product["product_name"].startswith("=HYPERLINK")


def test_a_sheet_whose_callback_host_is_refused_names_the_row_and_column_as_the_spreadsheet_numbers_them(
    sheets, settings
):
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = False
    header = "product_code,product_name,every,callback_url\r\n"
    # Row 3 is blank, as spreadsheets leave them: the refused rows are the sheet's 4 and 5, the batch's 1 and 2.
    rows = [
        "SKU-1,우유 1L,1d,",
        "",
        "SKU-2,두유 190ml 24팩,6h,http://127.0.0.1:9/hook",
        "SKU-3,두유,1d,http://169.254.169.254/x",
    ]

    response = sheets.upload(header + "\r\n".join(rows) + "\r\n")

    assert response.status_code == 400, response.text
    body = response.json()
    assert body["field"] == "row 4.callback_url"
    assert body["error"].startswith("row 4, column callback_url: the callback_url's host 127.0.0.1 is refused")
    assert "LPS_ALLOW_PRIVATE_CALLBACKS" in body["error"]
    assert "nothing was written" in body["error"]
    assert [(error["row"], error["column"]) for error in body["errors"]] == [(4, "callback_url"), (5, "callback_url")]
    assert "watches[" not in response.text
    assert not Watch.objects.exists()

    # The settings' rule is the API's: with private callbacks allowed, the loopback row is taken; metadata never.
    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    allowed = sheets.upload(header + "\r\n".join(rows[:3]) + "\r\n")
    metadata = sheets.upload(header + rows[3] + "\r\n")

    assert allowed.status_code == 200, allowed.text
    assert Watch.objects.get(product_code="SKU-2").callback_url == "http://127.0.0.1:9/hook"
    assert (metadata.status_code, metadata.json()["field"]) == (400, "row 2.callback_url")
