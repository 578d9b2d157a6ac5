"""gunicorn settings of the web process (`gunicorn -c python:lps_site.gunicorn_conf lps_site.wsgi`).

Prometheus's multiprocess mode: every gunicorn worker keeps its counters and histograms in files under
PROMETHEUS_MULTIPROC_DIR, and /metrics sums them, so that the totals add up whichever worker answers. The
directory must be set before any process imports prometheus_client (which picks its value store at import),
and it must start empty: files left by an earlier run would be added to this one's totals. A dead worker's
files stay (its counts happened), and `mark_process_dead` drops its live-gauge files.

The worker: gthread whose poller reads each request before a thread serves it, with a deadline on each phase of a
request (lps_site/web_worker.py), so that a client that stalls in its request line, headers or body costs no
thread and gets a 408 envelope.

The Procfile's command-line options (bind, workers, logs) still apply on top of these.
"""

import os
import shutil
import tempfile
from pathlib import Path

# Set here, in the master, before the workers import the application: a deploy may name its own directory
# (on a RAM disk, say); otherwise each start gets a fresh one of its own.
_created = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _created:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="lps-prometheus-")
MULTIPROC_DIR = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])

# gunicorn's control socket defaults to one path per user ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl), so a
# second LPS (or any gunicorn) on the machine would take over this one's. LPS never drives gunicorn through it
# (the supervisor signals the master), so there is none.
control_socket_disable = True

worker_class = "lps_site.web_worker.DeadlineThreadWorker"
# Threads per worker process: each one a request at a time and a database connection of its own. A client that
# stalls holds one for at most the deadline below, and a worker with none free leaves new connections to another.
threads = int(os.environ.get("LPS_WEB_THREADS", "16"))
# Seconds a request's line and headers may take from their first byte, its body from the end of the headers,
# and each write of the answer (a client that does not read it).
HEAD_TIMEOUT_SECONDS = float(os.environ.get("LPS_WEB_HEAD_TIMEOUT_SECONDS", "10"))
BODY_TIMEOUT_SECONDS = float(os.environ.get("LPS_WEB_BODY_TIMEOUT_SECONDS", "30"))
WRITE_TIMEOUT_SECONDS = float(os.environ.get("LPS_WEB_WRITE_TIMEOUT_SECONDS", "30"))
# The largest request body the worker's poller buffers before a thread takes the request (the API's JSON body
# limit by default): a stalled client below it costs no thread; a larger body is read on a thread, under the body
# deadline.
BUFFERED_BODY_BYTES = int(os.environ.get("LPS_WEB_BUFFERED_BODY_BYTES", str(1024 * 1024)))

# gunicorn's own lines (start, workers booting and exiting, the access log) in the same JSON as the app's.
if os.environ.get("LPS_LOG_FORMAT") == "json":
    logconfig_dict = {
        # Not propagated to the root logger as well: each line once.
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
        "formatters": {
            "generic": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            }
        },
    }


def on_starting(server) -> None:
    MULTIPROC_DIR.mkdir(parents=True, exist_ok=True)
    for stale in MULTIPROC_DIR.glob("*.db"):
        stale.unlink()


def post_fork(server, worker) -> None:
    from lps_site.web_worker import ReadDeadlines

    worker.deadlines = ReadDeadlines(
        head_seconds=HEAD_TIMEOUT_SECONDS,
        body_seconds=BODY_TIMEOUT_SECONDS,
        write_seconds=WRITE_TIMEOUT_SECONDS,
        buffered_body_bytes=BUFFERED_BODY_BYTES,
    )


def child_exit(server, worker) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server) -> None:
    if _created:
        shutil.rmtree(MULTIPROC_DIR, ignore_errors=True)
