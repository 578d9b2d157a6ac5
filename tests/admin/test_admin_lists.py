"""The paginator that never counts a whole table, and the time filters."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from jobs import queue
from jobs.admin_lists import EstimatedCountPaginator
from jobs.models import Job
from lps_site.job_types import JobType
from tests.admin import rows

pytestmark = pytest.mark.django_db


class TinyLimitPaginator(EstimatedCountPaginator):
    exact_limit = 5


@pytest.fixture
def twelve_jobs():
    for number in range(12):
        rows.pending(f"C-{number}", f"상품 {number}")


def test_up_to_the_limit_the_count_is_exact(twelve_jobs):
    paginator = EstimatedCountPaginator(Job.objects.order_by("-created_at"), 5)

    assert paginator.count == 12
    assert not paginator.is_estimate
    assert paginator.num_pages == 3


def test_past_the_limit_the_count_is_the_planners_estimate_without_counting(twelve_jobs):
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")
    paginator = TinyLimitPaginator(Job.objects.order_by("-created_at"), 5)

    with CaptureQueriesContext(connection) as queries:
        count = paginator.count

    assert paginator.is_estimate
    assert count == 12
    assert [q["sql"][:20].upper() for q in queries.captured_queries] == ["EXPLAIN (FORMAT JSON"]


def test_an_underestimate_is_corrected_by_a_count_that_stops_past_the_limit(twelve_jobs):
    # The planner guesses a regular expression on a JSON value matches almost nothing; all twelve jobs match.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")
    matching = Job.objects.filter(payload__product_name__regex=r"^상품 \d+$").order_by("-created_at")
    paginator = TinyLimitPaginator(matching, 5)

    with CaptureQueriesContext(connection) as queries:
        count = paginator.count

    assert count == 6
    assert paginator.is_estimate
    assert "LIMIT 6" in queries.captured_queries[-1]["sql"]


def test_the_last_change_filter_lists_jobs_changed_within_the_span(admin_client):
    old = rows.dead("C-1", "오래된 작업")
    new = rows.dead("C-2", "새 작업")
    rows.backdate(old, created=timedelta(days=2))

    html = admin_client.get(reverse("admin:jobs_job_changelist"), {"updated_at_within": "1h"}).content.decode()

    assert str(new)[:8] in html
    assert str(old)[:8] not in html


def test_the_list_page_says_about_when_the_count_is_an_estimate(admin_client):
    queue.enqueue_many(
        [queue.NewJob(JobType.SEARCH, {"product_code": f"B-{n}", "product_name": "대량"}) for n in range(10_050)]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")

    html = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()
    # ANALYZE writes the table's row count in place, outside the test's transaction: leave it saying empty.
    Job.objects.all().delete()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE job")

    assert re.search(r"about 10,0\d\d jobs", html)
