"""The watch gauges on the web's /metrics (read from the database at the scrape) and the scheduler's counters."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from api import keys
from tests.watches.helpers import make_due, make_watches
from watches import schedule
from watches.models import Watch

pytestmark = pytest.mark.django_db


def test_a_scrape_reports_watches_by_state_the_due_backlog_and_its_oldest(client, shop):
    operator = keys.issue_key("prometheus", operator=True)
    make_watches(shop.client.pk, 3)
    make_due(seconds_ago=600)
    Watch.objects.filter(product_code="W2").update(paused=True)

    text = client.get("/metrics", headers={"Authorization": f"Bearer {operator.api_key}"}).content.decode()

    assert 'lps_watches{state="active"} 2.0' in text
    assert 'lps_watches{state="paused"} 1.0' in text
    assert "lps_watches_due 2.0" in text
    oldest = next(line for line in text.splitlines() if line.startswith("lps_watch_oldest_overdue_seconds "))
    assert 590 <= float(oldest.split()[1]) < 700


def test_the_scheduler_counts_the_runs_it_enqueued_and_how_late_they_were(shop):
    def value(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = value("lps_watch_runs_scheduled_total", linked="false")
    lag_before = value("lps_watch_scheduler_lag_seconds_count")
    make_watches(shop.client.pk, 4)
    make_due()
    schedule.schedule_due(10)
    assert value("lps_watch_runs_scheduled_total", linked="false") == before + 4
    assert value("lps_watch_scheduler_lag_seconds_count") == lag_before + 4
