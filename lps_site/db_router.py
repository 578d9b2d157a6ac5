"""Send observing reads (stats, lists, admin pages) to the replica when one is configured."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from django.conf import settings

_observing: contextvars.ContextVar[bool] = contextvars.ContextVar("lps_observing", default=False)


def observe_alias() -> str:
    """Return the database alias for observing reads: the replica when configured, else the primary."""
    return "replica" if "replica" in settings.DATABASES else "default"


@contextlib.contextmanager
def observing() -> Iterator[str]:
    """Route ORM reads inside the block to the replica; yield the alias to use for raw SQL."""
    token = _observing.set(True)
    try:
        yield observe_alias()
    finally:
        _observing.reset(token)


class ObservingReadsRouter:
    """Reads inside `observing()` go to the replica; every write and every other read to the primary."""

    def db_for_read(self, model, **hints):
        return observe_alias() if _observing.get() else "default"

    def db_for_write(self, model, **hints):
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"
