"""Per-key rate limiting: a fixed window counted in PostgreSQL, so every web process shares one count."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import connection

# Count one request in the client's current window (starting a new window when the stored one is over) and
# return the count and the seconds left in the window. One atomic upsert: concurrent requests of one client
# serialise on its row, so no two of them read the same count. The counter's commit skips the WAL flush
# (synchronous_commit off for this transaction only, set inside the same statement): a crash may forget the
# last few counts, which costs nothing, while every request saves a disk flush. Inside a caller's transaction
# the setting would cover the caller's writes too, so then it is left as it is.
HIT_SQL = """
WITH no_flush AS (
    SELECT set_config(
        'synchronous_commit',
        CASE WHEN %(skip_flush)s THEN 'off' ELSE current_setting('synchronous_commit') END,
        true
    )
)
INSERT INTO api_rate_window AS w (client_id, window_start, hits)
SELECT %(client_id)s,
       to_timestamp(floor(extract(epoch FROM now()) / %(window_seconds)s) * %(window_seconds)s),
       1
FROM no_flush
ON CONFLICT (client_id) DO UPDATE
SET hits = CASE WHEN w.window_start = EXCLUDED.window_start THEN w.hits + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
RETURNING hits, extract(epoch FROM w.window_start + make_interval(secs => %(window_seconds)s) - now())
"""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    hits: int
    retry_after: int
    """Whole seconds until the window resets (at least 1)."""


def hit(client_id: int, *, limit: int, window_seconds: int = 60) -> Decision:
    """Count a request of `client_id`; allowed while the window holds at most `limit` requests."""
    with connection.cursor() as cursor:
        cursor.execute(
            HIT_SQL,
            {"client_id": client_id, "window_seconds": window_seconds, "skip_flush": not connection.in_atomic_block},
        )
        hits, seconds_left = cursor.fetchone()
    return Decision(allowed=hits <= limit, hits=hits, retry_after=max(1, math.ceil(float(seconds_left))))
