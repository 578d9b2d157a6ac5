"""Fixtures of the admin tests: a private snapshot folder per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def snapshot_dir(settings, tmp_path: Path) -> Path:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    settings.LPS_SNAPSHOT_DIR = folder
    return folder
