"""The operators' review queue: the listings finished searches left to settle, oldest first, filterable by client.

One click on "this product" or "not this product" is an operator's correction of that listing for the client's
product (corrections/correcting.py): it closes the item and re-answers the job from the listings it judged, as the
job page's buttons do. Imported at the end of corrections/admin.py (whose client filter it shares), so the
admin's autodiscovery registers it.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from corrections.admin import ClientFilter, operator_correction, refuse_unless_operator_post
from corrections.models import ReviewItem, Scope
from jobs import owners
from lps_site.admin_formatting import won


class StateFilter(admin.SimpleListFilter):
    """Open items (the queue) unless asked for the closed ones or all."""

    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("closed", "closed"), ("all", "all")]

    def choices(self, changelist):
        yield {
            "selected": self.value() is None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "display": "open",
        }
        for value, label in self.lookup_choices:
            yield {
                "selected": self.value() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request, queryset):
        if self.value() == "closed":
            return queryset.filter(closed_at__isnull=False)
        if self.value() == "all":
            return queryset
        return queryset.filter(closed_at__isnull=True)


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["created_at", "job", "client", "product_code", "listing", "shown_price", "reason", "state",
                    "settle"]  # fmt: skip
    list_filter = [StateFilter, ClientFilter, "marketplace"]
    search_fields = ["product_code", "product_id", "title", "product_name"]
    search_help_text = "Product code, marketplace product id, or part of the listing's title or the product name."
    # Oldest first: an item waits no longer than the ones before it (review_item_open_idx serves it).
    ordering = ["created_at", "pk"]
    list_per_page = 50
    actions = None
    readonly_fields = [field.name for field in ReviewItem._meta.fields]

    def has_add_permission(self, request):
        return False  # written when a search finishes

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # closed by a correction, never deleted by hand

    @admin.display(description="job")
    def job(self, row):
        url = reverse("admin:jobs_job_change", args=[str(row.job_id)])
        return format_html('<a href="{}">{}</a>', url, str(row.job_id).split("-")[0])

    @admin.display(description="client")
    def client(self, row):
        return owners.names([row.client_id]).get(row.client_id, row.client_id or "")

    @admin.display(description="listing")
    def listing(self, row):
        return format_html(
            '[{}] <a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', row.marketplace, row.url, row.title
        )

    @admin.display(description="price", ordering="price")
    def shown_price(self, row):
        return won(row.price)

    @admin.display(description="state")
    def state(self, row):
        if row.closed_at is None:
            return "open"
        return f"closed by correction {row.closed_by_id}" if row.closed_by_id else "closed: the answer changed"

    @admin.display(description="settle")
    def settle(self, row):
        if row.closed_at is not None:
            return ""
        # The changelist is one form already: each button posts it to this item's own URL (its formaction).
        url = reverse("admin:corrections_reviewitem_settle", args=[row.pk])
        return format_html(
            '<button type="submit" formaction="{}" name="same_product" value="true" class="lps-correct-true">'
            "this product</button> "
            '<button type="submit" formaction="{}" name="same_product" value="false" class="lps-correct-false">'
            "not this product</button>",
            url,
            url,
        )

    def get_urls(self):
        settle = self.admin_site.admin_view(self.settle_view)
        return [path("<int:item_id>/settle/", settle, name="corrections_reviewitem_settle"), *super().get_urls()]

    def settle_view(self, request, item_id: int):
        """One click of the queue: the operator's correction of the item's listing, then back to the queue."""
        if (refused := refuse_unless_operator_post(request)) is not None:
            return refused
        item = get_object_or_404(ReviewItem, pk=item_id)
        # The job page's buttons come back to the job; the queue's to the queue.
        if request.POST.get("back") == "job":
            back = HttpResponseRedirect(reverse("admin:jobs_job_change", args=[str(item.job_id)]))
        else:
            back = HttpResponseRedirect(reverse("admin:corrections_reviewitem_changelist"))
        made = operator_correction(
            request,
            item.job_id,
            marketplace=item.marketplace,
            product_id=item.product_id,
            note="from the review queue",
            scope=Scope.CLIENT,
        )
        if made is None:
            return back
        said = "is" if made.correction.same_product else "is not"
        text = f"{item.title[:80]} ({won(item.price)}) {said} {item.product_code or 'the product'}."
        lowest = (made.current.get("lowest") or {}).get("price")
        if made.changed:
            text += f" The job now answers {won(lowest) if lowest is not None else 'not found'}."
        messages.success(request, text)
        return back
