"""The negative cache in the admin: rows with their expiry; deleting one forces the next search to run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from negative_cache import cache
from negative_cache.models import NegativeCacheEntry
from tests.admin import rows

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:negative_cache_negativecacheentry_changelist")


def test_the_negative_cache_list_shows_what_each_row_was_remembered_for_with_its_expiry(admin_client):
    rows.negative("무선 청소기 V15", model_code="SV-15", brand="다이슨")
    rows.negative("유선 이어폰 E2", ttl=timedelta(seconds=-60))

    html = admin_client.get(CHANGELIST).content.decode()
    valid = admin_client.get(CHANGELIST, {"valid": "yes"}).content.decode()

    assert "무선 청소기 V15" in html
    assert "SV-15" in html
    assert "다이슨" in html
    assert "valid</span> for 23h" in html
    assert "expired</span> 1m ago" in html
    assert "무선 청소기 V15" in valid
    assert "유선 이어폰 E2" not in valid


def test_the_negative_cache_search_finds_a_row_by_product_name_or_key(admin_client):
    rows.negative("무선 청소기 V15")
    key = rows.negative("유선 이어폰 E2")

    by_name = admin_client.get(CHANGELIST, {"q": "  무선 청소기 V15 "}).content.decode()
    by_key = admin_client.get(CHANGELIST, {"q": key}).content.decode()

    assert "무선 청소기 V15" in by_name
    assert "유선 이어폰 E2" not in by_name
    assert "유선 이어폰 E2" in by_key
    assert "무선 청소기 V15" not in by_key


def test_deleting_a_negative_cache_row_forces_a_new_search(admin_client):
    key = rows.negative("무선 청소기 V15")
    assert cache.lookup(key) is not None

    response = admin_client.post(
        reverse("admin:negative_cache_negativecacheentry_delete", args=[key]), {"post": "yes"}, follow=True
    )

    assert response.status_code == 200
    assert cache.lookup(key) is None
    assert not NegativeCacheEntry.objects.filter(key=key).exists()
    assert "The next search of 무선 청소기 V15 runs for real." in response.content.decode()


def test_the_delete_action_removes_the_selected_rows_only(admin_client):
    gone = rows.negative("P-100")
    kept = rows.negative("P-200")

    admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [gone], "post": "yes"})

    assert set(NegativeCacheEntry.objects.values_list("key", flat=True)) == {kept}


def test_negative_cache_rows_cannot_be_added_or_edited_in_the_admin(admin_client):
    key = rows.negative("P-100")
    until = NegativeCacheEntry.objects.get(key=key).until

    assert admin_client.get(reverse("admin:negative_cache_negativecacheentry_add")).status_code == 403
    admin_client.post(reverse("admin:negative_cache_negativecacheentry_change", args=[key]), {"until": "2099-01-01"})

    assert NegativeCacheEntry.objects.get(key=key).until == until
