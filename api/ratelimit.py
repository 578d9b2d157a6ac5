"""Rate limits counted in PostgreSQL, so that every web process shares one count: per API key, and per client
address for wrong keys.

A bucket keeps the last 61 seconds of requests, one counter per second in a ring (`counts[s % 61]`, the second
of its latest request in `last_second`). A request is allowed while the 61 counters, this request included, hold
at most the limit. Those seconds cover the 60 before the request and its own, so no 60-second span, wherever it
starts, ever holds more than the limit of allowed requests: a fixed window let a client send its limit at the end
of one minute and again at the start of the next. Refused requests are counted too, so a client that keeps
hammering stays refused until it slows down; Retry-After says when its oldest counted requests leave the span.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from api.models import ApiClient

SLOTS = 61
"""Seconds a bucket remembers: the 60 before a request and the request's own."""

# Count one request in a bucket and return its counters: the counters of seconds that left the span are zeroed,
# the current second's is incremented, all in one atomic upsert, so concurrent requests on one bucket serialise on
# its row and no two of them read the same counts. `at` (whole epoch seconds) replaces the clock for tests. The
# commit skips the WAL flush (synchronous_commit off for this transaction only, set inside the statement): a crash
# may forget the last few counts, which costs nothing, while every request saves a disk flush. Inside a caller's
# transaction the setting would cover the caller's writes too, so then it is left as it is.
HIT_SQL = """
WITH no_flush AS (
    SELECT set_config(
        'synchronous_commit',
        CASE WHEN %(skip_flush)s THEN 'off' ELSE current_setting('synchronous_commit') END,
        true
    )
),
clock AS (
    SELECT COALESCE(%(at)s::bigint, floor(extract(epoch FROM now()))::bigint) AS second FROM no_flush
)
INSERT INTO api_rate_bucket AS b (bucket, last_second, counts)
SELECT %(bucket)s,
       clock.second,
       ARRAY(SELECT CASE WHEN slot = mod(clock.second, 61) THEN 1 ELSE 0 END FROM generate_series(0, 60) AS slot)
FROM clock
ON CONFLICT (bucket) DO UPDATE
SET counts = ARRAY(
        SELECT CASE
                   -- The second a slot last counted is the latest one at or before last_second that maps to it.
                   WHEN EXCLUDED.last_second - (b.last_second - mod(b.last_second - slot, 61)) <= 60
                   THEN b.counts[slot + 1]
                   ELSE 0
               END
               + CASE WHEN slot = mod(EXCLUDED.last_second, 61) THEN 1 ELSE 0 END
        FROM generate_series(0, 60) AS slot
        ORDER BY slot
    ),
    last_second = GREATEST(b.last_second, EXCLUDED.last_second)
RETURNING counts, last_second
"""

# The counters of a bucket as they stand, with the clock's second: a read, for a throttle checked before the
# request is known to count against it.
PEEK_SQL = """
SELECT b.counts, b.last_second, COALESCE(%(at)s::bigint, floor(extract(epoch FROM now()))::bigint)
FROM (SELECT 1) AS one
LEFT JOIN api_rate_bucket AS b ON b.bucket = %(bucket)s
"""

# Forget buckets whose last request left the span (a deleted client's, an address that went quiet).
PRUNE_SQL = """
DELETE FROM api_rate_bucket
WHERE bucket IN (
    SELECT bucket FROM api_rate_bucket
    WHERE last_second < floor(extract(epoch FROM now()))::bigint - 60
    LIMIT %(limit)s
)
"""


