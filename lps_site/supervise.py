"""Run the Procfile's processes together and keep them up: the process manager of `./bin/run`.

    python -m lps_site.supervise [--procfile Procfile] [--also NAME=COMMAND …] [NAME …]
                                     (every process but `release` when none is named; `--also` ones start first)

Each process runs its Procfile command under bash (which becomes the command itself when it is one simple
command, as every line of ours is), in a process group of its own, so that a terminal's Ctrl-C reaches only
this supervisor, which then stops them in order. A process that exits while the service is up
(web, worker or reaper; a crash, an exit or a kill -9) is started again, with a line saying which, how it ended
and how many restarts it has had, after `restart_delay()`: 1 s, doubling up to 30 s while it keeps dying within
a minute of its start. SIGINT or SIGTERM stops everything: each process gets one SIGTERM and the stop timeout
(the worker's grace period for its running jobs, plus a margin) to finish, then its process group gets SIGKILL.
A second Ctrl-C at least a second after the first skips the wait (the first one may arrive twice at once: from
the terminal and forwarded by the database launcher).

Signals are taken synchronously (blocked, then read with sigtimedwait): no handler can run in the middle of the
loop, and a child's exit (SIGCHLD) wakes it at once.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from lps_site import settings

BASE_DIR = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
WATCHED = {*STOP_SIGNALS, signal.SIGCHLD}
# A process that ran this long before it died is not crash-looping: its next restart waits the least again.
STABLE_SECONDS = 60.0
# How long stopping waits beyond the worker's grace period (it releases what still runs, then exits).
STOP_MARGIN_SECONDS = 10.0
# A repeated stop signal closer than this to the first is the same Ctrl-C delivered twice.
SAME_SIGNAL_SECONDS = 1.0
# The longest the loop waits without a signal (it also looks at the children then).
TICK_SECONDS = 1.0
PROCFILE_LINE = re.compile(r"^([A-Za-z0-9_-]+):\s*(.+)$")


def restart_delay(quick_failures: int, *, base: float = 1.0, cap: float = 30.0) -> float:
    """Seconds to wait before starting again a process that died young `quick_failures` times in a row."""
    return min(cap, base * 2 ** max(0, quick_failures - 1))


def read_procfile(path: Path) -> dict[str, str]:
    """The Procfile's processes, name → command, in file order (blank lines and # comments skipped)."""
    processes = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = PROCFILE_LINE.match(line.strip())
        if match is None:
            raise ValueError(f"{path}:{number}: not a 'name: command' line: {line!r}")
        processes[match[1]] = match[2]
    return processes


def how_it_ended(returncode: int) -> str:
    """`exited with status 3` or `was killed by SIGKILL`."""
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-returncode).name}"
        return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


def _child_setup() -> None:
    # The supervisor blocks the signals it reads itself; a child must receive them as usual.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # If the supervisor itself is killed, its children are stopped rather than orphaned.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Supervised:
    """One Procfile process and what the supervisor knows of it."""

    name: str
    command: str
    popen: subprocess.Popen | None = None
    started_at: float = 0.0
    restarts: int = 0
    quick_failures: int = 0
    start_at: float | None = field(default=None)
    """When it is due to be started again (monotonic), while it is down."""


