"""The admin speaks to people: prices in won with separators, dates one way, answers before → after in words rather
than JSON or Python dicts, clients by name, and the rows that used to read as raw data (reports, webhooks in the
job list, reused runs, the negative cache's marketplaces) said plainly."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from api import keys
from corrections.models import Author, Correction, PriceReport
from corrections.reports import report
from jobs import queue
from jobs.models import Job
from lps_site import admin_formatting
from lps_site.job_types import JobType
from negative_cache import cache
from tests.admin import rows
from tests.corrections.searches import finished_search
from tests.watches.helpers import make_watches
from watches import changes
from watches.models import Watch

pytestmark = pytest.mark.django_db

DATE = re.compile(r"\b20\d\d-\d\d-\d\d \d\d:\d\d\b")
ENGLISH_DATE = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.? \d{1,2}, 20\d\d")


def test_an_answer_reads_as_words_with_the_price_in_won():
    found = {
        "outcome": "found",
        "lowest": {"price": 197_000, "title": "버즈3 프로", "url": "https://n.test/1", "marketplace": "naver"},
    }

    assert admin_formatting.answer_text(found) == "found ₩197,000 on naver (버즈3 프로)"
    assert admin_formatting.answer_text({"outcome": "not_found"}) == "not found"
    assert admin_formatting.when(datetime(2026, 12, 2, 6, 4, 38, tzinfo=UTC)) == "2026-12-02 06:04"
    assert admin_formatting.when_iso("2026-12-02T06:04:38+00:00") == "2026-12-02 06:04"


def test_the_index_has_no_view_site_link_to_a_page_that_does_not_exist(admin_client):
    html = admin_client.get("/admin/").content.decode()

    assert "View site" not in html


def test_an_operator_correction_says_the_answer_change_in_words_and_its_page_shows_before_and_after(admin_client):
    shop = keys.issue_key("shop-words")
    job_id = finished_search(shop.client.pk)

    clicked = admin_client.post(
        reverse("admin:corrections_correction_judge", args=[str(job_id)]),
        {"marketplace": "coupang", "product_id": "101", "same_product": "false"},
        follow=True,
    )
    row = Correction.objects.get()
    page = admin_client.get(reverse("admin:corrections_correction_change", args=[row.pk])).content.decode()
    listing = admin_client.get(reverse("admin:corrections_correction_changelist")).content.decode()
    job = admin_client.get(reverse("admin:jobs_job_change", args=[str(job_id)])).content.decode()

    message = clicked.content.decode()
    assert "The job&#x27;s answer changed: found ₩" in message
    assert "{&#x27;outcome" not in message
    assert 'id="lps-answer-change"' in page
    assert "→ found ₩219,000" in page
    assert "{&quot;" not in page
    assert "shop-words" in page  # the client by name, not its id
    assert 'class="lps-title"' in listing
    assert "₩" in listing
    assert "→ found ₩219,000" in job
    for html in (page, listing):
        assert DATE.search(html)
        assert not ENGLISH_DATE.search(html)


def test_a_report_links_its_job_names_its_client_and_says_how_to_resolve_it(admin_client):
    shop = keys.issue_key("shop-report")
    job_id = finished_search(shop.client.pk)
    filed = report(job_id, note="too cheap", made_by=Author.CLIENT, made_by_client_id=shop.client.pk,
                   visible_to=shop.client.pk)  # fmt: skip

    listing = admin_client.get(reverse("admin:corrections_pricereport_changelist")).content.decode()
    page = admin_client.get(reverse("admin:corrections_pricereport_change", args=[filed.pk])).content.decode()

    job_url = reverse("admin:jobs_job_change", args=[str(job_id)])
    for html in (listing, page):
        assert f'href="{job_url}"' in html
        assert "Mark the selected reports resolved" in html
        assert "shop-report" in html
        assert re.search(r"₩\d{1,3},\d{3}", html)  # the price reported as wrong: the job's lowest
    assert PriceReport.objects.get().status == "open"


def test_a_watch_is_titled_by_its_client_and_its_events_show_the_price_before_and_after(admin_client):
    shop = keys.issue_key("shop-watcher")
    make_watches(shop.client.pk, 1)
    watch = Watch.objects.get(product_code="W0")
    for price in (200_000, 150_000):
        changes.record_run(
            Watch.objects.get(pk=watch.pk), uuid.uuid4(), {"outcome": "found", "lowest": {"price": price}}
        )

    html = admin_client.get(reverse("admin:watches_watch_change", args=[watch.pk])).content.decode()

    assert "<h2>shop-watcher: W0</h2>" in html
    assert "(client " not in html
    assert "found ₩200,000" in html
    assert "→ found ₩150,000" in html
    assert "price down, price up" in html or "price down" in html
    assert "[&quot;" not in html  # notify events as words, not a JSON list


def test_the_negative_cache_list_names_the_marketplaces_each_not_found_covers(admin_client):
    key = cache.key_for(product_name="없는 상품")
    cache.remember(key, ttl=timedelta(hours=24))
    cache.remember(
        cache.ProductKey(f"{key.key}@coupang,naver", key.product_name, "", ""),
        ttl=timedelta(hours=24),
    )

    html = admin_client.get(reverse("admin:negative_cache_negativecacheentry_changelist")).content.decode()

    assert "<th" in html
    assert "marketplaces" in html
    assert re.search(r">coupang<", html)
    assert re.search(r">coupang, naver<", html)
    assert DATE.search(html)
    assert not ENGLISH_DATE.search(html)


def test_the_job_list_names_a_webhooks_search_counts_its_tries_plainly_and_marks_reused_runs(admin_client):
    search_id = rows.done("P-1", "갤럭시 버즈3 프로", {**rows.found_result("갤럭시 버즈3 프로"), "reused": True})
    queue.enqueue(
        queue.NewJob(
            JobType.OUTBOX,
            {"search_job_id": str(search_id), "product_code": "P-1", "callback_url": "https://93.184.216.34/h"},
            max_attempts=1000,
        )
    )

    queue.enqueue(queue.NewJob(JobType.WATCH_EVENT, {"watch_id": 5, "client_id": 1}, max_attempts=1000))

    html = admin_client.get(reverse("admin:jobs_job_changelist")).content.decode()

    assert f"webhook of search {str(search_id)[:8]}" in html
    assert f'events of <a href="{reverse("admin:watches_watch_change", args=["5"])}">watch #5</a>' in html
    assert "/1000" not in html
    assert "(reused)" in html
    assert Job.objects.count() == 3
