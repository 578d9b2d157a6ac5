"""The live process table, read from /proc (no psutil), for the tests and benches that look at process trees."""

from __future__ import annotations

import http.client
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessEntry:
    pid: int
    parent: int
    name: str
    """The command name (/proc/PID/stat's second field, at most 15 characters)."""
    state: str
    """"R", "S", "Z" (a zombie: exited, its status not yet read by its parent)…"""


def process_table() -> dict[int, ProcessEntry]:
    """Every process now alive (zombies included), by pid; one that exits while being read is left out."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces and parentheses; the fields after it are plain.
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
        table[int(entry)] = ProcessEntry(int(entry), int(parent), name, state)
    return table


def descendants(root_pid: int, table: dict[int, ProcessEntry]) -> list[int]:
    """The pids in `table` below `root_pid` (children, their children…), `root_pid` itself left out."""
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.parent, []).append(process.pid)
    found, stack = [], list(children.get(root_pid, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has exited: only its exit status is left for its parent to read)."""
    entry = process_table().get(pid)
    return entry is not None and entry.state != "Z"


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; return whether it holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def wait_for_healthz(port: int, server: subprocess.Popen, *, timeout: float = 60.0) -> None:
    """Wait until the web process `server` answers /healthz 200 on 127.0.0.1:`port`; raise with its stderr if it dies
    or does not answer within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        # Closed every time, answered or not: a probe left to the garbage collector warns (an error here)
        # inside whichever later test the collection happens to run in.
        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"gunicorn did not start: {server.stderr.read().decode()[-2000:]}") from None
        finally:
            probe.close()
        pause.wait(0.2)
