"""API clients in the admin: the key is shown once at creation and works; revoking turns it off."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from api import keys
from api.models import ApiClient

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:api_apiclient_changelist")


def create(admin_client, name: str, *, operator: bool = False):
    data = {"name": name, **({"is_operator": "on"} if operator else {})}
    return admin_client.post(reverse("admin:api_apiclient_add"), data)


def test_creating_a_client_shows_its_working_key_once(admin_client):
    response = create(admin_client, "shop-a", operator=True)

    html = response.content.decode()
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    api_key = re.search(r'<code id="lps-api-key">([^<]+)</code>', html).group(1)
    client = keys.authenticate(api_key)
    assert client is not None
    assert client.name == "shop-a"
    assert client.is_operator
    assert re.search(r'<code id="lps-webhook-secret">([^<]+)</code>', html).group(1) == client.webhook_secret
    later = admin_client.get(reverse("admin:api_apiclient_change", args=[client.pk])).content.decode()
    listing = admin_client.get(CHANGELIST).content.decode()
    for page in (later, listing):
        assert api_key not in page
        assert client.key_hash not in page
        assert client.webhook_secret not in page
    assert f"lps_{client.key_prefix}_…" in listing


def test_a_duplicate_client_name_is_refused_with_a_form_error(admin_client):
    create(admin_client, "shop-a")

    response = create(admin_client, "shop-a")

    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert ApiClient.objects.filter(name="shop-a").count() == 1


def test_revoking_a_client_turns_its_key_off(admin_client):
    issued = keys.issue_key("shop-b")
    other = keys.issue_key("shop-c")

    response = admin_client.post(
        CHANGELIST, {"action": "revoke_selected", "_selected_action": [issued.client.pk]}, follow=True
    )

    assert "Revoked 1 key: shop-b" in response.content.decode()
    assert keys.authenticate(issued.api_key) is None
    assert keys.authenticate(other.api_key) is not None


def test_clients_are_never_edited_or_deleted_in_the_admin(admin_client):
    issued = keys.issue_key("shop-d")

    edit = admin_client.post(reverse("admin:api_apiclient_change", args=[issued.client.pk]), {"name": "renamed"})
    delete = admin_client.post(reverse("admin:api_apiclient_delete", args=[issued.client.pk]), {"post": "yes"})

    assert edit.status_code == 403
    assert delete.status_code == 403
    assert ApiClient.objects.get(pk=issued.client.pk).name == "shop-d"


def test_rotating_webhook_secrets_shows_each_new_secret_once_and_keeps_the_keys(admin_client):
    first, second = keys.issue_key("shop-r1"), keys.issue_key("shop-r2")
    revoked = keys.issue_key("shop-r3")
    keys.revoke(revoked.client)
    selected = [first.client.pk, second.client.pk, revoked.client.pk]

    response = admin_client.post(CHANGELIST, {"action": "rotate_webhook_secrets", "_selected_action": selected})

    html = response.content.decode()
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    shown = re.findall(r"<td>([^<]+)</td><td><code class=\"lps-webhook-secret\">([^<]+)</code>", html)
    stored = {client.name: client.webhook_secret for client in ApiClient.objects.filter(pk__in=selected)}
    assert shown == [("shop-r1", stored["shop-r1"]), ("shop-r2", stored["shop-r2"])]
    assert stored["shop-r1"] != first.webhook_secret
    assert stored["shop-r2"] != second.webhook_secret
    assert stored["shop-r3"] == revoked.webhook_secret
    assert keys.authenticate(first.api_key).pk == first.client.pk
    listing = admin_client.get(CHANGELIST).content.decode()
    assert stored["shop-r1"] not in listing
    assert stored["shop-r2"] not in listing
