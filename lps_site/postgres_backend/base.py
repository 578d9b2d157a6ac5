"""Django's PostgreSQL backend, with a connection's health checked on its socket before a round trip is spent on it.

CONN_HEALTH_CHECKS (lps_site/settings.py) makes Django check a kept connection before the first query of each
request, so that one the server closed since (a restart, a terminated backend, an idle timeout) is replaced
rather than failing that request. Django's check is a `SELECT 1`: a round trip on every request, a third of those
a job read makes, with the PostgreSQL CPU it costs. A connection the server closed has something waiting on its
socket (the server's FATAL message, or the end of the stream), while an idle web connection is sent nothing (it
listens to no channel): so a socket with nothing to read is taken as healthy, and anything waiting there still
gets Django's `SELECT 1`, which decides as before. A connection to a machine that vanished without closing it fails
either check the same way: on its first round trip.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            waiting, _, _ = select.select([connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not waiting or super().is_usable()
