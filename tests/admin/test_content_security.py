"""The admin's Content-Security-Policy: every page carries it, with a fresh nonce that the console's inline blocks
carry too (a browser checks the rest: tests/admin/test_browser.py); the JSON API carries none."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db

NONCE = re.compile(r"'nonce-([A-Za-z0-9_-]+)'")


def nonces(response) -> tuple[str, set[str]]:
    """The policy's nonce and the nonces of the page's inline <style> and <script> blocks."""
    header = response["Content-Security-Policy"]
    (in_header,) = set(NONCE.findall(header))
    html = response.content.decode()
    inline = re.findall(r"<(?:style|script)(?![^>]*\bsrc=)([^>]*)>", html)
    return in_header, {(re.search(r'nonce="([^"]*)"', attrs) or [None, ""])[1] for attrs in inline}


@pytest.mark.parametrize("path", ["/admin/", "/admin/dashboard/", "/admin/jobs/job/", "/admin/api/apiclient/"])
def test_every_inline_block_of_an_admin_page_carries_the_policy_s_nonce(admin_client, path):
    response = admin_client.get(path)
    assert response.status_code == 200
    in_header, inline = nonces(response)
    assert inline == {in_header}
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_each_request_gets_a_fresh_nonce(admin_client):
    assert nonces(admin_client.get("/admin/"))[0] != nonces(admin_client.get("/admin/"))[0]


def test_the_login_and_lockout_pages_carry_the_policy_too(client, settings):
    settings.AXES_FAILURE_LIMIT = 2
    User.objects.create_superuser("operator", "ops@example.test", "right-password")
    login = client.get("/admin/login/")
    assert nonces(login)[1] == {nonces(login)[0]}
    for _ in range(3):
        locked = client.post("/admin/login/", {"username": "operator", "password": "wrong"}, REMOTE_ADDR="192.0.2.4")
    assert "locked out" in locked.content.decode().lower() or locked.status_code == 429
    in_header, inline = nonces(locked)
    assert inline <= {in_header}


def test_the_json_api_carries_no_page_policy(client):
    assert "Content-Security-Policy" not in client.get("/v1/lps/queue/stats")
