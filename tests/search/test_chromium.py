"""Finding Chromium (search/chromium.py): LPS_CHROMIUM, else one on the PATH, else one Playwright installed;
never a download."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.chromium import find_chromium
from search.exceptions import BrowserUnavailable


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_chromium_anywhere(monkeypatch, settings, tmp_path):
    """A machine whose PATH holds no browser and where Playwright installed none."""
    settings.LPS_CHROMIUM = ""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "ms-playwright"))
    return tmp_path


def test_lps_chromium_names_the_browser_to_use(settings, tmp_path):
    settings.LPS_CHROMIUM = str(executable(tmp_path / "custom" / "chrome"))

    assert find_chromium() == settings.LPS_CHROMIUM


def test_lps_chromium_may_be_a_command_name_on_the_path(settings, monkeypatch, tmp_path):
    browser = executable(tmp_path / "bin" / "my-chromium")
    monkeypatch.setenv("PATH", str(browser.parent))
    settings.LPS_CHROMIUM = "my-chromium"

    assert find_chromium() == str(browser)


def test_an_lps_chromium_that_is_not_executable_is_refused_with_its_name(settings, tmp_path):
    settings.LPS_CHROMIUM = str(tmp_path / "missing" / "chrome")

    with pytest.raises(BrowserUnavailable, match="missing/chrome"):
        find_chromium()


def test_without_lps_chromium_the_distribution_package_on_the_path_is_used(no_chromium_anywhere, monkeypatch):
    browser = executable(no_chromium_anywhere / "bin" / "chromium-browser")
    monkeypatch.setenv("PATH", str(browser.parent))

    assert find_chromium() == str(browser)


def test_without_any_on_the_path_a_browser_playwright_installed_is_used(no_chromium_anywhere):
    older = executable(no_chromium_anywhere / "ms-playwright" / "chromium-1100" / "chrome-linux" / "chrome")
    newer = executable(no_chromium_anywhere / "ms-playwright" / "chromium-1200" / "chrome-linux64" / "chrome")

    assert find_chromium() == str(newer)
    assert os.path.exists(older)


def test_with_no_chromium_anywhere_the_crawler_says_how_to_get_one_and_downloads_nothing(no_chromium_anywhere):
    with pytest.raises(BrowserUnavailable, match="LPS_CHROMIUM"):
        find_chromium()

    assert not (no_chromium_anywhere / "ms-playwright").exists()
