"""How the operators' pages say prices, costs, durations and links: one way everywhere in the admin."""

from __future__ import annotations


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
