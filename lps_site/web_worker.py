"""The web process's gunicorn worker: gthread with read deadlines, so that a slow client cannot hold the web tier.

gunicorn's gthread worker already keeps a connection that has sent nothing off its threads (it waits in the
worker's poller), but once a request has begun a thread reads it with a blocking socket and no time limit: a
client that sends a request line and a Host header and then nothing, or a chunked body without its last chunk,
or a Content-Length of 1000 followed by 12 bytes, holds a thread until it hangs up. This worker bounds each
phase of a request:

- the head (request line and headers): `head_seconds` from its first byte; past that the client gets a 408
  envelope from here (no path is known yet, so it is always the envelope);
- the body: `body_seconds` from the end of the head, however the bytes trickle in; a read past it raises
  `BodyReadTimeout` (a TimeoutError) in the application, which answers the 408 envelope itself (api/);
- every write of the answer: `write_seconds`, against a client that does not read.

Every error gunicorn answers itself (a request line or header it cannot parse, a URI too long, an unsupported
transfer coding, a malformed chunk) is the API's JSON envelope too, not gunicorn's HTML page (`write_json_error`).

The deadlines are on the whole phase, not on each read: a client sending one byte a second gets no further than
one sending nothing. A worker also stops accepting connections while all of its threads are busy, so that a new
connection waits in the kernel's queue for a worker with a free thread instead of queueing behind stalled ones.

Put a buffering proxy in front all the same (README, "Production environment"): it absorbs slow clients without
a thread each, where this worker only bounds how long each one costs.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass

from gunicorn import util as gunicorn_util
from gunicorn.workers import gthread

# The API's result code for "the request did not arrive in time" (api.codes.ResultCode.HTTP_REQUEST_TIMEOUT):
# written from here because the worker runs below the Django apps and imports none of them.
REQUEST_TIMEOUT_CODE = 408
# A connection that has sent nothing yet waits in the worker's poller rather than on a thread: gthread lets a
# thread wait this long for the first bytes before it hands the connection back to the poller (gunicorn's own
# 5 s would let a burst of idle connections hold every thread for 5 s).
FIRST_BYTES_WAIT_SECONDS = 0.5


@dataclass(frozen=True)
class ReadDeadlines:
    """How long each phase of a request may take, in seconds."""

    head_seconds: float = 10.0
    body_seconds: float = 30.0
    write_seconds: float = 30.0


class HeadReadTimeout(Exception):
    """The request line and headers did not arrive within the head deadline."""

    # Not an OSError: gthread answers an OSError by closing the connection in silence, while any other exception
    # reaches handle_error, which answers the 408 envelope.


class BodyReadTimeout(TimeoutError):
    """The request body did not arrive within the body deadline."""

    # A TimeoutError, so that the application (Django wraps it in UnreadablePostError) and gthread's drain of an
    # unread body both treat it as the timeout it is.


class DeadlineSocket:
    """A connection's socket whose reads stop at the current phase's deadline and whose writes are bounded."""

    def __init__(self, sock: socket.socket, deadlines: ReadDeadlines):
        self._sock = sock
        self._deadlines = deadlines
        self._phase: str | None = None
        self._deadline: float | None = None
        # The timeout gunicorn itself asked for (None: blocking, 0.0: non-blocking), kept under ours.
        self._requested: float | None = sock.gettimeout()

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def fileno(self) -> int:
        return self._sock.fileno()

    def start_head(self) -> None:
        """Bound the next request's head; the clock starts at its first read."""
        self._phase, self._deadline = "head", None

    def start_body(self) -> None:
        """Bound the body of the request whose head was just read; the clock starts now."""
        self._phase, self._deadline = "body", time.monotonic() + self._deadlines.body_seconds

    def disarm(self) -> None:
        """No deadline: the request is over (gunicorn's own close and drain use their own timeouts)."""
        self._phase, self._deadline = None, None

    def settimeout(self, value: float | None) -> None:
        self._requested = value
        self._sock.settimeout(value)

    def setblocking(self, flag: bool) -> None:
        self._requested = None if flag else 0.0
        self._sock.setblocking(flag)

    def gettimeout(self) -> float | None:
        return self._requested

    def recv(self, size: int, *flags: int) -> bytes:
        if self._phase is None or self._requested == 0.0:
            return self._sock.recv(size, *flags)
        if self._deadline is None:
            self._deadline = time.monotonic() + self._deadlines.head_seconds
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise self._timeout()
        timeout = remaining if self._requested is None else min(remaining, self._requested)
        self._sock.settimeout(timeout)
        try:
            return self._sock.recv(size, *flags)
        except TimeoutError:
            if time.monotonic() >= self._deadline:
                raise self._timeout() from None
            raise

    def _timeout(self) -> Exception:
        if self._phase == "head":
            return HeadReadTimeout(f"the request line and headers took longer than {self._deadlines.head_seconds:g} s")
        return BodyReadTimeout(f"the request body took longer than {self._deadlines.body_seconds:g} s to arrive")

    def sendall(self, data: bytes, *flags: int) -> None:
        # Since Python 3.5 a socket timeout bounds a whole sendall, not each piece of it.
        self._sock.settimeout(self._deadlines.write_seconds)
        try:
            self._sock.sendall(data, *flags)
        finally:
            self._sock.settimeout(self._requested)

    def sendfile(self, file, offset: int = 0, count: int | None = None) -> int:
        self._sock.settimeout(self._deadlines.write_seconds)
        try:
            return self._sock.sendfile(file, offset, count)
        finally:
            self._sock.settimeout(self._requested)


