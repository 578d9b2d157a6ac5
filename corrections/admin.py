"""Corrections and "this price is wrong" reports in the admin: the list of corrections (by client, by author and
scope), the reports queue, and the view behind the job page's "this product" / "not this product" buttons."""

from __future__ import annotations

import uuid

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html

from corrections import correcting, reports
from corrections.exceptions import CorrectionError
from corrections.models import Author, Correction, PriceReport, Scope
from jobs import owners
from jobs.exceptions import JobNotFound
from lps_site.admin_formatting import answer_text, when_iso, won
from search.result import CorrectionMark


class ClientFilter(admin.SimpleListFilter):
    """The client whose product it is, named by the job owners' directory."""

    title = "client"
    parameter_name = "client"

    def lookups(self, request, model_admin):
        directory = owners.directory()
        return [(str(owner_id), name) for owner_id, name in directory.choices()] if directory else []

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            raise IncorrectLookupParameters(f"client must be a number, not {value!r}")
        return queryset.filter(client_id=int(value))


TITLE_SHOWN = 60
HOW_TO_RESOLVE = (
    "Open the job: its page shows every listing the search judged, with its price. If the judge took the wrong "
    'listing (or missed the right one), correct it there with "not this product" / "this product": the job '
    'is re-answered at once. Then select the report here and run "Mark the selected reports resolved".'
)


def _job_link(job_id) -> str:
    if job_id is None:
        return ""
    return format_html(
        '<a href="{}">{}</a>', reverse("admin:jobs_job_change", args=[str(job_id)]), str(job_id).split("-")[0]
    )


class _ClientColumn:
    @admin.display(description="client")
    def client(self, row):
        return owners.names([row.client_id]).get(row.client_id, row.client_id or "")

    @admin.display(description="job")
    def job(self, row):
        return _job_link(row.job_id)


@admin.register(Correction)
class CorrectionAdmin(_ClientColumn, admin.ModelAdmin):
    list_display = ["id", "product_code", "client", "marketplace", "product_id", "answer", "scope", "made_by",
                    "listing_title", "listing_price", "job", "updated_at"]  # fmt: skip
    list_filter = [ClientFilter, "made_by", "scope", "same_product", "marketplace"]
    search_fields = ["product_code", "product_id", "title", "product_name"]
    search_help_text = "Product code, marketplace product id, or part of the listing's title or the product name."
    ordering = ["-updated_at", "-id"]
    list_per_page = 50
    fields = ["product_code", "client", "product_name", "brand", "model_code", "marketplace", "product_id", "title",
              "listing_price", "answer", "scope", "made_by", "note", "job", "answer_changed", "created_at",
              "updated_at"]  # fmt: skip
    readonly_fields = fields

    @admin.display(description="title")
    def listing_title(self, row):
        # A width of its own, wrapped between words (squeezed by the other columns it wrapped a letter a line); a long
        # title cut, whole on hover.
        if len(row.title) <= TITLE_SHOWN:
            return format_html('<span class="lps-title">{}</span>', row.title)
        return format_html('<span class="lps-title" title="{}">{}…</span>', row.title, row.title[:TITLE_SHOWN])

    @admin.display(description="price")
    def listing_price(self, row):
        return won(row.price)

    @admin.display(description="answer changed")
    def answer_changed(self, row):
        change = row.answer_change
        if not isinstance(change, dict):
            return "no (the job's answer stood)"
        mark = CorrectionMark.from_json(change)  # the mark the job's result keeps under `corrections`
        return format_html(
            '<table class="lps-table" id="lps-answer-change"><thead><tr><th>when</th><th>before</th><th>after</th>'
            "</tr></thead><tr><td>{}</td><td>{}</td><td>→ {}</td></tr></table>",
            when_iso(mark.at),
            answer_text(mark.previous),
            answer_text(mark.current),
        )

    def has_add_permission(self, request):
        # A correction names a listing a job judged: it is made from the job page (or the API), not typed in.
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="is the product", boolean=True)
    def answer(self, row):
        return row.same_product

    def get_urls(self):
        judge = self.admin_site.admin_view(self.judge_view)
        return [path("from-job/<uuid:job_id>/", judge, name="corrections_correction_judge"), *super().get_urls()]

    def judge_view(self, request, job_id: uuid.UUID):
        """The job page's buttons: correct one listing of the job as an operator, then go back to the job."""
        if (refused := refuse_unless_operator_post(request)) is not None:
            return refused
        back = HttpResponseRedirect(reverse("admin:jobs_job_change", args=[str(job_id)]))
        made = operator_correction(
            request,
            job_id,
            marketplace=str(request.POST.get("marketplace") or ""),
            product_id=str(request.POST.get("product_id") or ""),
            note=str(request.POST.get("note") or "")[:2000],
            scope=Scope.GLOBAL if request.POST.get("scope") == "global" else Scope.CLIENT,
        )
        if made is None:
            return back
        said = "is" if made.correction.same_product else "is not"
        text = f"Listing {made.correction.product_id} {said} the product ({made.correction.get_scope_display()})."
        if made.changed:
            text += f" The job's answer changed: {answer_text(made.previous)} → {answer_text(made.current)}."
        messages.success(request, text)
        return back


def refuse_unless_operator_post(request):
    """The answer to a request that is no POST of an operator allowed to correct (None: go on)."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not request.user.has_perm("corrections.add_correction"):
        raise PermissionDenied
    return None


def operator_correction(request, job_id, **listing):
    """An admin button's correction of one listing of `job_id`, as an operator, from the POST's same_product;
    None (with the error in the admin's messages) when it is not made."""
    same = request.POST.get("same_product")
    if same not in ("true", "false"):
        messages.error(request, "Say whether the listing is the product.")
        return None
    try:
        return correcting.correct(
            job_id,
            same_product=same == "true",
            made_by=Author.OPERATOR,
            made_by_client_id=None,
            visible_to=None,
            **listing,
        )
    except (CorrectionError, JobNotFound) as exc:
        messages.error(request, str(exc))
        return None


@admin.register(PriceReport)
class PriceReportAdmin(_ClientColumn, admin.ModelAdmin):
    list_display = ["id", "status", "product_code", "client", "product_name", "price_reported", "note", "made_by",
                    "job", "created_at"]  # fmt: skip
    list_filter = ["status", ClientFilter, "made_by"]
    search_fields = ["product_code", "product_name", "note"]
    # "open" sorts before "resolved": the queue's open reports come first, newest first.
    ordering = ["status", "-created_at", "-id"]
    list_per_page = 50
    fields = ["status", "how_to_resolve", "product_code", "client", "product_name", "price_reported", "note",
              "made_by", "job", "created_at", "resolved_at"]  # fmt: skip
    readonly_fields = fields
    actions = ["resolve"]

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": HOW_TO_RESOLVE})

    @admin.display(description="reported price")
    def price_reported(self, row):
        return won(row.reported_price)

    @admin.display(description="how to resolve")
    def how_to_resolve(self, row):
        return HOW_TO_RESOLVE

    def has_add_permission(self, request):
        return False

    @admin.action(description="Mark the selected reports resolved", permissions=["change"])
    def resolve(self, request, queryset):
        count = reports.resolve(queryset)
        self.message_user(request, f"{count} report(s) resolved.", messages.SUCCESS)


# The review queue's admin, registered on import (it shares ClientFilter above).
from corrections import review_admin  # noqa: E402, F401
