"""The scheduler in-process against the real database: due times on each watch's grid, one run for many missed,
catch-up spread, pause, a client's active search linked rather than doubled, and first runs spread over the
interval."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from jobs import queue
from jobs.models import Job, JobStatus, Priority
from lps_site.job_types import JobType
from tests.watches.helpers import make_due, make_watches
from watches import schedule, store
from watches.models import Watch
from watches.spec import WatchProduct

pytestmark = pytest.mark.django_db


def test_a_watch_that_missed_several_due_times_is_searched_once_and_keeps_its_grid(shop):
    make_watches(shop.client.pk, 1, every="1h")
    # Its grid started 5 h 10 min ago: five due times were missed.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE watch SET schedule_anchor = now() - interval '310 minutes',"
            " next_run_at = now() - interval '10 minutes'"
        )
    anchor = Watch.objects.get().schedule_anchor

    assert len(schedule.schedule_due(100)) == 1
    assert schedule.schedule_due(100) == []

    watch = Watch.objects.get()
    assert Job.objects.filter(job_type=JobType.SEARCH).count() == 1
    due_on_grid = anchor + timedelta(hours=6)
    assert due_on_grid <= watch.next_run_at <= due_on_grid + timedelta(seconds=36 + 1)  # 1 % of 1 h of jitter


def test_a_run_later_than_the_catch_up_limit_is_held_back_within_the_spread_window_and_an_on_time_one_is_not():
    with override_settings(LPS_WATCH_CATCHUP_AFTER_SECONDS=300, LPS_WATCH_CATCHUP_SPREAD_SECONDS=1800):
        assert schedule.catch_up_delay(7, 60, 3600) == 0
        delays = [schedule.catch_up_delay(watch_id, 7200, 86400) for watch_id in range(2000)]
        assert all(0 <= delay < 1800 for delay in delays)
        # Spread, not bunched: every tenth of the window holds about a tenth of the runs.
        tenths = [sum(1 for delay in delays if index * 180 <= delay < (index + 1) * 180) for index in range(10)]
        assert min(tenths) > 120
        assert max(schedule.catch_up_delay(watch_id, 7200, 3600) for watch_id in range(200)) < 1800


def test_after_an_outage_the_runs_arrive_spread_over_the_catch_up_window(shop):
    make_watches(shop.client.pk, 200, every="1d")
    make_due(seconds_ago=3 * 3600)
    schedule.schedule_due(500)
    waits = sorted(
        (job.run_after - job.created_at).total_seconds() for job in Job.objects.filter(job_type=JobType.SEARCH)
    )
    assert waits[0] < 60
    assert waits[-1] > 1500


def test_a_paused_watch_is_not_searched_and_once_resumed_runs_once_then_keeps_its_schedule(shop, as_shop):
    make_watches(shop.client.pk, 1)
    make_due()
    assert as_shop.post("/v1/lps/watches/W0/pause").json() == {"result": 0, "product_code": "W0", "paused": True}
    assert schedule.schedule_due(100) == []
    assert not Job.objects.exists()

    assert as_shop.post("/v1/lps/watches/W0/resume").json()["paused"] is False
    assert len(schedule.schedule_due(100)) == 1
    assert schedule.schedule_due(100) == []
    assert Watch.objects.get().next_run_at > timezone.now()


def test_a_due_run_of_a_code_the_client_is_searching_already_is_linked_to_that_search_not_doubled(shop, as_shop):
    make_watches(shop.client.pk, 1)
    (own,) = as_shop.post("/v1/lps/search", {"products": [{"product_code": "W0", "product_name": "상품 0"}]}).json()[
        "jobs"
    ]
    make_due()

    (run,) = schedule.schedule_due(100)

    assert run.linked
    assert run.job_id == own["job_id"]
    assert Job.objects.count() == 1
    assert str(Watch.objects.get().pending_job_id) == own["job_id"]


def test_the_scheduled_search_is_low_priority_owned_by_the_client_and_names_its_watch(shop):
    make_watches(shop.client.pk, 1, brand="삼성", price=1000)
    make_due()
    schedule.schedule_due(10)
    job = Job.objects.get()
    watch = Watch.objects.get()
    assert (job.priority, job.owner_id, job.status) == (Priority.LOW, shop.client.pk, JobStatus.PENDING)
    assert job.payload == {
        "product_code": "W0",
        "product_name": "상품 0",
        "brand": "삼성",
        "price": 1000,
        "client_id": shop.client.pk,
        "watch_id": watch.pk,
    }
    assert job.dedupe_key == f"search:{shop.client.pk}:W0"


def test_the_watch_dedupe_key_is_the_one_the_api_gives_a_clients_search(shop):
    from api.submit import search_dedupe_key

    assert store.search_dedupe_key(shop.client.pk, "SKU-9") == search_dedupe_key("SKU-9", shop.client)


def test_watches_posted_together_have_their_first_runs_spread_over_their_interval(shop):
    now = timezone.now()
    make_watches(shop.client.pk, 2000, every="1h")
    offsets = [(watch.next_run_at - now).total_seconds() for watch in Watch.objects.all()]
    assert all(-5 <= offset <= 3600 + 5 for offset in offsets)
    per_ten_minutes = [sum(1 for offset in offsets if index * 600 <= offset < (index + 1) * 600) for index in range(6)]
    assert max(per_ten_minutes) < 2 * min(per_ten_minutes)


def test_posting_a_watch_again_updates_it_and_keeps_its_schedule_unless_its_interval_changed(shop):
    spec = WatchProduct(product_code="A", product_name="상품", every="6h")
    assert [row.created for row in store.upsert(shop.client.pk, [spec])] == [True]
    before = Watch.objects.get()
    renamed = WatchProduct(product_code="A", product_name="새 이름", every="6h")
    assert [row.created for row in store.upsert(shop.client.pk, [renamed])] == [False]
    same = Watch.objects.get()
    assert (same.product["product_name"], same.next_run_at) == ("새 이름", before.next_run_at)
    store.upsert(shop.client.pk, [WatchProduct(product_code="A", product_name="새 이름", every="1d")])
    changed = Watch.objects.get()
    assert changed.every_seconds == 86400
    assert changed.schedule_anchor != before.schedule_anchor


def test_run_now_searches_at_normal_priority_and_leaves_the_next_due_time(shop, as_shop):
    make_watches(shop.client.pk, 1)
    before = Watch.objects.get().next_run_at
    answer = as_shop.post("/v1/lps/watches/W0/run").json()
    assert answer["duplicate"] is False
    job = Job.objects.get(job_id=answer["job_id"])
    assert job.priority == Priority.NORMAL
    assert Watch.objects.get().next_run_at == before
    assert as_shop.post("/v1/lps/watches/W0/run").json() == {**answer, "duplicate": True}


def test_run_now_while_a_scheduled_run_is_queued_makes_that_run_search_in_a_browser_too(shop, as_shop):
    make_watches(shop.client.pk, 1)
    scheduled = queue.enqueue(store.search_job(Watch.objects.get()))
    assert "fresh" not in Job.objects.get(job_id=scheduled.job_id).payload

    answer = as_shop.post("/v1/lps/watches/W0/run").json()

    assert (answer["job_id"], answer["duplicate"]) == (str(scheduled.job_id), True)
    assert Job.objects.get(job_id=scheduled.job_id).payload["fresh"] is True
