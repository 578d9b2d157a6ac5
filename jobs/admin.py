"""The job admin: a read-only list and page of jobs, and the requeue of DEAD jobs through jobs/queue.py."""

from __future__ import annotations

import uuid

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.db.models.fields.json import KT
from django.db.models.functions import Left
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from jobs import owners
from jobs.admin_lists import ObservedReadOnlyAdmin, recent_filter
from jobs.job_report import bot_events_during, job_report, queue_wait, short_duration, usd, won
from jobs.models import Job, JobStatus
from jobs.requeue_actions import RequeueOutcome, RequeueVerdict, requeue_jobs
from search.admin import snapshot_url
from search.job_lookups import matching_product
from search.models import Product

admin.site.site_header = "LPS operations"
admin.site.site_title = "LPS admin"
admin.site.index_title = "Operations"
# The job list is wide (eleven columns and the filters); the index and the breadcrumbs already lead everywhere.
admin.site.enable_nav_sidebar = False

# One action handles at most this many jobs, so that "select all" on a big list cannot hold the page for minutes.
MAX_REQUEUE_PER_ACTION = 1000
# Messages name at most this many jobs per outcome; the rest are counted.
NAMED_JOBS_PER_MESSAGE = 20
ERROR_HEAD_CHARS = 300


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


class OwnerFilter(admin.SimpleListFilter):
    """The job's owner (owner_id, served by job_owner_created_idx), named by the registered owner directory."""

    title = "client"
    parameter_name = "owner"

    def lookups(self, request, model_admin):
        directory = owners.directory()
        if directory is None:
            return []
        self.title = directory.label
        return [(str(owner_id), name) for owner_id, name in directory.choices()]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            raise IncorrectLookupParameters(f"owner must be a number, not {value!r}")
        return queryset.filter(owner_id=int(value))


def _owner_name(owner_id: int | None) -> str | None:
    return owners.names([owner_id]).get(owner_id)


class JobChangeList(ChangeList):
    def get_queryset(self, request, exclude_parameters=None):
        # The list shows values extracted in SQL (see JobAdmin.get_queryset); the JSON itself stays in the table.
        return super().get_queryset(request, exclude_parameters).defer("payload", "result", "last_error")

    def get_results(self, request):
        super().get_results(request)
        # The owners' names of the whole page in one query, not one per row.
        names = owners.names(job.owner_id for job in self.result_list)
        for job in self.result_list:
            job.owner_name = names.get(job.owner_id)


