"""The `job` table: one row per unit of work, moved between states only by `jobs/queue.py`."""

from django.contrib.postgres.functions import RandomUUID
from django.db import models
from django.db.models.functions import Now


class JobStatus(models.IntegerChoices):
    PENDING = 1, "PENDING"
    """Waiting until run_after; claim() moves it to RUNNING."""
    RUNNING = 2, "RUNNING"
    """Leased to one worker; complete() or fail() end it, release() hands it back, or the reaper when the
    lease runs out."""
    DONE = 3, "DONE"
    """Finished for good (found or not_found alike); only the reaper's retention prune removes it."""
    DEAD = 4, "DEAD"
    """Attempts spent or a permanent failure; only an operator's requeue() moves it back to PENDING."""


ACTIVE_STATUSES = (JobStatus.PENDING, JobStatus.RUNNING)


class Priority(models.IntegerChoices):
    """Lower runs first."""

    HIGH = 50, "high"
    NORMAL = 100, "normal"
    LOW = 150, "low"


class Job(models.Model):
    job_id = models.UUIDField(primary_key=True, db_default=RandomUUID(), editable=False)
    # The number of a type in the apps' catalogue (lps_site/job_types.py); jobs.handlers.label() names it.
    job_type = models.SmallIntegerField()
    status = models.SmallIntegerField(choices=JobStatus.choices, default=JobStatus.PENDING)
    priority = models.SmallIntegerField(default=Priority.NORMAL)
    payload = models.JSONField(default=dict)
    result = models.JSONField(null=True, blank=True)
    # Chosen by whoever enqueues: room for a prefix, a 19-digit owner id and a 190-character identifier of its own.
    dedupe_key = models.CharField(max_length=255, null=True, blank=True)
    # Who the job belongs to, as the enqueuing app identifies it (its client's id, say). A plain column, not a
    # foreign key: the queue knows nothing of the apps above it.
    owner_id = models.BigIntegerField(null=True, blank=True)
    attempts = models.SmallIntegerField(default=0)
    max_attempts = models.SmallIntegerField(default=3)
    run_after = models.DateTimeField(db_default=Now())
    lease_until = models.DateTimeField(null=True, blank=True)
    worker_id = models.CharField(max_length=200, null=True, blank=True)
    run_started_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(null=True, blank=True)
    # What kind of failure last_error reports (an exception class name, LeaseExpired, Released), as data: failures
    # are counted by kind without parsing the text.
    last_error_kind = models.CharField(max_length=100, null=True, blank=True)
    created_at = models.DateTimeField(db_default=Now())
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        db_table = "job"
        indexes = [
            # The claim order of the spec; also serves "oldest pending" and due-job counts.
            models.Index(fields=["status", "run_after", "priority", "created_at"], name="job_claim_idx"),
            # claim() walks this in order (priority, then age) over pending rows only, so a claim costs
            # the same with 20 or 2 million finished jobs in the table.
            models.Index(
                fields=["priority", "created_at"],
                name="job_pending_order_idx",
                condition=models.Q(status=JobStatus.PENDING),
            ),
            models.Index(fields=["status", "lease_until"], name="job_lease_idx"),
            # Lists newest first, with and without a status filter; retention prunes by age.
            models.Index(fields=["-created_at"], name="job_created_idx"),
            models.Index(fields=["status", "-created_at"], name="job_status_created_idx"),
            models.Index(fields=["status", "updated_at"], name="job_status_updated_idx"),
            # One owner's jobs newest first, with and without a status filter, and its counts by status: a
            # client's list and stats walk only its own rows, whatever the table holds.
            models.Index(fields=["owner_id", "-created_at"], name="job_owner_created_idx"),
            models.Index(fields=["owner_id", "status", "-created_at"], name="job_owner_status_created_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["dedupe_key"],
                condition=models.Q(status__in=[JobStatus.PENDING, JobStatus.RUNNING]),
                name="job_dedupe_active_uq",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_job_type_display()} {self.job_id} ({self.get_status_display()})"

    def get_job_type_display(self) -> str:
        """The type's registered label (what `choices` would give, kept out of the table's definition)."""
        # Imported here: the registry imports the queue, which imports this module.
        from jobs import handlers

        return handlers.label(self.job_type)
