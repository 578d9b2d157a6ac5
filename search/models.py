"""What searching leaves behind: products and their price history, IP sessions and bot detections."""

from django.db import models
from django.db.models.functions import Now


class Product(models.Model):
    """One client product, with its latest search outcome; PriceSnapshot rows hold the history.

    A product_code is one shop's own SKU: the product is the pair (client, product_code), never the code alone.
    """

    # The API client that asked (its id, as the job's owner_id); None for searches run by the `search` command.
    client_id = models.BigIntegerField(null=True, blank=True)
    product_code = models.CharField(max_length=200)
    product_name = models.CharField(max_length=500)
    brand = models.CharField(max_length=200, blank=True, default="")
    model_code = models.CharField(max_length=200, blank=True, default="")
    search_count = models.IntegerField(default=0)
    last_outcome = models.CharField(max_length=20, blank=True, default="")
    last_price = models.IntegerField(null=True, blank=True)
    last_url = models.URLField(max_length=2000, blank=True, default="")
    last_searched_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "search_product"
        indexes = [
            models.Index(fields=["-last_searched_at"], name="product_recent_idx"),
            # The operators' product search by code, across clients.
            models.Index(fields=["product_code"], name="product_code_idx"),
        ]
        constraints = [
            # NULLS NOT DISTINCT: the `search` command's products (no client) are one row per code too.
            models.UniqueConstraint(
                fields=["client_id", "product_code"], name="product_client_code_uq", nulls_distinct=False
            ),
        ]

    def __str__(self) -> str:
        return f"{self.product_code} {self.product_name}"


class PriceSnapshot(models.Model):
    """The outcome of one search of one product."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="snapshots")
    job_id = models.UUIDField(null=True, blank=True)
    outcome = models.CharField(max_length=20)
    price = models.IntegerField(null=True, blank=True)
    title = models.CharField(max_length=1000, blank=True, default="")
    url = models.URLField(max_length=2000, blank=True, default="")
    seller = models.CharField(max_length=500, blank=True, default="")
    rocket = models.BooleanField(default=False)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    captured_at = models.DateTimeField(db_default=Now())
    # Where the lowest price was found ("coupang", "naver") when the result names it; empty otherwise.
    marketplace = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        db_table = "search_price_snapshot"
        indexes = [models.Index(fields=["product", "-captured_at"], name="snapshot_product_time_idx")]

    def __str__(self) -> str:
        return f"{self.outcome} {self.price} @ {self.captured_at:%Y-%m-%d %H:%M}"


class SessionEndReason(models.IntegerChoices):
    BUDGET = 1, "budget"
    BLOCKED = 2, "blocked"
    ERROR = 3, "error"
    RECYCLED = 4, "recycled"
    SHUTDOWN = 5, "shutdown"


class IpSession(models.Model):
    """A browser context bound to one proxy endpoint (or none), reused for a request budget."""

    proxy_label = models.CharField(max_length=200, default="direct")
    worker_id = models.CharField(max_length=200, blank=True, default="")
    started_at = models.DateTimeField(db_default=Now())
    ended_at = models.DateTimeField(null=True, blank=True)
    requests = models.IntegerField(default=0)
    bytes = models.BigIntegerField(default=0)
    end_reason = models.SmallIntegerField(choices=SessionEndReason.choices, null=True, blank=True)

    class Meta:
        db_table = "search_ip_session"
        indexes = [
            models.Index(fields=["-started_at"], name="ip_session_recent_idx"),
            models.Index(fields=["end_reason", "-started_at"], name="ip_session_reason_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.proxy_label} #{self.pk}"


class BotEvent(models.Model):
    """The marketplace detected the crawler (block, challenge, captcha, no result list)."""

    ip_session = models.ForeignKey(IpSession, on_delete=models.SET_NULL, null=True, blank=True)
    proxy_label = models.CharField(max_length=200, default="direct")
    kind = models.CharField(max_length=40)
    http_status = models.IntegerField(null=True, blank=True)
    url = models.URLField(max_length=2000, blank=True, default="")
    query = models.CharField(max_length=500, blank=True, default="")
    requests_in_session = models.IntegerField(default=0)
    snapshot_path = models.CharField(max_length=500, blank=True, default="")
    detected_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "search_bot_event"
        indexes = [models.Index(fields=["-detected_at"], name="bot_event_recent_idx")]

    def __str__(self) -> str:
        return f"{self.kind} via {self.proxy_label}"


class NaverCallDay(models.Model):
    """Calls made to Naver's Search API on one day of Naver's quota (a day in Korea: it resets at 00:00 KST).

    One row per day, counted up by every worker in one statement (search/naver_quota.py), never in memory.
    """

    day = models.DateField(primary_key=True)
    calls = models.IntegerField(default=0)
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "search_naver_call_day"
        verbose_name = "Naver calls per day"
        verbose_name_plural = "Naver calls per day"

    def __str__(self) -> str:
        return f"{self.day}: {self.calls} call(s)"
