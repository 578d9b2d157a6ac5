"""The browser's middlewares (sessions, users, messages) pass the API's paths straight through and keep doing
everything they did for the admin, its CSRF protection and framing header included (lps_site/browser_middleware.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from api import keys

pytestmark = pytest.mark.django_db

SEARCH = {"products": [{"product_code": "P1", "product_name": "상품"}]}


def test_an_api_answer_carries_no_cookie_and_keeps_the_security_headers(client):
    shop = keys.issue_key("shop")
    queued = client.post("/v1/lps/search", SEARCH, content_type="application/json", headers={"X-API-Key": shop.api_key})
    assert not queued.cookies
    job_id = queued.json()["jobs"][0]["job_id"]
    response = client.get(f"/v1/lps/jobs/{job_id}", headers={"X-API-Key": shop.api_key})
    assert response.status_code == 200
    assert not response.cookies
    assert "Vary" not in response
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Content-Type"] == "application/json; charset=utf-8"


def test_an_api_post_with_a_session_cookie_and_no_csrf_token_is_taken():
    browser = Client(enforce_csrf_checks=True)
    browser.cookies["sessionid"] = "not-a-session"
    shop = keys.issue_key("shop")
    response = browser.post(
        "/v1/lps/search",
        SEARCH,
        content_type="application/json",
        headers={"X-API-Key": shop.api_key},
    )
    assert response.status_code == 202, response.content
    assert not response.cookies


def test_the_admin_login_page_still_sets_its_csrf_cookie_and_refuses_framing():
    response = Client().get("/admin/login/")
    assert response.status_code == 200
    assert "csrftoken" in response.cookies
    assert response["X-Frame-Options"] == "DENY"
    assert "Content-Security-Policy" in response


def test_an_admin_login_posted_without_its_csrf_token_is_still_refused(admin_user):
    response = Client(enforce_csrf_checks=True).post("/admin/login/", {"username": "admin", "password": "password"})
    assert response.status_code == 403


def test_a_signed_in_operator_keeps_the_session_and_sees_the_admin_s_messages(admin_client):
    assert admin_client.get("/admin/").status_code == 200
    # An action with nothing selected: the admin says so in a message, carried to the next page.
    response = admin_client.post("/admin/jobs/job/", {"action": "delete_selected", "index": 0}, follow=True)
    assert response.status_code == 200
    assert "Items must be selected in order to perform actions on them" in response.content.decode()
