"""The worker loop: claim, run, heartbeat, deadline, shutdown.

One main thread owns every queue transition of this worker: it claims jobs for the free slots of each job
type, hands them to handler threads, records their outcomes, renews leases and enforces deadlines. It sleeps
by waiting on one `threading.Event`, woken by a NOTIFY (seen by a listener thread on a dedicated
connection), a handler finishing, a signal, or a timer (heartbeat, deadline, slow poll).

Each registered job type gets a lane (jobs.handlers.register): its handler threads, up to its concurrency,
and how many jobs may wait claimed ahead of them. A heavy type (a browser, minutes per job) is never claimed
ahead, so no job waits in one worker while another is idle; a light type (an HTTP call) is claimed a few
rounds ahead of its free threads.

A durable commit costs more than the statements in it, so each turn of the loop is one commit: the outcomes
of the finished jobs and the claim that refills their slots go in one statement (complete_and_claim) when
nothing else is due. Quick handlers leave the waking of the main thread to the one that empties the inbox,
so a turn of a light lane carries a whole batch.

Handlers run in threads, each with Django's per-thread connection. A handler past its deadline has its
attempt failed with `JobDeadlineExceeded`, its `context.cancelled` set and the same exception raised inside
its thread, so even a pure-Python loop stops; its slot is free at once.

Outcomes that cannot be written (the database is down) stay in memory and are retried until they land or
the lease is known to be lost; the loop itself survives database restarts.
"""

from __future__ import annotations

import contextlib
import ctypes
import enum
import json
import logging
import math
import os
import queue as threadqueue
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import psycopg
from django.conf import settings
from django.db import close_old_connections, connections

from jobs import handlers, queue
from jobs import metrics as job_metrics
from jobs.exceptions import InvalidJobResult, JobDeadlineExceeded, QueueUnavailable
from jobs.handlers import JobContext, Registration
from jobs.log_context import job_logging
from jobs.models import JobStatus

log = logging.getLogger(__name__)

ERROR_MAX_CHARS = 4000
# A NUL character as json.dumps writes it (an unescaped backslash, then u0000): jsonb refuses it.
_ESCAPED_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")
# A handler this quick, with claimed work still waiting, leaves its outcome for the batch (see _execute).
QUICK_RUN_SECONDS = 0.005
# The database is retried after this long at first, doubling up to the cap while it stays down.
DB_RETRY_FIRST_SECONDS = 0.25
DB_RETRY_CAP_SECONDS = 5.0
# The listener retries sooner: until it is back, new jobs wait for the slow poll.
LISTEN_RETRY_CAP_SECONDS = 2.0
# A second signal gives the hand-back of held jobs this long before the process exits anyway.
HARD_EXIT_SECONDS = 3.0
# How long a stopping worker waits for its idle handler threads to close their connections.
THREAD_JOIN_SECONDS = 1.0
# The listener re-checks for a stop this often while no notification arrives (bounds how long a stop waits).
LISTEN_TIMEOUT_SECONDS = 0.25


class _State(enum.Enum):
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
class _Run:
    """One claimed attempt on its way through a handler thread."""

    job: queue.ClaimedJob
    registration: Registration
    context: JobContext
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: _State = _State.RUNNING
    started: float | None = None
    """time.monotonic() when its handler started; None while it waits for a handler thread."""
    thread: threading.Thread | None = None
    thread_ident: int | None = None
    outcome: _Outcome | None = None


@dataclass(eq=False)
class _Outcome:
    """What became of one attempt, waiting to be written to the queue."""

    job: queue.ClaimedJob
    result: dict | None = None
    error: str | None = None
    """What last_error will say: "Kind: message"."""
    error_kind: str | None = None
    """The exception class name of a failure (last_error_kind)."""
    retryable: bool = True
    elapsed: float = 0.0

    @property
    def succeeded(self) -> bool:
        return self.error is None


