"""What apps above search may add to a SEARCH job's life, registered from their `AppConfig.ready()`.

search/ imports none of them; they import this module (imports point down):

- an *answerer* may answer a job before the pipeline runs (a recent result of the same product, say): it returns
  the job's result, or None to let the search run;
- a *listener* is told of every finished search inside the transaction that records it, so that what it writes
  commits (or rolls back) with the search's own records;
- a *change listener* is told, inside the transaction that stores it, that a finished search's answer changed
  after the fact (a correction re-answered it, SPEC §10), whoever changed it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from jobs.queue import ClaimedJob
from search.payload import SearchPayload


@dataclass(frozen=True)
class AnswerChange:
    """A finished search's answer, changed: the job's new result and the answer it replaces."""

    job_id: uuid.UUID
    payload: SearchPayload
    owner_id: int | None
    """The client that owns the search job (None: enqueued outside the API)."""
    result: dict
    previous: dict
    """The answer before: {"outcome", "lowest"?}."""
    number: int
    """1 for the answer's first change, 2 for the next, …: each change is told once under its own number."""


Answerer = Callable[[ClaimedJob, SearchPayload], dict | None]
Listener = Callable[[ClaimedJob, SearchPayload, dict], None]
ChangeListener = Callable[[AnswerChange], None]

_answerers: dict[str, Answerer] = {}
_listeners: dict[str, Listener] = {}
_change_listeners: dict[str, ChangeListener] = {}


def register_answerer(name: str, answerer: Answerer) -> None:
    """Ask `answerer` before each search (a later registration under the same name replaces it)."""
    _answerers[name] = answerer


def register_listener(name: str, listener: Listener) -> None:
    """Tell `listener` of each finished search (a later registration under the same name replaces it)."""
    _listeners[name] = listener


def register_change_listener(name: str, listener: ChangeListener) -> None:
    """Tell `listener` of each changed answer (a later registration under the same name replaces it)."""
    _change_listeners[name] = listener


def answer(job: ClaimedJob, payload: SearchPayload) -> dict | None:
    """The first registered answerer's result for `job`, or None when none answers."""
    for answerer in _answerers.values():
        result = answerer(job, payload)
        if result is not None:
            return result
    return None


def finished(job: ClaimedJob, payload: SearchPayload, result: dict) -> None:
    """Tell every listener that `job` finished with `result`."""
    for listener in _listeners.values():
        listener(job, payload, result)


def answer_changed(change: AnswerChange) -> None:
    """Tell every change listener of `change`."""
    for listener in _change_listeners.values():
        listener(change)
