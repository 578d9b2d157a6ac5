"""Watches (SPEC §9): a client's product searched again on a schedule, its price history and the events it sent.

A watch belongs to an API client, kept as a bare id like a job's owner (jobs.owners): watches/ sits below api/
and never imports it. Only watches/schedule.py moves next_run_at; only watches/changes.py writes history and
events.
"""

from django.db import models
from django.db.models.functions import Now

from jobs import owners

EVENT_KINDS = ("price_down", "price_up", "found", "not_found", "offer_changed", "undercut")
DEFAULT_EVENTS = ["price_down", "price_up", "found", "not_found"]


class Watch(models.Model):
    client_id = models.BigIntegerField()
    """The API client that owns it (api.ApiClient's id)."""
    product_code = models.CharField(max_length=190)
    product = models.JSONField()
    """The SEARCH payload's product fields (search/payload.py's SearchProduct), without the callback_url."""
    identity_key = models.CharField(max_length=100)
    """What the product is (negative_cache.cache.key_for): the key reuse shares results by."""
    callback_url = models.CharField(max_length=2000, blank=True, default="")
    every_seconds = models.IntegerField()
    notify_events = models.JSONField(default=list)
    min_change_percent = models.FloatField(default=0.0)
    paused = models.BooleanField(default=False)
    schedule_anchor = models.DateTimeField()
    """A point of the watch's grid: due times are anchor + k × every (plus a small jitter each)."""
    next_run_at = models.DateTimeField()
    pending_job_id = models.UUIDField(null=True, blank=True)
    """The SEARCH job of the run in progress (its own, or the client's active search it was linked to)."""
    last_job_id = models.UUIDField(null=True, blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_outcome = models.CharField(max_length=20, blank=True, default="")
    last_price = models.IntegerField(null=True, blank=True)
    last_result = models.JSONField(null=True, blank=True)
    """The summary of the last finished run: {outcome, lowest?, reused?}."""
    last_change_at = models.DateTimeField(null=True, blank=True)
    last_event_kind = models.CharField(max_length=20, blank=True, default="")
    event_seq = models.IntegerField(default=0)
    """The sequence number of the last event recorded (events of one watch are numbered 1, 2, …)."""
    runs = models.IntegerField(default=0)
    undercut = models.BooleanField(default=False, db_default=False)
    """The market's lowest went below the shop's own price and has not come back up (watches/position.py)."""
    position_since = models.DateTimeField(null=True, blank=True)
    """Since when the shop has stood where it stands against the market (undercut, or not)."""
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "watch"
        verbose_name_plural = "watches"
        constraints = [
            models.UniqueConstraint(fields=["client_id", "product_code"], name="watch_client_code_uq"),
            models.CheckConstraint(
                condition=models.Q(every_seconds__gte=3600, every_seconds__lte=604800), name="watch_every_range"
            ),
        ]
        indexes = [
            # The scheduler's claim walks due, unpaused watches in due order: one index range, whatever the total.
            models.Index(fields=["next_run_at"], name="watch_due_idx", condition=models.Q(paused=False)),
            # A finished search finds the watch whose run it was linked to.
            models.Index(fields=["pending_job_id"], name="watch_pending_job_idx"),
            # A client's list, newest first.
            models.Index(fields=["client_id", "-created_at"], name="watch_client_created_idx"),
        ]

    def __str__(self) -> str:
        # Named as operators know it (the admin's titles and breadcrumbs): the client's name, not its id.
        name = owners.names([self.client_id]).get(self.client_id) or f"client {self.client_id}"
        return f"{name}: {self.product_code}"


class WatchPoint(models.Model):
    """One finished search of a watch: its price history, one point per search job."""

    watch = models.ForeignKey(Watch, on_delete=models.CASCADE, related_name="points")
    job_id = models.UUIDField(unique=True)
    """Unique: a completion recorded twice (a retried attempt, a redelivered hook) adds no second point."""
    at = models.DateTimeField(db_default=Now())
    outcome = models.CharField(max_length=20)
    price = models.IntegerField(null=True, blank=True)
    marketplace = models.CharField(max_length=20, blank=True, default="")
    reused = models.BooleanField(default=False)

    class Meta:
        db_table = "watch_point"
        indexes = [models.Index(fields=["watch", "at"], name="watch_point_watch_at_idx")]

    def __str__(self) -> str:
        return f"{self.outcome} {self.price if self.price is not None else ''} at {self.at:%Y-%m-%d %H:%M}"


class EventState(models.IntegerChoices):
    PENDING = 1, "pending"
    """Not yet delivered; the watch's WATCH_EVENT job sends it after every earlier event of the watch."""
    DELIVERED = 2, "delivered"
    """The receiver answered 2xx."""
    GIVEN_UP = 3, "given up"
    """Undeliverable for longer than LPS_WATCH_EVENT_GIVE_UP_SECONDS (or the client is gone): never sent."""
    NO_CALLBACK = 4, "no callback"
    """The watch has no callback_url: kept for the admin and the API, nothing to send."""


class WatchEvent(models.Model):
    """A change a watch's notify rules asked to hear about, delivered in `seq` order per watch."""

    watch = models.ForeignKey(Watch, on_delete=models.CASCADE, related_name="events")
    seq = models.IntegerField()
    kind = models.CharField(max_length=20)
    job_id = models.UUIDField()
    body = models.JSONField()
    """The webhook's JSON ({event, product_code, job_id, previous?, current, change_percent?})."""
    state = models.SmallIntegerField(choices=EventState.choices, default=EventState.PENDING)
    attempts = models.IntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(db_default=Now())
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "watch_event"
        constraints = [
            models.UniqueConstraint(fields=["watch", "seq"], name="watch_event_seq_uq"),
            # One event per kind per search job: a completion recorded twice sends nothing twice.
            models.UniqueConstraint(fields=["job_id", "watch", "kind"], name="watch_event_job_kind_uq"),
        ]
        indexes = [
            models.Index(
                fields=["watch", "seq"], name="watch_event_pending_idx", condition=models.Q(state=EventState.PENDING)
            ),
            models.Index(fields=["kind", "created_at"], name="watch_event_kind_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.kind}"


class RecentResult(models.Model):
    """The latest found result of a product identity, for LPS_RESULT_REUSE_SECONDS: many shops watch one product."""

    identity_key = models.CharField(max_length=100, primary_key=True)
    job_id = models.UUIDField()
    result = models.JSONField()
    """The search's whole result, its judged listings (matches, rounds) included, so a later step can re-judge."""
    finished_at = models.DateTimeField()

    class Meta:
        db_table = "watch_recent_result"
        indexes = [models.Index(fields=["finished_at"], name="watch_recent_finished_idx")]

    def __str__(self) -> str:
        return self.identity_key
