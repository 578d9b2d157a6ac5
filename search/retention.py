"""How long what searching leaves behind is kept: IP sessions a dead worker left open, failure snapshots.

The reaper runs both as maintenance units (registered in search/apps.py), one bounded batch per call.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models.functions import Now
from django.utils import timezone

from search.models import IpSession, SessionEndReason


def end_abandoned_sessions(*, older_than: timedelta, limit: int = 1000) -> int:
    """End as `error` up to `limit` IP sessions still open after `older_than` (their worker died without closing
    them)."""
    abandoned = IpSession.objects.filter(end_reason=None, started_at__lt=timezone.now() - older_than)
    return IpSession.objects.filter(pk__in=abandoned.values("pk")[:limit]).update(
        end_reason=SessionEndReason.ERROR, ended_at=Now()
    )


def end_sessions_of_dead_workers(limit: int) -> int:
    """The reaper's unit: end the IP sessions open for over LPS_ABANDONED_SESSION_HOURS."""
    return end_abandoned_sessions(older_than=timedelta(hours=settings.LPS_ABANDONED_SESSION_HOURS), limit=limit)


def prune_old_snapshots(limit: int) -> int:
    """The reaper's unit: delete the snapshots older than LPS_SNAPSHOT_RETENTION_DAYS.

    Snapshots are files of the machine the reaper runs on (share LPS_SNAPSHOT_DIR between machines).
    """
    return prune_snapshots(
        Path(settings.LPS_SNAPSHOT_DIR), older_than=timedelta(days=settings.LPS_SNAPSHOT_RETENTION_DAYS), limit=limit
    )


def prune_snapshots(folder: Path, *, older_than: timedelta, limit: int = 1000) -> int:
    """Delete up to `limit` failure snapshot files (HTML, screenshots) last written before `older_than` ago."""
    if not folder.is_dir():
        return 0
    cutoff = time.time() - older_than.total_seconds()
    deleted = 0
    for path in folder.rglob("*"):
        if deleted >= limit:
            break
        if path.is_file() and not path.is_symlink() and path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            deleted += 1
    for directory in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    return deleted
