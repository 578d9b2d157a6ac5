"""URL map: the admin and the operators' dashboard, then the API app's routes (/v1/lps/…, health checks, /metrics)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    # Before the admin: its catch-all would otherwise answer /admin/dashboard/ with a 404.
    path("admin/dashboard/", include("console.dashboard")),
    path("admin/", admin.site.urls),
    path("", include("api.urls")),
]
