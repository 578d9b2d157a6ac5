"""What keeps admin list pages fast on big tables: a paginator that never counts a whole table, time filters
that walk an index range, and a read-only base for the tables that only the workers write."""

from __future__ import annotations

import json
from datetime import timedelta

from django.contrib import admin
from django.contrib.admin.options import ShowFacets
from django.core.paginator import Paginator
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import cached_property

from lps_site.db_router import observe_alias

# Up to this many matching rows a list page counts exactly; past it, it shows the planner's estimate. Counting
# 10,001 index entries costs about as much on a table of ten thousand rows as on one of ten million.
EXACT_COUNT_LIMIT = 10_000


class EstimatedCountPaginator(Paginator):
    """Count exactly up to EXACT_COUNT_LIMIT rows, estimate past it (`is_estimate` says which it did).

    The planner's estimate comes first (one EXPLAIN, cheap on any table). Only when it expects at most
    `exact_limit` rows does the paginator count, and then with `SELECT count(*) FROM (… LIMIT n+1)`, which
    stops after n+1 rows instead of walking every match the way Django's plain COUNT(*) does. Counting a
    large match exactly is what costs: every row visited, its JSON unpacked to test the filter.
    """

    exact_limit = EXACT_COUNT_LIMIT

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.is_estimate = False

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        if not hasattr(rows, "query"):
            return len(rows)
        unordered = rows.order_by()
        estimate = planner_row_estimate(unordered)
        if estimate > self.exact_limit:
            self.is_estimate = True
            return estimate
        bounded = unordered[: self.exact_limit + 1].count()
        if bounded <= self.exact_limit:
            return bounded
        # The planner underestimated: say "at least" what was counted.
        self.is_estimate = True
        return bounded

    @property
    def display_count(self) -> str:
        """The count as a list page says it: "about 1,000,111" when estimated."""
        return f"about {self.count:,}" if self.is_estimate else f"{self.count:,}"


def planner_row_estimate(queryset) -> int:
    """The number of rows PostgreSQL's planner expects `queryset` to return (cheap on any table size)."""
    plan = json.loads(queryset.explain(format="json"))
    return int(plan[0]["Plan"]["Plan Rows"])


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
