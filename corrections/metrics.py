"""The corrections' Prometheus metrics (the verdicts they settle in searches are counted with the judge's, source
"correction": search/metrics.py)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db import DatabaseError
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CORRECTIONS = Counter(
    "lps_corrections",
    "Corrections made, by scope (client, global), author (client, operator) and answer (same_product).",
    ["scope", "made_by", "same_product"],
)
CORRECTED_ANSWERS = Counter("lps_corrected_answers", "Finished jobs whose answer a correction changed.")
PRICE_REPORTS = Counter("lps_price_reports", "'This price is wrong' reports, by author.", ["made_by"])

for _scope in ("client", "global"):
    for _author in ("client", "operator"):
        for _answer in ("true", "false"):
            CORRECTIONS.labels(_scope, _author, _answer)
for _author in ("client", "operator"):
    PRICE_REPORTS.labels(_author)


def record_correction(row, *, changed: bool) -> None:
    CORRECTIONS.labels(str(row.scope), str(row.made_by), "true" if row.same_product else "false").inc()
    if changed:
        CORRECTED_ANSWERS.inc()


def record_report(made_by: str) -> None:
    PRICE_REPORTS.labels(str(made_by)).inc()


class ReviewCollector(Collector):
    """Jobs awaiting review, read from the database at each web scrape (corrections/review_queue.py)."""

    def collect(self) -> Iterator:
        from corrections import review_queue

        try:
            waiting = review_queue.open_items().order_by().values("job_id").distinct().count()
        except DatabaseError:
            return
        yield GaugeMetricFamily(
            "lps_jobs_awaiting_review", "Finished searches with review items no correction has settled.", value=waiting
        )
