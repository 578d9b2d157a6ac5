"""docs/operations.md's metrics table names every metric LPS registers, and nothing it no longer registers.

The metrics are read off the source (each `Counter`, `Gauge`, `Histogram` or `…MetricFamily` constructed with an
`lps_` name, in every app), so a metric added without its row, or a row left after its metric went, fails here.
A counter's documented name carries the `_total` that Prometheus's text format adds to it.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

PROJECT = Path(settings.BASE_DIR)
DOC = PROJECT / "docs" / "operations.md"
METRIC_DEFINITION = re.compile(
    r"""\b(Counter|Gauge|Histogram|Summary|GaugeMetricFamily|CounterMetricFamily|HistogramMetricFamily)\(\s*"""
    r"""["'](lps_[a-z0-9_]+)["']"""
)
DOC_ROW = re.compile(r"^\|\s*`(lps_[a-z0-9_]+)`\s*\|", re.MULTILINE)


def installed_app_dirs() -> list[Path]:
    """Every directory of LPS's own code: the site and each installed app of this project."""
    dirs = [PROJECT / "lps_site"]
    for app in settings.INSTALLED_APPS:
        candidate = PROJECT / app.split(".")[0]
        if candidate.is_dir() and candidate not in dirs:
            dirs.append(candidate)
    return dirs


def metrics_registered() -> set[str]:
    names: set[str] = set()
    for directory in installed_app_dirs():
        for path in directory.rglob("*.py"):
            for kind, name in METRIC_DEFINITION.findall(path.read_text(encoding="utf-8")):
                names.add(f"{name}_total" if kind in {"Counter", "CounterMetricFamily"} else name)
    return names


def metrics_documented() -> set[str]:
    return set(DOC_ROW.findall(DOC.read_text(encoding="utf-8")))


def test_every_metric_the_code_registers_has_a_row_in_the_operations_doc():
    assert metrics_registered() - metrics_documented() == set()


def test_the_operations_doc_has_no_row_for_a_metric_the_code_no_longer_registers():
    assert metrics_documented() - metrics_registered() == set()


def test_the_reading_finds_metrics_of_every_kind_in_every_app():
    registered = metrics_registered()
    assert {"lps_job_runs_started_total", "lps_queue_up", "lps_job_run_duration_seconds"} <= registered
    assert {"lps_watches_due", "lps_cost_usd_total"} <= registered
    assert {"lps_corrections_total", "lps_webhook_attempts_total", "lps_naver_calls_total"} <= registered
