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
                    "title", "price", "job", "updated_at"]  # fmt: skip
    list_filter = [ClientFilter, "made_by", "scope", "same_product", "marketplace"]
    search_fields = ["product_code", "product_id", "title", "product_name"]
    search_help_text = "Product code, marketplace product id, or part of the listing's title or the product name."
    ordering = ["-updated_at", "-id"]
    list_per_page = 50
    readonly_fields = [field.name for field in Correction._meta.fields]

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
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("corrections.add_correction"):
            raise PermissionDenied
        back = HttpResponseRedirect(reverse("admin:jobs_job_change", args=[str(job_id)]))
        same = request.POST.get("same_product")
        if same not in ("true", "false"):
            messages.error(request, "Say whether the listing is the product.")
            return back
        try:
            made = correcting.correct(
                job_id,
                marketplace=str(request.POST.get("marketplace") or ""),
                product_id=str(request.POST.get("product_id") or ""),
                same_product=same == "true",
                note=str(request.POST.get("note") or "")[:2000],
                made_by=Author.OPERATOR,
                made_by_client_id=None,
                visible_to=None,
                scope=Scope.GLOBAL if request.POST.get("scope") == "global" else Scope.CLIENT,
            )
        except (CorrectionError, JobNotFound) as exc:
            messages.error(request, str(exc))
            return back
        said = "is" if made.correction.same_product else "is not"
        text = f"Listing {made.correction.product_id} {said} the product ({made.correction.get_scope_display()})."
        if made.changed:
            text += f" The job's answer changed: {made.previous} → {made.current}."
        messages.success(request, text)
        return back


@admin.register(PriceReport)
class PriceReportAdmin(_ClientColumn, admin.ModelAdmin):
    list_display = ["id", "status", "product_code", "client", "product_name", "reported_price", "note", "made_by",
                    "job", "created_at"]  # fmt: skip
    list_filter = ["status", ClientFilter, "made_by"]
    search_fields = ["product_code", "product_name", "note"]
    # "open" sorts before "resolved": the queue's open reports come first, newest first.
    ordering = ["status", "-created_at", "-id"]
    list_per_page = 50
    readonly_fields = [field.name for field in PriceReport._meta.fields]
    actions = ["resolve"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Mark the selected reports resolved", permissions=["change"])
    def resolve(self, request, queryset):
        count = reports.resolve(queryset)
        self.message_user(request, f"{count} report(s) resolved.", messages.SUCCESS)


# The review queue's admin, registered on import (it shares ClientFilter above).
from corrections import review_admin  # noqa: E402, F401
