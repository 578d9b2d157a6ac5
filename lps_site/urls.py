"""URL map: the admin, the REST API under /v1/lps/, and health checks."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("api.urls")),
]