class _Lane:
    """The slots and the handler threads of one job type.

    At most `concurrency` handlers run at once; up to `prefetch` more claimed jobs wait in the inbox so
    that the threads of a light job type never sit idle while the main thread talks to the database.
    """

    def __init__(self, job_type: int, registration: Registration, concurrency: int, prefetch: int):
        self.job_type = job_type
        self.registration = registration
        self.concurrency = concurrency
        self.prefetch = prefetch
        self.inbox: threadqueue.SimpleQueue[_Run | None] = threadqueue.SimpleQueue()
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


def format_error(exc: BaseException) -> str:
    """`ExcClass: message`, truncated (messages never name their own class: the kind is written here)."""
    message = str(exc).replace("\x00", "")  # PostgreSQL text cannot hold NUL
    return f"{type(exc).__name__}: {message}"[:ERROR_MAX_CHARS]


def _raise_in_thread(thread_ident: int, exc_type: type[BaseException] | None) -> None:
    """Make `exc_type` raise in the thread at its next bytecode (None withdraws a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_ident), ctypes.py_object(exc_type) if exc_type is not None else None
    )


def _job_logging(job: queue.ClaimedJob):
    """Tag this thread's log lines with `job` (see jobs/log_context.py)."""
    return job_logging(
        job_id=job.job_id, attempt=job.attempt, job_type=handlers.label(job.job_type), worker_id=job.worker_id
    )


def _run_outcome(outcome: _Outcome, transition: queue.Transition) -> str:
    """The lps_job_runs_finished outcome of a written attempt (see jobs.metrics.RUN_OUTCOMES)."""
    if isinstance(transition, queue.Lost):
        return "lost"
    if transition.status is JobStatus.DONE:
        return "done"
    if outcome.error_kind == JobDeadlineExceeded.__name__:
        return "deadline"
    return "dead" if transition.status is JobStatus.DEAD else "retried"


def _count_finished(job: queue.ClaimedJob, outcome: str, *, elapsed: float | None = None) -> None:
    job_metrics.JOB_RUNS_FINISHED.labels(handlers.label(job.job_type), outcome).inc()
    if elapsed is not None:
        job_metrics.JOB_RUN_SECONDS.labels(handlers.label(job.job_type)).observe(elapsed)


