"""The scheduler in real processes against the test database: racing schedulers and one killed mid-pass."""

from __future__ import annotations

import signal
from collections import Counter

import pytest
from django.utils import timezone

from api import keys
from jobs.models import Job
from lps_site.job_types import JobType
from tests.jobs.conftest import wait_until
from tests.watches.helpers import finish, make_due, make_watches, scheduler_process, start_schedulers
from watches.models import Watch

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def watch_ids_of_search_jobs() -> Counter:
    return Counter(Job.objects.filter(job_type=JobType.SEARCH).values_list("payload__watch_id", flat=True))


def test_four_scheduler_processes_over_a_thousand_due_watches_make_exactly_a_thousand_jobs_none_twice():
    shop = keys.issue_key("shop")
    make_watches(shop.client.pk, 1000)
    make_due()

    schedulers = [scheduler_process(batch=10) for _ in range(4)]
    start_schedulers(*schedulers)
    outputs = [finish(process) for process in schedulers]

    assert [process.returncode for process in schedulers] == [0, 0, 0, 0], [err[-2000:] for _, err in outputs]
    totals = [int(out.strip()) for out, _ in outputs]
    assert sum(totals) == 1000
    assert sum(1 for total in totals if total > 0) > 1, "one process scheduled everything: no race happened"
    per_watch = watch_ids_of_search_jobs()
    assert len(per_watch) == 1000
    assert set(per_watch.values()) == {1}
    watches = list(Watch.objects.all())
    assert all(watch.next_run_at > timezone.now() for watch in watches)
    jobs = dict(Job.objects.filter(job_type=JobType.SEARCH).values_list("payload__watch_id", "job_id"))
    assert all(watch.pending_job_id == jobs[watch.pk] for watch in watches)


def test_a_scheduler_killed_in_the_middle_of_a_pass_loses_and_doubles_nothing():
    shop = keys.issue_key("shop")
    make_watches(shop.client.pk, 20_000)
    make_due()

    doomed = scheduler_process(batch=200)
    start_schedulers(doomed)
    wait_until(lambda: Job.objects.filter(job_type=JobType.SEARCH).exists(), timeout=60, message="a first batch")
    doomed.send_signal(signal.SIGKILL)
    finish(doomed)
    assert doomed.returncode == -signal.SIGKILL

    # Whatever the kill interrupted rolled back as a whole: a watch moved on has its job, one not moved has none.
    now = timezone.now()
    moved = set(Watch.objects.filter(next_run_at__gt=now).values_list("pk", flat=True))
    linked = set(Watch.objects.filter(pending_job_id__isnull=False).values_list("pk", flat=True))
    per_watch = watch_ids_of_search_jobs()
    assert moved == linked == set(per_watch)
    assert 0 < len(moved) < 20_000, "the kill came after the pass ended: nothing was interrupted"

    survivor = scheduler_process(batch=500)
    start_schedulers(survivor)
    out, err = finish(survivor)
    assert survivor.returncode == 0, err[-2000:]
    assert int(out.strip()) == 20_000 - len(moved)
    per_watch = watch_ids_of_search_jobs()
    assert len(per_watch) == 20_000
    assert set(per_watch.values()) == {1}
