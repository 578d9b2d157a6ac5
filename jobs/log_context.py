"""Which job a log line belongs to: context variables set around each step of a job's life, and the logging
filter and plain-text formatter that put them on every line.

The worker binds a job's id, attempt, type and worker id in the thread that runs its handler (a context
variable is per thread, so each handler thread carries its own job) and around the main thread's lines about
that job (its outcome, a deadline, a lost lease). `JobContextFilter` copies the bound fields onto every record
that passes a handler, so a JSON line carries them as keys and the plain format appends them; lines outside a
job carry none.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator

FIELDS = ("job_id", "attempt", "job_type", "worker_id")
"""The fields of a job's log lines, in the order the plain format shows them."""

_bound: contextvars.ContextVar[dict | None] = contextvars.ContextVar("lps_job_log_context", default=None)


@contextlib.contextmanager
def job_logging(*, job_id, attempt: int, job_type: str, worker_id: str) -> Iterator[None]:
    """Tag every log line of this thread with the job's id, attempt, type and worker until the block ends."""
    token = _bound.set({"job_id": str(job_id), "attempt": attempt, "job_type": job_type, "worker_id": worker_id})
    try:
        yield
    finally:
        _bound.reset(token)


def bound() -> dict:
    """The fields bound in this thread (empty outside a job)."""
    return dict(_bound.get() or {})


class JobContextFilter(logging.Filter):
    """Copy the bound job fields onto each record (a field the call set itself through `extra` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_bound.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


# Every control character but the tab, escaped in a plain line's message: a path or a product code that carries a
# line feed (a client's %0a) must not start a line of its own that reads as another record.
_ESCAPED = {code: f"\\x{code:02x}" for code in (*range(0x09), *range(0x0A, 0x20), 0x7F)} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
    0x85: "\\x85",
}


def one_line(text: str) -> str:
    """`text` with its line breaks and other control characters escaped (a log line's message stays one line)."""
    return text.translate(_ESCAPED)


class PlainFormatter(logging.Formatter):
    """The plain text format, with ` [job_id=… attempt=… job_type=… worker_id=…]` on a job's lines; a message
    is always one line (its control characters escaped); a traceback follows on its own lines as usual."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        message = record.message
        record.message = one_line(message)
        try:
            return super().formatMessage(record)
        finally:
            record.message = message

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = [f"{name}={getattr(record, name)}" for name in FIELDS if hasattr(record, name)]
        if not fields:
            return line
        first, newline, rest = line.partition("\n")
        return f"{first} [{' '.join(fields)}]{newline}{rest}"
