"""How the operators' pages say prices, costs, durations and links: one way everywhere in the admin."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

DATE_FORMAT = "%Y-%m-%d %H:%M"
"""Every date and time an operator reads, in the site's time zone (TIME_ZONE): 2026-12-02 15:04."""


def won(price) -> str:
    """Format a price in won: ₩12,345 (anything not a number as given)."""
    if isinstance(price, bool) or not isinstance(price, int | float):
        return "" if price is None else str(price)
    return f"₩{price:,.0f}"


def usd(amount) -> str:
    """Format a dollar cost with enough digits for fractions of a cent."""
    if amount is None or amount == "":
        return ""
    try:
        value = float(amount)
    except (TypeError, ValueError):
        return str(amount)
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def short_duration(seconds: float | None) -> str:
    """Say an age the way an operator reads it: 45s, 12m, 3h 5m, 2d 4h."""
    if seconds is None:
        return ""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, _ = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h" if hours else f"{days}d"


def web_url(value) -> str:
    """Keep only http(s) links: a hostile result page must not put a javascript: URL on an operator's page."""
    text = str(value or "")
    return text if text.lower().startswith(("http://", "https://")) else ""


def when(moment) -> str:
    """A date and time the one way the admin says them (DATE_FORMAT, local time); "" for none."""
    if moment is None:
        return ""
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return moment.strftime(DATE_FORMAT)


def when_iso(text) -> str:
    """An ISO 8601 time stored as text (a result's), said as when() says it; anything unreadable as given."""
    try:
        return when(datetime.fromisoformat(str(text)))
    except ValueError:
        return "" if text is None else str(text)


def answer_text(answer) -> str:
    """A search's answer ({"outcome", "lowest"?}, as a correction records it) in words: "found ₩197,000 on naver
    (삼성전자 갤럭시 버즈3 프로 SM-R630)" or "not found"."""
    if not isinstance(answer, dict):
        return ""
    lowest = answer.get("lowest")
    if answer.get("outcome") != "found" or not isinstance(lowest, dict):
        return str(answer.get("outcome") or "").replace("_", " ")
    where = f" on {lowest['marketplace']}" if lowest.get("marketplace") else ""
    title = f" ({lowest['title']})" if lowest.get("title") else ""
    return f"found {won(lowest.get('price'))}{where}{title}"