@admin.register(Job)
class JobAdmin(ObservedReadOnlyAdmin):
    list_display = ["short_id", "state", "job_kind", "owner", "product_code", "product_name", "outcome",
                    "lowest_price", "cost", "tries", "error", "age"]  # fmt: skip
    list_display_links = ["short_id"]
    list_filter = [
        "status",
        "job_type",
        OwnerFilter,
        OutcomeFilter,
        recent_filter("created_at", "created"),
        recent_filter("updated_at", "last change", index_prefix=Q(status__in=JobStatus.values)),
    ]
    # Only the columns an index can order; sorting a million rows by a JSON value is not a page view.
    sortable_by = ["age"]
    ordering = ["-created_at"]
    search_fields = ["payload__product_code"]
    search_help_text = "Product code (exact) or part of the product name."
    actions = ["requeue_selected"]
    change_form_template = "admin/jobs/job/job_page.html"

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                product_code_text=KT("payload__product_code"),
                product_name_text=KT("payload__product_name"),
                outcome_text=KT("result__outcome"),
                cached_text=KT("result__cached"),
                lowest_price_text=KT("result__lowest__price"),
                cost_text=KT("result__metrics__cost__total_usd"),
                error_head=Left("last_error", ERROR_HEAD_CHARS),
            )
        )

    def get_changelist(self, request, **kwargs):
        return JobChangeList

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        return queryset.filter(matching_product(term)), False

    # --- columns ---------------------------------------------------------------------------------------------

    @admin.display(description="job")
    def short_id(self, job):
        return str(job.job_id)[:8]

    @admin.display(description="state")
    def state(self, job):
        label = JobStatus(job.status).label
        return format_html('<span class="lps-state lps-state-{}">{}</span>', label.lower(), label)

    @admin.display(description="type")
    def job_kind(self, job):
        return job.get_job_type_display()

    @admin.display(description="client")
    def owner(self, job):
        if job.owner_id is None:
            return ""
        return getattr(job, "owner_name", None) or f"#{job.owner_id}"

    @admin.display(description="product code")
    def product_code(self, job):
        return job.product_code_text or ""

    @admin.display(description="product name")
    def product_name(self, job):
        name = job.product_name_text or ""
        if len(name) <= 30:
            return name
        return format_html('<span title="{}">{}…</span>', name, name[:30])

    @admin.display(description="outcome")
    def outcome(self, job):
        if not job.outcome_text:
            return ""
        label = job.outcome_text.replace("_", " ") + (" (cached)" if job.cached_text == "true" else "")
        return format_html('<span class="lps-outcome-{}">{}</span>', job.outcome_text, label)

    @admin.display(description="lowest price")
    def lowest_price(self, job):
        if job.lowest_price_text is None:
            return ""
        try:
            return won(int(job.lowest_price_text))
        except ValueError:
            return job.lowest_price_text

    @admin.display(description="cost")
    def cost(self, job):
        return usd(job.cost_text)

    @admin.display(description="tries")
    def tries(self, job):
        return f"{job.attempts}/{job.max_attempts}"

    @admin.display(description="error")
    def error(self, job):
        if not job.error_head:
            return ""
        first_line = job.error_head.strip().splitlines()[0] if job.error_head.strip() else ""
        short = first_line if len(first_line) <= 36 else first_line[:36] + "…"
        return format_html('<span class="lps-error" title="{}">{}</span>', job.error_head, short)

    @admin.display(description="age", ordering="created_at")
    def age(self, job):
        return short_duration((timezone.now() - job.created_at).total_seconds())

    # --- the job page ----------------------------------------------------------------------------------------

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            events = bot_events_during(obj, using=obj._state.db or "default")
            code = (obj.payload or {}).get("product_code") if isinstance(obj.payload, dict) else None
            product = (
                Product.objects.using(obj._state.db or "default")
                .filter(client_id=obj.owner_id, product_code=code)
                .first()
                if code
                else None
            )
            context.update(
                job=obj,
                state_label=JobStatus(obj.status).label,
                report=job_report(obj),
                bot_events=[(event, snapshot_url(event.snapshot_path)) for event in events],
                product=product,
                owner_name=_owner_name(obj.owner_id),
                can_requeue=obj.status == JobStatus.DEAD and self.has_requeue_permission(request),
                age=short_duration((timezone.now() - obj.created_at).total_seconds()),
                queue_wait=queue_wait(obj),
            )
        return super().render_change_form(request, context, add, change, form_url, obj)

    # --- requeue ---------------------------------------------------------------------------------------------

    def has_requeue_permission(self, request) -> bool:
        return request.user.has_perm("jobs.change_job")

    @admin.action(description="Requeue selected DEAD jobs", permissions=["requeue"])
    def requeue_selected(self, request, queryset):
        job_ids = list(queryset.order_by().values_list("job_id", flat=True)[: MAX_REQUEUE_PER_ACTION + 1])
        if len(job_ids) > MAX_REQUEUE_PER_ACTION:
            job_ids = job_ids[:MAX_REQUEUE_PER_ACTION]
            self.message_user(
                request,
                f"Only the first {MAX_REQUEUE_PER_ACTION} selected jobs were handled; run the action again for more.",
                messages.WARNING,
            )
        self._report(request, requeue_jobs(job_ids))

    def requeue_view(self, request, object_id):
        """The job page's Requeue button."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_requeue_permission(request):
            raise PermissionDenied
        try:
            job_id = uuid.UUID(object_id)
        except ValueError:
            raise Http404("not a job id") from None
        self._report(request, requeue_jobs([job_id]))
        return HttpResponseRedirect(reverse("admin:jobs_job_change", args=[job_id]))

    def get_urls(self):
        requeue = path(
            "<path:object_id>/requeue/", self.admin_site.admin_view(self.requeue_view), name="jobs_job_requeue"
        )
        return [requeue, *super().get_urls()]

    def _report(self, request, outcomes: list[RequeueOutcome]) -> None:
        """One message per kind of outcome, naming the jobs (and the active twin that blocked a requeue)."""
        levels = {RequeueVerdict.REQUEUED: messages.SUCCESS}
        for verdict in RequeueVerdict:
            these = [outcome for outcome in outcomes if outcome.verdict == verdict]
            if not these:
                continue
            named = format_html_join(
                ", ", "{}", ((self._job_link(outcome),) for outcome in these[:NAMED_JOBS_PER_MESSAGE])
            )
            more = len(these) - NAMED_JOBS_PER_MESSAGE
            self.message_user(
                request,
                format_html(
                    "{}: {} job{}: {}{}",
                    verdict.value.capitalize(),
                    len(these),
                    "" if len(these) == 1 else "s",
                    named,
                    f" and {more} more" if more > 0 else "",
                ),
                levels.get(verdict, messages.WARNING),
            )

    @staticmethod
    def _job_link(outcome: RequeueOutcome):
        link = format_html(
            '<a href="{}">{}</a>', reverse("admin:jobs_job_change", args=[outcome.job_id]), str(outcome.job_id)[:8]
        )
        if outcome.active_job_id is None:
            return link
        twin = reverse("admin:jobs_job_change", args=[outcome.active_job_id])
        return format_html('{} (active twin <a href="{}">{}</a>)', link, twin, str(outcome.active_job_id)[:8])
