"""The reaper's maintenance units: housekeeping that the apps above the queue add from `AppConfig.ready()`.

The queue's own upkeep (reclaiming expired leases, pruning old finished jobs) is the reaper's; whatever else
must be cleaned up on a schedule (an app's expired cache rows, files it left behind) is registered here as one
small unit each, and every reaper pass runs them after its own work:

    maintenance.register(
        "purge expired cache rows", lambda limit: cache.purge_expired(limit=limit), reports="purged {count} rows"
    )

A unit's step does one bounded batch: it handles at most `limit` things and returns how many it handled. The
reaper calls it again while the batches come back full, up to its budget per pass, and stops between batches
when asked to; so a step must be cheap to repeat and leave the rest for the next call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Step = Callable[[int], int]


@dataclass(frozen=True)
class MaintenanceUnit:
    name: str
    """What it does ("purge expired cache rows"); one registration per name."""
    step: Step
    """Handle at most `limit` things; return how many."""
    reports: str
    """What a reaper pass says of it, with {count}: "purged {count} cache rows"."""

    def report(self, count: int) -> str:
        return self.reports.format(count=count)


_units: dict[str, MaintenanceUnit] = {}


def register(name: str, step: Step, *, reports: str) -> None:
    """Run `step` in every reaper pass (a later registration under the same name replaces it)."""
    if "{count}" not in reports:
        raise ValueError("reports must say {count}")
    _units[name] = MaintenanceUnit(name, step, reports)


def units() -> list[MaintenanceUnit]:
    """The registered units, in the order they were first registered (the order a pass runs them)."""
    return list(_units.values())
