"""The negative cache in the admin: what is remembered as not found, until when; delete a row to force a search."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Q
from django.utils import timezone
from django.utils.html import format_html

from jobs.admin_lists import BigTableAdmin
from lps_site.admin_formatting import short_duration, when
from negative_cache import cache
from negative_cache.models import NegativeCacheEntry


class ValidityFilter(admin.SimpleListFilter):
    title = "validity"
    parameter_name = "valid"

    def lookups(self, request, model_admin):
        return [("yes", "still valid"), ("no", "expired (purged by the reaper)")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(until__gt=timezone.now())
        if self.value() == "no":
            return queryset.filter(until__lte=timezone.now())
        return queryset


@admin.register(NegativeCacheEntry)
class NegativeCacheAdmin(BigTableAdmin):
    list_display = ["remembered_for", "marketplaces", "model_code", "brand", "short_reason", "remembered_at",
                    "expires", "validity"]  # fmt: skip
    list_filter = [ValidityFilter]
    ordering = ["-until"]
    sortable_by = ["until"]
    search_fields = ["key"]
    search_help_text = "A product name (as searched, without model code and brand) or a whole key: exact."
    readonly_fields = ["product_name", "marketplaces", "model_code", "brand", "key", "reason", "created_at", "until",
                       "validity"]  # fmt: skip

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if not term:
            return queryset, False
        # Only primary-key equality, so the search is an index lookup on any size of cache.
        candidates = {term, cache.key_for(product_name=term).key}
        return queryset.filter(Q(key__in=candidates)), False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="product name")
    def remembered_for(self, entry):
        return entry.product_name or entry.key

    @admin.display(description="marketplaces")
    def marketplaces(self, entry):
        # A not_found on Coupang alone keeps the product's bare key; on other marketplaces the key names them.
        _, _, scope = entry.key.partition("@")
        return ", ".join(scope.split(",")) if scope else "coupang"

    @admin.display(description="remembered", ordering="created_at")
    def remembered_at(self, entry):
        return when(entry.created_at)

    @admin.display(description="until", ordering="until")
    def expires(self, entry):
        return when(entry.until)

    @admin.display(description="reason")
    def short_reason(self, entry):
        return entry.reason if len(entry.reason) <= 80 else entry.reason[:80] + "…"

    @admin.display(description="validity")
    def validity(self, entry):
        left = (entry.until - timezone.now()).total_seconds()
        if left > 0:
            return format_html('<span class="lps-yes">valid</span> for {}', short_duration(left))
        return format_html('<span class="lps-no">expired</span> {} ago', short_duration(-left))

    def delete_model(self, request, obj):
        cache.forget(obj.key)
        self.message_user(request, f"The next search of {obj} runs for real.", messages.INFO)
