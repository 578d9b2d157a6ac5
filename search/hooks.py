"""What apps above search may add to a SEARCH job's life, registered from their `AppConfig.ready()`.

search/ imports none of them; they import this module (imports point down):

- an *answerer* may answer a job before the pipeline runs (a recent result of the same product, say): it returns
  the job's result, or None to let the search run;
- a *listener* is told of every finished search inside the transaction that records it, so that what it writes
  commits (or rolls back) with the search's own records.
"""

from __future__ import annotations

from collections.abc import Callable

from jobs.queue import ClaimedJob
from search.payload import SearchPayload

Answerer = Callable[[ClaimedJob, SearchPayload], dict | None]
Listener = Callable[[ClaimedJob, SearchPayload, dict], None]

_answerers: dict[str, Answerer] = {}
_listeners: dict[str, Listener] = {}


def register_answerer(name: str, answerer: Answerer) -> None:
    """Ask `answerer` before each search (a later registration under the same name replaces it)."""
    _answerers[name] = answerer


def register_listener(name: str, listener: Listener) -> None:
    """Tell `listener` of each finished search (a later registration under the same name replaces it)."""
    _listeners[name] = listener


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
