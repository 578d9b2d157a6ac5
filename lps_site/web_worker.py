"""The web process's gunicorn worker: gthread with read deadlines, so that a slow client cannot hold the web tier.

gunicorn's gthread worker reads a request on one of its threads with a blocking socket and no time limit once
the request's first bytes have arrived: a client that sends a request line and a Host header and then nothing,
or a chunked body without its last chunk, or a Content-Length of 1000 followed by 12 bytes, holds a thread
until it hangs up, and a few dozen such clients hold every thread of every worker. This worker:

- reads each request in its poller, without a thread: the bytes go into a buffer of the connection's as they
  arrive (non-blocking reads), and the connection reaches a thread only once its head and its body are complete
  (or the body is too large to buffer, or the client waits for a 100 Continue, or the bytes are not a request
  the poller can delimit: those the thread's parser answers, with the deadlines below). The thread's parser
  reads the buffered bytes first. A stalled client costs a buffer and a file descriptor, not a thread;
- bounds each phase of a request: the head (request line and headers) `head_seconds` from its first byte, past
  which the client gets a 408 envelope from here (no path is known yet, so it is always the envelope); the body
  `body_seconds` from the end of the head, however the bytes trickle in, past which the request goes to a thread
  whose reads raise `BodyReadTimeout` (a TimeoutError) in the application, which answers the 408 envelope itself
  (api/); and every write of the answer `write_seconds`, against a client that does not read.

Every error gunicorn answers itself (a request line or header it cannot parse, a URI too long, an unsupported
transfer coding, a malformed chunk) is the API's JSON envelope too, not gunicorn's HTML page (`write_json_error`).

The deadlines are on the whole phase, not on each read: a client sending one byte a second gets no further than
one sending nothing. A worker also stops accepting connections while all of its threads are busy, so that a new
connection waits in the kernel's queue for a worker with a free thread instead of queueing behind busy ones.

A buffering proxy in front is still the place for TLS and for bodies larger than the buffer (README,
"Production environment"); this worker no longer needs one to survive stalled sockets.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import json
import selectors
import socket
import time
from dataclasses import dataclass
from functools import partial

from gunicorn import util as gunicorn_util
from gunicorn.http2 import negotiation
from gunicorn.workers import gthread

# The API's result code for "the request did not arrive in time" (api.codes.ResultCode.HTTP_REQUEST_TIMEOUT):
# written from here because the worker runs below the Django apps and imports none of them.
REQUEST_TIMEOUT_CODE = 408
# A connection that has sent nothing yet waits in the worker's poller rather than on a thread: gthread lets a
# thread wait this long for the first bytes before it hands the connection back to the poller (gunicorn's own
# 5 s would let a burst of idle connections hold every thread for 5 s).
FIRST_BYTES_WAIT_SECONDS = 0.5
# Bytes a request line and headers may take in the poller's buffer before the connection goes to a thread as it
# is: gunicorn's own limits (a 4094-byte request line, 100 header fields of 8190 bytes) are refused by its parser,
# which answers 414 or 431 from what is buffered.
MAX_BUFFERED_HEAD_BYTES = 64 * 1024
# How much of a socket's data one poller read takes.
READ_SIZE = 64 * 1024


@dataclass(frozen=True)
class ReadDeadlines:
    """How long each phase of a request may take, in seconds."""

    head_seconds: float = 10.0
    body_seconds: float = 30.0
    write_seconds: float = 30.0
    # The largest body the poller buffers before the request goes to a thread (the API's JSON body limit); a
    # larger one (a big CSV sheet) is read by the thread under the body deadline. Each connection's buffer is at
    # most this, so a worker's memory for them is bounded by worker_connections times it.
    buffered_body_bytes: int = 1024 * 1024


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
        # When the poller saw the current request's first byte and the end of its head (monotonic), so that a
        # thread that takes the request over keeps its deadlines rather than starting them again.
        self.head_began_at: float | None = None
        self.body_began_at: float | None = None

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def fileno(self) -> int:
        return self._sock.fileno()

    def start_head(self) -> None:
        """Bound the next request's head; the clock starts at its first byte (seen by the poller, else read here)."""
        began, self.head_began_at = self.head_began_at, None
        self._phase = "head"
        self._deadline = None if began is None else began + self._deadlines.head_seconds

    def start_body(self) -> None:
        """Bound the body of the request whose head was just read; the clock starts at the head's end."""
        began, self.body_began_at = self.body_began_at, None
        self._phase = "body"
        self._deadline = (time.monotonic() if began is None else began) + self._deadlines.body_seconds

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


