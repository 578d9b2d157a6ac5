"""The job admin: a read-only list and page of jobs of any type, and the requeue of DEAD jobs through the queue.

It knows no job type's payload or result: an app that does extends JobAdmin (columns, filters, search, the
job page) by registering a subclass in its own admin module.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.db.models.functions import Left
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.timesince import timesince

from jobs import handlers, owners
from jobs.admin_lists import ObservedReadOnlyAdmin, recent_filter
from jobs.models import Job, JobStatus
from jobs.requeue_actions import RequeueOutcome, RequeueVerdict, requeue_jobs

# One action handles at most this many jobs, so that "select all" on a big list cannot hold the page for minutes.
MAX_REQUEUE_PER_ACTION = 1000
# Messages name at most this many jobs per outcome; the rest are counted.
NAMED_JOBS_PER_MESSAGE = 20
ERROR_HEAD_CHARS = 300


class JobTypeFilter(admin.SimpleListFilter):
    """The job type, offered as the handler registry names the registered types."""

    title = "job type"
    # The name Django's own field filter used, so that bookmarked and linked list URLs keep working.
    parameter_name = "job_type__exact"

    def lookups(self, request, model_admin):
        return [(str(job_type), handlers.label(job_type)) for job_type in sorted(handlers.registered())]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            raise IncorrectLookupParameters(f"job type must be a number, not {value!r}")
        return queryset.filter(job_type=int(value))


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


CREATED_FILTER = recent_filter("created_at", "created")
CHANGED_FILTER = recent_filter("updated_at", "last change", index_prefix=Q(status__in=JobStatus.values))


def _owner_name(owner_id: int | None) -> str | None:
    return owners.names([owner_id]).get(owner_id)


def queue_wait(job: Job, say_duration: Callable[[float], str]) -> str:
    """How long the job waited from enqueue to its first start, as the job page says it (the row keeps only the
    last attempt's start, so after a retry the first start is no longer known)."""
    if job.run_started_at is None or job.attempts == 0:
        return "not started yet"
    waited = max(0.0, (job.run_started_at - job.created_at).total_seconds())
    said = f"{waited:.1f}s" if waited < 60 else say_duration(waited)
    if job.attempts == 1:
        return said
    return f"not kept after a retry (attempt {job.attempts} started {said} after enqueue)"


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
    list_display = ["short_id", "state", "job_kind", "owner", "tries", "error", "age"]
    list_display_links = ["short_id"]
    list_filter = ["status", JobTypeFilter, OwnerFilter, CREATED_FILTER, CHANGED_FILTER]
    # Only the columns an index can order; sorting a million rows by a JSON value is not a page view.
    sortable_by = ["age"]
    ordering = ["-created_at"]
    actions = ["requeue_selected"]
    change_form_template = "admin/jobs/job/job_page.html"

    def say_duration(self, seconds: float) -> str:
        """An age or a wait as the list and the job page say it: in Django's words ("3 hours, 5 minutes")."""
        now = timezone.now()
        return timesince(now - timedelta(seconds=seconds), now)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(error_head=Left("last_error", ERROR_HEAD_CHARS))

    def get_changelist(self, request, **kwargs):
        return JobChangeList

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
        return handlers.label(job.job_type)

    @admin.display(description="client")
    def owner(self, job):
        if job.owner_id is None:
            return ""
        return getattr(job, "owner_name", None) or f"#{job.owner_id}"

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
        return self.say_duration((timezone.now() - job.created_at).total_seconds())

    # --- the job page ----------------------------------------------------------------------------------------

    def job_page_context(self, request, job: Job) -> dict:
        """What the job page shows of `job`; a subclass adds what it knows of the job's type."""
        payload = job.payload if isinstance(job.payload, dict) else {}
        return {
            "job": job,
            "job_type_label": handlers.label(job.job_type),
            "state_label": JobStatus(job.status).label,
            "owner_name": _owner_name(job.owner_id),
            "can_requeue": job.status == JobStatus.DEAD and self.has_requeue_permission(request),
            "age": self.say_duration((timezone.now() - job.created_at).total_seconds()),
            "queue_wait": queue_wait(job, self.say_duration),
            "payload_rows": [(key, json.dumps(value, ensure_ascii=False)) for key, value in payload.items()],
            "payload_json": json.dumps(job.payload, ensure_ascii=False, indent=2),
            "result_json": json.dumps(job.result, ensure_ascii=False, indent=2) if job.result is not None else "",
        }

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context.update(self.job_page_context(request, obj))
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
