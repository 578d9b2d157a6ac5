"""The lanes and their handler threads: where a claimed attempt runs, and how its outcome gets back.

Each registered job type gets a lane (jobs.handlers.register): its handler threads, up to its concurrency,
and how many jobs may wait claimed ahead of them. A heavy type (a browser, minutes per job) is never claimed
ahead, so no job waits in one worker while another is idle; a light type (an HTTP call) is claimed a few
rounds ahead of its free threads.

Handlers run in threads, each with Django's per-thread connection. A handler thread turns what the handler
returned or raised into an Outcome (checking that a result is JSON that jsonb can hold), puts the run on the
worker's `Wakeup.finished` queue and wakes the main thread, which alone writes to the queue. Quick handlers
leave the waking to the one that empties the inbox, so a turn of a light lane carries a whole batch.
"""

from __future__ import annotations

import ctypes
import enum
import json
import logging
import math
import queue as threadqueue
import re
import threading
import time
from dataclasses import dataclass, field

from django.db import close_old_connections, connections

from jobs import handlers, queue
from jobs import metrics as job_metrics
from jobs.exceptions import InvalidJobResult, JobDeadlineExceeded
from jobs.handlers import JobContext, Registration
from jobs.outcomes import Outcome, format_error, job_log_context, retry_in

# One logger for the whole worker: its lines read as one process's, wherever in jobs/ they are written.
log = logging.getLogger("jobs.worker")

# A NUL character as json.dumps writes it (an unescaped backslash, then u0000): jsonb refuses it.
_ESCAPED_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")
# A handler this quick, with claimed work still waiting, leaves its outcome for the batch (see _execute).
QUICK_RUN_SECONDS = 0.005


class RunState(enum.Enum):
    RUNNING = "running"
    """The handler runs (or is about to); only the main thread or the handler's thread moves it on."""
    FINISHED = "finished"
    """The handler returned or raised; its outcome is to be recorded."""
    STOPPED = "stopped"
    """Past its deadline: the attempt was failed by the main thread and the handler told to stop."""
    LOST = "lost"
    """The lease is gone (reaped, re-claimed): whatever the handler returns is thrown away."""
    RELEASED = "released"
    """Handed back at shutdown before it could finish."""


@dataclass(eq=False)
class Run:
    """One claimed attempt on its way through a handler thread."""

    job: queue.ClaimedJob
    registration: Registration
    context: JobContext
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: RunState = RunState.RUNNING
    started: float | None = None
    """time.monotonic() when its handler started; None while it waits for a handler thread."""
    thread: threading.Thread | None = None
    thread_ident: int | None = None
    outcome: Outcome | None = None

    @classmethod
    def claimed(cls, job: queue.ClaimedJob, registration: Registration, worker_id: str) -> Run:
        # The deadline starts with the handler, not while the job waits for a thread.
        return cls(job=job, registration=registration, context=JobContext(worker_id, deadline=math.inf))


@dataclass(eq=False)
class Wakeup:
    """How handler threads reach the worker's main thread, which sleeps on `event`."""

    event: threading.Event = field(default_factory=threading.Event)
    finished: threadqueue.SimpleQueue[Run] = field(default_factory=threadqueue.SimpleQueue)
    """Runs whose handler ended (or that never started because their lease went), for the main thread."""
    at: float | None = None
    """When the main thread plans to wake (time.monotonic()); None while it plans."""


