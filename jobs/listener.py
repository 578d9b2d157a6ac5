"""The worker's listener: a thread on a connection of its own that LISTENs for new jobs.

Each committed enqueue sends a NOTIFY whose payload is the job type (jobs/queue.py). The listener passes the
type to `on_notify`, which tells the worker's loop to claim for that lane; `None` means "look at every lane",
sent once each time the connection is (re)made, since notifications sent while nobody listened are lost.
A lost connection is made again with a doubling delay; until then new jobs wait for the worker's slow poll.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import psycopg

from jobs import queue
from jobs.exceptions import QueueUnavailable

log = logging.getLogger("jobs.worker")

RETRY_FIRST_SECONDS = 0.25
# The listener retries sooner than the worker's database backoff: until it is back, new jobs wait for the poll.
RETRY_CAP_SECONDS = 2.0
# The listener re-checks for a stop this often while no notification arrives (bounds how long a stop waits).
LISTEN_TIMEOUT_SECONDS = 0.25
# How long start() waits for LISTEN to take effect, so that the first claim follows it.
START_WAIT_SECONDS = 5.0


class Listener:
    """LISTEN for new jobs in a daemon thread and call `on_notify(payload)` for each notification."""

    def __init__(self, worker_id: str, on_notify: Callable[[str | None], None]):
        self.worker_id = worker_id
        self.on_notify = on_notify
        self.listening = threading.Event()
        """Set while LISTEN is in effect."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start listening; return once LISTEN took effect (or after a few seconds without a database)."""
        self._thread = threading.Thread(target=self._listen, name="lps-listener", daemon=True)
        self._thread.start()
        # Jobs enqueued before LISTEN took effect are found by the first claim, which follows it.
        self.listening.wait(timeout=START_WAIT_SECONDS)

    def stop(self) -> None:
        """Stop listening and wait (briefly) for the thread to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=LISTEN_TIMEOUT_SECONDS + 1)

    def _listen(self) -> None:
        delay = RETRY_FIRST_SECONDS
        while not self._stop.is_set():
            try:
                with queue.listen_connection() as conn:
                    self.listening.set()
                    delay = RETRY_FIRST_SECONDS
                    # Notifications sent while we were not listening are lost: look for work once.
                    self.on_notify(None)
                    while not self._stop.is_set():
                        for notify in conn.notifies(timeout=LISTEN_TIMEOUT_SECONDS):
                            self.on_notify(notify.payload)
            except (psycopg.Error, QueueUnavailable) as exc:
                self.listening.clear()
                if self._stop.is_set():
                    return
                log.warning("worker %s: LISTEN connection lost, reconnecting in %.1f s: %s", self.worker_id, delay, exc)
                self._stop.wait(delay)
                delay = min(delay * 2, RETRY_CAP_SECONDS)
