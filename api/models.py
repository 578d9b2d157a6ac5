"""API clients: commerce shops and operators that call /v1/lps/."""

from django.db import models
from django.db.models.functions import Now


class ApiClient(models.Model):
    """A holder of an API key. The key itself is never stored: only its prefix (to find the row) and hash."""

    name = models.CharField(max_length=200, unique=True)
    key_prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=128)
    webhook_secret = models.CharField(max_length=128)
    is_operator = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(db_default=Now())
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "api_client"
        verbose_name = "API client"

    def __str__(self) -> str:
        return self.name


class RateWindow(models.Model):
    """Requests a client made in its current fixed rate-limit window: one row per client, reset each window."""

    client = models.OneToOneField(ApiClient, on_delete=models.CASCADE, primary_key=True, related_name="+")
    window_start = models.DateTimeField()
    hits = models.IntegerField(default=0)

    class Meta:
        db_table = "api_rate_window"

    def __str__(self) -> str:
        return f"{self.client_id}: {self.hits} since {self.window_start:%H:%M}"
