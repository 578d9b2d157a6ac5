"""Webhook deliveries' Prometheus metrics, counted by the OUTBOX handler (api/webhooks.py) in the worker.

A worker process serves these on `runworker --metrics-port` (jobs/metrics.py).
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

ATTEMPT_RESULTS = ("delivered", "rejected", "unreachable", "undeliverable")
"""An attempt's result: a 2xx; another status; no connection (refused, reset, timeout, TLS); never deliverable
(no result, client gone, callback no longer allowed)."""

WEBHOOK_ATTEMPTS = Counter("lps_webhook_attempts", "Webhook delivery attempts, by result.", ["result"])
WEBHOOK_DELIVERIES = Counter(
    "lps_webhook_deliveries",
    "Webhooks that reached an end: delivered, or given up (an attempt that will not be retried failed).",
    ["result"],
)
WEBHOOK_ATTEMPTS_NEEDED = Histogram(
    "lps_webhook_delivery_attempts",
    "The attempt on which a delivered webhook got through (1: the first try).",
    buckets=(1, 2, 3, 4, 5, 6, 8, 10),
)

for _result in ATTEMPT_RESULTS:
    WEBHOOK_ATTEMPTS.labels(_result)
for _result in ("delivered", "given_up"):
    WEBHOOK_DELIVERIES.labels(_result)


def record_delivered(attempt: int) -> None:
    WEBHOOK_ATTEMPTS.labels("delivered").inc()
    WEBHOOK_DELIVERIES.labels("delivered").inc()
    WEBHOOK_ATTEMPTS_NEEDED.observe(attempt)


def record_failed(result: str, *, final: bool) -> None:
    """Count a failed attempt; `final` when the queue will not try again (so the webhook is given up)."""
    WEBHOOK_ATTEMPTS.labels(result).inc()
    if final:
        WEBHOOK_DELIVERIES.labels("given_up").inc()
