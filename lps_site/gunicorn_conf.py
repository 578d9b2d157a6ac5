"""gunicorn settings of the web process (`gunicorn -c python:lps_site.gunicorn_conf lps_site.wsgi`).

Prometheus's multiprocess mode: every gunicorn worker keeps its counters and histograms in files under
PROMETHEUS_MULTIPROC_DIR, and /metrics sums them, so that the totals add up whichever worker answers. The
directory must be set before any process imports prometheus_client (which picks its value store at import),
and it must start empty: files left by an earlier run would be added to this one's totals. A dead worker's
files stay (its counts happened), and `mark_process_dead` drops its live-gauge files.

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


def child_exit(server, worker) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server) -> None:
    if _created:
        shutil.rmtree(MULTIPROC_DIR, ignore_errors=True)