# What the poller makes of the bytes a connection has sent so far.
INCOMPLETE = "incomplete"  # more bytes are needed before a thread can serve the request without waiting
COMPLETE = "complete"  # the head and the whole body are buffered: a thread serves it without a blocking read
HAND_OVER = "hand over"  # a thread must take it as it is: too large to buffer, 100-continue, or not delimitable


def chunked_body_end(data: bytes | bytearray, start: int) -> int | str:
    """Where a chunked body that begins at `start` ends (after its last chunk and trailers), INCOMPLETE if it
    has not all arrived, HAND_OVER if it is malformed (the thread's parser answers that with the envelope)."""
    position = start
    while True:
        line_end = data.find(b"\r\n", position)
        if line_end < 0:
            return INCOMPLETE if len(data) - position <= 1024 else HAND_OVER
        size_text = bytes(data[position:line_end]).split(b";", 1)[0].strip()
        if not size_text or any(byte not in b"0123456789abcdefABCDEF" for byte in size_text):
            return HAND_OVER
        size = int(size_text, 16)
        if size == 0:
            if data[line_end + 2 : line_end + 4] == b"\r\n":
                return line_end + 4
            trailers_end = data.find(b"\r\n\r\n", line_end)
            return INCOMPLETE if trailers_end < 0 else trailers_end + 4
        position = line_end + 2 + size + 2
        if position > len(data):
            return INCOMPLETE


