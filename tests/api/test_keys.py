"""API keys issued, authenticated and revoked, and the createapikey command of SPEC §8."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from api import keys
from api.exceptions import DuplicateClientName, InvalidRequest
from api.models import ApiClient

pytestmark = pytest.mark.django_db


def test_issue_key_returns_a_key_that_authenticates_and_a_webhook_secret():
    issued = keys.issue_key("shop-a")
    assert keys.authenticate(issued.api_key) == issued.client
    assert len(issued.webhook_secret) >= 32
    assert issued.client.webhook_secret == issued.webhook_secret
    assert not issued.client.is_operator


def test_revoke_turns_the_key_off():
    issued = keys.issue_key("shop-b", operator=True)
    keys.revoke(issued.client)
    assert keys.authenticate(issued.api_key) is None
    assert not ApiClient.objects.get(pk=issued.client.pk).is_active


@pytest.mark.parametrize("raw", [None, "", "lps_", "lps_zzzzzzzzzzzz_" + "a" * 43, "x" * 10_000, "lps_\x00"])
def test_authenticate_refuses_anything_that_is_not_an_issued_key(raw):
    keys.issue_key("shop-c")
    assert keys.authenticate(raw) is None


def test_a_second_client_with_the_same_name_is_refused():
    keys.issue_key("shop-d")
    with pytest.raises(DuplicateClientName):
        keys.issue_key("shop-d")


@pytest.mark.parametrize("name", ["", "   ", "n" * 201])
def test_a_client_name_must_be_one_to_two_hundred_characters(name):
    with pytest.raises(InvalidRequest):
        keys.issue_key(name)


def test_createapikey_prints_exactly_one_json_line_with_name_key_and_secret():
    out = io.StringIO()
    call_command("createapikey", "acme", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    printed = json.loads(lines[0])
    assert set(printed) == {"name", "api_key", "webhook_secret"}
    assert printed["name"] == "acme"
    client = keys.authenticate(printed["api_key"])
    assert (client.name, client.is_operator, client.webhook_secret) == ("acme", False, printed["webhook_secret"])


def test_createapikey_operator_makes_an_operator_key():
    out = io.StringIO()
    call_command("createapikey", "night-shift", "--operator", stdout=out)
    assert keys.authenticate(json.loads(out.getvalue())["api_key"]).is_operator


def test_createapikey_refuses_a_name_in_use():
    call_command("createapikey", "dup", stdout=io.StringIO())
    with pytest.raises(CommandError, match="already exists"):
        call_command("createapikey", "dup", stdout=io.StringIO())


def test_rotatewebhooksecret_prints_a_new_secret_once_and_keeps_the_key():
    issued = keys.issue_key("shop-rotate")
    out = io.StringIO()

    call_command("rotatewebhooksecret", "shop-rotate", stdout=out)

    line = json.loads(out.getvalue())
    client = ApiClient.objects.get(pk=issued.client.pk)
    assert line == {"name": "shop-rotate", "webhook_secret": client.webhook_secret}
    assert client.webhook_secret != issued.webhook_secret
    assert len(client.webhook_secret) >= 32
    assert keys.authenticate(issued.api_key) == client


def test_rotatewebhooksecret_refuses_an_unknown_or_revoked_client_and_changes_nothing():
    issued = keys.issue_key("shop-revoked")
    keys.revoke(issued.client)

    with pytest.raises(CommandError, match="no API client is named 'nobody'"):
        call_command("rotatewebhooksecret", "nobody", stdout=io.StringIO())
    with pytest.raises(CommandError, match="is revoked"):
        call_command("rotatewebhooksecret", "shop-revoked", stdout=io.StringIO())
    assert ApiClient.objects.get(pk=issued.client.pk).webhook_secret == issued.webhook_secret
