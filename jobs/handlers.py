"""The handler registry: which function runs each job type, in which lane and under which deadline.

Apps register their handlers in `AppConfig.ready()`, with the lane the worker gives the type:

    @handlers.register(JobType.REPORT, label="REPORT", deadline_setting="LPS_REPORT_DEADLINE_SECONDS",
                       concurrency_setting="LPS_REPORT_CONCURRENCY")
    def build_report(job: ClaimedJob, context: JobContext) -> dict: ...

The queue knows a job type only as the number job.job_type stores; its label (what logs, metrics, the admin
and `runworker --<label>-concurrency` call it) and its lane come from here. A light type may ask for
`prefetch_rounds`: that many multiples of its concurrency are claimed ahead of the free handler threads.

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
from jobs.queue import ClaimedJob


@dataclass
class JobContext:
    """What a running handler may ask of the worker."""

    worker_id: str
    deadline: float
    """time.monotonic() at which the worker stops the handler."""
    cancelled: threading.Event = field(default_factory=threading.Event)

    def remaining(self) -> float:
        """Seconds left before the deadline (zero at the least)."""
        return max(0.0, self.deadline - time.monotonic())


Handler = Callable[[ClaimedJob, JobContext], dict | None]


@dataclass(frozen=True)
class Registration:
    """A job type's handler and its lane."""

    job_type: int
    handler: Handler
    label: str
    deadline_setting: str
    """The setting that holds the handler's run deadline in seconds."""
    concurrency_setting: str | None = None
    """The setting that holds how many of its handlers a worker runs at once (one when None)."""
    prefetch_rounds: int = 0
    """Jobs claimed ahead of the free handler threads, in multiples of the concurrency (0: never ahead)."""

    @property
    def deadline_seconds(self) -> float:
        return float(getattr(settings, self.deadline_setting))

    @property
    def concurrency(self) -> int:
        return 1 if self.concurrency_setting is None else int(getattr(settings, self.concurrency_setting))


_registry: dict[int, Registration] = {}
_shutdown_hooks: list[Callable[[], None]] = []


def register(
    job_type: int,
    *,
    label: str,
    deadline_setting: str,
    concurrency_setting: str | None = None,
    prefetch_rounds: int = 0,
) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of `job_type` (the last registration wins)."""
    if prefetch_rounds < 0:
        raise ValueError("prefetch_rounds must be zero or more")

    def decorator(handler: Handler) -> Handler:
        _registry[int(job_type)] = Registration(
            int(job_type), handler, label, deadline_setting, concurrency_setting, prefetch_rounds
        )
        # Imported here: jobs.metrics names job types through this registry.
        from jobs import metrics

        metrics.count_from_zero(label)
        return handler

    return decorator


def get(job_type: int) -> Registration:
    """Return the registration of `job_type`; raise UnknownJobType when there is none."""
    try:
        return _registry[job_type]
    except KeyError:
        raise UnknownJobType(f"no handler registered for {label(job_type)}") from None


def label(job_type: int) -> str:
    """What logs, metrics and the admin call `job_type`: its registered label, or its number when unknown."""
    registration = _registry.get(job_type)
    return registration.label if registration is not None else f"type {int(job_type)}"


def registered() -> dict[int, Registration]:
    return dict(_registry)


def on_worker_shutdown(hook: Callable[[], None]) -> Callable[[], None]:
    """Register `hook` to run once when a worker process stops (e.g. to close its browser)."""
    if hook not in _shutdown_hooks:
        _shutdown_hooks.append(hook)
    return hook


def shutdown_hooks() -> list[Callable[[], None]]:
    return list(_shutdown_hooks)