# What gunicorn's own error answers (a request line it cannot parse, a URI too long, a transfer coding it does not
# support, a malformed chunk) carry as the API's result code: the request's fault, or the server's.
RESULT_CODE_BY_STATUS = {403: 403, 500: 102}
CLIENT_ERROR_CODE = 101  # api.codes.ResultCode.INVALID_REQUEST_DATA
SERVER_ERROR_CODE = 102  # api.codes.ResultCode.INTERNAL_EXCEPTION


def error_answer(status: int, reason: str, message: str) -> bytes:
    """The raw HTTP answer for an error gunicorn answers itself: the API's JSON envelope, the connection closed."""
    code = RESULT_CODE_BY_STATUS.get(status, CLIENT_ERROR_CODE if status < 500 else SERVER_ERROR_CODE)
    body = json.dumps({"result": code, "error": message or reason}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn.util.write_error's place in this worker: the envelope instead of an HTML page."""
    gunicorn_util.write_nonblock(sock, error_answer(int(status_int), str(reason), str(mesg)))


def timeout_answer(message: str) -> bytes:
    """The raw HTTP 408 answer: the API's envelope, and the connection closed."""
    body = json.dumps({"result": REQUEST_TIMEOUT_CODE, "error": message}).encode()
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class DeadlineThreadWorker(gthread.ThreadWorker):
    """gthread with a deadline on each phase of a request, and no accepting while every thread is busy."""

    # Set by lps_site/gunicorn_conf.py's post_fork hook from the environment; these defaults otherwise.
    deadlines = ReadDeadlines()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.busy_threads = 0

    def init_process(self) -> None:
        gthread.DEFAULT_WORKER_DATA_TIMEOUT = FIRST_BYTES_WAIT_SECONDS
        # gunicorn answers what never reaches the application (400, 414, 431, 501, a malformed chunk) through
        # util.write_error, an HTML page; in this worker's process it is the API's envelope.
        gunicorn_util.write_error = write_json_error
        super().init_process()

    # --- Deadlines --------------------------------------------------------------------------------------------

    def enqueue_req(self, conn) -> None:
        if not isinstance(conn.sock, DeadlineSocket) and not self.cfg.is_ssl:
            # (TLS ends at the proxy in front; gunicorn's own TLS needs the bare socket and keeps its behaviour.)
            conn.sock = DeadlineSocket(conn.sock, self.deadlines)
        self.busy_threads += 1
        if self.busy_threads >= self.cfg.threads:
            super().set_accept_enabled(False)
        super().enqueue_req(conn)

    def finish_request(self, conn, fs) -> None:
        self.busy_threads -= 1
        super().finish_request(conn, fs)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The loop asks to accept whenever the worker has room for connections; a connection accepted while every
        # thread is busy would wait behind them, so it is left to a worker with a free thread.
        super().set_accept_enabled(enabled and self.busy_threads < self.cfg.threads)

    def handle(self, conn):
        deadline_socket = conn.sock if isinstance(conn.sock, DeadlineSocket) else None
        if deadline_socket is not None:
            deadline_socket.start_head()
        try:
            return super().handle(conn)
        finally:
            if deadline_socket is not None:
                deadline_socket.disarm()

    def handle_request(self, req, conn):
        if isinstance(conn.sock, DeadlineSocket):
            conn.sock.start_body()
        return super().handle_request(req, conn)

    def handle_error(self, req, client, addr, exc) -> None:
        if not isinstance(exc, HeadReadTimeout):
            super().handle_error(req, client, addr, exc)
            return
        address = addr[0] if addr else "?"
        self.log.warning("Request head from ip=%s timed out: %s; answered 408", address, exc)
        try:
            client.settimeout(1.0)
            client.sendall(timeout_answer(str(exc)))
        except OSError:
            self.log.debug("Could not send the 408 to ip=%s", address)
