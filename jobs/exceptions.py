"""Failures of the job queue and of the jobs it runs."""


class JobsError(Exception):
    """A job-queue failure."""

    retryable = False

    def __init__(self, message: str | None = None):
        super().__init__(message or (self.__doc__ or "").strip())


class JobNotFound(JobsError):
    """No job has that id."""


class JobNotDead(JobsError):
    """Only a DEAD job can be requeued."""


class DuplicateActiveJob(JobsError):
    """Another job with the same dedupe_key is active (PENDING or RUNNING)."""

    def __init__(self, message: str | None = None, *, active_job_id=None):
        super().__init__(message)
        self.active_job_id = active_job_id


class QueueUnavailable(JobsError):
    """The queue's database could not be reached."""

    retryable = True


class QueueDataRefused(QueueUnavailable):
    """The database refused a value (too long for its column, out of range, not valid text): the request is at
    fault, not the database, and trying again cannot help. The API answers it 400; it is a QueueUnavailable so that
    the worker's and the reaper's loops, which wait out what they cannot write, keep doing so rather than stop."""

    retryable = False


class JobDeadlineExceeded(JobsError):
    """The handler ran past its job type's deadline and was stopped."""

    retryable = True


class UnknownJobType(JobsError):
    """No handler is registered for this job type."""


class InvalidJobResult(JobsError):
    """The handler returned something that is not a JSON object (a dict of JSON values) or None."""
