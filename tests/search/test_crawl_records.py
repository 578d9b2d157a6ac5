"""What the crawler writes (search/crawl_records.py): the session end reasons it is given by name."""

from __future__ import annotations

import pytest

from search.crawl_records import end_reason
from search.models import SessionEndReason


def test_session_end_reasons_are_named_by_their_labels():
    assert [end_reason(label) for label in ("budget", "Blocked", " shutdown ")] == [
        SessionEndReason.BUDGET,
        SessionEndReason.BLOCKED,
        SessionEndReason.SHUTDOWN,
    ]
    with pytest.raises(ValueError, match="unknown session end reason"):
        end_reason("tired")
