"""The watch admin: the list with its columns and filters, a watch's page with its history chart and events, and
the dashboard's watch tiles."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from api import keys
from tests.watches.helpers import make_due, make_watches
from watches import changes
from watches.models import Watch

pytestmark = pytest.mark.django_db


def watch_with_history() -> Watch:
    shop = keys.issue_key("shop-admin")
    make_watches(shop.client.pk, 2)
    watch = Watch.objects.get(product_code="W0")
    for price in (200_000, 150_000):
        changes.record_run(
            Watch.objects.get(pk=watch.pk), uuid.uuid4(), {"outcome": "found", "lowest": {"price": price}}
        )
    return Watch.objects.get(pk=watch.pk)


def test_the_watch_list_shows_client_product_interval_next_run_last_price_and_paused(admin_client):
    watch_with_history()
    html = admin_client.get(reverse("admin:watches_watch_changelist")).content.decode()
    assert "shop-admin" in html
    assert "상품 0" in html
    assert "₩150,000" in html
    assert "1h" in html
    assert admin_client.get(reverse("admin:watches_watch_changelist"), {"due": "yes"}).status_code == 200
    assert admin_client.get(reverse("admin:watches_watch_changelist"), {"given_up": "yes"}).status_code == 200
    assert "상품 1" in admin_client.get(reverse("admin:watches_watch_changelist"), {"q": "W1"}).content.decode()


def test_a_watch_page_draws_its_price_history_and_lists_the_events_it_sent(admin_client):
    watch = watch_with_history()
    html = admin_client.get(reverse("admin:watches_watch_change", args=[watch.pk])).content.decode()
    assert "<svg" in html
    assert "price-line" in html
    assert "price_down" in html
    assert "no callback" in html


def test_the_dashboard_shows_watches_due_and_the_oldest_overdue(admin_client):
    shop = keys.issue_key("shop-dash")
    make_watches(shop.client.pk, 3)
    make_due(seconds_ago=3600)
    html = admin_client.get("/admin/dashboard/").content.decode()
    assert 'data-tile="watches_due"' in html
    assert 'data-tile="watch_oldest_overdue"' in html


def priced_watches() -> None:
    """Three products of a shop at 100,000: undercut by 10 %, by 2 %, and the cheapest; a fourth without a price."""
    shop = keys.issue_key("shop-position")
    make_watches(shop.client.pk, 3, price=100_000, prefix="P")
    make_watches(shop.client.pk, 1, prefix="N")
    for code, market in (("P0", 90_900), ("P1", 98_000), ("P2", 104_000), ("N0", 50_000)):
        watch = Watch.objects.get(product_code=code)
        lowest = {"price": market, "marketplace": "naver"}
        changes.record_run(watch, uuid.uuid4(), {"outcome": "found", "lowest": lowest})


def listed(admin_client, **params) -> str:
    return admin_client.get(reverse("admin:watches_watch_changelist"), params).content.decode()


def test_the_watch_list_shows_the_shops_price_against_the_markets_lowest_and_filters_by_position(admin_client):
    priced_watches()
    html = listed(admin_client)
    assert "₩100,000" in html
    assert "₩90,900 (naver)" in html
    assert "+₩9,100 (+10.0 %)" in html
    assert "−₩4,000 (−3.8 %)" in html

    def codes(**params) -> set[str]:
        page = listed(admin_client, **params)
        return {code for code in ("P0", "P1", "P2", "N0") if f">{code}<" in page}

    assert codes(position="dearer") == {"P0"}
    assert codes(position="undercut") == {"P0", "P1"}
    assert codes(position="cheapest") == {"P2"}
    assert codes(position="none") == {"N0"}
    assert admin_client.get(reverse("admin:watches_watch_changelist"), {"o": "9"}).status_code == 200


def test_the_dashboard_counts_the_products_whose_shop_is_undercut(admin_client):
    priced_watches()
    html = admin_client.get("/admin/dashboard/").content.decode()
    tile = html.split('data-tile="watches_undercut"', 1)[1].split("</a>", 1)[0]
    assert '<div class="value">2</div>' in tile
    assert "position=undercut" in html


def test_an_operator_imports_a_sheet_for_a_chosen_client_all_or_nothing_and_exports_it_back_unchanged(admin_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    shop = keys.issue_key("shop-sheet")
    header = "product_code,product_name,price,every\r\n"
    page = admin_client.get(reverse("admin:watches_watch_sheets")).content.decode()
    assert "shop-sheet" in page
    assert reverse("admin:watches_watch_sheets") in listed(admin_client)

    def upload(text: str):
        sheet = SimpleUploadedFile("catalogue.csv", text.encode("utf-8"), content_type="text/csv")
        return admin_client.post(
            reverse("admin:watches_watch_import"), {"client_id": shop.client.pk, "sheet": sheet}, follow=True
        )

    refused = upload(header + "A-1,우유 1L,2500,1d\r\nA-2,두유,이천원,1d\r\n").content.decode()
    assert "Row 3, column price: must be a whole number of won; nothing was written" in refused
    assert not Watch.objects.exists()

    imported = upload(header + "A-1,우유 1L,2500,1d\r\nA-2,두유 190ml 24팩,15900,6h\r\n").content.decode()
    assert "2 row(s) read" in imported
    assert set(Watch.objects.values_list("client_id", "product_code")) == {
        (shop.client.pk, "A-1"),
        (shop.client.pk, "A-2"),
    }

    export = admin_client.get(reverse("admin:watches_watch_export"), {"client_id": shop.client.pk})
    sheet = b"".join(export.streaming_content)
    assert sheet.startswith(b"\xef\xbb\xbf")
    assert "두유 190ml 24팩" in sheet.decode("utf-8-sig")
    before = list(Watch.objects.order_by("pk").values())
    sheet_file = SimpleUploadedFile("back.csv", sheet, content_type="text/csv")
    admin_client.post(reverse("admin:watches_watch_import"), {"client_id": shop.client.pk, "sheet": sheet_file})
    assert list(Watch.objects.order_by("pk").values()) == before


def test_an_imported_sheets_callback_hosts_are_vetted_as_the_api_vets_them(admin_client, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    shop = keys.issue_key("shop-sheet")
    header = "product_code,product_name,every,callback_url\r\n"

    def upload(text: str) -> str:
        sheet = SimpleUploadedFile("catalogue.csv", text.encode("utf-8"), content_type="text/csv")
        answer = admin_client.post(
            reverse("admin:watches_watch_import"), {"client_id": shop.client.pk, "sheet": sheet}, follow=True
        )
        return answer.content.decode()

    settings.LPS_ALLOW_PRIVATE_CALLBACKS = False
    loopback = upload(header + "A-1,우유 1L,1d,\r\nA-2,두유,1d,http://127.0.0.1:8000/hook\r\n")
    private = upload(header + "A-3,두유,1d,http://10.0.0.7/hook\r\n")
    assert "Row 3, column callback_url: the callback_url&#x27;s host 127.0.0.1 is refused" in loopback
    assert "LPS_ALLOW_PRIVATE_CALLBACKS" in loopback
    assert "nothing was written" in loopback
    assert "Row 2, column callback_url: the callback_url&#x27;s host 10.0.0.7 is refused" in private
    assert not Watch.objects.exists()

    settings.LPS_ALLOW_PRIVATE_CALLBACKS = True
    metadata = upload(header + "A-4,두유,1d,http://169.254.169.254/latest/meta-data/\r\n")
    assert "Row 2, column callback_url: the callback_url&#x27;s host 169.254.169.254 is refused" in metadata
    assert not Watch.objects.exists()
    assert "1 row(s) read" in upload(header + "A-2,두유,1d,http://127.0.0.1:8000/hook\r\n")
    assert Watch.objects.get(product_code="A-2").callback_url == "http://127.0.0.1:8000/hook"
