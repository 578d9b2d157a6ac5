"""Routes of the REST API (/v1/lps/…) and the health checks (/healthz, /readyz)."""

from django.urls import path, re_path

from api.endpoints import api, endpoint_not_found

urlpatterns = [
    path("", api.urls),
    # Anything else under /v1/lps/ answers 404 in the envelope rather than Django's HTML page.
    re_path(r"^v1/lps(?:/.*)?$", endpoint_not_found),
]
