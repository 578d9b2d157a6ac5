"""Products with their price history, IP sessions, bot detections and the failure-snapshot view."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from search.models import SessionEndReason
from tests.admin import rows

pytestmark = pytest.mark.django_db


def test_the_product_list_shows_the_latest_price_and_the_cumulative_search_count(admin_client):
    rows.product_with_history("P-100", "갤럭시 버즈3 프로", [199_000, 195_000, None, 189_000])
    rows.product_with_history("P-200", "단종된 무선 이어폰", [None, None])

    response = admin_client.get(reverse("admin:search_product_changelist"))

    html = response.content.decode()
    assert response.status_code == 200
    assert "₩189,000" in html
    assert re.search(r'<td class="field-search_count">4</td>', html)
    assert re.search(r'<td class="field-search_count">2</td>', html)
    assert "not_found" in html


def test_the_product_list_filters_by_last_outcome_and_searches_by_code_or_name(admin_client):
    rows.product_with_history("P-100", "갤럭시 버즈3 프로", [189_000])
    rows.product_with_history("P-200", "단종된 무선 이어폰", [None])
    changelist = reverse("admin:search_product_changelist")

    found = admin_client.get(changelist, {"last_outcome": "not_found"}).content.decode()
    by_name = admin_client.get(changelist, {"q": "버즈3"}).content.decode()
    by_code = admin_client.get(changelist, {"q": "P-200"}).content.decode()

    assert "P-200" in found
    assert "P-100" not in found
    assert "P-100" in by_name
    assert "P-200" not in by_name
    assert "P-200" in by_code
    assert "P-100" not in by_code


def test_the_product_page_draws_the_price_history_and_lists_the_snapshots(admin_client):
    product = rows.product_with_history("P-100", "갤럭시 버즈3 프로", [199_000, 195_000, None, 189_000])

    response = admin_client.get(reverse("admin:search_product_change", args=[product.pk]))

    html = response.content.decode()
    assert response.status_code == 200
    chart = re.search(r'<svg class="lps-chart".*?</svg>', html, re.S).group(0)
    assert chart.count('class="price-dot"') == 3
    assert chart.count('class="miss"') == 1
    assert "₩189,000" in chart
    assert html.count("<tr><td>") >= 4
    assert 'name="_save"' not in html


def test_the_ip_session_list_filters_by_end_reason_and_state(admin_client):
    rows.sessions({SessionEndReason.BLOCKED: [37], SessionEndReason.BUDGET: [50]}, proxy="kr-7")
    changelist = reverse("admin:search_ipsession_changelist")

    everything = admin_client.get(changelist)
    blocked = admin_client.get(changelist, {"end_reason__exact": SessionEndReason.BLOCKED}).content.decode()
    open_ones = admin_client.get(changelist, {"open": "yes"}).content.decode()

    assert everything.status_code == 200
    assert "kr-7" in everything.content.decode()
    assert '<td class="field-requests">37</td>' in blocked
    assert '<td class="field-requests">50</td>' not in blocked
    assert "field-requests" not in open_ones


def test_the_bot_event_list_links_each_detection_to_its_snapshot(admin_client, snapshot_dir):
    session = rows.sessions({SessionEndReason.BLOCKED: [12]})[0]
    rows.bot_event(snapshot_dir, query="다이슨 에어랩", session=session)
    changelist = reverse("admin:search_botevent_changelist")

    response = admin_client.get(changelist)
    by_kind = admin_client.get(changelist, {"kind": "captcha"}).content.decode()

    html = response.content.decode()
    assert response.status_code == 200
    assert reverse("admin:search_botevent_snapshot", args=["2026-11-30/block.html"]) in html
    assert reverse("admin:search_ipsession_change", args=[session.pk]) in html
    assert 'href="?kind=http_403"' in html
    assert "다이슨 에어랩" not in by_kind


def test_a_snapshot_inside_the_folder_is_served_sandboxed_to_staff(admin_client, snapshot_dir):
    event = rows.bot_event(snapshot_dir, query="x")

    response = admin_client.get(reverse("admin:search_botevent_snapshot", args=["2026-11-30/block.html"]))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Content-Security-Policy"].startswith("sandbox")
    assert b"Access Denied" in b"".join(response.streaming_content)
    page = admin_client.get(reverse("admin:search_botevent_change", args=[event.pk])).content.decode()
    assert "lps-snapshot-link" in page


@pytest.mark.parametrize(
    "path",
    ["../secret.txt", "2026-11-30/../../secret.txt", "%2Fetc%2Fpasswd", "/etc/passwd", "link/secret.txt"],
)
def test_the_snapshot_view_refuses_every_path_outside_the_folder(admin_client, snapshot_dir, path):
    (snapshot_dir.parent / "secret.txt").write_text("not yours")
    (snapshot_dir / "link").symlink_to(snapshot_dir.parent)
    url = reverse("admin:search_botevent_changelist") + "snapshot/" + path

    response = admin_client.get(url)

    assert response.status_code in (403, 404)
    assert b"not yours" not in b"".join(getattr(response, "streaming_content", [response.content]))


def test_a_bot_event_whose_snapshot_lies_outside_the_folder_gets_no_link(admin_client, snapshot_dir, tmp_path):
    event = rows.bot_event(snapshot_dir, query="x")
    event.snapshot_path = str(tmp_path / "elsewhere.html")
    event.save()

    html = admin_client.get(reverse("admin:search_botevent_changelist")).content.decode()

    assert "outside the snapshot folder" in html
    assert "lps-snapshot-link" not in html


def test_a_missing_snapshot_is_a_404_and_anonymous_visitors_are_sent_to_log_in(client, admin_client, snapshot_dir):
    url = reverse("admin:search_botevent_snapshot", args=["2026-11-30/gone.html"])
    rows.bot_event(snapshot_dir, query="x")
    allowed = reverse("admin:search_botevent_snapshot", args=["2026-11-30/block.html"])

    assert admin_client.get(url).status_code == 404
    assert client.get(allowed).status_code == 302
    # force_login: django-axes refuses an authenticate() without its request, which Client.login() makes.
    client.force_login(User.objects.create_user("shopper", password="pw-for-tests"))
    assert client.get(allowed).status_code == 302
