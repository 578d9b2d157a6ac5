"""What the crawler decides before any browser starts: its proxies, its limits and arguments, and what a crawler
that never started does."""

from __future__ import annotations

import pytest

from search.crawler import Crawler
from search.exceptions import BrowserUnavailable
from search.sources.coupang import CoupangSource

# --- Proxies --------------------------------------------------------------------------------------------


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
