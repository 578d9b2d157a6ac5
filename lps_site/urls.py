"""URL map: the admin, the REST API under /v1/lps/, health checks and the Prometheus metrics."""

from django.contrib import admin
from django.urls import include, path

from lps_site.metrics_endpoint import metrics

urlpatterns = [
    # Before the admin: its catch-all would otherwise answer /admin/dashboard/ with a 404.
    path("admin/dashboard/", include("console.dashboard")),
    path("admin/", admin.site.urls),
    path("metrics", metrics, name="metrics"),
    path("", include("api.urls")),
]
