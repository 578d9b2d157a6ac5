"""`GET /metrics`: the web process's Prometheus metrics, for an operator key only.

Under gunicorn every worker process writes its counters to files in PROMETHEUS_MULTIPROC_DIR (set up by
lps_site/gunicorn_conf.py), and whichever worker answers a scrape sums all of them, so the totals do not depend
on which worker served which request. The queue's gauges are read from the database once per scrape.

The web port also serves the clients' API, so a bind address cannot keep this page private: it takes an
operator's API key (`Authorization: Bearer <key>`, which Prometheus's `authorization` scrape setting sends, or
`X-API-Key`), issued and revoked in the admin like any other key. A client's key gets 403, none 401.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import Metric

from api import auth
from api.envelope import error_response
from api.exceptions import ApiError, Unauthorized
from corrections.metrics import ReviewCollector
from jobs.metrics import QueueCollector
from watches.metrics import WatchCollector

_queue = QueueCollector()
_watches = WatchCollector()
_review = ReviewCollector()


class _ThisProcess:
    """This process's own metrics and the queue's (outside gunicorn: runserver, tests)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()
        yield from _queue.collect()
        yield from _watches.collect()
        yield from _review.collect()


def _registry():
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(_queue)
        registry.register(_watches)
        registry.register(_review)
        return registry
    return _ThisProcess()


def _presented_key(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("X-API-Key") or None


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    """The exposition in Prometheus's text format."""
    try:
        if auth.admit(_presented_key(request), operator_only=True, request=request) is None:
            raise Unauthorized()
    except ApiError as exc:
        return error_response(exc)
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
