"""Where a test's subprocesses (gunicorn, workers, the embedded PostgreSQL) find what the test set up."""

from __future__ import annotations

import socket

from django.db import connection


def free_port() -> int:
    """A port nothing listens on now, so that two test runs on one machine never share a server."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url() -> str:
    """The URL of the test database (what a subprocess must be given as DATABASE_URL)."""
    params = connection.settings_dict
    auth = params["USER"] + (f":{params['PASSWORD']}" if params["PASSWORD"] else "")
    return f"postgres://{auth}@{params['HOST']}:{params['PORT']}/{params['NAME']}"
