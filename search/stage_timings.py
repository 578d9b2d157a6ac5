"""Where a search's time goes: milliseconds per stage, measured in the search's own thread.

    with stage_timings.measuring() as clock:     # the SEARCH handler, around one search
        with stage_timings.timed("judge"):        # anywhere below it, in the same thread
            ...
    result["metrics"]["stages_ms"] = clock.as_json()

A stage measured outside `measuring()` costs one thread-local read and is not kept, so the pipeline and the
crawler time themselves whether or not anyone is listening. The browser's own stages are measured in the
crawler's event loop (search/page_reading.py keeps them on the Visit) and added here by the fetch that waited
for them, in the search's thread. Claim and outcome are the queue's statements before and after the handler:
a job's metrics cannot hold them (the outcome is written with the result), bench/search_bench.py --profile times
them around it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping

STAGES = (
    "claim",
    "browser_page",
    "navigation",
    "result_list_wait",
    "dom_read",
    "parse",
    "judge",
    "refine",
    "database",
    "outcome",
)
"""claim: the queue's claim statement; browser_page: an IP session and its tab checked out (a context opened, a
resting tab waited for); navigation: the request sent until the document arrived; result_list_wait: waiting for the
tab to parse or render a page whose HTML has no list yet (and a naive crawler's load event); dom_read: the page's
HTML read out of the tab; parse: the HTML read into listings; judge: the rules (and the LLM) on the candidates;
refine: the keyword generator; database: every row a search reads and writes (corrections, negative cache, IP
session progress, price history, the webhook's job); outcome: the queue's statement that records the result."""

_local = threading.local()


class StageClock:
    """Milliseconds spent per stage by one search."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def add_all(self, seconds_by_stage: Mapping[str, float]) -> None:
        for stage, seconds in seconds_by_stage.items():
            self.add(stage, seconds)

    def as_json(self) -> dict[str, float]:
        """Milliseconds per stage (one decimal), in STAGES order, stages never met left out."""
        known = [stage for stage in STAGES if stage in self.seconds]
        others = sorted(stage for stage in self.seconds if stage not in STAGES)
        return {stage: round(self.seconds[stage] * 1000, 1) for stage in [*known, *others]}


def current() -> StageClock | None:
    """The clock of the search running in this thread, if one is measured."""
    return getattr(_local, "clock", None)


@contextlib.contextmanager
def measuring() -> Iterator[StageClock]:
    """Measure the stages of the search run in this thread inside the block on a clock of its own; an outer clock
    (a bench around the handler) gets its times too when the block ends."""
    outer = current()
    clock = _local.clock = StageClock()
    try:
        yield clock
    finally:
        _local.clock = outer
        if outer is not None:
            outer.add_all(clock.seconds)


@contextlib.contextmanager
def timed(stage: str) -> Iterator[None]:
    """Add the block's time to `stage` of this thread's search (nothing when none is measured)."""
    clock = current()
    if clock is None:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        clock.add(stage, time.perf_counter() - started)


def add_all(seconds_by_stage: Mapping[str, float]) -> None:
    """Add stages measured elsewhere (the browser's, in the crawler's event loop) to this thread's search."""
    clock = current()
    if clock is not None:
        clock.add_all(seconds_by_stage)
