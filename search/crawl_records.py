"""What the crawler writes to the database: IpSession rows (opened, progressed, ended) and BotEvent rows.

Separate so that the database sits at the edge of the browser code: these run in the callers' threads (never
in the event loop, where Django would raise SynchronousOnlyOperation), and every column the crawler fills,
with its length limit, is in one place.
"""

from __future__ import annotations

from django.utils import timezone

from search.models import BotEvent, IpSession, SessionEndReason


def end_reason(reason: str | SessionEndReason) -> SessionEndReason:
    """The SessionEndReason named by `reason` ("budget", "blocked", "error", "recycled", "shutdown")."""
    if isinstance(reason, SessionEndReason):
        return reason
    for member in SessionEndReason:
        if member.label == str(reason).strip().lower():
            return member
    raise ValueError(f"unknown session end reason {reason!r}: one of {[m.label for m in SessionEndReason]}")


def open_ip_session(proxy_label: str, worker_id: str) -> int:
    """Record an IP session opened via `proxy_label` by `worker_id`; return its row's id."""
    return IpSession.objects.create(proxy_label=proxy_label, worker_id=worker_id).pk


def record_progress(record_id: int, *, requests: int, size: int) -> None:
    """Record the requests and bytes an open IP session has served so far."""
    IpSession.objects.filter(pk=record_id).update(requests=requests, bytes=size)


def end_ip_session(record_id: int, reason: SessionEndReason, *, requests: int, size: int) -> None:
    """End an IP session's row with `reason` and its totals, unless something ended it already."""
    IpSession.objects.filter(pk=record_id, ended_at=None).update(
        ended_at=timezone.now(), end_reason=reason, requests=requests, bytes=size
    )


def record_block(
    *,
    record_id: int,
    proxy_label: str,
    kind: str,
    http_status: int | None,
    url: str,
    query: str,
    requests_in_session: int,
    snapshot_path: str,
) -> None:
    """Record that the marketplace blocked IP session `record_id` (a BotEvent row)."""
    BotEvent.objects.create(
        ip_session_id=record_id,
        proxy_label=proxy_label,
        kind=kind[:40],
        http_status=http_status,
        url=url[:2000],
        query=query[:500],
        requests_in_session=requests_in_session,
        snapshot_path=snapshot_path[:500],
    )
