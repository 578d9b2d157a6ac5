"""What keeps admin list pages fast on big tables: a paginator that never counts a whole table, time filters
that walk an index range, and a read-only base for the tables that only the workers write."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import admin
from django.contrib.admin.options import ShowFacets
from django.core.paginator import Paginator
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import cached_property

from jobs.row_counts import EXACT_COUNT_LIMIT, count_rows
from lps_site.db_router import observe_alias


class EstimatedCountPaginator(Paginator):
    """Count exactly up to EXACT_COUNT_LIMIT rows, estimate past it (`is_estimate` says which it did)."""

    exact_limit = EXACT_COUNT_LIMIT

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.is_estimate = False

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        if not hasattr(rows, "query"):
            return len(rows)
        counted = count_rows(rows, exact_limit=self.exact_limit)
        self.is_estimate = counted.is_estimate
        return counted.count

    @property
    def display_count(self) -> str:
        """The count as a list page says it: "about 1,000,111" when estimated."""
        return f"about {self.count:,}" if self.is_estimate else f"{self.count:,}"


def recent_filter(field_name: str, title: str, *, index_prefix: Q | None = None) -> type[admin.SimpleListFilter]:
    """A list filter on `field_name` by age (last hour, day, week, month): an index range, never a scan.

    `index_prefix` is a condition that is always true but names the leading column of the index that holds
    `field_name` second, e.g. status IN (every status) for an index on (status, updated_at).
    """
    spans = {
        "1h": ("last hour", timedelta(hours=1)),
        "24h": ("last 24 hours", timedelta(hours=24)),
        "7d": ("last 7 days", timedelta(days=7)),
        "30d": ("last 30 days", timedelta(days=30)),
    }

    class RecentFilter(admin.SimpleListFilter):
        parameter_name = f"{field_name}_within"

        def lookups(self, request, model_admin):
            return [(key, label) for key, (label, _) in spans.items()]

        def queryset(self, request, queryset):
            span = spans.get(self.value() or "")
            if span is None:
                return queryset
            recent = queryset.filter(**{f"{field_name}__gte": timezone.now() - span[1]})
            return recent.filter(index_prefix) if index_prefix is not None else recent

    RecentFilter.title = title
    RecentFilter.__name__ = f"Recent{field_name.title().replace('_', '')}Filter"
    return RecentFilter


def recent_values_filter(
    field_name: str, *, time_field: str, title: str, within: timedelta = timedelta(days=7), limit: int = 50
) -> type[admin.SimpleListFilter]:
    """A list filter offering the values of `field_name` seen within `within`: the choices come from an index
    range on `time_field` instead of a SELECT DISTINCT over the whole table."""

    class RecentValuesFilter(admin.SimpleListFilter):
        parameter_name = field_name

        def lookups(self, request, model_admin):
            seen = (
                model_admin.get_queryset(request)
                .filter(**{f"{time_field}__gte": timezone.now() - within})
                .order_by()
                .values_list(field_name, flat=True)
                .distinct()[:limit]
            )
            values = sorted({str(value) for value in seen if value not in (None, "")})
            if self.value() and self.value() not in values:
                values.append(self.value())
            return [(value, value) for value in values]

        def queryset(self, request, queryset):
            if self.value() is None:
                return queryset
            return queryset.filter(**{field_name: self.value()})

    RecentValuesFilter.title = title
    RecentValuesFilter.__name__ = f"Recent{field_name.title().replace('_', '')}ValuesFilter"
    return RecentValuesFilter


class BigTableAdmin(admin.ModelAdmin):
    """List pages that cost the same on a big table as on a small one."""

    paginator = EstimatedCountPaginator
    # Django's "N total" link and facet counts are full-table COUNT(*)s.
    show_full_result_count = False
    show_facets = ShowFacets.NEVER
    list_per_page = 50


class ObservedReadOnlyAdmin(BigTableAdmin):
    """Tables that only workers write: operators look (on the replica when there is one), never edit."""

    def get_queryset(self, request):
        return super().get_queryset(request).using(observe_alias())

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
