"""Who owns jobs, as the app that enqueues them names its owners: the job admin's client column and filter.

The queue stores an owner as a bare id (`job.owner_id`) and knows nothing of the apps above it. An app that
gives jobs owners (its clients, say) registers a directory here from its own admin module, so that the job
admin can show names and filter by owner without importing that app.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class OwnerDirectory:
    label: str
    """What an owner is called in the admin ("client")."""
    names: Callable[[Collection[int]], dict[int, str]]
    """The names of the given owner ids (one query for a whole page)."""
    choices: Callable[[], list[tuple[int, str]]]
    """Every owner a list can be filtered by, as (id, name), in display order."""


_directory: OwnerDirectory | None = None


def register(directory: OwnerDirectory) -> None:
    """Name the owners of jobs (the last registration wins)."""
    global _directory
    _directory = directory


def directory() -> OwnerDirectory | None:
    """The registered directory, or None when no app gives jobs owners."""
    return _directory


def names(ids: Iterable[int | None]) -> dict[int, str]:
    """The names of the given owner ids (None and unknown ids left out); empty when no directory is registered."""
    wanted = {owner_id for owner_id in ids if owner_id is not None}
    registered = directory()
    return registered.names(wanted) if registered is not None and wanted else {}
