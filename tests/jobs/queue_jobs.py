"""Jobs for the queue's tests: a NewJob in one call, one claimed job, a lease run out."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from jobs import queue
from jobs.models import Job
from lps_site.job_types import JobType


def new(payload: dict | None = None, *, job_type: JobType = JobType.OUTBOX, **options) -> queue.NewJob:
    return queue.NewJob(job_type, payload or {}, **options)


def claim_one(worker_id: str = "w1", **options) -> queue.ClaimedJob:
    [job] = queue.claim(worker_id, **options)
    return job


def expire_lease(job_id) -> None:
    Job.objects.filter(job_id=job_id).update(lease_until=timezone.now() - timedelta(seconds=1))
