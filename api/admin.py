"""API clients in the admin: create one (its key and webhook secret are shown once, on the page that answers
the create), revoke keys, rotate webhook secrets (the new ones shown once, on the page that answers the action).
The key's hash and the webhook secret are never shown afterwards."""

from __future__ import annotations

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html, format_html_join

from api import keys
from api.models import ApiClient
from jobs import owners
from jobs.admin_lists import BigTableAdmin

SHOWN_FIELDS = ["name", "key_shown", "is_operator", "is_active", "created_at", "last_used_at", "jobs"]


def client_names(ids) -> dict[int, str]:
    return dict(ApiClient.objects.filter(pk__in=list(ids)).values_list("pk", "name"))


def client_choices() -> list[tuple[int, str]]:
    return list(ApiClient.objects.order_by("name").values_list("pk", "name"))


# A job's owner_id is the API client that created it: the job admin shows and filters it by the client's name.
owners.register(owners.OwnerDirectory(label="client", names=client_names, choices=client_choices))


def jobs_url(client: ApiClient) -> str:
    """The job admin's list of `client`'s jobs."""
    return reverse("admin:jobs_job_changelist") + f"?owner={client.pk}"


@admin.register(ApiClient)
class ApiClientAdmin(BigTableAdmin):
    list_display = ["name", "key_shown", "is_operator", "is_active", "created_at", "last_used_at", "jobs"]
    list_filter = ["is_active", "is_operator"]
    search_fields = ["name"]
    ordering = ["name"]
    actions = ["revoke_selected", "rotate_webhook_secrets"]

    def get_fields(self, request, obj=None):
        return ["name", "is_operator"] if obj is None else SHOWN_FIELDS

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else SHOWN_FIELDS

    def has_change_permission(self, request, obj=None):
        # A client is created and revoked, never edited: a new key means a new client.
        return False

    def has_delete_permission(self, request, obj=None):
        # Revoked clients stay, so that their jobs and logs keep a name.
        return False

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("api.change_apiclient")

    @admin.display(description="jobs")
    def jobs(self, client):
        return format_html('<a href="{}">jobs of {}</a>', jobs_url(client), client.name)

    @admin.display(description="key")
    def key_shown(self, client):
        return f"lps_{client.key_prefix}_…"

    def save_model(self, request, obj, form, change):
        issued = keys.issue_key(form.cleaned_data["name"], operator=form.cleaned_data["is_operator"])
        obj.pk = issued.client.pk
        obj.key_prefix = issued.client.key_prefix
        obj.created_at = issued.client.created_at
        obj.issued_key = issued

    def response_add(self, request, obj, post_url_continue=None):
        """Answer the create with the key itself, once: it is stored nowhere (not even in a message cookie)."""
        issued = getattr(obj, "issued_key", None)
        if issued is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "title": f"API key for {obj.name}",
            "opts": self.opts,
            "client": obj,
            "api_key": issued.api_key,
            "webhook_secret": issued.webhook_secret,
        }
        response = TemplateResponse(request, "admin/api/apiclient/key_issued.html", context)
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke the keys of the selected clients", permissions=["revoke"])
    def revoke_selected(self, request, queryset):
        revoked = []
        for client in queryset.filter(is_active=True):
            keys.revoke(client)
            revoked.append(client)
        if not revoked:
            self.message_user(request, "The selected clients were already revoked.", messages.WARNING)
            return
        names = format_html_join(", ", "{}", ((client.name,) for client in revoked))
        self.message_user(
            request, format_html("Revoked {} key{}: {}", len(revoked), "" if len(revoked) == 1 else "s", names)
        )

    @admin.action(description="Give the selected clients new webhook secrets (shown once)", permissions=["revoke"])
    def rotate_webhook_secrets(self, request, queryset):
        active = list(queryset.filter(is_active=True).order_by("name"))
        if not active:
            self.message_user(request, "The selected clients are revoked: they get no webhooks.", messages.WARNING)
            return None
        rotated = [(client, keys.rotate_webhook_secret(client)) for client in active]
        context = {
            **self.admin_site.each_context(request),
            "title": "New webhook secrets",
            "opts": self.opts,
            "rotated": rotated,
        }
        response = TemplateResponse(request, "admin/api/apiclient/secrets_rotated.html", context)
        add_never_cache_headers(response)
        return response
