"""Naver's daily call quota, counted in the database so that every worker on every machine shares one count.

Naver allows an application 25,000 Search API calls a day and resets the count at midnight in Korea, so a
quota day here is a calendar day in Asia/Seoul (00:00 KST = 15:00 UTC the day before). Each call first takes
one unit with a single statement on that day's row (`search_naver_call_day`): an INSERT of the day's first
call, or an UPDATE that adds one only while the count is under the limit, returning the new count. No row
returned means the quota is spent; two workers racing for the last unit cannot both get it.

A call that then fails (timeout, 429, 5xx) has still spent its unit, as it has at Naver.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection

from search.models import NaverCallDay

KST = ZoneInfo("Asia/Seoul")

# Take one call of `day`'s quota: the day's first call inserts the row; later ones add one while under the limit.
TAKE_SQL = """
INSERT INTO search_naver_call_day AS quota (day, calls, updated_at)
VALUES (%(day)s, 1, now())
ON CONFLICT (day) DO UPDATE SET calls = quota.calls + 1, updated_at = now()
WHERE quota.calls < %(limit)s
RETURNING calls
"""


@dataclass(frozen=True)
class Taken:
    """A call of the quota was taken: the count of the day after it."""

    calls: int
    limit: int


@dataclass(frozen=True)
class Spent:
    """The quota of the day is spent; it resets at `resets_at`."""

    limit: int
    resets_at: datetime

    @property
    def reason(self) -> str:
        return (
            f"Naver's daily quota of {self.limit:,} calls is spent; it resets at 00:00 KST "
            f"({self.resets_at.astimezone(ZoneInfo('UTC')):%Y-%m-%d %H:%M} UTC)"
        )

    def seconds_left(self, now: datetime | None = None) -> float:
        return max(0.0, (self.resets_at - (now or datetime.now(KST))).total_seconds())


def quota_day(now: datetime | None = None) -> date:
    """The quota day `now` falls in: the date in Korea."""
    return (now or datetime.now(KST)).astimezone(KST).date()


def next_reset(now: datetime | None = None) -> datetime:
    """The next midnight in Korea after `now`."""
    day = quota_day(now)
    return datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=KST)


def take_call(*, limit: int | None = None, now: datetime | None = None) -> Taken | Spent:
    """Take one call of today's quota (LPS_NAVER_DAILY_CALLS unless `limit`), or say it is spent."""
    limit = settings.LPS_NAVER_DAILY_CALLS if limit is None else limit
    if limit <= 0:
        return Spent(limit=limit, resets_at=next_reset(now))
    with connection.cursor() as cursor:
        cursor.execute(TAKE_SQL, {"day": quota_day(now), "limit": limit})
        row = cursor.fetchone()
    if row is None:
        return Spent(limit=limit, resets_at=next_reset(now))
    return Taken(calls=row[0], limit=limit)


def calls_today(now: datetime | None = None) -> int:
    """Calls counted so far on today's quota day."""
    row = NaverCallDay.objects.filter(day=quota_day(now)).first()
    return row.calls if row else 0
