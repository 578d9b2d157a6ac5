"""The site's catalogue of job type numbers; job.job_type stores them, never renumber.

The queue (jobs/) speaks of job types as plain integers and names them by their registration
(jobs.handlers.register); the apps that enqueue and handle a type pick its number here.
"""

from django.db import models


class JobType(models.IntegerChoices):
    SEARCH = 1, "SEARCH"
    """Find a product's lowest price in a real browser (heavy)."""
    OUTBOX = 2, "OUTBOX"
    """Deliver a finished search to the client's callback_url (light, HTTP)."""
    WATCH_EVENT = 3, "WATCH_EVENT"
    """Send a watch's pending change events, oldest first, to its callback_url (light, HTTP)."""
