"""Admin for what searching leaves behind: products and their price history, IP sessions, bot detections and
the failure snapshots the crawler saved (served to staff only, and only from inside LPS_SNAPSHOT_DIR)."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import FileResponse, Http404
from django.urls import path, reverse
from django.utils.html import format_html

from jobs import owners
from jobs.admin_lists import ObservedReadOnlyAdmin, recent_filter, recent_values_filter
from lps_site.admin_formatting import short_duration, web_url, won
from lps_site.svg_charts import price_chart
from search.models import BotEvent, IpSession, NaverCallDay, PriceSnapshot, Product

PRICE_HISTORY_POINTS = 200
SNAPSHOT_ROWS = 50
# A snapshot is the marketplace's own page: shown as a document with no scripts, no requests and no origin.
SNAPSHOT_CSP = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def snapshot_relative_path(stored: str) -> str | None:
    """The stored snapshot path relative to LPS_SNAPSHOT_DIR, or None when it resolves outside that folder.

    Relative paths are taken from the folder; `..`, absolute paths and symlinks are resolved first, so none of
    them can reach a file elsewhere.
    """
    if not stored:
        return None
    root = Path(settings.LPS_SNAPSHOT_DIR).resolve()
    candidate = Path(stored)
    resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if resolved == root or not resolved.is_relative_to(root):
        return None
    return resolved.relative_to(root).as_posix()


def snapshot_url(stored: str) -> str | None:
    """The admin link to a stored snapshot, or None when there is none or it lies outside the folder."""
    relative = snapshot_relative_path(stored)
    return reverse("admin:search_botevent_snapshot", args=[relative]) if relative else None


def _human_bytes(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:,.0f} {unit}" if unit == "B" else f"{count:,.1f} {unit}"
        count /= 1024
    return f"{count:,.1f} GB"


def _jobs_of(product: Product) -> str:
    """The job list of this product: its code among its own client's jobs (another shop's SKU-1 is not it)."""
    query = {"q": product.product_code}
    if product.client_id is not None:
        query["owner"] = product.client_id
    return reverse("admin:jobs_job_changelist") + "?" + urlencode(query)


class LastOutcomeFilter(admin.SimpleListFilter):
    title = "last outcome"
    parameter_name = "last_outcome"

    def lookups(self, request, model_admin):
        return [("found", "found"), ("not_found", "not found")]

    def queryset(self, request, queryset):
        return queryset.filter(last_outcome=self.value()) if self.value() else queryset


class ProductChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        # The clients' names of the whole page in one query, not one per row.
        names = owners.names(product.client_id for product in self.result_list)
        for product in self.result_list:
            product.client_name = names.get(product.client_id)


@admin.register(Product)
class ProductAdmin(ObservedReadOnlyAdmin):
    list_display = ["product_code", "client", "name", "last_outcome", "latest_price", "search_count",
                    "last_searched_at", "jobs"]  # fmt: skip
    list_filter = [LastOutcomeFilter, recent_filter("last_searched_at", "last searched")]
    sortable_by = ["product_code", "last_searched_at"]
    ordering = ["-last_searched_at"]
    search_fields = ["product_code"]
    search_help_text = "Product code (exact) or part of the product name."
    change_form_template = "admin/search/product/product_page.html"
    # Named, so that the admin does not build a model form (with its URL fields) only to list them.
    fields = ["product_code", "client", "product_name", "brand", "model_code", "search_count", "last_outcome",
              "latest_price", "last_searched_at", "created_at"]  # fmt: skip
    readonly_fields = ["client", "latest_price"]

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        return queryset.filter(Q(product_code=term) | Q(product_name__icontains=term)), False

    def get_changelist(self, request, **kwargs):
        return ProductChangeList

    @admin.display(description="client")
    def client(self, product):
        if product.client_id is None:
            return ""
        if not hasattr(product, "client_name"):  # the product page: one product, one lookup
            product.client_name = owners.names([product.client_id]).get(product.client_id)
        return product.client_name or f"#{product.client_id}"

    @admin.display(description="product name")
    def name(self, product):
        if len(product.product_name) <= 50:
            return product.product_name
        return format_html('<span title="{}">{}…</span>', product.product_name, product.product_name[:50])

    @admin.display(description="latest price")
    def latest_price(self, product):
        if product.last_price is None:
            return ""
        if product.last_url:
            return format_html(
                '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>',
                web_url(product.last_url) or "#",
                won(product.last_price),
            )
        return won(product.last_price)

    @admin.display(description="jobs")
    def jobs(self, product):
        return format_html('<a href="{}">jobs</a>', _jobs_of(product))

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            alias = obj._state.db or "default"
            history = list(
                PriceSnapshot.objects.using(alias)
                .filter(product=obj)
                .order_by("-captured_at")
                .values_list("captured_at", "price", "outcome")[:PRICE_HISTORY_POINTS]
            )
            context.update(
                price_chart=price_chart(
                    [(captured_at, price if outcome == "found" else None) for captured_at, price, outcome in history],
                    title=f"Lowest price of {obj.product_code} over time",
                    value_format=won,
                ),
                snapshots=[
                    (snapshot, won(snapshot.price), web_url(snapshot.url))
                    for snapshot in PriceSnapshot.objects.using(alias)
                    .filter(product=obj)
                    .order_by("-captured_at")[:SNAPSHOT_ROWS]
                ],
                history_points=len(history),
                jobs_url=_jobs_of(obj),
            )
        return super().render_change_form(request, context, add, change, form_url, obj)


class SessionStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "open"

    def lookups(self, request, model_admin):
        return [("yes", "open"), ("no", "ended")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(end_reason__isnull=True)
        if self.value() == "no":
            return queryset.filter(end_reason__isnull=False)
        return queryset


@admin.register(IpSession)
class IpSessionAdmin(ObservedReadOnlyAdmin):
    list_display = ["id", "proxy_label", "worker_id", "started_at", "lifetime", "requests", "transferred",
                    "end_reason"]  # fmt: skip
    list_filter = [
        "end_reason",
        SessionStateFilter,
        recent_filter("started_at", "started"),
        recent_values_filter("proxy_label", time_field="started_at", title="proxy (last 7 days)"),
    ]
    sortable_by = ["started_at"]
    ordering = ["-started_at"]
    search_fields = ["=proxy_label", "=worker_id"]
    search_help_text = "Proxy label or worker id (exact)."

    @admin.display(description="lifetime")
    def lifetime(self, session):
        if session.ended_at is None:
            return "open"
        return short_duration((session.ended_at - session.started_at).total_seconds())

    @admin.display(description="bytes")
    def transferred(self, session):
        return _human_bytes(session.bytes)


@admin.register(BotEvent)
class BotEventAdmin(ObservedReadOnlyAdmin):
    list_display = ["detected_at", "kind", "http_status", "proxy_label", "query", "requests_in_session", "session",
                    "snapshot"]  # fmt: skip
    list_filter = [
        recent_values_filter("kind", time_field="detected_at", title="kind (last 7 days)"),
        recent_filter("detected_at", "detected"),
        recent_values_filter("proxy_label", time_field="detected_at", title="proxy (last 7 days)"),
    ]
    sortable_by = ["detected_at"]
    ordering = ["-detected_at"]
    search_fields = ["=query", "=proxy_label"]
    search_help_text = "Query or proxy label (exact)."
    fields = ["detected_at", "kind", "http_status", "proxy_label", "ip_session", "requests_in_session", "query", "url",
              "snapshot_path", "snapshot"]  # fmt: skip
    readonly_fields = ["snapshot"]

    @admin.display(description="IP session")
    def session(self, event):
        if event.ip_session_id is None:
            return ""
        return format_html(
            '<a href="{}">#{}</a>',
            reverse("admin:search_ipsession_change", args=[event.ip_session_id]),
            event.ip_session_id,
        )

    @admin.display(description="failure snapshot")
    def snapshot(self, event):
        if not event.snapshot_path:
            return ""
        url = snapshot_url(event.snapshot_path)
        if url is None:
            return format_html(
                '<span class="lps-error" title="{}">outside the snapshot folder</span>', event.snapshot_path
            )
        return format_html('<a href="{}" target="_blank" class="lps-snapshot-link">open</a>', url)

    def snapshot_view(self, request, relative_path):
        """Serve one failure snapshot to staff who may view bot events; nothing outside LPS_SNAPSHOT_DIR."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        relative = snapshot_relative_path(relative_path)
        if relative is None:
            raise PermissionDenied("That path is outside the snapshot folder.")
        file_path = Path(settings.LPS_SNAPSHOT_DIR).resolve() / relative
        if not file_path.is_file():
            raise Http404("No such snapshot.")
        content_type, _ = mimetypes.guess_type(file_path.name)
        if content_type in ("text/html", "text/plain", "application/json"):
            content_type += "; charset=utf-8"
        response = FileResponse(file_path.open("rb"), content_type=content_type or "application/octet-stream")
        response["Content-Security-Policy"] = SNAPSHOT_CSP
        response["X-Content-Type-Options"] = "nosniff"
        response["Referrer-Policy"] = "no-referrer"
        return response

    def get_urls(self):
        snapshot = path(
            "snapshot/<path:relative_path>",
            self.admin_site.admin_view(self.snapshot_view),
            name="search_botevent_snapshot",
        )
        return [snapshot, *super().get_urls()]


@admin.register(NaverCallDay)
class NaverCallDayAdmin(ObservedReadOnlyAdmin):
    """Naver Search API calls per quota day (a day in Korea), against LPS_NAVER_DAILY_CALLS."""

    list_display = ["day", "calls", "quota", "updated_at"]
    ordering = ["-day"]
    sortable_by = ["day"]
    fields = ["day", "calls", "quota", "updated_at"]
    readonly_fields = ["quota"]

    @admin.display(description="of the daily quota")
    def quota(self, row):
        limit = settings.LPS_NAVER_DAILY_CALLS
        return f"{row.calls / limit:.1%} of {limit:,}" if limit > 0 else "no quota (Naver off)"
