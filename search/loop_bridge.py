"""The bridge from the crawler's callers' threads to async Playwright: an event loop on its own thread.

Separate from the crawler because it knows nothing of browsers: it runs a coroutine in the loop and waits for
it with a bound, or until the caller is cancelled, and either way stops a stalled coroutine. The Django ORM
stays in the callers' threads (inside the loop Django would raise SynchronousOnlyOperation).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time

from search.exceptions import CrawlFailed

CANCEL_CHECK_SECONDS = 0.1


class LoopBridge:
    """An event loop on a daemon thread named `name`, started by start() and ended by stop()."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        """Guards the pending futures (the loop and thread change only under the caller's launch lock)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pending: set[concurrent.futures.Future] = set()

    @property
    def started(self) -> bool:
        return self._loop is not None

    def start(self) -> None:
        """Start the event-loop thread."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=_run_loop, args=(loop,), name=self.name, daemon=True)
        thread.start()
        self._loop, self._thread = loop, thread

    def call(self, coroutine, timeout: float, *, cancelled: threading.Event | None = None, what: str = ""):
        """Run `coroutine` in the event loop and wait for it at most `timeout` seconds (or until
        `cancelled` is set); either way a stalled coroutine is cancelled and CrawlFailed raised."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coroutine.close()
            raise CrawlFailed("the crawler is closed")
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        with self._lock:
            self._pending.add(future)
        try:
            finished = threading.Event()
            future.add_done_callback(lambda _future: finished.set())
            deadline = time.monotonic() + timeout
            while not finished.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    future.cancel()
                    raise CrawlFailed(f"{what or 'the browser'} took longer than {timeout:g}s")
                if cancelled is not None:
                    if cancelled.is_set():
                        future.cancel()
                        raise CrawlFailed(f"cancelled while {what or 'waiting for the browser'}")
                    finished.wait(min(remaining, CANCEL_CHECK_SECONDS))
                else:
                    finished.wait(remaining)
            try:
                return future.result()
            except concurrent.futures.CancelledError:
                raise CrawlFailed(f"the crawler closed while {what or 'waiting for the browser'}") from None
        finally:
            with self._lock:
                self._pending.discard(future)

    def cancel_pending(self) -> None:
        """Cancel every coroutine a caller is waiting for: its call() raises CrawlFailed now."""
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            future.cancel()

    def stop(self, timeout: float) -> None:
        """Stop the loop and its thread, giving its default executor and the thread `timeout` seconds each."""
        loop, thread = self._loop, self._thread
        if loop is None:
            return
        if not loop.is_closed():
            with contextlib.suppress(CrawlFailed):
                self.call(loop.shutdown_default_executor(), timeout, what="stopping threads")
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout)
        if thread is None or not thread.is_alive():
            loop.close()
        self._loop, self._thread = None, None


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()
