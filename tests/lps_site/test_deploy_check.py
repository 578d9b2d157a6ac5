"""`manage.py check --deploy` in production mode (LPS_HTTPS=true and the production environment of
docs/operations.md) is clean; without LPS_HTTPS the same check names what is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "k3Q9vX2pL7sR4tW8yB1nM6cF0hJ5gD3aZ9uE2iO7qT4wY8xV1bN6mK0lP5rS3dG",
    "ALLOWED_HOSTS": "lps.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://lps.example.com",
    # The check never connects; a URL keeps the embedded PostgreSQL out of it.
    "DATABASE_URL": "postgres://lps:secret@db.invalid:5432/lps",
}


def deploy_check(**overrides: str) -> subprocess.CompletedProcess:
    # Only what a production process would have: the test process's own variables (DJANGO_ALLOW_ASYNC_UNSAFE,
    # set for the browser tests, among them) are not part of a deployment.
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), **PRODUCTION, **overrides}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_in_production_mode():
    checked = deploy_check(LPS_HTTPS="true")

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "System check identified no issues" in checked.stdout


def test_check_deploy_names_hsts_redirect_and_cookies_without_the_https_switch():
    checked = deploy_check(LPS_HTTPS="false")

    assert checked.returncode != 0
    # The session cookie is W010 (sessions installed), not W012: Django names W012 only when MIDDLEWARE holds its
    # own SessionMiddleware by name, and LPS's is a subclass (lps_site/browser_middleware.py).
    for warning in ("security.W004", "security.W008", "security.W010", "security.W016"):
        assert warning in checked.stderr + checked.stdout
