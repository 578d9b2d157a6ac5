"""The dashboard: tiles that agree with the queue, charts drawn as inline SVG, a fragment for the refresh."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from console.dashboard import histogram_position
from jobs import queue_reads
from jobs.models import Job
from search.models import SessionEndReason
from tests.admin import rows

pytestmark = pytest.mark.django_db

PAGE = reverse("lps_dashboard:page")
FRAGMENT = reverse("lps_dashboard:fragment")


def tile(html: str, key: str) -> str:
    match = re.search(rf'data-tile="{key}">\s*<div class="label">[^<]*</div>\s*<div class="value">([^<]*)</div>', html)
    assert match, f"no tile {key}"
    return match.group(1)


def svg(html: str, section: str) -> str:
    return re.search(rf'<section class="lps-card" id="{section}">.*?(<svg.*?</svg>)', html, re.S).group(1)


@pytest.fixture
def busy_queue(snapshot_dir):
    for number in range(3):
        name = f"상품 {number}"
        rows.done(f"F-{number}", name, rows.found_result(name, ai_usd=0.002, proxy_usd=0.01))
    rows.dead("D-1", "죽은 작업")
    stuck = rows.running("S-1", "멈춘 작업")
    Job.objects.filter(job_id=stuck).update(lease_until=Job.objects.get(job_id=stuck).lease_until - timedelta(hours=1))
    for number in range(4):
        rows.pending(f"W-{number}", f"대기 {number}")
    rows.sessions({SessionEndReason.BLOCKED: [12, 40], SessionEndReason.BUDGET: [50, 50, 50]})
    rows.bot_event(snapshot_dir, query="대기 0")


def test_the_dashboard_tiles_agree_with_the_queue_snapshot(admin_client, busy_queue):
    response = admin_client.get(PAGE)

    html = response.content.decode()
    snapshot = queue_reads.snapshot()
    assert response.status_code == 200
    assert tile(html, "pending") == str(snapshot.pending) == "4"
    assert tile(html, "running") == str(snapshot.running) == "1"
    assert tile(html, "done") == str(snapshot.done) == "3"
    assert tile(html, "dead") == str(snapshot.dead) == "1"
    assert tile(html, "dead_last_hour") == "1"
    assert tile(html, "stuck") == "1"
    assert tile(html, "cost_last_hour") == "$0.0360"
    assert re.fullmatch(r"\d+s", tile(html, "oldest_pending"))
    assert tile(html, "deadline_kills") == "0"


def test_the_dashboard_draws_cost_volume_blocks_and_session_lifetimes_as_inline_svg(admin_client, busy_queue):
    html = admin_client.get(PAGE).content.decode()

    cost = svg(html, "lps-cost")
    assert cost.count('class="bar-ai"') == 2  # the legend swatch and this hour's bar
    assert cost.count('class="bar-proxy"') == 2
    assert "AI: $0.006" in cost
    assert "Proxy: $0.03" in cost
    assert svg(html, "lps-jobs").count('class="bar-jobs"') == 1
    assert svg(html, "lps-blocks").count('class="bar-blocks"') == 1
    sessions = svg(html, "lps-sessions")
    assert "first block: 12 req" in sessions
    assert "suggested budget: 9" in sessions
    assert "configured budget: 50" in sessions
    assert 'class="marker-block"' in sessions
    assert "<script" not in cost + sessions


def test_the_dashboard_fragment_carries_the_tiles_for_the_in_place_refresh(admin_client, busy_queue):
    response = admin_client.get(FRAGMENT)

    html = response.content.decode()
    assert response.status_code == 200
    assert response["X-LPS-Fragment"] == "dashboard"
    assert "no-cache" in response["Cache-Control"]
    assert tile(html, "pending") == "4"
    assert "<html" not in html
    rows.pending("W-9", "하나 더")
    assert tile(admin_client.get(FRAGMENT).content.decode(), "pending") == "5"


def test_the_dashboard_page_refreshes_from_the_fragment_at_the_asked_interval(admin_client):
    html = admin_client.get(PAGE, {"refresh": "3"}).content.decode()

    assert f'data-fragment-url="{FRAGMENT}"' in html
    assert 'data-refresh-ms="3000"' in html
    assert 'data-refresh-ms="2000"' in admin_client.get(PAGE, {"refresh": "0"}).content.decode()


def test_an_empty_system_still_gets_a_readable_dashboard(admin_client):
    html = admin_client.get(PAGE).content.decode()

    assert tile(html, "oldest_pending") == "—"
    assert "No blocks in the last 24 hours" in html
    assert "No session has been blocked yet" in html


def test_the_dashboard_is_for_staff_only(client):
    assert client.get(PAGE).status_code == 302
    assert client.get(FRAGMENT).status_code == 302
    # force_login: django-axes refuses an authenticate() without its request, which Client.login() makes.
    client.force_login(User.objects.create_user("shopper", password="pw-for-tests"))
    assert client.get(FRAGMENT)["Location"].startswith(reverse("admin:login"))


def test_the_admin_index_and_every_admin_page_link_the_dashboard(admin_client):
    index = admin_client.get(reverse("admin:index")).content.decode()
    jobs = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()

    assert "Operations dashboard" in index
    assert f'href="{PAGE}"' in index
    assert f'href="{PAGE}" class="lps-dashboard-link"' in jobs


def test_a_histogram_marker_sits_inside_its_bucket_in_proportion():
    histogram = [
        {"min": 0, "max": 1},
        {"min": 1, "max": 5},
        {"min": 5, "max": 10},
        {"min": 10, "max": 20},
        {"min": 500, "max": None},
    ]

    assert histogram_position(histogram, 0) == 0.5
    assert histogram_position(histogram, 14) == pytest.approx(3.45)
    assert histogram_position(histogram, 11) < histogram_position(histogram, 14)
    assert histogram_position(histogram, 900) == 4.5
