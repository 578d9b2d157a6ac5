"""How a loaded page's status and content are judged (search/block_detection.py): results, a block or an error."""

from __future__ import annotations

import pytest

from search.block_detection import classify
from search.listings import Listing
from search.sources.base import ParsedPage

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
