"""API clients: commerce shops and operators that call /v1/lps/."""

from django.contrib.postgres.fields import ArrayField
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


class RateBucket(models.Model):
    """The requests of one rate-limit bucket (an API key, or an address's wrong keys) in each of the last 61
    seconds: a ring of counters, `counts[second % 61]` (api/ratelimit.py)."""

    bucket = models.CharField(max_length=100, primary_key=True)
    last_second = models.BigIntegerField(help_text="The epoch second of the bucket's latest request.")
    counts = ArrayField(models.IntegerField(), size=61)

    class Meta:
        db_table = "api_rate_bucket"

    def __str__(self) -> str:
        return f"{self.bucket}: {sum(self.counts)} in the last minute"
