"""What shops and operators said about a search's listings (SPEC §10), and their "this price is wrong" reports."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


class Scope(models.TextChoices):
    CLIENT = "client", "this client's product"
    """Applies to the searches of one client's product_code."""
    GLOBAL = "global", "every client"
    """An operator's: applies to every client's searches of the product identity."""


class Author(models.TextChoices):
    CLIENT = "client", "client"
    OPERATOR = "operator", "operator"


class Correction(models.Model):
    """One listing (marketplace, product id) said to be, or not to be, one product."""

    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.CLIENT)
    # The owner of the product, a bare client id as jobs/ stores owners (the job's owner).
    client_id = models.BigIntegerField(null=True, blank=True)
    product_code = models.CharField(max_length=200)
    # The negative cache's normalised identity (negative_cache.cache.key_for): what a global correction matches.
    identity = models.CharField(max_length=400)
    product_name = models.CharField(max_length=500, blank=True, default="")
    brand = models.CharField(max_length=200, blank=True, default="")
    model_code = models.CharField(max_length=200, blank=True, default="")
    marketplace = models.CharField(max_length=40)
    product_id = models.CharField(max_length=200)
    # The listing as the job judged it, for reading and for the corpus page.
    title = models.CharField(max_length=1000, blank=True, default="")
    price = models.IntegerField(null=True, blank=True)
    same_product = models.BooleanField()
    note = models.TextField(blank=True, default="")
    made_by = models.CharField(max_length=10, choices=Author.choices)
    made_by_client_id = models.BigIntegerField(null=True, blank=True)
    job_id = models.UUIDField(null=True, blank=True)
    """The job it was made on (the latest, when posted again)."""
    answer_change = models.JSONField(null=True, blank=True)
    """{"previous", "current"} when this correction changed its job's answer (the latest time it did)."""
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "correction"
        constraints = [
            models.UniqueConstraint(
                fields=["client_id", "product_code", "marketplace", "product_id"],
                condition=Q(scope="client"),
                name="correction_client_listing_uq",
                nulls_distinct=False,
            ),
            models.UniqueConstraint(
                fields=["identity", "marketplace", "product_id"],
                condition=Q(scope="global"),
                name="correction_global_listing_uq",
            ),
        ]
        indexes = [
            models.Index(fields=["client_id", "product_code"], name="correction_client_product_idx"),
            models.Index(fields=["identity"], name="correction_identity_idx", condition=Q(scope="global")),
            models.Index(fields=["-created_at"], name="correction_created_idx"),
        ]

    def __str__(self) -> str:
        word = "is" if self.same_product else "is not"
        return f"{self.marketplace} {self.product_id} {word} {self.product_code}"


class ReportStatus(models.TextChoices):
    OPEN = "open", "open"
    RESOLVED = "resolved", "resolved"


class PriceReport(models.Model):
    """A shop's (or an operator's) word that a job's price is wrong, naming no listing: for an operator to look."""

    job_id = models.UUIDField()
    client_id = models.BigIntegerField(null=True, blank=True)
    product_code = models.CharField(max_length=200, blank=True, default="")
    product_name = models.CharField(max_length=500, blank=True, default="")
    reported_price = models.IntegerField(null=True, blank=True)
    """The job's lowest price when it was reported."""
    note = models.TextField(blank=True, default="")
    made_by = models.CharField(max_length=10, choices=Author.choices)
    made_by_client_id = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN)
    created_at = models.DateTimeField(db_default=Now())
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "price_report"
        indexes = [models.Index(fields=["status", "-created_at"], name="price_report_queue_idx")]

    def __str__(self) -> str:
        return f"report on {self.product_code or self.job_id}"


class ReviewItem(models.Model):
    """A listing a finished search left for a person to settle (its result's `review`), open until a correction
    names it or a re-answer leaves it out; the operators' review queue is the open ones, oldest first."""

    job_id = models.UUIDField()
    client_id = models.BigIntegerField(null=True, blank=True)
    """The job's owner, a bare client id as jobs/ stores owners."""
    product_code = models.CharField(max_length=200, blank=True, default="")
    product_name = models.CharField(max_length=500, blank=True, default="")
    identity = models.CharField(max_length=400, blank=True, default="")
    """The product identity (corrections.lookup.identity_of): what an operator's global correction closes."""
    marketplace = models.CharField(max_length=40)
    product_id = models.CharField(max_length=200)
    title = models.CharField(max_length=1000, blank=True, default="")
    price = models.IntegerField()
    url = models.CharField(max_length=2000, blank=True, default="")
    reason = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(db_default=Now())
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(Correction, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    """The correction that named the listing (none when a re-answer of its job left the item out)."""

    class Meta:
        db_table = "review_item"
        constraints = [
            models.UniqueConstraint(fields=["job_id", "marketplace", "product_id"], name="review_item_job_listing_uq")
        ]
        indexes = [
            # The queue: open items, oldest first, for everyone or one client.
            models.Index(fields=["created_at"], name="review_item_open_idx", condition=Q(closed_at__isnull=True)),
            models.Index(
                fields=["client_id", "created_at"],
                name="review_item_open_client_idx",
                condition=Q(closed_at__isnull=True),
            ),
            # Closing: the items of one client's product, or of one product identity, naming a listing.
            models.Index(fields=["client_id", "product_code", "product_id"], name="review_item_product_idx"),
            models.Index(fields=["identity", "product_id"], name="review_item_identity_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.marketplace} {self.product_id} for {self.product_code or self.job_id}"
