"""Admin logins are throttled by django-axes: after the failure limit, per address and per user name, a lockout
with a clear message that lifts after the cool-off or when an operator deletes the attempts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db

LOGIN = reverse("admin:login")
PASSWORD = "the-right-password"


@pytest.fixture
def operator_user(settings) -> User:
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    return User.objects.create_superuser("operator", "ops@example.test", PASSWORD)


def log_in(client, username: str, password: str, *, address: str = "198.51.100.7"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address)


def test_a_good_login_passes_before_any_failure(client, operator_user):
    response = log_in(client, "operator", PASSWORD)

    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_the_failure_limit_from_one_address_locks_it_out_with_a_clear_message(client, operator_user):
    for _ in range(3):
        assert log_in(client, "operator", "wrong").status_code in (200, 429)

    locked = log_in(client, "operator", PASSWORD)

    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Login locked" in page
    assert "Too many failed logins (3)" in page
    assert "0:15:00" in page
    assert "_auth_user_id" not in client.session


def test_the_failure_limit_for_one_user_name_locks_it_out_from_any_address(client, operator_user):
    for number in range(3):
        log_in(client, "operator", "wrong", address=f"203.0.113.{number + 1}")

    assert log_in(client, "operator", PASSWORD, address="192.0.2.50").status_code == 429
    # Another user from a fresh address is not locked out by the operator's failures.
    User.objects.create_superuser("second", "second@example.test", PASSWORD)
    assert log_in(client, "second", PASSWORD, address="192.0.2.51").status_code == 302


def test_the_lockout_lifts_once_the_cool_off_has_passed(client, operator_user):
    for _ in range(3):
        log_in(client, "operator", "wrong")
    assert log_in(client, "operator", PASSWORD).status_code == 429

    # The attempts are aged past the cool-off, as 15 minutes of waiting would.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))

    assert log_in(client, "operator", PASSWORD).status_code == 302


def test_operators_see_the_attempts_in_the_admin_and_deleting_them_lifts_the_lockout(
    client, admin_client, operator_user
):
    for _ in range(3):
        log_in(client, "operator", "wrong")
    assert log_in(client, "operator", PASSWORD).status_code == 429

    changelist = reverse("admin:axes_accessattempt_changelist")
    listed = admin_client.get(changelist).content.decode()
    assert "198.51.100.7" in listed
    assert "operator" in listed
    attempts = list(AccessAttempt.objects.values_list("pk", flat=True))
    admin_client.post(changelist, {"action": "delete_selected", "_selected_action": attempts, "post": "yes"})

    assert not AccessAttempt.objects.exists()
    assert log_in(client, "operator", PASSWORD).status_code == 302


def test_behind_a_trusted_proxy_the_throttle_counts_the_forwarded_client_not_the_proxy(client, operator_user, settings):
    settings.LPS_TRUSTED_PROXIES = 1
    proxy = "10.0.0.2"
    for _ in range(3):
        client.post(LOGIN, {"username": "somebody", "password": "wrong"}, REMOTE_ADDR=proxy,
                    HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9")  # fmt: skip

    # The attacker's address is locked out, whatever it claims further left; another client behind the proxy is not.
    spoofed = client.post(
        LOGIN, {"username": "operator", "password": PASSWORD}, REMOTE_ADDR=proxy,
        HTTP_X_FORWARDED_FOR="5.6.7.8, 198.51.100.9",
    )  # fmt: skip
    other = client.post(
        LOGIN, {"username": "operator", "password": PASSWORD, "next": "/admin/"}, REMOTE_ADDR=proxy,
        HTTP_X_FORWARDED_FOR="192.0.2.77",
    )  # fmt: skip

    assert spoofed.status_code == 429
    assert other.status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.9"}
