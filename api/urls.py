"""Routes of the REST API (/v1/lps/…), the health checks (/healthz, /readyz) and the Prometheus metrics (/metrics)."""

from django.urls import path, re_path

from api.metrics_endpoint import metrics
from api.rest_api import api, endpoint_not_found, openapi_document

urlpatterns = [
    path("metrics", metrics, name="metrics"),
    # Before ninja's own route of it: its view is not CSRF-exempt, so a POST was the CSRF check's 403.
    path("v1/lps/openapi.json", openapi_document, name="openapi-document"),
    path("", api.urls),
    # Anything else under /v1/lps/ answers 404 in the envelope rather than Django's HTML page.
    re_path(r"^v1/lps(?:/.*)?$", endpoint_not_found),
]
