"""How long what searching leaves behind is kept: IP sessions a dead worker left open, failure snapshots."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from django.db.models.functions import Now
from django.utils import timezone

from search.models import IpSession, SessionEndReason


def end_abandoned_sessions(*, older_than: timedelta) -> int:
    """End as `error` the IP sessions still open after `older_than` (their worker died without closing them)."""
    return IpSession.objects.filter(end_reason=None, started_at__lt=timezone.now() - older_than).update(
        end_reason=SessionEndReason.ERROR, ended_at=Now()
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