class Worker:
    """Claim and run jobs until stopped (or, in burst mode, until nothing is claimable)."""

    def __init__(
        self,
        registry: Mapping[int, Registration] | None = None,
        *,
        concurrency: Mapping[int, int] | None = None,
        lease_seconds: float | None = None,
        poll_interval: float | None = None,
        poll_only: bool | None = None,
        burst: bool = False,
        grace_seconds: float | None = None,
        shutdown_hooks: Iterable[Callable[[], None]] | None = None,
        worker_id: str | None = None,
        prefetch: Mapping[int, int] | None = None,
    ):
        """Every option defaults from the LPS_* settings; `registry` from jobs.handlers.

        `concurrency` overrides the handlers a job type runs at once (its registration's setting otherwise;
        0 runs none of that type). `prefetch` overrides how many jobs of a type may wait, claimed, for a free
        handler thread (its registration's prefetch_rounds × its concurrency otherwise).
        """
        registry = handlers.registered() if registry is None else dict(registry)
        concurrency = {
            **{job_type: registration.concurrency for job_type, registration in registry.items()},
            **(concurrency or {}),
        }
        for job_type, slots in concurrency.items():
            if slots < 0:
                raise ValueError(f"{handlers.label(job_type)} concurrency must be zero or more, not {slots}")
        prefetch = {
            **{
                job_type: registration.prefetch_rounds * concurrency[job_type]
                for job_type, registration in registry.items()
            },
            **(prefetch or {}),
        }
        if any(ahead < 0 for ahead in prefetch.values()):
            raise ValueError("prefetch must be zero or more")
        self.lanes = {
            job_type: _Lane(job_type, registration, concurrency[job_type], prefetch[job_type])
            for job_type, registration in registry.items()
            if concurrency[job_type] > 0
        }
        self.lease_seconds = float(settings.LPS_LEASE_SECONDS if lease_seconds is None else lease_seconds)
        self.poll_interval = float(settings.LPS_POLL_INTERVAL if poll_interval is None else poll_interval)
        self.poll_only = settings.LPS_WORKER_POLL_ONLY if poll_only is None else poll_only
        self.burst = burst
        self.grace_seconds = float(settings.LPS_SHUTDOWN_GRACE_SECONDS if grace_seconds is None else grace_seconds)
        if self.lease_seconds <= 0 or self.poll_interval <= 0 or self.grace_seconds < 0:
            raise ValueError("lease and poll interval must be positive, the grace period zero or more")
        self._shutdown_hooks = list(handlers.shutdown_hooks() if shutdown_hooks is None else shutdown_hooks)
        self.worker_id = worker_id or queue.new_worker_id()

        self.ready = threading.Event()
        """Set once the worker listens (or polls) and has made its first claim: jobs enqueued now are seen."""
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._listener_stop = threading.Event()
        self._listening = threading.Event()
        self._hard_exit_started = False
        self._finished: threadqueue.SimpleQueue[_Run] = threadqueue.SimpleQueue()
        self._running: dict = {}
        self._unrecorded: list[_Outcome] = []
        self._signals = 0
        self._db_retry_at = 0.0
        self._db_delay = DB_RETRY_FIRST_SECONDS
        self._db_down_since: float | None = None
        self._next_heartbeat: float | None = None
        self._next_poll = 0.0
        self._grace_ends: float | None = None
        self._wake_at: float | None = None

    # --- Control -------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop claiming; finish (or, after the grace period, release) what runs, then return from run()."""
        self._stopping.set()
        self._wake.set()

    def install_signal_handlers(self) -> None:
        """SIGTERM/SIGINT stop gracefully; a second one releases what it can and exits the process hard."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum, _frame) -> None:
        self._signals += 1
        if self._signals == 1:
            log.info("worker %s: %s received, finishing running jobs", self.worker_id, signal.Signals(signum).name)
            self.stop()
        elif not self._hard_exit_started:
            self._hard_exit_started = True
            log.warning("worker %s: second signal, releasing held jobs and exiting", self.worker_id)
            # The main thread may be inside a database call: hand back from a thread of its own.
            threading.Thread(target=self._release_and_exit, name="lps-hard-exit", daemon=True).start()

    def _release_and_exit(self) -> None:
        threading.Timer(HARD_EXIT_SECONDS, os._exit, args=(1,)).start()
        try:
            # dict.copy() and list.copy() are single steps under the GIL; the main thread keeps changing both.
            for run in self._running.copy().values():
                with run.lock:
                    if run.state is not _State.RUNNING:
                        continue
                    run.state = _State.RELEASED
                run.context.cancelled.set()
                with contextlib.suppress(QueueUnavailable):
                    queue.release(run.job, "the worker was stopped hard before the job finished")
            self._record(self._unrecorded.copy())
        except Exception:
            log.exception("worker %s: hard exit could not hand back every job", self.worker_id)
        finally:
            logging.shutdown()
            os._exit(1)

    # --- Main loop -----------------------------------------------------------------------------------------

    def run(self) -> int:
        """Run until stopped; return the process exit code (0)."""
        log.info(
            "worker %s: starting (%s; lease %.0f s, poll every %.1f s%s%s)",
            self.worker_id,
            ", ".join(
                f"{lane.registration.label}×{lane.concurrency}" + (f" +{lane.prefetch} ahead" if lane.prefetch else "")
                for lane in self.lanes.values()
            )
            or "no handlers",
            self.lease_seconds,
            self.poll_interval,
            ", poll only" if self.poll_only else ", LISTEN",
            ", burst" if self.burst else "",
        )
        listener = None
        if not self.poll_only:
            listener = threading.Thread(target=self._listen, name="lps-listener", daemon=True)
            listener.start()
            # Jobs enqueued before LISTEN took effect are found by the first claim, which follows it.
            self._listening.wait(timeout=5.0)
        try:
            self._loop()
        finally:
            self._listener_stop.set()
            for lane in self.lanes.values():
                for _ in range(len(lane.threads)):
                    lane.inbox.put(None)
            if listener is not None:
                listener.join(timeout=LISTEN_TIMEOUT_SECONDS + 1)
            # Idle handler threads close their connections on the way out; one stuck in a stopped or
            # released handler is left behind (it is a daemon and holds no lease any more).
            join_until = time.monotonic() + THREAD_JOIN_SECONDS
            for lane in self.lanes.values():
                for thread in list(lane.threads):
                    thread.join(timeout=max(0.0, join_until - time.monotonic()))
            for hook in self._shutdown_hooks:
                try:
                    hook()
                except Exception:
                    log.exception("worker %s: shutdown hook %r failed", self.worker_id, hook)
        log.info("worker %s: stopped", self.worker_id)
        return 0

    def _loop(self) -> None:
        while True:
            self._wake.clear()
            now = time.monotonic()
            self._collect_finished()
            self._enforce_deadlines(now)
            if self._stopping.is_set() and self._grace_ends is None:
                self._grace_ends = now + self.grace_seconds
                self._release_unstarted()
            if self._grace_ends is not None and now >= self._grace_ends:
                self._release_all()
                return
            claimed_nothing = False
            if now >= self._db_retry_at:
                try:
                    claimed_nothing = self._sync(now)
                    self._database_back()
                except QueueUnavailable as exc:
                    self._database_down(exc)
            self.ready.set()
            idle = not self._running and not self._unrecorded
            if self._stopping.is_set() and idle:
                return
            if self.burst and idle and claimed_nothing:
                log.info("worker %s: nothing left to claim, burst done", self.worker_id)
                return
            # None while planning: a handler that starts meanwhile wakes us rather than guess (see _execute).
            self._wake_at = None
            timeout = self._timeout(time.monotonic())
            self._wake_at = time.monotonic() + timeout
            self._wake.wait(timeout)

    def _timeout(self, now: float) -> float:
        """Seconds until the next timer: a deadline, the grace period's end, or (once the database may be
        tried again) the heartbeat and the slow poll."""
        moments = [run.context.deadline for run in self._running.values()]
        if self._grace_ends is not None:
            moments.append(self._grace_ends)
        database_moments = [] if self._stopping.is_set() else [self._next_poll]
        if self._next_heartbeat is not None:
            database_moments.append(self._next_heartbeat)
        if self._unrecorded:
            database_moments.append(now)
        moments.extend(max(moment, self._db_retry_at) for moment in database_moments)
        # Runs waiting for a thread have no deadline yet (infinity); the poll interval bounds any wait.
        return max(0.0, min(min(moments, default=math.inf) - now, self.poll_interval))

    # --- Claiming and dispatching --------------------------------------------------------------------------

    def _sync(self, now: float) -> bool:
        """Write the outcomes, renew the leases and claim for the free slots, all in one commit.

        On a durable server the commit's WAL flush, not the statements, is what a worker waits for, so the
        steady state (successes, one lane to refill) is one statement and anything else one transaction.
        Nothing is acted on before the commit. Return True when every lane was asked and none had work.
        """
        outcomes = list(self._unrecorded)
        renewing = self._leases_to_renew(now)
        asking = [] if self._stopping.is_set() else self._lanes_to_claim_for(now)
        if not outcomes and renewing is None and not asking:
            return False
        claimed: list[tuple[_Lane, list[queue.ClaimedJob]]] = []
        if renewing is None and len(asking) <= 1 and all(outcome.succeeded for outcome in outcomes):
            # The steady state: successes and one lane's claim, in one statement.
            lane, free = asking[0] if asking else (None, 0)
            transitions, jobs = queue.complete_and_claim(
                [(outcome.job, outcome.result) for outcome in outcomes],
                self.worker_id,
                limit=free,
                job_types=[lane.job_type] if lane else [],
                lease_seconds=self.lease_seconds,
            )
            self._written(list(zip(outcomes, transitions, strict=True)))
            if lane is not None:
                claimed.append((lane, jobs))
            return self._dispatch_claimed(now, claimed, asked=len(asking))
        with queue.one_transaction():
            written = self._write_outcomes(outcomes)
            still_held = (
                queue.renew_leases(self.worker_id, renewing, lease_seconds=self.lease_seconds) if renewing else set()
            )
            for lane, free in asking:
                jobs = queue.claim(
                    self.worker_id, limit=free, job_types=[lane.job_type], lease_seconds=self.lease_seconds
                )
                claimed.append((lane, jobs))
        self._written(written)
        if renewing is not None:
            self._renewed(now, renewing, still_held)
        return self._dispatch_claimed(now, claimed, asked=len(asking))

    def _dispatch_claimed(self, now: float, claimed: list[tuple[_Lane, list[queue.ClaimedJob]]], *, asked: int) -> bool:
        """Hand the committed claims to the handler threads; True when every lane was asked and none had work."""
        found = 0
        for lane, jobs in claimed:
            lane.saturated = len(jobs) == lane.free
            found += len(jobs)
            for job in jobs:
                self._dispatch(lane, job)
        if found and self._next_heartbeat is None:
            self._next_heartbeat = now + self.lease_seconds / 3
        return asked == len(self.lanes) and found == 0

    def _lanes_to_claim_for(self, now: float) -> list[tuple[_Lane, int]]:
        """The lanes with free slots that may have work, and how many jobs each can take."""
        if now >= self._next_poll:
            self._next_poll = now + self.poll_interval
            for lane in self.lanes.values():
                lane.wanted = True
        asking = []
        for lane in self.lanes.values():
            free = lane.free
            if free <= 0 or not (lane.wanted or lane.saturated or self.burst):
                continue
            # Cleared before the query: a NOTIFY that arrives during it asks for another claim.
            lane.wanted = False
            asking.append((lane, free))
        return asking

    def _dispatch(self, lane: _Lane, job: queue.ClaimedJob) -> None:
        # The deadline starts with the handler, not while the job waits for a thread.
        run = _Run(job=job, registration=lane.registration, context=JobContext(self.worker_id, deadline=math.inf))
        self._running[job.job_id] = run
        lane.held += 1
        lane.inbox.put(run)
        self._staff(lane)

    def _staff(self, lane: _Lane) -> None:
        """Start handler threads until the lane has one per held job, up to its concurrency."""
        while len(lane.threads) < min(lane.concurrency, lane.held):
            thread = threading.Thread(
                target=self._handler_thread, args=(lane,), name=f"lps-{lane.registration.label.lower()}", daemon=True
            )
            lane.threads.add(thread)
            thread.start()

    def _handler_thread(self, lane: _Lane) -> None:
        try:
            while True:
                run = lane.inbox.get()
                if run is None:
                    return
                # Plain try/except, not contextlib.suppress: a stop landing inside suppress.__exit__ would escape.
                try:  # noqa: SIM105
                    self._execute(run)
                except JobDeadlineExceeded:
                    # The stop aimed at this run landed after its handler had returned; already recorded.
                    pass
                try:
                    if run.state is _State.STOPPED and run.thread_ident is not None:
                        # Withdraw a stop still pending for this thread; a thread was started in its place
                        # when it was stopped, so this one ends here.
                        _raise_in_thread(run.thread_ident, None)
                        return
                except JobDeadlineExceeded:
                    return
        finally:
            lane.threads.discard(threading.current_thread())
            connections.close_all()

    def _execute(self, run: _Run) -> None:
        # Set in the handler's own thread: every line of the handler (and of what it calls) names its job.
        with _job_logging(run.job):
            self._execute_in_context(run)

    def _execute_in_context(self, run: _Run) -> None:
        job = run.job
        with run.lock:
            if run.state is _State.RUNNING:
                run.thread = threading.current_thread()
                run.thread_ident = threading.get_ident()
                run.started = time.monotonic()
                run.context.deadline = run.started + run.registration.deadline_seconds
        if run.thread_ident is None:
            if run.state is _State.LOST:
                # Its lease went while it waited: the main thread frees its slot.
                self._finished.put(run)
                self._wake.set()
            return  # released at shutdown: the main thread has freed its slot already
        wake_at = self._wake_at
        if wake_at is None or run.context.deadline < wake_at:
            self._wake.set()  # the main thread must watch this deadline sooner than it planned to wake
        elif not self._finished.empty() and self.lanes[job.job_type].inbox.empty():
            self._wake.set()  # quick outcomes left for the batch must not wait behind this run
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
            outcome = _Outcome(job, result=result)
        except Exception as exc:
            outcome = _Outcome(
                job, error=format_error(exc), error_kind=type(exc).__name__, retryable=getattr(exc, "retryable", True)
            )
        outcome.elapsed = time.monotonic() - run.started
        with run.lock:
            if run.state is _State.RUNNING:
                run.state = _State.FINISHED
            run.outcome = outcome
        self._finished.put(run)
        # A quick job with more claimed work waiting behind it does not wake the main thread: the one that
        # empties the inbox does, so that one statement records the whole batch and claims the next.
        quick = outcome.elapsed < QUICK_RUN_SECONDS and not self.lanes[job.job_type].inbox.empty()
        if not quick and not self._wake.is_set():
            self._wake.set()

    def _collect_finished(self) -> None:
        while True:
            try:
                run = self._finished.get_nowait()
            except threadqueue.Empty:
                return
            if self._running.pop(run.job.job_id, None) is not run:
                # Stopped at its deadline: the slot was freed and the attempt failed then.
                continue
            self.lanes[run.job.job_type].held -= 1
            if run.state is _State.FINISHED and run.outcome is not None:
                self._unrecorded.append(run.outcome)
            elif run.state is _State.LOST:
                if run.started is not None:
                    _count_finished(run.job, "lost")
                with _job_logging(run.job):
                    log.warning(
                        "lost %s %s attempt %d: the lease was taken back; its outcome is dropped",
                        run.registration.label,
                        run.job.job_id,
                        run.job.attempt,
                    )

    def _free_slot(self, run: _Run) -> None:
        if self._running.pop(run.job.job_id, None) is run:
            self.lanes[run.job.job_type].held -= 1

    # --- Deadlines, heartbeat, recording -------------------------------------------------------------------

    def _enforce_deadlines(self, now: float) -> None:
        for run in [run for run in self._running.values() if now >= run.context.deadline]:
            with run.lock:
                previous = run.state
                if previous in (_State.RUNNING, _State.LOST):
                    run.state = _State.STOPPED
                    if run.thread_ident is not None:
                        _raise_in_thread(run.thread_ident, JobDeadlineExceeded)
            if previous not in (_State.RUNNING, _State.LOST):
                continue  # it finished just now; collected at the next turn
            run.context.cancelled.set()
            self._free_slot(run)
            # Its thread may stay stuck (in C code, say): another takes its place for the jobs waiting.
            self.lanes[run.job.job_type].threads.discard(run.thread)
            self._staff(self.lanes[run.job.job_type])
            deadline = run.registration.deadline_seconds
            with _job_logging(run.job):
                log.warning(
                    "deadline %s %s attempt %d: stopped after %.0f s",
                    run.registration.label,
                    run.job.job_id,
                    run.job.attempt,
                    deadline,
                )
            if previous is _State.RUNNING:
                self._unrecorded.append(
                    _Outcome(
                        run.job,
                        error=f"{JobDeadlineExceeded.__name__}: the {run.registration.label} handler ran past its "
                        f"{deadline:g} s deadline and was stopped",
                        error_kind=JobDeadlineExceeded.__name__,
                        retryable=JobDeadlineExceeded.retryable,
                        elapsed=now - (run.started or now),
                    )
                )

    def _leases_to_renew(self, now: float) -> list[queue.ClaimedJob] | None:
        """The attempts whose leases are due for renewal (None when the heartbeat is not due)."""
        if self._next_heartbeat is None or now < self._next_heartbeat:
            return None
        held = [run.job for run in self._running.values() if run.state is _State.RUNNING]
        held += [outcome.job for outcome in self._unrecorded]
        if not held:
            self._next_heartbeat = None
            return None
        return held

    def _renewed(self, now: float, held: list[queue.ClaimedJob], still_held: set) -> None:
        """Tell the handlers whose lease is gone; drop outcomes that can no longer be written."""
        self._next_heartbeat = now + self.lease_seconds / 3
        for job in held:
            if job.job_id in still_held:
                continue
            run = self._running.get(job.job_id)
            if run is not None:
                with run.lock:
                    if run.state is _State.RUNNING:
                        run.state = _State.LOST
                run.context.cancelled.set()
            else:
                self._unrecorded = [outcome for outcome in self._unrecorded if outcome.job.job_id != job.job_id]
                _count_finished(job, "lost")
                with _job_logging(job):
                    log.warning(
                        "lost %s %s attempt %d before its outcome was written",
                        handlers.label(job.job_type),
                        job.job_id,
                        job.attempt,
                    )

    def _record(self, outcomes: list[_Outcome]) -> None:
        """Write outcomes in a transaction of their own (at shutdown)."""
        if not outcomes:
            return
        with queue.one_transaction():
            written = self._write_outcomes(outcomes)
        self._written(written)

    @staticmethod
    def _write_outcomes(outcomes: list[_Outcome]) -> list[tuple[_Outcome, queue.Transition]]:
        """Write outcomes: the successes in one statement, each failure in its own."""
        successes = [outcome for outcome in outcomes if outcome.succeeded]
        written = []
        if successes:
            transitions = queue.complete_many([(outcome.job, outcome.result) for outcome in successes])
            written += zip(successes, transitions, strict=True)
        for outcome in outcomes:
            if not outcome.succeeded:
                transition = queue.fail(
                    outcome.job, outcome.error, kind=outcome.error_kind, retryable=outcome.retryable
                )
                written.append((outcome, transition))
        return written

    def _written(self, written: list[tuple[_Outcome, queue.Transition]]) -> None:
        """Once committed: the outcomes leave memory, and each gets its log line."""
        if not written:
            return
        done = {id(outcome) for outcome, _ in written}
        self._unrecorded = [outcome for outcome in self._unrecorded if id(outcome) not in done]
        for outcome, transition in written:
            _count_finished(outcome.job, _run_outcome(outcome, transition), elapsed=outcome.elapsed)
            with _job_logging(outcome.job):
                self._log_transition(outcome, transition)

    @staticmethod
    def _log_transition(outcome: _Outcome, transition: queue.Transition) -> None:
        job = outcome.job
        label, elapsed_ms = handlers.label(job.job_type), outcome.elapsed * 1000
        if isinstance(transition, queue.Lost):
            log.warning(
                "lost %s %s attempt %d: the lease was gone, outcome not written", label, job.job_id, job.attempt
            )
        elif transition.status is JobStatus.DONE:
            log.info("done %s %s attempt %d in %.0f ms", label, job.job_id, job.attempt, elapsed_ms)
        elif transition.status is JobStatus.DEAD:
            log.warning(
                "dead %s %s attempt %d/%d after %.0f ms: %s",
                label,
                job.job_id,
                job.attempt,
                job.max_attempts,
                elapsed_ms,
                outcome.error,
            )
        else:
            log.warning(
                "retry %s %s attempt %d/%d failed after %.0f ms, next at %s: %s",
                label,
                job.job_id,
                job.attempt,
                job.max_attempts,
                elapsed_ms,
                transition.run_after,
                outcome.error,
            )

    def _release_unstarted(self) -> None:
        """A stop was asked: hand back at once the claimed jobs that no handler has started."""
        for run in list(self._running.values()):
            with run.lock:
                if run.state is not _State.RUNNING or run.thread_ident is not None:
                    continue
                run.state = _State.RELEASED
            self._free_slot(run)
            self._release(run)

    def _release_all(self) -> None:
        """The grace period is over: hand back what still runs and make a last try at the outcomes."""
        for run in list(self._running.values()):
            with run.lock:
                if run.state is not _State.RUNNING:
                    continue
                run.state = _State.RELEASED
            run.context.cancelled.set()
            self._release(run)
        try:
            self._record(self._unrecorded)
        except QueueUnavailable as exc:
            log.warning(
                "%d outcome(s) could not be written (%s); the reaper will reclaim their jobs",
                len(self._unrecorded),
                exc,
            )

    def _release(self, run: _Run) -> None:
        if run.started is not None:
            _count_finished(run.job, "released")
        with _job_logging(run.job):
            try:
                transition = queue.release(run.job)
            except QueueUnavailable as exc:
                log.warning(
                    "release %s %s failed (%s); the reaper will reclaim it", run.registration.label, run.job.job_id, exc
                )
                return
            log.info(
                "released %s %s attempt %d (%s)",
                run.registration.label,
                run.job.job_id,
                run.job.attempt,
                "back to PENDING" if isinstance(transition, queue.Moved) else "no longer held",
            )

    # --- The database going away and coming back -----------------------------------------------------------

    def _database_down(self, exc: QueueUnavailable) -> None:
        now = time.monotonic()
        if self._db_down_since is None:
            self._db_down_since = now
            log.warning("worker %s: database unavailable, retrying: %s", self.worker_id, exc)
        self._db_retry_at = now + self._db_delay
        self._db_delay = min(self._db_delay * 2, DB_RETRY_CAP_SECONDS)
        for lane in self.lanes.values():
            lane.wanted = True

    def _database_back(self) -> None:
        if self._db_down_since is not None:
            log.info("worker %s: database back after %.1f s", self.worker_id, time.monotonic() - self._db_down_since)
        self._db_down_since = None
        self._db_delay = DB_RETRY_FIRST_SECONDS

    # --- LISTEN --------------------------------------------------------------------------------------------

    def _listen(self) -> None:
        delay = DB_RETRY_FIRST_SECONDS
        while not self._listener_stop.is_set():
            try:
                with queue.listen_connection() as conn:
                    self._listening.set()
                    delay = DB_RETRY_FIRST_SECONDS
                    # Notifications sent while we were not listening are lost: look for work once.
                    self._want(None)
                    while not self._listener_stop.is_set():
                        for notify in conn.notifies(timeout=LISTEN_TIMEOUT_SECONDS):
                            self._want(notify.payload)
            except (psycopg.Error, QueueUnavailable) as exc:
                self._listening.clear()
                if self._listener_stop.is_set():
                    return
                log.warning("worker %s: LISTEN connection lost, reconnecting in %.1f s: %s", self.worker_id, delay, exc)
                self._listener_stop.wait(delay)
                delay = min(delay * 2, LISTEN_RETRY_CAP_SECONDS)

    def _want(self, payload: str | None) -> None:
        """Ask the main loop to claim for the job type named by a notification (all types for None)."""
        try:
            job_type = int(payload) if payload else None
        except ValueError:
            job_type = None
        for lane in self.lanes.values():
            if job_type is None or lane.job_type == job_type:
                lane.wanted = True
        self._wake.set()
