"""The operator's requeue of DEAD jobs from the admin, with one outcome per job saying what happened to it."""

from __future__ import annotations

import enum
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from jobs import queue
from jobs.exceptions import DuplicateActiveJob, JobNotDead, JobNotFound


class RequeueVerdict(enum.Enum):
    REQUEUED = "requeued"
    ACTIVE_TWIN = "refused: an active job holds the same dedupe key"
    NOT_DEAD = "refused: not DEAD"
    NOT_FOUND = "refused: no such job"


@dataclass(frozen=True)
class RequeueOutcome:
    job_id: uuid.UUID
    verdict: RequeueVerdict
    detail: str = ""
    active_job_id: uuid.UUID | None = None


def requeue_jobs(job_ids: Iterable[uuid.UUID | str]) -> list[RequeueOutcome]:
    """Requeue each job through the queue (DEAD → PENDING), one outcome per job, in order."""
    outcomes = []
    for job_id in job_ids:
        try:
            queue.requeue(job_id)
        except DuplicateActiveJob as exc:
            outcomes.append(
                RequeueOutcome(job_id, RequeueVerdict.ACTIVE_TWIN, str(exc), active_job_id=exc.active_job_id)
            )
        except JobNotDead as exc:
            outcomes.append(RequeueOutcome(job_id, RequeueVerdict.NOT_DEAD, str(exc)))
        except JobNotFound as exc:
            outcomes.append(RequeueOutcome(job_id, RequeueVerdict.NOT_FOUND, str(exc)))
        else:
            outcomes.append(RequeueOutcome(job_id, RequeueVerdict.REQUEUED))
    return outcomes
