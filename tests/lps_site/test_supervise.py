"""./bin/run's supervisor keeps the service up: a process that dies is started again (with a line saying so, after
a backoff), and SIGINT or SIGTERM stops every process it started, leaving nothing behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lps_site import settings
from lps_site.supervise import how_it_ended, read_procfile, restart_delay
from tests.processes import alive, descendants, process_table, wait_until

pytestmark = pytest.mark.slow

PROCFILE = """\
release: echo the release step is not the supervisor's
web: sleep 600
worker: sleep 600

# A process that ignores SIGTERM, as does the child it waits for: only the process group's SIGKILL ends them.
stubborn: trap '' TERM; sleep 600 & wait
"""


class Supervising:
    """`python -m lps_site.supervise` on a Procfile of short commands, its lines in a file."""

    def __init__(self, folder: Path, procfile: str, *names: str, stop_timeout: float = 3.0):
        (folder / "Procfile").write_text(procfile)
        self.log_path = folder / "supervise.log"
        self.log = self.log_path.open("w")
        self.popen = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lps_site.supervise",
                *("--procfile", str(folder / "Procfile"), "--stop-timeout", str(stop_timeout)),
                *names,
            ],
            cwd=settings.BASE_DIR,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def output(self) -> str:
        return self.log_path.read_text()

    def wait_for_line(self, pattern: str) -> re.Match:
        assert wait_until(lambda: re.search(pattern, self.output(), re.MULTILINE)), self.output()
        return re.search(pattern, self.output(), re.MULTILINE)

    def started_pid(self, name: str) -> int:
        return int(self.wait_for_line(rf"^supervise: started {name} \(pid (\d+)\)")[1])

    def close(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(timeout=30)
        self.log.close()


@pytest.fixture
def supervising(tmp_path):
    started: list[Supervising] = []

    def start(procfile: str, *names: str, stop_timeout: float = 3.0) -> Supervising:
        started.append(Supervising(tmp_path, procfile, *names, stop_timeout=stop_timeout))
        return started[-1]

    yield start
    for supervisor in started:
        supervisor.close()


def test_a_killed_worker_is_started_again_and_sigint_stops_every_process(supervising):
    supervisor = supervising(PROCFILE)
    worker = supervisor.started_pid("worker")
    web = supervisor.started_pid("web")
    supervisor.started_pid("stubborn")

    os.kill(worker, signal.SIGKILL)

    supervisor.wait_for_line(
        rf"^supervise: worker \(pid {worker}\) was killed by SIGKILL after [0-9.]+ s; "
        r"starting it again in 1 s \(restart 1\)$"
    )
    restarted = int(supervisor.wait_for_line(r"^supervise: restarted worker \(pid (\d+), restart 1\)$")[1])
    assert restarted != worker
    children = descendants(supervisor.popen.pid, process_table())
    assert {restarted, web} <= set(children)
    assert alive(restarted)
    assert alive(web)
    assert "release" not in supervisor.output()

    supervisor.popen.send_signal(signal.SIGINT)

    assert supervisor.popen.wait(timeout=30) == 0
    assert not [pid for pid in children if alive(pid)], supervisor.output()
    assert f"supervise: web (pid {web}) was killed by SIGTERM" in supervisor.output()
    assert re.search(r"supervise: stubborn \(pid \d+\) is still running: SIGKILL", supervisor.output())
    assert supervisor.output().endswith("supervise: all stopped\n")


def test_a_process_that_keeps_dying_is_restarted_after_a_growing_delay(supervising):
    supervisor = supervising("web: sleep 600\ncrash: exit 3\n", "crash")

    supervisor.wait_for_line(r"^supervise: restarted crash \(pid \d+, restart 2\)$")
    supervisor.popen.send_signal(signal.SIGTERM)

    assert supervisor.popen.wait(timeout=30) == 0
    lines = supervisor.output().splitlines()
    assert re.fullmatch(r"supervise: started crash \(pid \d+\): exit 3", lines[0])
    for restart, delay in ((1, 1), (2, 2)):
        assert re.fullmatch(
            rf"supervise: crash \(pid \d+\) exited with status 3 after [0-9.]+ s; "
            rf"starting it again in {delay} s \(restart {restart}\)",
            lines[2 * restart - 1],
        )
        assert re.fullmatch(rf"supervise: restarted crash \(pid \d+, restart {restart}\)", lines[2 * restart])
    assert "web" not in supervisor.output()


@pytest.mark.parametrize(
    ("quick_failures", "delay"), [(0, 1.0), (1, 1.0), (2, 2.0), (3, 4.0), (5, 16.0), (6, 30.0), (50, 30.0)]
)
def test_the_restart_delay_doubles_from_one_second_up_to_thirty(quick_failures, delay):
    assert restart_delay(quick_failures) == delay


def test_the_procfile_is_read_in_order_with_comments_and_blank_lines_skipped(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text(PROCFILE)

    assert read_procfile(procfile) == {
        "release": "echo the release step is not the supervisor's",
        "web": "sleep 600",
        "worker": "sleep 600",
        "stubborn": "trap '' TERM; sleep 600 & wait",
    }
    assert list(read_procfile(settings.BASE_DIR / "Procfile")) == ["release", "web", "worker", "reaper"]


def test_how_a_process_ended_reads_as_a_status_or_a_signal():
    assert (how_it_ended(0), how_it_ended(3), how_it_ended(-9)) == (
        "exited with status 0",
        "exited with status 3",
        "was killed by SIGKILL",
    )
