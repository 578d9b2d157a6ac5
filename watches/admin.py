"""Admin for watches: the list (client, product, interval, next run, the shop's own price against the market's
lowest with the gap and since when, last change, paused; filtered by position) and a watch's page with its price
history as a chart and the events it sent, with the state of each delivery."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.http import HttpResponseNotAllowed, HttpResponseRedirect, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone

from jobs import owners
from jobs.admin_lists import ObservedReadOnlyAdmin, recent_filter
from lps_site.admin_formatting import short_duration, won
from lps_site.svg_charts import price_chart
from search.result import SearchResult
from watches import position, sheets, store
from watches.exceptions import SheetInvalid
from watches.models import EventState, Watch, WatchEvent, WatchPoint
from watches.spec import every_text

HISTORY_POINTS = 200
EVENT_ROWS = 50


class WatchChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        # The clients' names of the whole page in one query, not one per row.
        names = owners.names(watch.client_id for watch in self.result_list)
        for watch in self.result_list:
            watch.client_name = names.get(watch.client_id)


class DueFilter(admin.SimpleListFilter):
    title = "schedule"
    parameter_name = "due"

    def lookups(self, request, model_admin):
        return [("yes", "due now (overdue)"), ("no", "not due")]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(paused=False, next_run_at__lte=now)
        if self.value() == "no":
            return queryset.filter(next_run_at__gt=now)
        return queryset


class GivenUpFilter(admin.SimpleListFilter):
    title = "deliveries"
    parameter_name = "given_up"

    def lookups(self, request, model_admin):
        return [("yes", "has given-up events"), ("pending", "has pending events")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(events__state=EventState.GIVEN_UP).distinct()
        if self.value() == "pending":
            return queryset.filter(events__state=EventState.PENDING).distinct()
        return queryset


class PositionFilter(admin.SimpleListFilter):
    """Where the shop stands against the market's lowest of the last run (watches/position.py)."""

    title = "position"
    parameter_name = "position"

    def lookups(self, request, model_admin):
        return [
            ("dearer", f"dearer than the market by ≥ {position.DEARER_PERCENT:g} %"),
            ("undercut", "undercut (any gap)"),
            ("cheapest", "cheapest on the market"),
            ("none", "no position (no own price, or not found)"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "dearer":
            return position.dearer_by(queryset, position.DEARER_PERCENT)
        if self.value() == "undercut":
            return position.undercut(queryset)
        if self.value() == "cheapest":
            return position.cheapest(queryset)
        if self.value() == "none":
            return queryset.filter(gap_won__isnull=True)
        return queryset


@admin.register(Watch)
class WatchAdmin(ObservedReadOnlyAdmin):
    list_display = ["product_code", "client", "product_name", "interval", "next_run", "own_price", "lowest_price",
                    "gap", "position_since", "last_outcome", "last_change_at", "paused"]  # fmt: skip
    list_filter = ["paused", "last_outcome", PositionFilter, DueFilter, GivenUpFilter,
                   recent_filter("last_change_at", "last change")]  # fmt: skip
    sortable_by = ["product_code", "next_run_at", "last_change_at", "gap"]
    ordering = ["next_run_at"]
    search_fields = ["product_code"]
    search_help_text = "Product code (exact) or part of the product name."
    change_form_template = "admin/watches/watch/watch_page.html"
    change_list_template = "admin/watches/watch/watch_list.html"
    fields = ["product_code", "client", "product_name", "interval", "paused", "next_run_at", "callback_url",
              "notify", "min_change_percent", "runs", "last_outcome", "lowest_price", "last_run_at",
              "last_change_at", "last_event_kind", "pending_job_id", "created_at", "updated_at"]  # fmt: skip
    readonly_fields = ["client", "product_name", "interval", "notify", "lowest_price"]

    def get_changelist(self, request, **kwargs):
        return WatchChangeList

    def get_queryset(self, request):
        return position.with_position(super().get_queryset(request))

    def get_urls(self):
        views = [
            path("sheets/", self.admin_site.admin_view(self.sheets_view), name="watches_watch_sheets"),
            path("sheets/export/", self.admin_site.admin_view(self.export_view), name="watches_watch_export"),
            path("sheets/import/", self.admin_site.admin_view(self.import_view), name="watches_watch_import"),
        ]
        return [*views, *super().get_urls()]

    def _clients(self) -> list[tuple[int, str]]:
        directory = owners.directory()
        return directory.choices() if directory is not None else []

    def _client_id(self, value) -> int | None:
        try:
            client_id = int(value)
        except (TypeError, ValueError):
            return None
        return client_id if client_id in dict(self._clients()) else None

    def sheets_view(self, request):
        """A client's watches as a CSV sheet: export the position report, import a sheet (watches/sheets.py)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {**self.admin_site.each_context(request), "title": "Watches as a spreadsheet",
                   "clients": self._clients(), "opts": self.model._meta}  # fmt: skip
        return TemplateResponse(request, "admin/watches/watch/sheets.html", context)

    def export_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        client_id = self._client_id(request.GET.get("client_id"))
        if client_id is None:
            messages.error(request, "Choose a client to export.")
            return HttpResponseRedirect(reverse("admin:watches_watch_sheets"))
        rows = sheets.report_rows(Watch.objects.filter(client_id=client_id))
        response = StreamingHttpResponse(sheets.report_csv(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="lps-watches-client-{client_id}.csv"'
        return response

    def import_view(self, request):
        """Upsert a client's watches from a sheet, all rows or none; callback hosts vetted as the API vets them."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("watches.add_watch") or not request.user.has_perm("watches.change_watch"):
            raise PermissionDenied
        back = HttpResponseRedirect(reverse("admin:watches_watch_sheets"))
        client_id = self._client_id(request.POST.get("client_id"))
        upload = request.FILES.get("sheet")
        if client_id is None or upload is None:
            messages.error(request, "Choose a client and a CSV file.")
            return back
        try:
            specs = sheets.read_watches(upload.read(), max_rows=settings.LPS_API_MAX_CSV_WATCHES)
        except SheetInvalid as exc:
            messages.error(request, exc.message)
            for error in exc.errors[1:10]:
                where = f"row {error['row']}" + (f", column {error['column']}" if error.get("column") else "")
                messages.error(request, f"{where}: {error['error']}")
            return back
        with transaction.atomic():
            upserted = store.upsert(client_id, specs)
        created = sum(1 for row in upserted if row.created)
        messages.success(
            request,
            f"{len(upserted):,} row(s) read for client #{client_id}: {created:,} new, the rest kept or updated.",
        )
        return back

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        return queryset.filter(Q(product_code=term) | Q(product__product_name__icontains=term)), False

    @admin.display(description="client")
    def client(self, watch):
        if not hasattr(watch, "client_name"):
            watch.client_name = owners.names([watch.client_id]).get(watch.client_id)
        return watch.client_name or f"client #{watch.client_id}"

    @admin.display(description="product name")
    def product_name(self, watch):
        return (watch.product or {}).get("product_name", "")

    @admin.display(description="every")
    def interval(self, watch):
        return every_text(watch.every_seconds)

    @admin.display(description="next run", ordering="next_run_at")
    def next_run(self, watch):
        late = (timezone.now() - watch.next_run_at).total_seconds()
        stamp = timezone.localtime(watch.next_run_at).strftime("%Y-%m-%d %H:%M")
        if late > 0 and not watch.paused:
            return f"{stamp} (overdue {short_duration(late)})"
        return stamp

    @admin.display(description="notify on")
    def notify(self, watch):
        return ", ".join(str(kind).replace("_", " ") for kind in watch.notify_events or []) or "nothing"

    @admin.display(description="market lowest")
    def lowest_price(self, watch):
        if watch.last_price is None:
            return ""
        lowest = SearchResult.from_json(watch.last_result).lowest
        marketplace = lowest.marketplace if lowest is not None else None
        return f"{won(watch.last_price)} ({marketplace})" if marketplace else won(watch.last_price)

    @admin.display(description="own price")
    def own_price(self, watch):
        price = getattr(watch, "own_price", None)
        return won(price) if price is not None else ""

    @admin.display(description="gap", ordering="gap_percent")
    def gap(self, watch):
        """+ when the shop is dearer than the market (undercut), − when it is the cheapest."""
        gap_won, gap_percent = getattr(watch, "gap_won", None), getattr(watch, "gap_percent", None)
        if gap_won is None:
            return ""
        sign = "+" if gap_won > 0 else "−" if gap_won < 0 else "±"
        return f"{sign}{won(abs(gap_won))} ({sign}{abs(gap_percent):.1f} %)"

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            alias = obj._state.db or "default"
            points = list(
                WatchPoint.objects.using(alias)
                .filter(watch=obj)
                .order_by("-at")
                .values_list("at", "price", "outcome")[:HISTORY_POINTS]
            )
            events = list(WatchEvent.objects.using(alias).filter(watch=obj).order_by("-seq")[:EVENT_ROWS])
            context.update(
                price_chart=price_chart(
                    [(at, price if outcome == "found" else None) for at, price, outcome in points],
                    title=f"Lowest price of {obj.product_code} over time",
                    value_format=won,
                ),
                history_points=len(points),
                watch_events=[(event, EventState(event.state).label) for event in events],
            )
        return super().render_change_form(request, context, add, change, form_url, obj)
