"""The worker loop: claim, run, heartbeat, deadline, shutdown.

One main thread owns every queue transition of this worker: it claims jobs for the free slots of each lane,
hands them to the lane's handler threads (jobs/lanes.py), records their outcomes (jobs/outcomes.py), renews
leases and enforces deadlines. It sleeps by waiting on one `threading.Event`, woken by a NOTIFY (seen by the
listener, jobs/listener.py, on a dedicated connection), a handler finishing, a signal, or a timer (heartbeat,
deadline, slow poll).

A durable commit costs more than the statements in it, so each turn of the loop is one commit: the outcomes
of the finished jobs and the claim that refills their slots go in one statement (complete_and_claim) when
nothing else is due.

A handler past its deadline has its attempt failed with `JobDeadlineExceeded`, its `context.cancelled` set and
the same exception raised inside its thread, so even a pure-Python loop stops; its slot is free at once.

Outcomes that cannot be written (the database is down) stay in memory and are retried until they land or
the lease is known to be lost; the loop itself survives database restarts.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import queue as queue_module
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from django.conf import settings

from jobs import handlers, queue
from jobs.exceptions import JobDeadlineExceeded, QueueUnavailable
from jobs.handlers import Registration
from jobs.lanes import Lane, Run, RunState, Wakeup, raise_in_thread
from jobs.listener import Listener
from jobs.outcomes import Outcome, PendingOutcomes, count_finished, job_log_context
from jobs.outcomes import write as write_outcomes

log = logging.getLogger(__name__)

# The database is retried after this long at first, doubling up to the cap while it stays down.
DB_RETRY_FIRST_SECONDS = 0.25
DB_RETRY_CAP_SECONDS = 5.0
# A second signal gives the hand-back of held jobs this long before the process exits anyway.
HARD_EXIT_SECONDS = 3.0
# How long a stopping worker waits for its idle handler threads to close their connections.
THREAD_JOIN_SECONDS = 1.0


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
        self._wakeup = Wakeup()
        self.lanes = {
            job_type: Lane(job_type, registration, concurrency[job_type], prefetch[job_type], self._wakeup)
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
        self._stopping = threading.Event()
        self._hard_exit_started = False
        self._running: dict = {}
        self._pending = PendingOutcomes()
        self._signals = 0
        self._db_retry_at = 0.0
        self._db_delay = DB_RETRY_FIRST_SECONDS
        self._db_down_since: float | None = None
        self._next_heartbeat: float | None = None
        self._next_poll = 0.0
        self._grace_ends: float | None = None
        self._wakeup.at: float | None = None

    # --- Control -------------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop claiming; finish (or, after the grace period, release) what runs, then return from run()."""
        self._stopping.set()
        self._wakeup.event.set()

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
                    if run.state is not RunState.RUNNING:
                        continue
                    run.state = RunState.RELEASED
                run.context.cancelled.set()
                with contextlib.suppress(QueueUnavailable):
                    queue.release(run.job, "the worker was stopped hard before the job finished")
            self._pending.record(self._pending.copy())
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
            listener = Listener(self.worker_id, self._want)
            listener.start()
        try:
            self._loop()
        finally:
            for lane in self.lanes.values():
                lane.close()
            if listener is not None:
                listener.stop()
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
            self._wakeup.event.clear()
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
            idle = not self._running and not self._pending
            if self._stopping.is_set() and idle:
                return
            if self.burst and idle and claimed_nothing:
                log.info("worker %s: nothing left to claim, burst done", self.worker_id)
                return
            # None while planning: a handler that starts meanwhile wakes us rather than guess (see jobs.lanes).
            self._wakeup.at = None
            timeout = self._timeout(time.monotonic())
            self._wakeup.at = time.monotonic() + timeout
            self._wakeup.event.wait(timeout)

    def _timeout(self, now: float) -> float:
        """Seconds until the next timer: a deadline, the grace period's end, or (once the database may be
        tried again) the heartbeat and the slow poll."""
        moments = [run.context.deadline for run in self._running.values()]
        if self._grace_ends is not None:
            moments.append(self._grace_ends)
        database_moments = [] if self._stopping.is_set() else [self._next_poll]
        if self._next_heartbeat is not None:
            database_moments.append(self._next_heartbeat)
        if self._pending:
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
        outcomes = self._pending.copy()
        renewing = self._leases_to_renew(now)
        asking = [] if self._stopping.is_set() else self._lanes_to_claim_for(now)
        if not outcomes and renewing is None and not asking:
            return False
        claimed: list[tuple[Lane, list[queue.ClaimedJob]]] = []
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
            self._pending.written(list(zip(outcomes, transitions, strict=True)))
            if lane is not None:
                claimed.append((lane, jobs))
            return self._dispatch_claimed(now, claimed, asked=len(asking))
        with queue.one_transaction():
            written = write_outcomes(outcomes)
            still_held = (
                queue.renew_leases(self.worker_id, renewing, lease_seconds=self.lease_seconds) if renewing else set()
            )
            for lane, free in asking:
                jobs = queue.claim(
                    self.worker_id, limit=free, job_types=[lane.job_type], lease_seconds=self.lease_seconds
                )
                claimed.append((lane, jobs))
        self._pending.written(written)
        if renewing is not None:
            self._renewed(now, renewing, still_held)
        return self._dispatch_claimed(now, claimed, asked=len(asking))

    def _dispatch_claimed(self, now: float, claimed: list[tuple[Lane, list[queue.ClaimedJob]]], *, asked: int) -> bool:
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

    def _lanes_to_claim_for(self, now: float) -> list[tuple[Lane, int]]:
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

    def _dispatch(self, lane: Lane, job: queue.ClaimedJob) -> None:
        run = Run.claimed(job, lane.registration, self.worker_id)
        self._running[job.job_id] = run
        lane.hand(run)

    def _collect_finished(self) -> None:
        while True:
            try:
                run = self._wakeup.finished.get_nowait()
            except queue_module.Empty:
                return
            if self._running.pop(run.job.job_id, None) is not run:
                # Stopped at its deadline: the slot was freed and the attempt failed then.
                continue
            self.lanes[run.job.job_type].held -= 1
            if run.state is RunState.FINISHED and run.outcome is not None:
                self._pending.add(run.outcome)
            elif run.state is RunState.LOST:
                if run.started is not None:
                    count_finished(run.job, "lost")
                with job_log_context(run.job):
                    log.warning(
                        "lost %s %s attempt %d: the lease was taken back; its outcome is dropped",
                        run.registration.label,
                        run.job.job_id,
                        run.job.attempt,
                    )

    def _free_slot(self, run: Run) -> None:
        if self._running.pop(run.job.job_id, None) is run:
            self.lanes[run.job.job_type].held -= 1

    # --- Deadlines, heartbeat, recording -------------------------------------------------------------------

    def _enforce_deadlines(self, now: float) -> None:
        for run in [run for run in self._running.values() if now >= run.context.deadline]:
            with run.lock:
                previous = run.state
                if previous in (RunState.RUNNING, RunState.LOST):
                    run.state = RunState.STOPPED
                    if run.thread_ident is not None:
                        raise_in_thread(run.thread_ident, JobDeadlineExceeded)
            if previous not in (RunState.RUNNING, RunState.LOST):
                continue  # it finished just now; collected at the next turn
            run.context.cancelled.set()
            self._free_slot(run)
            # Its thread may stay stuck (in C code, say): another takes its place for the jobs waiting.
            self.lanes[run.job.job_type].threads.discard(run.thread)
            self.lanes[run.job.job_type].staff()
            deadline = run.registration.deadline_seconds
            with job_log_context(run.job):
                log.warning(
                    "deadline %s %s attempt %d: stopped after %.0f s",
                    run.registration.label,
                    run.job.job_id,
                    run.job.attempt,
                    deadline,
                )
            if previous is RunState.RUNNING:
                self._pending.add(
                    Outcome(
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
        held = [run.job for run in self._running.values() if run.state is RunState.RUNNING]
        held += [outcome.job for outcome in self._pending]
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
                    if run.state is RunState.RUNNING:
                        run.state = RunState.LOST
                run.context.cancelled.set()
            else:
                self._pending.drop(job.job_id)
                count_finished(job, "lost")
                with job_log_context(job):
                    log.warning(
                        "lost %s %s attempt %d before its outcome was written",
                        handlers.label(job.job_type),
                        job.job_id,
                        job.attempt,
                    )

    def _release_unstarted(self) -> None:
        """A stop was asked: hand back at once the claimed jobs that no handler has started."""
        for run in list(self._running.values()):
            with run.lock:
                if run.state is not RunState.RUNNING or run.thread_ident is not None:
                    continue
                run.state = RunState.RELEASED
            self._free_slot(run)
            self._release(run)

    def _release_all(self) -> None:
        """The grace period is over: hand back what still runs and make a last try at the outcomes."""
        for run in list(self._running.values()):
            with run.lock:
                if run.state is not RunState.RUNNING:
                    continue
                run.state = RunState.RELEASED
            run.context.cancelled.set()
            self._release(run)
        try:
            self._pending.record(self._pending.copy())
        except QueueUnavailable as exc:
            log.warning(
                "%d outcome(s) could not be written (%s); the reaper will reclaim their jobs",
                len(self._pending),
                exc,
            )

    def _release(self, run: Run) -> None:
        if run.started is not None:
            count_finished(run.job, "released")
        with job_log_context(run.job):
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

    def _want(self, payload: str | None) -> None:
        """Ask the main loop to claim for the job type named by a notification (all types for None)."""
        try:
            job_type = int(payload) if payload else None
        except ValueError:
            job_type = None
        for lane in self.lanes.values():
            if job_type is None or lane.job_type == job_type:
                lane.wanted = True
        self._wakeup.event.set()
