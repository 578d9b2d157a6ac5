"""Products that were searched and not found, remembered until `until` so nobody pays to search them again."""

from django.db import models
from django.db.models.functions import Now


class NegativeCacheEntry(models.Model):
    key = models.CharField(max_length=400, primary_key=True)
    until = models.DateTimeField()
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "search_negative"
        verbose_name = "negative-cache entry"
        verbose_name_plural = "negative cache"
        indexes = [models.Index(fields=["until"], name="negative_until_idx")]

    def __str__(self) -> str:
        return self.key
