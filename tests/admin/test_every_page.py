"""Every admin page an operator can open answers 200 for staff, with realistic rows in every table."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from api import keys
from search.models import SessionEndReason
from tests.admin import rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def a_row_in_every_table(snapshot_dir):
    rows.done("P-1", "갤럭시 버즈3 프로", rows.found_result("갤럭시 버즈3 프로"))
    rows.dead("P-2", "LG 그램 16")
    rows.product_with_history("P-1", "갤럭시 버즈3 프로", [199_000, None, 189_000])
    session = rows.sessions({SessionEndReason.BLOCKED: [14]})[0]
    rows.bot_event(snapshot_dir, query="LG 그램 16", session=session)
    rows.negative("P-3")
    keys.issue_key("shop-a")


def test_every_list_and_every_object_page_renders_for_staff(admin_client, a_row_in_every_table):
    pages = [reverse("admin:index"), reverse("lps_dashboard:page"), reverse("lps_dashboard:fragment")]
    objects = 0
    for model in admin.site._registry:
        opts = model._meta
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        first = model._default_manager.first()
        if first is not None:
            objects += 1
            pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]))

    statuses = {page: admin_client.get(page).status_code for page in pages}

    assert set(statuses.values()) == {200}, statuses
    assert objects >= 7