def raise_in_thread(thread_ident: int, exc_type: type[BaseException] | None) -> None:
    """Make `exc_type` raise in the thread at its next bytecode (None withdraws a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_ident), ctypes.py_object(exc_type) if exc_type is not None else None
    )


class Lane:
    """The slots and the handler threads of one job type.

    At most `concurrency` handlers run at once; up to `prefetch` more claimed jobs wait in the inbox so
    that the threads of a light job type never sit idle while the main thread talks to the database.
    """

    def __init__(self, job_type: int, registration: Registration, concurrency: int, prefetch: int, wakeup: Wakeup):
        self.job_type = job_type
        self.registration = registration
        self.concurrency = concurrency
        self.prefetch = prefetch
        self.wakeup = wakeup
        self.inbox: threadqueue.SimpleQueue[Run | None] = threadqueue.SimpleQueue()
        # The threads serving the inbox; one stopped at a deadline leaves the set (it may stay stuck).
        self.threads: set[threading.Thread] = set()
        # Runs handed to this lane and not yet collected: waiting in the inbox or running.
        self.held = 0
        # Claim again at the next turn: set by a NOTIFY for this type, the slow poll, a reconnect.
        self.wanted = True
        # The last claim filled every free slot, so more jobs are probably due.
        self.saturated = False

    @property
    def free(self) -> int:
        return self.concurrency + self.prefetch - self.held

    def hand(self, run: Run) -> None:
        """Queue `run` for a handler thread, starting one if the lane has a free slot."""
        self.held += 1
        self.inbox.put(run)
        self.staff()

    def staff(self) -> None:
        """Start handler threads until the lane has one per held job, up to its concurrency."""
        while len(self.threads) < min(self.concurrency, self.held):
            thread = threading.Thread(
                target=self._handler_thread, name=f"lps-{self.registration.label.lower()}", daemon=True
            )
            self.threads.add(thread)
            thread.start()

    def close(self) -> None:
        """Tell every idle handler thread to end."""
        for _ in range(len(self.threads)):
            self.inbox.put(None)

    def _handler_thread(self) -> None:
        try:
            while True:
                run = self.inbox.get()
                if run is None:
                    return
                # Plain try/except, not contextlib.suppress: a stop landing inside suppress.__exit__ would escape.
                try:  # noqa: SIM105
                    self._execute(run)
                except JobDeadlineExceeded:
                    # The stop aimed at this run landed after its handler had returned; already recorded.
                    pass
                try:
                    if run.state is RunState.STOPPED and run.thread_ident is not None:
                        # Withdraw a stop still pending for this thread; a thread was started in its place
                        # when it was stopped, so this one ends here.
                        raise_in_thread(run.thread_ident, None)
                        return
                except JobDeadlineExceeded:
                    return
        finally:
            self.threads.discard(threading.current_thread())
            connections.close_all()

    def _execute(self, run: Run) -> None:
        # Set in the handler's own thread: every line of the handler (and of what it calls) names its job.
        with job_log_context(run.job):
            self._execute_in_context(run)

    def _execute_in_context(self, run: Run) -> None:
        job, wakeup = run.job, self.wakeup
        with run.lock:
            if run.state is RunState.RUNNING:
                run.thread = threading.current_thread()
                run.thread_ident = threading.get_ident()
                run.started = time.monotonic()
                run.context.deadline = run.started + run.registration.deadline_seconds
        if run.thread_ident is None:
            if run.state is RunState.LOST:
                # Its lease went while it waited: the main thread frees its slot.
                wakeup.finished.put(run)
                wakeup.event.set()
            return  # released at shutdown: the main thread has freed its slot already
        wake_at = wakeup.at
        if wake_at is None or run.context.deadline < wake_at:
            wakeup.event.set()  # the main thread must watch this deadline sooner than it planned to wake
        elif not wakeup.finished.empty() and self.inbox.empty():
            wakeup.event.set()  # quick outcomes left for the batch must not wait behind this run
        log.info("start %s %s attempt %d/%d", handlers.label(job.job_type), job.job_id, job.attempt, job.max_attempts)
        job_metrics.JOB_RUNS_STARTED.labels(handlers.label(job.job_type)).inc()
        if job.attempt == 1:
            # Wall clock against the database's created_at: clocks apart by a little must not take it below zero.
            waited = max(0.0, time.time() - job.created_at.timestamp())
            job_metrics.JOB_QUEUE_WAIT_SECONDS.labels(handlers.label(job.job_type)).observe(waited)
        close_old_connections()
        try:
            result = run.registration.handler(job, run.context)
            if result is not None and not isinstance(result, dict):
                raise InvalidJobResult(f"the handler returned a {type(result).__name__}, not a dict")
            try:
                encoded = json.dumps(result, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise InvalidJobResult(f"the handler's result is not JSON: {exc}") from exc
            if _ESCAPED_NUL.search(encoded):
                raise InvalidJobResult("the handler's result holds a NUL character, which jsonb refuses")
            outcome = Outcome(job, result=result)
        except Exception as exc:
            outcome = Outcome(
                job,
                error=format_error(exc),
                error_kind=type(exc).__name__,
                retryable=getattr(exc, "retryable", True),
                retry_in_seconds=retry_in(exc),
            )
        outcome.elapsed = time.monotonic() - run.started
        with run.lock:
            if run.state is RunState.RUNNING:
                run.state = RunState.FINISHED
            run.outcome = outcome
        wakeup.finished.put(run)
        # A quick job with more claimed work waiting behind it does not wake the main thread: the one that
        # empties the inbox does, so that one statement records the whole batch and claims the next.
        quick = outcome.elapsed < QUICK_RUN_SECONDS and not self.inbox.empty()
        if not quick and not wakeup.event.is_set():
            wakeup.event.set()
