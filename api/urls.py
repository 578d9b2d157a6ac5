"""Routes of the REST API (/v1/lps/…) and the health checks."""

urlpatterns: list = []
