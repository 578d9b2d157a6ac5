"""The server-side chart drawing, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from lps_site.svg_charts import Marker, Series, bar_chart, nice_step, price_chart


@pytest.mark.parametrize(
    ("raw", "step"), [(0.3, 0.5), (1.0, 1.0), (1.2, 2.0), (2.2, 2.5), (3.0, 5.0), (7.0, 10.0), (0.0012, 0.002)]
)
def test_nice_step_rounds_up_to_one_two_two_and_a_half_or_five(raw, step):
    assert nice_step(raw) == pytest.approx(step)


def test_a_bar_chart_escapes_every_label():
    chart = bar_chart(
        title="<b>t</b>",
        labels=["<script>alert(1)</script>"],
        series=[Series("a&b", [3], "bar-jobs")],
    )

    assert "<script>" not in chart
    assert "&lt;script&gt;" in chart
    assert "a&amp;b" in chart


def test_stacked_bars_reach_the_sum_of_their_series():
    chart = bar_chart(title="t", labels=["x"], series=[Series("a", [1], "s1"), Series("b", [3], "s2")], height=230)

    heights = [float(part.split('"')[0]) for part in chart.split('height="')[2:]]
    assert sum(heights[-2:]) == pytest.approx(230 - 26 - 30)


def test_a_marker_is_drawn_over_its_category_with_its_label():
    chart = bar_chart(
        title="t",
        labels=["0", "1", "2-4"],
        series=[Series("s", [0, 5, 2], "bar")],
        markers=[Marker(2.5, "first block: 3 req", "marker-block")],
        width=300,
    )

    assert '<line class="marker-block" x1="248.3"' in chart
    assert "first block: 3 req" in chart


def test_a_chart_without_data_says_so():
    assert "No data yet" in bar_chart(title="t", labels=["a", "b"], series=[Series("s", [0, 0], "bar")])


def test_the_price_chart_puts_a_dot_per_price_and_a_cross_per_miss():
    start = datetime(2026, 11, 1, tzinfo=UTC)
    points = [(start + timedelta(days=day), price) for day, price in enumerate([13_000, None, 12_500, 12_900])]

    chart = price_chart(points, title="t", value_format=lambda value: f"₩{value:,.0f}")

    assert chart.count('class="price-dot"') == 3
    assert chart.count('class="miss"') == 1
    assert "2026-11-04 00:00: ₩12,900" in chart
    assert 'class="price-line"' in chart


def test_counts_get_whole_number_ticks():
    chart = bar_chart(title="t", labels=["a", "b"], series=[Series("s", [1, 2], "bar")], whole_numbers=True)

    ticks = [label.split(">")[1] for label in chart.split('class="axis" text-anchor="end"')[1:]]
    assert [tick.split("<")[0] for tick in ticks] == ["0", "1", "2"]
