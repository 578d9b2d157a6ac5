"""Products that were searched and not found, remembered until `until` so nobody pays to search them again."""

from django.db import models
from django.db.models.functions import Now


class NegativeCacheEntry(models.Model):
    # "product:<sha256 of the normalised (name, model code, brand)>" (negative_cache.cache.key_for).
    key = models.CharField(max_length=400, primary_key=True)
    until = models.DateTimeField()
    reason = models.TextField(blank=True, default="")
    # What the row was remembered for, as the client sent it (the key is a digest an operator cannot read).
    product_name = models.CharField(max_length=500, blank=True, default="")
    model_code = models.CharField(max_length=200, blank=True, default="")
    brand = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "search_negative"
        verbose_name = "negative-cache entry"
        verbose_name_plural = "negative cache"
        indexes = [models.Index(fields=["until"], name="negative_until_idx")]

    def __str__(self) -> str:
        return " / ".join(part for part in (self.product_name, self.model_code, self.brand) if part) or self.key
