"""The handler registry: which function runs each job type, and under which deadline.

Apps register their handlers in `AppConfig.ready()`:

    @handlers.register(JobType.SEARCH, deadline_setting="LPS_SEARCH_DEADLINE_SECONDS")
    def run_search(job: ClaimedJob, context: JobContext) -> dict: ...

A handler returns the job's result (a JSON-able dict) or raises. An exception whose class has
`retryable = False` ends the job DEAD at once; any other is a technical failure that the queue retries with
backoff. Long handlers check `context.cancelled` (set at the deadline and at a hard shutdown) or use
`context.remaining()` to bound their own waits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings

from jobs.exceptions import UnknownJobType
from jobs.models import JobType
from jobs.queue import ClaimedJob


@dataclass
class JobContext:
    """What a running handler may ask of the worker."""

    worker_id: str
    deadline: float
    """time.monotonic() at which the worker stops the handler."""
    cancelled: threading.Event = field(default_factory=threading.Event)

    def remaining(self) -> float:
        """Seconds left before the deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())


Handler = Callable[[ClaimedJob, JobContext], dict | None]


@dataclass(frozen=True)
class Registration:
    job_type: JobType
    handler: Handler
    deadline_setting: str

    @property
    def deadline_seconds(self) -> float:
        return float(getattr(settings, self.deadline_setting))

    @property
    def label(self) -> str:
        return JobType(self.job_type).label


_registry: dict[JobType, Registration] = {}
_shutdown_hooks: list[Callable[[], None]] = []


def register(job_type: JobType, *, deadline_setting: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of `job_type` (the last registration wins)."""

    def decorator(handler: Handler) -> Handler:
        _registry[job_type] = Registration(job_type, handler, deadline_setting)
        return handler

    return decorator


def get(job_type: JobType) -> Registration:
    """Return the registration of `job_type`; raise UnknownJobType when there is none."""
    try:
        return _registry[job_type]
    except KeyError:
        raise UnknownJobType(f"no handler registered for {JobType(job_type).label}") from None


def label(job_type: int) -> str:
    """What logs, metrics and the admin call `job_type`: its registered label, or its number when unknown."""
    registration = _registry.get(job_type)
    return registration.label if registration is not None else f"type {int(job_type)}"


def registered() -> dict[JobType, Registration]:
    return dict(_registry)


def on_worker_shutdown(hook: Callable[[], None]) -> Callable[[], None]:
    """Register `hook` to run once when a worker process stops (e.g. to close its browser)."""
    if hook not in _shutdown_hooks:
        _shutdown_hooks.append(hook)
    return hook


def shutdown_hooks() -> list[Callable[[], None]]:
    return list(_shutdown_hooks)
