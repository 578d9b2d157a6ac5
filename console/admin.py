"""The operators' admin: the site's titles and index, and the job admin as operators read it, with the search
columns (product, outcome, lowest price, cost), the outcome filter, the product search and the search report.

The job admin is jobs.admin.JobAdmin extended by a subclass registered in its place, Django's idiom for
extending another app's admin (as a project does with contrib.auth's UserAdmin): jobs/ stays a generic queue
that needs no hook for it, and everything operators see of a search is here, in one class.
"""

from __future__ import annotations

import io
import zipfile

from django.contrib import admin, messages
from django.db.models.fields.json import KT
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from console.job_report import bot_events_during, job_report
from corrections import corpus_page
from corrections.models import ReviewItem
from jobs.admin import CHANGED_FILTER, CREATED_FILTER, JobAdmin, JobTypeFilter, OwnerFilter
from jobs.models import Job, JobStatus
from lps_site.admin_formatting import answer_text, short_duration, usd, when_iso, won
from lps_site.job_types import JobType
from search.admin import snapshot_url
from search.job_lookups import matching_product
from search.models import Product
from search.result import SearchResult

admin.site.site_header = "LPS operations"
admin.site.site_title = "LPS admin"
admin.site.index_title = "Operations"
# LPS has no public site: no "View site" link (its default, "/", is a 404).
admin.site.site_url = None
admin.site.index_template = "console/index.html"
# The job list is wide (eleven columns and the filters); the index and the breadcrumbs already lead everywhere.
admin.site.enable_nav_sidebar = False


class OutcomeFilter(admin.SimpleListFilter):
    """The search outcome (result->>'outcome', served by the job_outcome_created_idx expression index)."""

    title = "outcome"
    parameter_name = "outcome"

    def lookups(self, request, model_admin):
        return [
            ("found", "found"),
            ("not_found", "not found"),
            ("cached", "not found (negative cache)"),
            ("none", "no result yet"),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value in ("found", "not_found"):
            return queryset.filter(outcome_text=value)
        if value == "cached":
            return queryset.filter(outcome_text="not_found", result__cached=True)
        if value == "none":
            return queryset.filter(result__isnull=True)
        return queryset


@admin.action(description="Download the judged pages as corpus pages (corrected labels)", permissions=["view"])
def export_corpus_pages(modeladmin, request, queryset):
    """The selected searches' judged pages in the judge's corpus format: one JSON file, or a zip of several."""
    jobs = [job for job in queryset[:200] if job.job_type == JobType.SEARCH and job.status == JobStatus.DONE]
    if not jobs:
        modeladmin.message_user(request, "Select finished searches to export.", messages.WARNING)
        return None
    if len(jobs) == 1:
        response = HttpResponse(corpus_page.dumps(corpus_page.corpus_page(jobs[0])), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{corpus_page.file_name(jobs[0])}"'
        return response
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for job in jobs:
            archive.writestr(corpus_page.file_name(job), corpus_page.dumps(corpus_page.corpus_page(job)))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="corpus-pages.zip"'
    return response


UNBOUNDED_TRIES = 100
"""A job allowed this many attempts or more is bounded by time, not by its count (the OUTBOX's 1000)."""


class SearchJobAdmin(JobAdmin):
    list_display = ["short_id", "state", "job_kind", "owner", "product_code", "product_name", "outcome",
                    "lowest_price", "cost", "tries", "error", "age"]  # fmt: skip
    list_filter = ["status", JobTypeFilter, OwnerFilter, OutcomeFilter, CREATED_FILTER, CHANGED_FILTER]
    search_fields = ["payload__product_code"]
    search_help_text = "Product code (exact) or part of the product name."
    change_form_template = "console/job_page.html"
    actions = [*JobAdmin.actions, export_corpus_pages]

    def say_duration(self, seconds: float) -> str:
        return short_duration(seconds)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                product_code_text=KT("payload__product_code"),
                product_name_text=KT("payload__product_name"),
                outcome_text=KT("result__outcome"),
                cached_text=KT("result__cached"),
                reused_text=KT("result__reused"),
                search_job_text=KT("payload__search_job_id"),
                watch_text=KT("payload__watch_id"),
                lowest_price_text=KT("result__lowest__price"),
                cost_text=KT("result__metrics__cost__total_usd"),
            )
        )

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        return queryset.filter(matching_product(term)), False

    # --- columns ---------------------------------------------------------------------------------------------

    @admin.display(description="product code")
    def product_code(self, job):
        return job.product_code_text or ""

    @admin.display(description="product name")
    def product_name(self, job):
        if job.job_type != JobType.SEARCH and job.search_job_text:
            # A webhook names the search it delivers; its product is that search's.
            return format_html("webhook of search {}", job.search_job_text[:8])
        if job.job_type != JobType.SEARCH and job.watch_text:
            link = reverse("admin:watches_watch_change", args=[job.watch_text])
            return format_html('events of <a href="{}">watch #{}</a>', link, job.watch_text)
        name = job.product_name_text or ""
        if len(name) <= 30:
            return name
        return format_html('<span title="{}">{}…</span>', name, name[:30])

    @admin.display(description="outcome")
    def outcome(self, job):
        if not job.outcome_text:
            return ""
        label = job.outcome_text.replace("_", " ") + (" (cached)" if job.cached_text == "true" else "")
        if job.reused_text == "true":
            label += " (reused)"  # a watch's run answered by another search's fresh result
        return format_html('<span class="lps-outcome-{}">{}</span>', job.outcome_text, label)

    @admin.display(description="lowest price")
    def lowest_price(self, job):
        if job.lowest_price_text is None:
            return ""
        try:
            return won(int(job.lowest_price_text))
        except ValueError:
            return job.lowest_price_text

    @admin.display(description="tries")
    def tries(self, job):
        if job.max_attempts >= UNBOUNDED_TRIES:
            # A webhook is retried until it is delivered or given up on time, not until a count runs out.
            return str(job.attempts)
        return super().tries(job)

    @admin.display(description="cost")
    def cost(self, job):
        return usd(job.cost_text)

    # --- the job page ----------------------------------------------------------------------------------------

    def job_page_context(self, request, job: Job) -> dict:
        alias = job._state.db or "default"
        report = job_report(job)
        code = job.payload.get("product_code") if isinstance(job.payload, dict) else None
        product = (
            Product.objects.using(alias).filter(client_id=job.owner_id, product_code=code).first() if code else None
        )
        events = bot_events_during(job, using=alias)
        return {
            **super().job_page_context(request, job),
            "payload_rows": report.payload_rows,
            "report": report,
            "bot_events": [(event, snapshot_url(event.snapshot_path)) for event in events],
            "product": product,
            # The "this product" / "not this product" buttons of each judged listing (corrections/admin.py).
            "can_correct": job.status == JobStatus.DONE and request.user.has_perm("corrections.add_correction"),
            "correct_buttons": [("true", "this product"), ("false", "not this product")],
            "corrected_answers": [
                {
                    "correction_id": mark.correction_id,
                    "when": when_iso(mark.at),
                    "before": answer_text(mark.previous),
                    "after": answer_text(mark.current),
                }
                for mark in SearchResult.from_json(job.result).corrections
            ],
            # The listings the search left to settle (corrections/review_queue.py), open ones first.
            "review_items": ReviewItem.objects.using(alias).filter(job_id=job.job_id).order_by("-closed_at", "price"),
        }


admin.site.unregister(Job)
admin.site.register(Job, SearchJobAdmin)
