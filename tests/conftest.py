"""Shared fixtures: the real PostgreSQL through pytest-django; fakes only at the network edge.

The fakes are real servers on 127.0.0.1, each defined (with its fixtures) in its own module below.
"""

import shutil
import tempfile
from pathlib import Path

pytest_plugins = [
    "tests.fakes.marketplace",
    "tests.fakes.naver_api",
    "tests.fakes.openai_server",
    "tests.fakes.webhook_receiver",
]

_scratch: list[Path] = []


def pytest_configure(config):
    """Adjust settings for the whole test process, before any test module builds a WSGI application."""
    from django.conf import settings

    # Production serves hashed names from collectstatic's manifest; tests render pages without running it
    # (and whitenoise warns, an error here, when STATIC_ROOT does not exist).
    static_root = Path(tempfile.mkdtemp(prefix="lps-test-static-"))
    settings.STATIC_ROOT = static_root
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Failure snapshots (HTML, screenshots) of blocked test pages stay out of the project's .lps/.
    snapshots = Path(tempfile.mkdtemp(prefix="lps-test-snapshots-"))
    settings.LPS_SNAPSHOT_DIR = snapshots
    # Logins happen in many tests; a deliberately slow password hash only slows the suite down.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    _scratch.extend([static_root, snapshots])


def pytest_unconfigure(config):
    for folder in _scratch:
        shutil.rmtree(folder, ignore_errors=True)
