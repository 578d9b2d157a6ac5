"""The embedded PostgreSQL launcher leaves no server behind, however it is stopped."""

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from lps_site import settings
from tests.addresses import free_port

PORT = free_port()


@pytest.fixture
def data_dir():
    """A private data folder inside the project's .lps/: pytest's own temporary folders are closed to the
    PostgreSQL system user that a root caller hands the server to (pytest resets them to mode 0700)."""
    folder = settings.BASE_DIR / ".lps" / f"test-pg-{uuid.uuid4().hex[:8]}"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _launch(data_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, LPS_EMBEDDED_PG_PORT=str(PORT), LPS_EMBEDDED_PG_DATA=str(data_dir))
    env.pop("DATABASE_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "lps_site.embedded_pg", "run", "--", "sleep", "60"],
        cwd=settings.BASE_DIR,
        env=env,
        stderr=subprocess.PIPE,
    )


def _accepts_connections() -> bool:
    try:
        with psycopg.connect(f"postgres://postgres@127.0.0.1:{PORT}/lps", connect_timeout=1) as conn:
            return conn.execute("SELECT 1").fetchone() == (1,)
    except psycopg.OperationalError:
        return False


def _wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def _postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postmaster.pid").read_text().splitlines()[0])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its exit status is left for the parent to read.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[1][0] != "Z"


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL])
def test_the_server_stops_when_the_launcher_is_stopped(data_dir, stop_signal):
    launcher = _launch(data_dir)
    try:
        assert _wait_for(_accepts_connections, 60), launcher.stderr.read1().decode() if launcher.stderr else ""
        postmaster = _postmaster_pid(data_dir)
        launcher.send_signal(stop_signal)
        launcher.wait(timeout=30)
        assert _wait_for(lambda: not _alive(postmaster), 30)
        assert not _accepts_connections()
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait(timeout=30)
        if launcher.stderr:
            launcher.stderr.close()
