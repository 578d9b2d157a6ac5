"""Corrections in the operators' admin: the job page's buttons, the corrections list, the reports queue and the
corpus-page export action, through Django's test client as a logged-in operator."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.urls import reverse

from api import keys
from corrections.correcting import correct
from corrections.models import Author, Correction, PriceReport, ReportStatus, Scope
from corrections.reports import report
from jobs.models import Job
from tests.corrections.searches import finished_search

pytestmark = pytest.mark.django_db


def job_page(job_id) -> str:
    return reverse("admin:jobs_job_change", args=[str(job_id)])


def test_the_job_page_offers_both_buttons_per_judged_listing_and_a_click_corrects_it(admin_client):
    shop = keys.issue_key("shop")
    job_id = finished_search(shop.client.pk)

    page = admin_client.get(job_page(job_id)).content.decode()
    clicked = admin_client.post(
        reverse("admin:corrections_correction_judge", args=[str(job_id)]),
        {"marketplace": "coupang", "product_id": "101", "same_product": "false", "scope": "global"},
        follow=True,
    )

    action = reverse("admin:corrections_correction_judge", args=[str(job_id)])
    assert page.count(f'action="{action}"') == 2 * 4, "two buttons for each of the four judged candidates"
    assert "not this product" in page
    assert clicked.redirect_chain == [(job_page(job_id), 302)]
    assert "The job&#x27;s answer changed" in clicked.content.decode()
    row = Correction.objects.get()
    assert (row.scope, row.made_by, row.same_product, row.client_id) == (Scope.GLOBAL, Author.OPERATOR, False,
                                                                          shop.client.pk)  # fmt: skip
    assert Job.objects.get(job_id=job_id).result["lowest"]["price"] == 219_000
    assert "Corrected answers" in clicked.content.decode()


def test_a_button_for_a_listing_the_job_did_not_judge_says_so_and_writes_nothing(admin_client):
    job_id = finished_search(None)

    clicked = admin_client.post(
        reverse("admin:corrections_correction_judge", args=[str(job_id)]),
        {"marketplace": "coupang", "product_id": "999", "same_product": "true"},
        follow=True,
    )

    assert "judged no coupang listing" in clicked.content.decode()
    assert not Correction.objects.exists()
    assert admin_client.get(reverse("admin:corrections_correction_judge", args=[str(job_id)])).status_code == 405


def test_the_corrections_list_filters_by_client_and_scope_and_the_reports_queue_resolves(admin_client):
    shop_a, shop_b = keys.issue_key("shop-a"), keys.issue_key("shop-b")
    job_a, job_b = finished_search(shop_a.client.pk), finished_search(shop_b.client.pk, code="B-1")
    for job_id, shop in ((job_a, shop_a), (job_b, shop_b)):
        correct(job_id, marketplace="coupang", product_id="101", same_product=False, made_by=Author.CLIENT,
                made_by_client_id=shop.client.pk, visible_to=shop.client.pk)  # fmt: skip
    correct(job_b, marketplace="coupang", product_id="102", same_product=True, made_by=Author.OPERATOR,
            made_by_client_id=None, visible_to=None, scope=Scope.GLOBAL)  # fmt: skip
    filed = report(job_a, note="too cheap", made_by=Author.CLIENT, made_by_client_id=shop_a.client.pk,
                   visible_to=shop_a.client.pk)  # fmt: skip
    changelist = reverse("admin:corrections_correction_changelist")

    by_client = admin_client.get(changelist, {"client": shop_a.client.pk})
    by_scope = admin_client.get(changelist, {"scope__exact": "global"})
    reports_page = admin_client.get(reverse("admin:corrections_pricereport_changelist"))
    resolved = admin_client.post(
        reverse("admin:corrections_pricereport_changelist"), {"action": "resolve", "_selected_action": [filed.pk]}
    )

    assert by_client.context["cl"].result_count == 1
    assert by_scope.context["cl"].result_count == 1
    assert "too cheap" in reports_page.content.decode()
    assert resolved.status_code == 302
    assert PriceReport.objects.get().status == ReportStatus.RESOLVED
    for row in (Correction.objects.first(), filed):
        opts = row._meta
        assert (
            admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[row.pk])).status_code
            == 200
        )


def test_the_export_action_downloads_one_corpus_page_or_a_zip_of_several(admin_client):
    first, second = finished_search(None), finished_search(None, code="P-2")
    changelist = reverse("admin:jobs_job_changelist")

    one = admin_client.post(changelist, {"action": "export_corpus_pages", "_selected_action": [str(first)]})
    both = admin_client.post(
        changelist, {"action": "export_corpus_pages", "_selected_action": [str(first), str(second)]}
    )

    assert one["Content-Disposition"] == f'attachment; filename="job-{first}.json"'
    assert json.loads(one.content)["expected"] == {"outcome": "found", "price": 99_000}
    names = zipfile.ZipFile(io.BytesIO(both.content)).namelist()
    assert sorted(names) == sorted([f"job-{first}.json", f"job-{second}.json"])
