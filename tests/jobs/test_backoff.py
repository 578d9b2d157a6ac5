"""backoff(): a pure function, tested without a database."""

from __future__ import annotations

import random

import pytest

from jobs import queue


def test_backoff_is_zero_before_any_failure():
    assert queue.backoff(0) == 0.0
    assert queue.backoff(-3) == 0.0


@pytest.mark.parametrize(("attempts", "ceiling"), [(1, 5), (2, 10), (3, 20), (5, 80), (7, 320), (8, 600), (30, 600)])
def test_backoff_grows_exponentially_from_5_seconds_and_stays_between_half_and_all_of_its_ceiling(attempts, ceiling):
    rng = random.Random(attempts)
    delays = [queue.backoff(attempts, rng=rng) for _ in range(200)]
    assert min(delays) >= ceiling / 2
    assert max(delays) <= ceiling


def test_backoff_is_capped_at_600_seconds_however_many_failures():
    assert max(queue.backoff(1000, rng=random.Random(n)) for n in range(50)) <= 600


def test_backoff_jitter_spreads_retries_of_jobs_that_failed_together():
    rng = random.Random(7)
    delays = {round(queue.backoff(4, rng=rng), 3) for _ in range(50)}
    assert len(delays) > 40


def test_backoff_is_repeatable_with_a_seeded_random_source():
    assert queue.backoff(3, rng=random.Random(1)) == queue.backoff(3, rng=random.Random(1))


def test_backoff_takes_its_base_and_cap():
    assert 50 <= queue.backoff(2, base=50, cap=100, rng=random.Random(0)) <= 100
    assert queue.backoff(9, base=1, cap=3, rng=random.Random(0)) <= 3
