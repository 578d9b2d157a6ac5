"""The console's shape: jobs/ has a job admin of its own that knows no job type, and the console registers the
one operators see in its place."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory

from console.admin import SearchJobAdmin
from jobs.admin import JobAdmin
from jobs.models import Job
from tests.admin import rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def plain_job_admin() -> JobAdmin:
    """jobs/'s own job admin, as a project without the console would register it."""
    return JobAdmin(Job, admin.site)


@pytest.fixture
def staff_request():
    def build(path: str):
        request = RequestFactory().get(path)
        request.user = User.objects.create_superuser("plain-operator", password="pw-for-tests")
        return request

    return build


def test_the_site_registers_the_consoles_job_admin_in_place_of_the_plain_one():
    assert type(admin.site._registry[Job]) is SearchJobAdmin


def test_the_plain_job_admin_lists_jobs_without_the_search_columns(plain_job_admin, staff_request):
    found = rows.done("P-100", "갤럭시 버즈3 프로", rows.found_result("갤럭시 버즈3 프로", price=189_000))
    dead = rows.dead("P-400", "비스포크 큐브 냉장고")

    response = plain_job_admin.changelist_view(staff_request("/admin/jobs/job/"))
    html = response.render().content.decode()

    assert response.status_code == 200
    for short_id in (str(found)[:8], str(dead)[:8]):
        assert short_id in html
    assert "field-state" in html
    assert "CrawlBlocked: HTTP 403" in html
    assert 'href="?job_type__exact=1"' in html
    for search_part in ("field-product_code", "₩189,000", 'name="q"', "?outcome="):
        assert search_part not in html


def test_the_plain_job_page_shows_the_job_and_its_json_without_the_search_report(plain_job_admin, staff_request):
    dead = rows.dead("P-400", "비스포크 큐브 냉장고")

    response = plain_job_admin.change_view(staff_request(f"/admin/jobs/job/{dead}/change/"), str(dead))
    html = response.render().content.decode()

    assert response.status_code == 200
    assert "SEARCH job" in html
    assert "Requeue this DEAD job" in html
    assert "CrawlBlocked: HTTP 403" in html
    assert "<th>product_code</th><td>&quot;P-400&quot;</td>" in html
    assert "Raw payload JSON" in html
    assert 'id="lps-result"' not in html
    assert "Product code" not in html
