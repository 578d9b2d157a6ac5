"""Fixtures of the admin tests: admin pages rendered without a collectstatic manifest, a private snapshot folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _static_without_manifest(settings, tmp_path_factory):
    # Production serves hashed names from collectstatic's manifest; tests render pages without running it
    # (and whitenoise warns, an error here, when STATIC_ROOT does not exist).
    settings.STATIC_ROOT = tmp_path_factory.mktemp("static_root")
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Logins are part of every admin test; a deliberately slow hash only slows the suite down here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def snapshot_dir(settings, tmp_path: Path) -> Path:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    settings.LPS_SNAPSHOT_DIR = folder
    return folder