def request_state(data: bytes | bytearray, max_body_bytes: int) -> tuple[str, int | None]:
    """What the buffered bytes of a connection amount to, and where the head ends (None while it has not).

    Only the framing is read here (Content-Length, Transfer-Encoding, Expect); anything unusual goes to a thread
    whose parser decides, as every request did before."""
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return (HAND_OVER if len(data) > MAX_BUFFERED_HEAD_BYTES else INCOMPLETE), None
    body_start = head_end + 4
    lengths, codings, expects_continue = [], [], False
    for line in bytes(data[:head_end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            lengths.append(value.strip())
        elif name == b"transfer-encoding":
            codings.append(value.strip().lower())
        elif name == b"expect":
            expects_continue = True
    if expects_continue:
        # The client sends its body only after a 100 Continue, which gunicorn sends when the body is read.
        return HAND_OVER, body_start
    if codings:
        if lengths or codings != [b"chunked"]:
            return HAND_OVER, body_start
        end = chunked_body_end(data, body_start)
        if end == INCOMPLETE and len(data) - body_start > max_body_bytes:
            return HAND_OVER, body_start
        return (end if isinstance(end, str) else COMPLETE), body_start
    if not lengths:
        return COMPLETE, body_start
    if len(set(lengths)) != 1 or not lengths[0].isdigit():
        return HAND_OVER, body_start
    length = int(lengths[0])
    if length > max_body_bytes:
        return HAND_OVER, body_start
    return (COMPLETE if len(data) - body_start >= length else INCOMPLETE), body_start


class BufferedRequest:
    """The bytes of a connection's next request, read by the poller, and the times its deadlines count from."""

    def __init__(self, data: bytes = b""):
        self.data = bytearray(data)
        self.opened_at = time.monotonic()
        self.head_began_at: float | None = self.opened_at if data else None
        self.body_began_at: float | None = None


class DeadlineThreadWorker(gthread.ThreadWorker):
    """gthread that reads each request in its poller and serves it on a thread only once it has all arrived, with
    a deadline on each phase of a request, and no accepting while every thread is busy."""

    # Set by lps_site/gunicorn_conf.py's post_fork hook from the environment; these defaults otherwise.
    deadlines = ReadDeadlines()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.busy_threads = 0
        # The connections whose next request the poller is reading, with what has arrived of it.
        self.reading: dict[gthread.TConn, BufferedRequest] = {}
        # Threads reading a request the poller could not buffer (see hand_over_if_ready), and the connections
        # waiting, unread, for one of those threads.
        self.unbuffered_threads = 0
        self.waiting_for_thread: collections.deque[gthread.TConn] = collections.deque()

    @property
    def max_unbuffered_threads(self) -> int:
        # At most half the threads read requests the poller could not buffer: a hundred clients that stall in
        # such requests hold those, not the ones /healthz and every other request need.
        return max(1, self.cfg.threads // 2)

    def init_process(self) -> None:
        gthread.DEFAULT_WORKER_DATA_TIMEOUT = FIRST_BYTES_WAIT_SECONDS
        # gunicorn answers what never reaches the application (400, 414, 431, 501, a malformed chunk) through
        # util.write_error, an HTML page; in this worker's process it is the API's envelope.
        gunicorn_util.write_error = write_json_error
        super().init_process()

    def reads_in_poller(self, client) -> bool:
        # TLS ends at the proxy in front; gunicorn's own TLS, and HTTP/2's preface sniffing, need the bare socket
        # on a thread, and keep gunicorn's behaviour.
        return not self.cfg.is_ssl and not negotiation.prior_knowledge_allowed(self.cfg, client)

    # --- Reading in the poller ----------------------------------------------------------------------------------

    def accept(self, listener) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        if not self.reads_in_poller(client_addr):
            client_sock.setblocking(True)
            conn = gthread.TConn(self.cfg, client_sock, client_addr, listener.getsockname())
            conn.sock = DeadlineSocket(conn.sock, self.deadlines) if not self.cfg.is_ssl else conn.sock
            self.enqueue_req(conn)
            return
        conn = gthread.TConn(self.cfg, client_sock, client_addr, listener.getsockname())  # non-blocking
        conn.sock = DeadlineSocket(conn.sock, self.deadlines)
        self.read_in_poller(conn, b"")

    def on_client_socket_readable(self, conn, client) -> None:
        # A kept-alive connection's next request: read in the poller like a new connection's.
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self.read_in_poller(conn, b"")

    def read_in_poller(self, conn, data: bytes) -> None:
        buffered = BufferedRequest(data)
        self.reading[conn] = buffered
        if not (data and self.hand_over_if_ready(conn, buffered)):
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, conn))

    def on_request_bytes(self, conn, _client) -> None:
        buffered = self.reading[conn]
        try:
            chunk = conn.sock.recv(READ_SIZE)  # non-blocking: the poller saw it readable
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.drop(conn)
            return
        if not chunk:
            self.drop(conn)  # the client hung up before its request was whole: nothing to answer
            return
        if buffered.head_began_at is None:
            buffered.head_began_at = time.monotonic()
        buffered.data += chunk
        if self.hand_over_if_ready(conn, buffered):
            self.poller.unregister(conn.sock)

    def hand_over_if_ready(self, conn, buffered: BufferedRequest) -> bool:
        state, body_start = request_state(buffered.data, self.deadlines.buffered_body_bytes)
        if body_start is not None and buffered.body_began_at is None:
            buffered.body_began_at = time.monotonic()
        if state == INCOMPLETE:
            return False
        if state == HAND_OVER and body_start is not None and self.unbuffered_threads >= self.max_unbuffered_threads:
            # A request whose head is whole (a head over the buffer still goes to a thread at once, under the head
            # deadline). Left unread (the client's own send buffer holds what it sends) until such a thread is free; its
            # deadlines still run in murder_pending.
            self.waiting_for_thread.append(conn)
            return True
        self.hand_to_thread(conn, buffered, unbuffered=state == HAND_OVER and body_start is not None)
        return True

    def hand_to_thread(self, conn, buffered: BufferedRequest, unbuffered: bool = False) -> None:
        del self.reading[conn]
        conn.unbuffered = unbuffered
        if unbuffered:
            self.unbuffered_threads += 1
        # The thread's deadlines count from when the poller saw the head begin and end, not from its own start.
        conn.sock.head_began_at = buffered.head_began_at
        conn.sock.body_began_at = buffered.body_began_at
        conn.buffered = bytes(buffered.data)
        conn.data_ready = True
        self.enqueue_req(conn)

    def murder_pending(self) -> None:
        # Called by the main loop at least once a second: the deadlines of the requests the poller is reading.
        super().murder_pending()
        now = time.monotonic()
        for conn, buffered in list(self.reading.items()):
            if buffered.head_began_at is None:
                # A connection that has sent nothing is closed in silence (nothing was asked of it).
                if now >= buffered.opened_at + self.deadlines.head_seconds:
                    self.drop(conn)
            elif buffered.body_began_at is None:
                if now >= buffered.head_began_at + self.deadlines.head_seconds:
                    self.answer_head_timeout(conn)
            elif now >= buffered.body_began_at + self.deadlines.body_seconds:
                # Late in its body: a thread takes it, whose first read past the buffer raises BodyReadTimeout,
                # and the application answers the 408 envelope with the request's path known (at once: one
                # waiting for an unbuffered thread takes one over the cap, for no longer than that answer).
                waiting = self.stop_waiting(conn)
                if not waiting:
                    self.poller.unregister(conn.sock)
                self.hand_to_thread(conn, buffered, unbuffered=waiting)

    def stop_waiting(self, conn) -> bool:
        """Take `conn` off the connections waiting for an unbuffered thread; whether it was one."""
        try:
            self.waiting_for_thread.remove(conn)
        except ValueError:
            return False
        return True

    def hand_waiting_to_threads(self) -> None:
        while self.waiting_for_thread and self.unbuffered_threads < self.max_unbuffered_threads:
            conn = self.waiting_for_thread.popleft()
            self.hand_to_thread(conn, self.reading[conn], unbuffered=True)

    def answer_head_timeout(self, conn) -> None:
        message = f"the request line and headers took longer than {self.deadlines.head_seconds:g} s"
        address = conn.client[0] if conn.client else "?"
        self.log.warning("Request head from ip=%s timed out: %s; answered 408", address, message)
        try:
            # Non-blocking: a few hundred bytes fit the socket's send buffer of a client that has read nothing.
            conn.sock.send(timeout_answer(message))
            conn.sock.shutdown(socket.SHUT_WR)
            # What the client sent meanwhile, read so that closing does not reset the connection under the 408.
            while conn.sock.recv(READ_SIZE):
                pass
        except OSError:
            pass
        self.drop(conn)

    def drop(self, conn) -> None:
        self.reading.pop(conn, None)
        self.stop_waiting(conn)
        with contextlib.suppress(KeyError, ValueError, OSError):  # not registered (any more)
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    # --- Threads -----------------------------------------------------------------------------------------------

    def enqueue_req(self, conn) -> None:
        self.busy_threads += 1
        if self.busy_threads >= self.cfg.threads:
            super().set_accept_enabled(False)
        super().enqueue_req(conn)

    def finish_request(self, conn, fs) -> None:
        self.busy_threads -= 1
        if getattr(conn, "unbuffered", False):
            conn.unbuffered = False
            self.unbuffered_threads -= 1
            self.hand_waiting_to_threads()
        parser = conn.parser
        if self.alive and not fs.cancelled() and fs.exception() is None and fs.result() is True and parser:
            ahead = parser.unreader.take_buffered()
            if ahead:
                # The client has sent (part of) its next request already: the poller reads the rest of it.
                conn.sock.setblocking(False)
                self.read_in_poller(conn, ahead)
                return
        super().finish_request(conn, fs)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The loop asks to accept whenever the worker has room for connections; a connection accepted while every
        # thread is busy would wait behind them, so it is left to a worker with a free thread.
        super().set_accept_enabled(enabled and self.busy_threads < self.cfg.threads)

    def handle(self, conn):
        deadline_socket = conn.sock if isinstance(conn.sock, DeadlineSocket) else None
        buffered = getattr(conn, "buffered", b"")
        if buffered:
            conn.buffered = b""
            conn.sock.setblocking(True)
            conn.init()
            # The parser reads what the poller buffered before the socket.
            conn.parser.unreader.unread(buffered)
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