# One keyed request's admission in one statement (api/auth.py), instead of three round trips (peek at the
# address's wrong keys, look the key up, count the request): the address's wrong-key counters as they stand; the
# active client whose prefix and key hash are the ones sent, found only while that address is under its wrong-key
# limit (`failures_limit`, 0: none), so that a locked-out address's right key is neither found nor counted; and
# that client's request counted in its bucket (`client:<id>`, client_bucket below) exactly as HIT_SQL counts it,
# unless `limit` is 0. The client row is read fresh on every request: a revoked key is refused at once, in every
# process. The hash is compared by PostgreSQL's `=`, not in constant time: the compared value is the SHA-256 of
# what the caller sent, and how much of it matches the stored hash tells nothing about the key (api/keys.py). The
# client's columns are named ({client_columns}, filled in at import from the model), so that reading the row needs
# no description of it from the driver.
_ADMIT = """
WITH no_flush AS (
    SELECT set_config(
        'synchronous_commit',
        CASE WHEN %(skip_flush)s THEN 'off' ELSE current_setting('synchronous_commit') END,
        true
    )
),
clock AS (
    SELECT COALESCE(%(at)s::bigint, floor(extract(epoch FROM now()))::bigint) AS second FROM no_flush
),
failures AS (
    SELECT f.counts, f.last_second FROM api_rate_bucket AS f WHERE f.bucket = %(failures_bucket)s
),
failed AS (
    -- The wrong keys of the last 60 seconds and this one's, as over_limit() counts them.
    SELECT COALESCE(sum(f.counts[slot + 1]), 0) AS hits
    FROM failures AS f, clock, generate_series(0, 60) AS slot
    WHERE clock.second - (f.last_second - mod(f.last_second - slot, 61)) <= 60
),
client AS (
    SELECT c.*
    FROM api_client AS c, failed
    WHERE c.key_prefix = %(key_prefix)s
      AND c.key_hash = %(key_hash)s
      AND c.is_active
      AND (%(failures_limit)s <= 0 OR failed.hits + 1 <= %(failures_limit)s)
),
counted AS (
    INSERT INTO api_rate_bucket AS b (bucket, last_second, counts)
    SELECT 'client:' || client.id,
           clock.second,
           ARRAY(SELECT CASE WHEN slot = mod(clock.second, 61) THEN 1 ELSE 0 END FROM generate_series(0, 60) AS slot)
    FROM client, clock
    WHERE %(limit)s > 0
    ON CONFLICT (bucket) DO UPDATE
    SET counts = ARRAY(
            SELECT CASE
                       WHEN EXCLUDED.last_second - (b.last_second - mod(b.last_second - slot, 61)) <= 60
                       THEN b.counts[slot + 1]
                       ELSE 0
                   END
                   + CASE WHEN slot = mod(EXCLUDED.last_second, 61) THEN 1 ELSE 0 END
            FROM generate_series(0, 60) AS slot
            ORDER BY slot
        ),
        last_second = GREATEST(b.last_second, EXCLUDED.last_second)
    RETURNING counts, last_second
)
SELECT failures.counts, failures.last_second, clock.second, counted.counts, counted.last_second, {client_columns}
FROM clock
LEFT JOIN failures ON true
LEFT JOIN counted ON true
LEFT JOIN client ON true
"""

CLIENT_COLUMNS = tuple(field.column for field in ApiClient._meta.concrete_fields)
"""The client's columns as ADMIT_SQL returns them: every column of api_client, in the model's order."""
ADMIT_SQL = _ADMIT.format(client_columns=", ".join(f'client."{column}"' for column in CLIENT_COLUMNS))


@dataclass(frozen=True)
class Decision:
    allowed: bool
    hits: int
    """Requests in the last 60 seconds and this one's, this one included (refused ones count too)."""
    retry_after: int
    """Whole seconds until a request would be allowed again (at least 1)."""


def _ages(last_second: int, now: int) -> list[int]:
    """Each slot's age in seconds at `now` (how long ago the second it counts was)."""
    return [now - (last_second - (last_second - slot) % SLOTS) for slot in range(SLOTS)]


def _counted(counts: list[int], ages: list[int], *, later_by: int = 0) -> int:
    return sum(count for count, age in zip(counts, ages, strict=True) if age + later_by <= SLOTS - 1)


def _retry_after(counts: list[int], ages: list[int], limit: int) -> int:
    """Seconds until one more request would fit under `limit`."""
    for wait in range(1, SLOTS + 1):
        if _counted(counts, ages, later_by=wait) + 1 <= limit:
            return wait
    return SLOTS


def hit_bucket(bucket: str, *, limit: int, at: int | None = None) -> Decision:
    """Count a request in `bucket`; allowed while the last 60 seconds and this one hold at most `limit`."""
    with connection.cursor() as cursor:
        cursor.execute(HIT_SQL, {"bucket": bucket, "at": at, "skip_flush": not connection.in_atomic_block})
        counts, last_second = cursor.fetchone()
    return _decided(counts, last_second, limit=limit)


