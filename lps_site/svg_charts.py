"""Charts drawn on the server as inline SVG: bar charts (stacked or not, with marker lines) and a price line.

No chart library and no CDN: the page carries the drawing itself. Colours come from CSS classes (see
console/templates/console/styles.html) so that the admin's light and dark themes both apply.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

LEFT, RIGHT, TOP, BOTTOM = 60, 14, 26, 30
Y_TICKS = 4


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float]
    css_class: str


@dataclass(frozen=True)
class Marker:
    """A dashed vertical line at `position` with a label (e.g. "first block: 37 req").

    `position` counts categories from the left edge: 2.0 is the left edge of the third bar, 2.5 its middle.
    """

    position: float
    label: str
    css_class: str


def nice_step(raw: float) -> float:
    """Round a tick step up to 1, 2, 2.5 or 5 times a power of ten."""
    if raw <= 0:
        return 1.0
    exponent = math.floor(math.log10(raw))
    fraction = raw / 10**exponent
    for nice in (1, 2, 2.5, 5, 10):
        if fraction <= nice + 1e-9:
            return nice * 10**exponent
    return 10 * 10**exponent


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, content: str, *, css_class: str = "axis", anchor: str = "middle") -> str:
    return (
        f'<text x="{_number(x)}" y="{_number(y)}" class="{css_class}" text-anchor="{anchor}">{escape(content)}</text>'
    )


def _frame(width: int, height: int, title: str, body: list[str]) -> SafeString:
    return mark_safe(  # noqa: S308 — every value inside went through escape() or is a number we formatted
        f'<svg class="lps-chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet"><title>{escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


def _y_grid(*, low: float, high: float, step: float, width: int, height: int, value_format) -> list[str]:
    body = []
    plot_height = height - TOP - BOTTOM
    tick = low
    while tick <= high + step / 1000:
        y = TOP + plot_height * (1 - (tick - low) / (high - low))
        body.append(f'<line class="grid" x1="{LEFT}" x2="{width - RIGHT}" y1="{_number(y)}" y2="{_number(y)}"/>')
        body.append(_text(LEFT - 6, y + 4, value_format(tick), anchor="end"))
        tick += step
    return body


def _legend(series: Sequence[Series], width: int) -> list[str]:
    body, x = [], LEFT
    for item in series:
        body.append(f'<rect class="{item.css_class}" x="{x}" y="6" width="10" height="10" rx="2"/>')
        body.append(_text(x + 14, 15, item.name, css_class="legend", anchor="start"))
        x += 24 + 7 * len(item.name)
    return body


def bar_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    value_format: Callable[[float], str] = _number,
    stacked: bool = True,
    whole_numbers: bool = False,
    label_every: int = 1,
    markers: Sequence[Marker] = (),
    width: int = 640,
    height: int = 220,
    empty_text: str = "No data yet",
) -> SafeString:
    """Bars per category (stacked series, or side by side), with a y grid, a legend and marker lines.

    `whole_numbers` keeps the y ticks on integers (counts of jobs, blocks, sessions).
    """
    count = len(labels)
    plot_width, plot_height = width - LEFT - RIGHT, height - TOP - BOTTOM
    totals = [
        sum(s.values[i] for s in series) if stacked else max((s.values[i] for s in series), default=0)
        for i in range(count)
    ]
    peak = max(totals, default=0)
    step = nice_step(peak / Y_TICKS) if peak > 0 else 1.0
    if whole_numbers:
        step = max(1.0, math.ceil(step))
    high = step * max(1, math.ceil(peak / step - 1e-9))
    body = _y_grid(low=0, high=high, step=step, width=width, height=height, value_format=value_format)
    if len(series) > 1:
        body += _legend(series, width)
    slot = plot_width / max(count, 1)
    for i in range(count):
        base = 0.0
        lanes = 1 if stacked else len(series)
        bar_width = slot * 0.72 / lanes
        for lane, item in enumerate(series):
            value = float(item.values[i])
            if value <= 0:
                continue
            bottom = base if stacked else 0.0
            y_top = TOP + plot_height * (1 - (bottom + value) / high)
            bar_height = plot_height * value / high
            x = LEFT + i * slot + slot * 0.14 + (0 if stacked else lane * bar_width)
            body.append(
                f'<rect class="{item.css_class}" x="{_number(x)}" y="{_number(y_top)}" '
                f'width="{_number(max(bar_width, 1))}" height="{_number(max(bar_height, 0.5))}">'
                f"<title>{escape(labels[i])} · {escape(item.name)}: {escape(value_format(value))}</title></rect>"
            )
            if stacked:
                base += value
    for i in range(0, count, max(label_every, 1)):
        body.append(_text(LEFT + (i + 0.5) * slot, height - BOTTOM + 16, labels[i]))
    body.append(
        f'<line class="baseline" x1="{LEFT}" x2="{width - RIGHT}" y1="{TOP + plot_height}" y2="{TOP + plot_height}"/>'
    )
    for number, marker in enumerate(markers):
        x = LEFT + marker.position * slot
        anchor = "end" if x > LEFT + plot_width * 0.6 else "start"
        body.append(
            f'<line class="{marker.css_class}" x1="{_number(x)}" x2="{_number(x)}" y1="{TOP}" '
            f'y2="{TOP + plot_height}" stroke-dasharray="5 3"/>'
        )
        label_x = x - 4 if anchor == "end" else x + 4
        body.append(
            _text(label_x, TOP + 12 + 14 * number, marker.label, css_class=f"{marker.css_class} label", anchor=anchor)
        )
    if peak <= 0:
        body.append(_text(LEFT + plot_width / 2, TOP + plot_height / 2, empty_text, css_class="empty"))
    return _frame(width, height, title, body)


def price_chart(
    points: Sequence[tuple[datetime, int | None]],
    *,
    title: str,
    value_format: Callable[[float], str] = _number,
    width: int = 640,
    height: int = 220,
) -> SafeString:
    """Prices over time as a line with dots; a time with no price (not found) is a cross on the axis."""
    points = sorted(points, key=lambda point: point[0])
    plot_width, plot_height = width - LEFT - RIGHT, height - TOP - BOTTOM
    prices = [price for _, price in points if price is not None]
    if not points:
        return _frame(width, height, title, [_text(width / 2, height / 2, "No searches yet", css_class="empty")])
    low_price, high_price = (min(prices), max(prices)) if prices else (0, 1)
    step = nice_step(max(high_price - low_price, max(high_price, 1) * 0.02) / Y_TICKS)
    low = step * math.floor(low_price / step)
    high = step * math.ceil(high_price / step)
    if high <= low:
        high = low + step
    body = _y_grid(low=low, high=high, step=step, width=width, height=height, value_format=value_format)
    start, end = points[0][0], points[-1][0]
    span = (end - start).total_seconds()

    def x_of(moment: datetime) -> float:
        return LEFT + (plot_width * (moment - start).total_seconds() / span if span else plot_width / 2)

    def y_of(price: float) -> float:
        return TOP + plot_height * (1 - (price - low) / (high - low))

    found = [(x_of(moment), y_of(price), moment, price) for moment, price in points if price is not None]
    if len(found) > 1:
        path = " ".join(f"{_number(x)},{_number(y)}" for x, y, _, _ in found)
        body.append(f'<polyline class="price-line" points="{path}"/>')
    for x, y, moment, price in found:
        body.append(
            f'<circle class="price-dot" cx="{_number(x)}" cy="{_number(y)}" r="3.5">'
            f"<title>{moment:%Y-%m-%d %H:%M}: {escape(value_format(price))}</title></circle>"
        )
    baseline = TOP + plot_height
    for moment, price in points:
        if price is None:
            x = x_of(moment)
            body.append(
                f'<path class="miss" d="M{_number(x - 4)},{_number(baseline - 4)} l8,8 m0,-8 l-8,8">'
                f"<title>{moment:%Y-%m-%d %H:%M}: not found</title></path>"
            )
    date_format = "%m-%d %H:%M" if span < 2 * 86400 else "%Y-%m-%d"
    # The end ticks are anchored inwards so that their labels stay inside the drawing.
    ticks = [(start, "middle")] if not span else [(start, "start"), (start + (end - start) / 2, "middle"), (end, "end")]
    for moment, anchor in ticks:
        body.append(_text(x_of(moment), height - BOTTOM + 16, f"{moment:{date_format}}", anchor=anchor))
    body.append(f'<line class="baseline" x1="{LEFT}" x2="{width - RIGHT}" y1="{baseline}" y2="{baseline}"/>')
    return _frame(width, height, title, body)
