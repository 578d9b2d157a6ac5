"""Fixtures of the queue tests: workers in threads of the test process, and workers as real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connections

from jobs.worker import Worker
from tests.addresses import database_url
from tests.jobs.scripted import scripted_registry

PROJECT_DIR = Path(django_settings.BASE_DIR)


def wait_until(condition: Callable[[], object], *, timeout: float, interval: float = 0.02, message: str = "") -> object:
    """Return the first truthy value of `condition()`; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {message or condition}")
        pause.wait(interval)


@pytest.fixture
def record_path(tmp_path: Path) -> Path:
    return tmp_path / "runs.jsonl"


class ThreadedWorker:
    """A Worker running in a thread of the test process (its connections closed when it ends)."""

    def __init__(self, worker: Worker):
        self.worker = worker
        self.exit_code: int | None = None
        self.thread = threading.Thread(target=self._run, name="test-worker", daemon=True)

    def _run(self) -> None:
        try:
            self.exit_code = self.worker.run()
        finally:
            connections.close_all()

    def start(self) -> ThreadedWorker:
        self.thread.start()
        assert self.worker.ready.wait(timeout=10), "the worker never became ready"
        return self

    def join(self, timeout: float = 15) -> int | None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"the worker did not stop within {timeout} s"
        return self.exit_code

    def stop(self, timeout: float = 15) -> int | None:
        self.worker.stop()
        return self.join(timeout)


@pytest.fixture
def threaded_worker(record_path: Path) -> Iterator[Callable[..., ThreadedWorker]]:
    """Start Workers with the scripted handlers in threads; stop whatever still runs at the end."""
    started: list[ThreadedWorker] = []

    def start(**options) -> ThreadedWorker:
        options.setdefault("poll_interval", 60.0)
        options.setdefault("grace_seconds", 5.0)
        options.setdefault("shutdown_hooks", [])
        registry = options.pop("registry", None) or scripted_registry(record_path)
        runner = ThreadedWorker(Worker(registry, **options)).start()
        started.append(runner)
        return runner

    yield start
    for runner in started:
        if runner.thread.is_alive():
            runner.stop()


class WorkerProcess:
    """A real worker process (tests/jobs/worker_process.py) with the scripted handlers."""

    def __init__(self, popen: subprocess.Popen, ready_file: Path, log_path: Path):
        self.popen = popen
        self.ready_file = ready_file
        self.log_path = log_path

    @property
    def worker_id(self) -> str:
        return self.ready_file.read_text()

    def wait_ready(self, timeout: float = 60) -> str:
        wait_until(
            lambda: self.ready_file.exists() or self.popen.poll() is not None,
            timeout=timeout,
            message="a worker process to become ready",
        )
        assert self.popen.poll() is None, f"the worker process exited early:\n{self.log()}"
        return self.worker_id

    def signal(self, signum: int) -> None:
        self.popen.send_signal(signum)

    def wait(self, timeout: float = 60) -> int:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the worker process did not exit within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""


@pytest.fixture
def worker_process(tmp_path: Path, record_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start worker processes against the test database; kill any left at the end."""
    started: list[WorkerProcess] = []

    def start(*args: str, env: dict[str, str] | None = None, url: str | None = None) -> WorkerProcess:
        index = len(started)
        ready_file = tmp_path / f"worker-{index}.ready"
        log_path = tmp_path / f"worker-{index}.log"
        environment = {
            **os.environ,
            "DATABASE_URL": url or database_url(),
            "DJANGO_SETTINGS_MODULE": "lps_site.settings",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        with log_path.open("wb") as log:
            popen = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.jobs.worker_process",
                    "work",
                    "--record",
                    str(record_path),
                    "--ready-file",
                    str(ready_file),
                    *args,
                ],
                cwd=PROJECT_DIR,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        process = WorkerProcess(popen, ready_file, log_path)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.popen.poll() is None:
            process.popen.send_signal(signal.SIGKILL)
            process.popen.wait(10)