def over_limit(bucket: str, *, limit: int, at: int | None = None) -> Decision:
    """Whether one more request in `bucket` would pass `limit`, without counting it."""
    with connection.cursor() as cursor:
        cursor.execute(PEEK_SQL, {"bucket": bucket, "at": at})
        counts, last_second, now = cursor.fetchone()
    return _peeked(counts, last_second, now, limit=limit)


@dataclass(frozen=True)
class Admission:
    """What ADMIT_SQL found for one keyed request."""

    failures: Decision
    """The address's wrong keys for this key, not counting this request (over_limit's answer)."""
    client: dict | None
    """The active client's row (column name → value) when the key is right and the address was not locked out."""
    counted: Decision | None
    """The client's request counted against its limit (hit's answer); None when not counted."""


def admit_key(
    *,
    key_prefix: str,
    key_hash: str,
    failures_bucket: str,
    failures_limit: int,
    limit: int,
    at: int | None = None,
) -> Admission:
    """Peek at `failures_bucket`, find the active client holding the key of `key_prefix` and `key_hash` and count
    its request against `limit`, in one statement; the client is found only while `failures_bucket` is under
    `failures_limit` (0: no such limit), and counted only when `limit` is above 0."""
    params = {
        "key_prefix": key_prefix,
        "key_hash": key_hash,
        "failures_bucket": failures_bucket,
        "failures_limit": failures_limit,
        "limit": limit,
        "at": at,
        "skip_flush": not connection.in_atomic_block,
    }
    # Prepared once per connection: planning this statement cost PostgreSQL more than running it.
    with connection.prepared_cursor() as cursor:
        cursor.execute(ADMIT_SQL, params)
        row = cursor.fetchone()
    failure_counts, failure_second, now, counts, last_second = row[:5]
    client = dict(zip(CLIENT_COLUMNS, row[5:], strict=True)) if row[5] is not None else None
    return Admission(
        failures=_peeked(failure_counts, failure_second, now, limit=failures_limit),
        client=client,
        counted=None if counts is None else _decided(counts, last_second, limit=limit),
    )


def _decided(counts: list[int], last_second: int, *, limit: int) -> Decision:
    """The decision on a request just counted in a bucket of these counters (its second is `last_second`)."""
    ages = _ages(last_second, last_second)
    hits = _counted(counts, ages)
    if hits <= limit:
        return Decision(allowed=True, hits=hits, retry_after=1)
    return Decision(allowed=False, hits=hits, retry_after=_retry_after(counts, ages, limit))


def _peeked(counts: list[int] | None, last_second: int | None, now: int, *, limit: int) -> Decision:
    """Whether one more request would pass `limit` in a bucket of these counters, read at `now`."""
    if counts is None:
        return Decision(allowed=True, hits=0, retry_after=1)
    ages = _ages(last_second, now)
    hits = _counted(counts, ages)
    if hits + 1 <= limit:
        return Decision(allowed=True, hits=hits, retry_after=1)
    return Decision(allowed=False, hits=hits, retry_after=_retry_after(counts, ages, limit))


def client_bucket(client_id: int) -> str:
    return f"client:{client_id}"


def address_bucket(address: str | None, key_prefix: str | None = None) -> str:
    """The wrong-key bucket of one address and one key: the key's public prefix (`lps_<prefix>_…`), or one shared
    `-` for anything that is no key at all. One tenant's wrong keys so lock out guesses at that key from that
    address, never another tenant's valid key nor the operators' /metrics scrape behind the same address."""
    return f"failed-key:{address or 'unknown'}:{key_prefix or '-'}"


def hit(client_id: int, *, limit: int, at: int | None = None) -> Decision:
    """Count a request of API client `client_id` against its per-minute `limit`."""
    return hit_bucket(client_bucket(client_id), limit=limit, at=at)


def prune(limit: int) -> int:
    """Delete at most `limit` buckets that no longer count anything; return how many (a reaper unit)."""
    with connection.cursor() as cursor:
        cursor.execute(PRUNE_SQL, {"limit": limit})
        return cursor.rowcount
