"""Django's PostgreSQL backend, with a connection's health checked on its socket before a round trip is spent on it,
and a cursor for the statements every request runs, prepared once per connection.

CONN_HEALTH_CHECKS (lps_site/settings.py) makes Django check a kept connection before the first query of each
request, so that one the server closed since (a restart, a terminated backend, an idle timeout) is replaced
rather than failing that request. Django's check is a `SELECT 1`: a round trip on every request, a third of those
a job read makes, with the PostgreSQL CPU it costs. A connection the server closed has something waiting on its
socket (the server's FATAL message, or the end of the stream), while an idle web connection is sent nothing (it
listens to no channel): so a socket with nothing to read is taken as healthy, and anything waiting there still
gets Django's `SELECT 1`, which decides as before. A connection to a machine that vanished without closing it fails
either check the same way: on its first round trip.

Django binds a statement's values into its text (psycopg's ClientCursor), so PostgreSQL parses and plans every
statement anew; for the API key's admission (api/ratelimit.py) that planning was two thirds of its server CPU.
`prepared_cursor()` binds the values apart instead, and psycopg prepares each statement on a connection the first
time that connection runs it: later runs skip the parse and the plan. Only that cursor prepares (the ORM's never
does, whatever the connection's threshold), so the statements prepared are the few that ask for it. A pooler that
hands a session's statements to another server connection cannot keep them (PgBouncer in transaction mode before
1.21, or without max_prepared_statements): LPS_DATABASE_PREPARED_STATEMENTS=false then makes `prepared_cursor()`
Django's own cursor.
"""

from __future__ import annotations

import select

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base, operations
from django.db.backends.utils import CursorWrapper
from django.utils.asyncio import async_unsafe


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        if isinstance(cursor, psycopg.ClientCursor):
            return super().last_executed_query(cursor, sql, params)
        # A prepared_cursor()'s statement (logged under DEBUG and in tests), as Django's own cursor sends it.
        try:
            return self.compose_sql(sql, params)
        except psycopg.errors.DataError:
            return None


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            waiting, _, _ = select.select([connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not waiting or super().is_usable()

    def get_connection_params(self) -> dict:
        params = super().get_connection_params()
        if settings.LPS_DATABASE_PREPARED_STATEMENTS:
            # At a statement's first run: only prepared_cursor()'s cursors bind server-side, and they are used for
            # statements a request runs every time.
            params["prepare_threshold"] = 0
        return params

    @async_unsafe
    def prepared_cursor(self) -> CursorWrapper:
        """A cursor like `cursor()` whose statements this connection prepares at their first run and then reuses
        (values bound apart from the text; `%s` and `%(name)s` placeholders as usual); Django's own cursor on a
        connection opened with prepared statements off. For statements run on every request."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        if self.connection.prepare_threshold is None:
            return self.cursor()
        with self.wrap_database_errors:
            cursor = base.ServerBindingCursor(self.connection)
            # As create_cursor does: the cursor's own time zone only when the connection's differs.
            tzloader = self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, base.Format.TEXT)
            if self.timezone != tzloader.timezone:
                base.register_tzloader(self.timezone, cursor)
            return self._prepare_cursor(cursor)
