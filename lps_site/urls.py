"""URL map: the admin, the REST API under /v1/lps/, and health checks."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    # Before the admin: its catch-all would otherwise answer /admin/dashboard/ with a 404.
    path("admin/dashboard/", include("jobs.dashboard")),
    path("admin/", admin.site.urls),
    path("", include("api.urls")),
]