class Supervisor:
    """Start the processes, restart any that dies, stop them all on SIGINT/SIGTERM."""

    def __init__(self, processes: dict[str, str], *, stop_timeout: float, out=sys.stderr):
        self.processes = [Supervised(name, command) for name, command in processes.items()]
        self.stop_timeout = stop_timeout
        self.out = out

    def say(self, message: str) -> None:
        print(f"supervise: {message}", file=self.out, flush=True)

    def run(self) -> int:
        """Run until SIGINT or SIGTERM, then stop every process; return 0."""
        signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
        for process in self.processes:
            self._start(process)
        while True:
            received = signal.sigtimedwait(WATCHED, self._until_next_start())
            if received is not None and received.si_signo in STOP_SIGNALS:
                break
            self._look_after_children()
        self._stop_all(signal.Signals(received.si_signo))
        return 0

    def _start(self, process: Supervised) -> None:
        process.popen = subprocess.Popen(
            ["bash", "-c", process.command],
            cwd=BASE_DIR,
            stdin=subprocess.DEVNULL,
            process_group=0,
            preexec_fn=_child_setup,
        )
        process.started_at = time.monotonic()
        process.start_at = None
        if process.restarts:
            self.say(f"restarted {process.name} (pid {process.popen.pid}, restart {process.restarts})")
        else:
            self.say(f"started {process.name} (pid {process.popen.pid}): {process.command}")

    def _until_next_start(self) -> float:
        due = [process.start_at for process in self.processes if process.start_at is not None]
        if not due:
            return TICK_SECONDS
        return max(0.0, min(TICK_SECONDS, min(due) - time.monotonic()))

    def _look_after_children(self) -> None:
        now = time.monotonic()
        for process in self.processes:
            if process.popen is not None and process.popen.poll() is not None:
                self._schedule_restart(process, now)
            elif process.start_at is not None and process.start_at <= now:
                self._start(process)

    def _schedule_restart(self, process: Supervised, now: float) -> None:
        popen, process.popen = process.popen, None
        _kill_group(popen.pid)
        lived = now - process.started_at
        process.quick_failures = process.quick_failures + 1 if lived < STABLE_SECONDS else 1
        process.restarts += 1
        delay = restart_delay(process.quick_failures)
        process.start_at = now + delay
        self.say(
            f"{process.name} (pid {popen.pid}) {how_it_ended(popen.returncode)} after {lived:.1f} s; "
            f"starting it again in {delay:g} s (restart {process.restarts})"
        )

    def _stop_all(self, reason: signal.Signals) -> None:
        running = [process for process in self.processes if process.popen is not None]
        self.say(
            f"{reason.name} received: stopping {', '.join(process.name for process in running) or 'nothing'} "
            f"(SIGTERM, then SIGKILL after {self.stop_timeout:g} s)"
        )
        first_signal_at = time.monotonic()
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.popen.send_signal(signal.SIGTERM)
        deadline = first_signal_at + self.stop_timeout
        while running and time.monotonic() < deadline:
            received = signal.sigtimedwait(WATCHED, min(TICK_SECONDS, max(0.0, deadline - time.monotonic())))
            repeated = received is not None and received.si_signo in STOP_SIGNALS
            if repeated and time.monotonic() - first_signal_at >= SAME_SIGNAL_SECONDS:
                self.say("second stop signal: killing what is left")
                break
            running = self._report_stopped(running)
        for process in running:
            self.say(f"{process.name} (pid {process.popen.pid}) is still running: SIGKILL")
        for process in self.processes:
            if process.popen is not None:
                _kill_group(process.popen.pid)
                process.popen.wait()
        self._report_stopped(running)
        self.say("all stopped")

    def _report_stopped(self, running: list[Supervised]) -> list[Supervised]:
        still = []
        for process in running:
            if process.popen.poll() is None:
                still.append(process)
            else:
                self.say(f"{process.name} (pid {process.popen.pid}) {how_it_ended(process.popen.returncode)}")
        return still


def _kill_group(pgid: int) -> None:
    """SIGKILL whatever is left in a process group (what a dead leader's children may have left behind)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="Procfile processes to run (default: all but release)")
    parser.add_argument("--procfile", type=Path, default=BASE_DIR / "Procfile")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a process that is not in the Procfile, started first and kept up like the others (the demo's fakes)",
    )
    parser.add_argument(
        "--stop-timeout",
        type=float,
        default=settings.LPS_SHUTDOWN_GRACE_SECONDS + STOP_MARGIN_SECONDS,
        help="seconds each process has to stop after SIGTERM (default: the worker's grace period + 10)",
    )
    options = parser.parse_args(argv)
    procfile = read_procfile(options.procfile)
    names = options.names or [name for name in procfile if name != "release"]
    unknown = [name for name in names if name not in procfile]
    if unknown:
        parser.error(f"not in {options.procfile}: {', '.join(unknown)}")
    also = {}
    for item in options.also:
        name, _, command = item.partition("=")
        if not PROCFILE_LINE.match(f"{name}: {command}") or name in names:
            parser.error(f"--also wants NAME=COMMAND with a name of its own, not {item!r}")
        also[name] = command
    processes = also | {name: procfile[name] for name in names}
    return Supervisor(processes, stop_timeout=options.stop_timeout).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
