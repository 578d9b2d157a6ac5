"""The reaper and the two thin commands, against the real PostgreSQL."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from django.utils import timezone

from jobs import queue, queue_reads
from jobs.models import Job, JobStatus
from jobs.reaper import Reaper, ReaperPass
from lps_site.job_types import JobType
from negative_cache import cache as negative_cache
from negative_cache.models import NegativeCacheEntry
from search.models import IpSession, SessionEndReason
from tests.addresses import database_url
from tests.jobs.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)


def finished_jobs(status: JobStatus, count: int, *, age: timedelta) -> None:
    queue.enqueue_many([queue.NewJob(JobType.OUTBOX, {}) for _ in range(count)])
    for job in queue.claim("w", limit=count):
        if status == JobStatus.DONE:
            queue.complete(job, {})
        else:
            queue.fail(job, "Boom: x", retryable=False)
    Job.objects.filter(status=status, updated_at__gt=timezone.now() - timedelta(minutes=1)).update(
        updated_at=timezone.now() - age
    )


def expired_running_jobs(count: int, *, max_attempts: int = 3) -> None:
    queue.enqueue_many([queue.NewJob(JobType.OUTBOX, {}, max_attempts=max_attempts) for _ in range(count)])
    queue.claim("gone", limit=count)
    Job.objects.filter(status=JobStatus.RUNNING, worker_id="gone").update(
        lease_until=timezone.now() - timedelta(seconds=5)
    )


def test_one_pass_reclaims_expired_leases_and_prunes_by_retention_and_purges_the_negative_cache():
    expired_running_jobs(3)
    expired_running_jobs(1, max_attempts=1)
    finished_jobs(JobStatus.DONE, 4, age=timedelta(days=8))
    finished_jobs(JobStatus.DONE, 2, age=timedelta(days=6))
    finished_jobs(JobStatus.DEAD, 2, age=timedelta(days=31))
    finished_jobs(JobStatus.DEAD, 1, age=timedelta(days=8))
    negative_cache.remember("code:OLD", ttl=timedelta(seconds=-1))
    negative_cache.remember("code:FRESH", ttl=timedelta(hours=1))

    outcome = Reaper(interval=60, batch_size=3).run_once()

    assert outcome == ReaperPass(
        requeued=3, dead=1, pruned_done=4, pruned_dead=2, maintained={"purge expired negative-cache rows": 1}
    )
    assert queue_reads.counts() == {"PENDING": 3, "RUNNING": 0, "DONE": 2, "DEAD": 2}
    assert list(NegativeCacheEntry.objects.values_list("key", flat=True)) == ["code:FRESH"]


def test_a_pass_over_nothing_does_nothing():
    assert Reaper(interval=60).run_once() == ReaperPass()


def test_the_reaper_loop_runs_a_pass_at_once_and_stops_when_asked():
    expired_running_jobs(2)
    reaper = Reaper(interval=60)
    exit_codes = []

    def run_reaper() -> None:
        try:
            exit_codes.append(reaper.run())
        finally:
            connections.close_all()

    loop = threading.Thread(target=run_reaper)
    loop.start()
    try:
        deadline = timezone.now() + timedelta(seconds=10)
        while Job.objects.filter(status=JobStatus.RUNNING).exists() and timezone.now() < deadline:
            threading.Event().wait(0.05)
    finally:
        reaper.stop()
        loop.join(5)

    assert not loop.is_alive()
    assert exit_codes == [0]
    assert queue_reads.counts()["PENDING"] == 2


def test_the_reaper_refuses_a_non_positive_interval():
    with pytest.raises(ValueError, match="interval"):
        Reaper(interval=0)


def test_runreaper_once_runs_one_pass_and_says_what_it_did():
    expired_running_jobs(2)
    out = io.StringIO()

    call_command("runreaper", "--once", stdout=out)

    assert "reclaimed 2" in out.getvalue()
    assert queue_reads.counts()["PENDING"] == 2


def test_runreaper_refuses_a_non_positive_interval():
    with pytest.raises(CommandError, match="--interval"):
        call_command("runreaper", "--interval", "0")


def _manage(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env={**os.environ, "DATABASE_URL": database_url()},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.slow
def test_runreaper_stops_cleanly_on_sigterm():
    reaper = _manage("runreaper", "--interval", "60")
    with reaper.stdout:
        for line in reaper.stdout:
            if "reaper: every" in line:
                break
        reaper.send_signal(signal.SIGTERM)
        output = reaper.stdout.read()
    try:
        assert reaper.wait(15) == 0
    finally:
        if reaper.poll() is None:
            reaper.kill()
            reaper.wait()
    assert "reaper: stopped" in output


@pytest.mark.slow
def test_runworker_burst_exits_0_when_nothing_is_claimable():
    queue.enqueue(queue.NewJob(JobType.OUTBOX, {}, delay_seconds=3600))
    worker = _manage("runworker", "--burst", "--search-concurrency", "1", "--outbox-concurrency", "1")

    output, _ = worker.communicate(timeout=30)

    assert worker.returncode == 0, output
    assert "burst done" in output
    assert queue_reads.counts()["PENDING"] == 1


def test_runworker_refuses_a_negative_concurrency():
    with pytest.raises(CommandError, match="search-concurrency"):
        call_command("runworker", "--search-concurrency", "-1")


def test_a_pass_ends_ip_sessions_a_dead_worker_left_open_and_deletes_old_snapshots(settings, tmp_path):
    settings.LPS_SNAPSHOT_DIR = tmp_path
    abandoned = IpSession.objects.create(proxy_label="direct", requests=3)
    IpSession.objects.filter(pk=abandoned.pk).update(started_at=timezone.now() - timedelta(hours=25))
    in_use = IpSession.objects.create(proxy_label="direct", requests=1)
    old_snapshot = tmp_path / "2026-11-01" / "blocked.html"
    old_snapshot.parent.mkdir()
    old_snapshot.write_text("<html>Access Denied</html>")
    eight_days_ago = time.time() - 8 * 24 * 3600
    os.utime(old_snapshot, (eight_days_ago, eight_days_ago))
    new_snapshot = tmp_path / "new.png"
    new_snapshot.write_bytes(b"\x89PNG")

    outcome = Reaper(interval=60).run_once()

    assert (outcome.maintained["end abandoned IP sessions"], outcome.maintained["delete old failure snapshots"]) == (
        1,
        1,
    )
    abandoned.refresh_from_db()
    in_use.refresh_from_db()
    assert (abandoned.end_reason, abandoned.ended_at is not None) == (SessionEndReason.ERROR, True)
    assert in_use.end_reason is None
    assert not old_snapshot.parent.exists()
    assert new_snapshot.exists()
