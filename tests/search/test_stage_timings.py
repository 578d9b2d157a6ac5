"""Stage timings: a search's milliseconds per stage, measured in its own thread."""

from __future__ import annotations

import threading

from search import stage_timings


def test_a_stage_timed_outside_a_measured_search_is_not_kept_anywhere():
    with stage_timings.timed("judge"):
        pass
    stage_timings.add_all({"navigation": 1.0})

    assert stage_timings.current() is None


def test_stages_add_up_per_search_and_come_out_in_the_order_a_search_meets_them():
    with stage_timings.measuring() as clock:
        stage_timings.add_all({"parse": 0.004, "navigation": 0.0121})
        stage_timings.add_all({"parse": 0.001})
        clock.add("judge", 0.002)

    assert clock.as_json() == {"navigation": 12.1, "parse": 5.0, "judge": 2.0}
    assert stage_timings.current() is None


def test_an_inner_search_clock_hands_its_times_to_the_outer_one_when_it_ends():
    with stage_timings.measuring() as outer:
        with stage_timings.measuring() as inner:
            stage_timings.add_all({"judge": 0.003})
        stage_timings.add_all({"database": 0.001})

    assert inner.as_json() == {"judge": 3.0}
    assert outer.as_json() == {"judge": 3.0, "database": 1.0}


def test_another_thread_times_its_own_search_not_this_ones():
    seen = {}

    def other():
        with stage_timings.measuring() as clock:
            stage_timings.add_all({"judge": 0.007})
        seen["other"] = clock.as_json()

    with stage_timings.measuring() as clock:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()

    assert seen["other"] == {"judge": 7.0}
    assert clock.as_json() == {}
