"""django-prometheus's HTTP metrics, with the method label kept to the methods HTTP defines.

Its latency histogram labels a request by `request.method` as sent, so a client inventing methods (`BREW`,
`X1`, `X2`, …) would add a series per name to every gunicorn worker's metric files; here every label takes the
library's own check, which reports any other method as `<invalid method>`.
"""

from __future__ import annotations

from django_prometheus.middleware import PrometheusAfterMiddleware


class HttpMetricsMiddleware(PrometheusAfterMiddleware):
    """django-prometheus's after-middleware (requests by view and status, latency), methods bounded."""

    def label_metric(self, metric, request, response=None, **labels):
        if "method" in labels:
            labels["method"] = self._method(request)
        return super().label_metric(metric, request, response, **labels)
