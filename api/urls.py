"""Routes of the REST API (/v1/lps/…), the health checks (/healthz, /readyz) and the Prometheus metrics (/metrics)."""

from django.urls import path, re_path

from api.endpoints import api, endpoint_not_found
from api.metrics_endpoint import metrics

urlpatterns = [
    path("metrics", metrics, name="metrics"),
    path("", api.urls),
    # Anything else under /v1/lps/ answers 404 in the envelope rather than Django's HTML page.
    re_path(r"^v1/lps(?:/.*)?$", endpoint_not_found),
]
