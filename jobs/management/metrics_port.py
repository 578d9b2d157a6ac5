"""`--metrics-port N [--metrics-bind ADDRESS]` of runworker and runreaper: each process serves its own metrics."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError

from jobs import metrics


def port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError(text)
    return value


def add_metrics_arguments(parser) -> None:
    """--metrics-port and --metrics-bind (runworker and runreaper alike)."""
    parser.add_argument(
        "--metrics-port", type=port, default=None, help="serve Prometheus metrics on this port (off unless given)"
    )
    parser.add_argument(
        "--metrics-bind", default=None, help="address the metrics port listens on (default LPS_METRICS_BIND)"
    )


def serve_metrics(metrics_port: int | None, bind: str | None) -> None:
    """Start this process's metrics server when a port was asked for; a port in use is a clear error."""
    if metrics_port is None:
        return
    address = bind or settings.LPS_METRICS_BIND
    try:
        metrics.serve(metrics_port, address=address)
    except OSError as exc:
        raise CommandError(f"--metrics-port {metrics_port}: cannot listen on {address}: {exc}") from exc
