"""What the crawler decides before any browser starts: which Chromium, which proxies, which settings, and how
a loaded page's status and content are judged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.block_detection import classify
from search.chromium import find_chromium
from search.crawl_records import end_reason
from search.crawler import Crawler
from search.exceptions import BrowserUnavailable
from search.listings import Listing
from search.models import SessionEndReason
from search.proxies import DIRECT, Proxy
from search.sources.base import ParsedPage
from search.sources.coupang import CoupangSource


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


# --- Finding Chromium -----------------------------------------------------------------------------------


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


# --- Proxies --------------------------------------------------------------------------------------------


def test_a_proxy_is_labelled_by_host_and_port_and_keeps_its_credentials_out_of_the_label():
    proxy = Proxy.parse("http://user:p%40ss@10.0.0.1:8080")

    assert proxy.label == "10.0.0.1:8080"
    assert proxy.playwright_settings() == {"server": "http://10.0.0.1:8080", "username": "user", "password": "p@ss"}


@pytest.mark.parametrize(
    ("spec", "label", "server"),
    [
        ("10.0.0.2:3128", "10.0.0.2:3128", "http://10.0.0.2:3128"),
        ("socks5://[::1]:1080", "[::1]:1080", "socks5://[::1]:1080"),
        (" https://proxy.example:443 ", "proxy.example:443", "https://proxy.example:443"),
    ],
)
def test_proxy_entries_are_read_with_http_as_the_default_scheme(spec, label, server):
    proxy = Proxy.parse(spec)

    assert (proxy.label, proxy.server) == (label, server)


@pytest.mark.parametrize("spec", ["direct", "", "none"])
def test_direct_means_no_proxy(spec):
    assert Proxy.parse(spec) == DIRECT
    assert DIRECT.playwright_settings() is None


@pytest.mark.parametrize("spec", ["ftp://10.0.0.1:21", "http://:8080", "http://user:secret@host:port"])
def test_a_bad_proxy_entry_is_refused_without_showing_its_password(spec):
    with pytest.raises(ValueError, match="not a proxy URL") as caught:
        Proxy.parse(spec)

    assert "secret" not in str(caught.value)


def test_the_crawler_takes_its_proxies_from_the_setting_or_goes_direct(settings):
    settings.LPS_PROXIES = ["http://10.0.0.1:8080", "10.0.0.2:3128"]

    assert [proxy.label for proxy in Crawler().proxies] == ["10.0.0.1:8080", "10.0.0.2:3128"]
    assert [proxy.label for proxy in Crawler(proxies=[]).proxies] == ["direct"]


# --- Settings and arguments -----------------------------------------------------------------------------


def test_the_crawler_takes_its_limits_from_the_settings(settings):
    settings.LPS_SESSION_REQUEST_BUDGET = 7
    settings.LPS_BROWSER_RECYCLE_PAGES = 70
    settings.LPS_NAVIGATION_TIMEOUT_SECONDS = 12.5

    crawler = Crawler(worker_id="w-1")

    assert (crawler.request_budget, crawler.recycle_after_pages, crawler.navigation_timeout) == (7, 70, 12.5)
    assert crawler.worker_id == "w-1"
    assert crawler.counters == {}  # nothing started


@pytest.mark.parametrize(
    "arguments",
    [{"request_budget": 0}, {"recycle_after_pages": 0}, {"navigation_timeout": 0}, {"proxies": ["ftp://x:1"]}],
)
def test_bad_crawler_arguments_are_refused_at_once(arguments):
    with pytest.raises(ValueError):  # noqa: PT011 - each argument has its own message
        Crawler(**arguments)


def test_session_end_reasons_are_named_by_their_labels():
    assert [end_reason(label) for label in ("budget", "Blocked", " shutdown ")] == [
        SessionEndReason.BUDGET,
        SessionEndReason.BLOCKED,
        SessionEndReason.SHUTDOWN,
    ]
    with pytest.raises(ValueError, match="unknown session end reason"):
        end_reason("tired")


def test_a_crawler_given_a_missing_chromium_fails_before_starting_anything(tmp_path):
    crawler = Crawler(chromium_path=str(tmp_path / "nowhere" / "chrome"), worker_id="lost")

    with pytest.raises(BrowserUnavailable, match="nowhere/chrome"):
        crawler.fetch(CoupangSource("http://127.0.0.1:1"), "버즈")

    assert crawler.counters == {}
    crawler.close()


def test_closing_a_crawler_that_never_started_is_harmless_and_can_be_repeated():
    crawler = Crawler(worker_id="idle")

    crawler.close()
    crawler.close(reason="recycled")

    assert crawler.counters == {}


# --- Judging a loaded page ------------------------------------------------------------------------------

RESULTS = ParsedPage(listings=[Listing(title="a", price=1, url="http://x/vp/products/1")])


@pytest.mark.parametrize(
    ("status", "parsed", "outcome", "kind"),
    [
        (200, RESULTS, "ok", ""),
        (200, ParsedPage(empty=True), "ok", ""),
        (403, ParsedPage(blocked_kind="akamai"), "blocked", "akamai"),
        (403, ParsedPage(blocked_kind="no_result_list"), "blocked", "http_403"),
        (429, ParsedPage(blocked_kind="rate_limited"), "blocked", "http_429"),
        (429, ParsedPage(blocked_kind="captcha"), "blocked", "captcha"),
        (403, RESULTS, "blocked", "http_403"),
        (200, ParsedPage(blocked_kind="challenge"), "blocked", "challenge"),
        (200, ParsedPage(blocked_kind="no_result_list"), "blocked", "no_result_list"),
        (500, ParsedPage(blocked_kind="no_result_list"), "error", "http_500"),
        (404, ParsedPage(blocked_kind="no_result_list"), "error", "http_404"),
        (None, RESULTS, "error", "navigation"),
        (200, ParsedPage(unread_cards=3), "error", "unreadable"),
    ],
)
def test_a_loaded_page_is_judged_by_its_status_first_and_its_content_next(status, parsed, outcome, kind):
    assert classify(status, parsed)[:2] == (outcome, kind)
