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
