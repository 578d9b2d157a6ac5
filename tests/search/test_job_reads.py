"""What searches cost, read from the finished SEARCH jobs, and finding a product's jobs by code or name."""

from __future__ import annotations

import pytest

from jobs import queue, queue_reads
from jobs.models import JobStatus
from lps_site.job_types import JobType
from search import stats
from search.job_lookups import matching_product
from tests.jobs.queue_jobs import claim_one, new

pytestmark = pytest.mark.django_db


def test_hourly_costs_sum_the_search_costs_of_finished_searches():
    queue.enqueue_many([new(job_type=JobType.SEARCH) for _ in range(2)])
    for job, (ai, proxy) in zip(queue.claim("w1", limit=2), [(0.01, 0.02), (0.03, 0.0)], strict=True):
        cost = {"ai_usd": ai, "proxy_usd": proxy, "total_usd": ai + proxy}
        queue.complete(job, {"metrics": {"duration_ms": 1000, "cost": cost}})

    [hour] = stats.hourly_costs(hours=1)

    assert hour.jobs == 2
    assert hour.ai_usd == pytest.approx(0.04)
    assert hour.proxy_usd == pytest.approx(0.02)
    assert hour.total_usd == pytest.approx(0.06)
    assert hour.mean_duration_ms == pytest.approx(1000)
    assert stats.cost_last_hour_usd() == pytest.approx(0.06)


def test_list_jobs_pages_newest_first_and_filters_by_status_and_product():
    queue.enqueue_many(
        [new({"product_code": f"P{n}", "product_name": f"갤럭시 버즈 {n}"}, job_type=JobType.SEARCH) for n in range(5)]
    )
    queue.complete(claim_one(), {})

    page = queue_reads.list_jobs(page=1, page_size=2)
    assert page.total == 5
    assert len(page.jobs) == 2
    assert page.jobs[0].created_at >= page.jobs[1].created_at
    assert queue_reads.list_jobs(status=JobStatus.DONE).total == 1
    assert [job.payload["product_code"] for job in queue_reads.list_jobs(matching=matching_product("P3")).jobs] == [
        "P3"
    ]
    assert queue_reads.list_jobs(matching=matching_product("버즈")).total == 5
