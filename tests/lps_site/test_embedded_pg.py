"""Whatever starts the embedded PostgreSQL stops it: the launcher and `running()` leave no server behind, however
they end, and leave alone a server they found running."""

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
from tests.processes import alive, process_table, wait_until

pytestmark = pytest.mark.slow

PORT = free_port()


@pytest.fixture
def data_dir():
    """A private data folder inside the project's .lps/: pytest's own temporary folders are closed to the
    PostgreSQL system user that a root caller hands the server to (pytest resets them to mode 0700)."""
    folder = settings.BASE_DIR / ".lps" / f"test-pg-{uuid.uuid4().hex[:8]}"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# A bench's shape: the server for a block, the block waiting for the test to look, then ending as asked.
IN_A_BLOCK = """
import sys
from lps_site import embedded_pg

with embedded_pg.running() as url:
    print(url, flush=True)
    sys.stdin.readline()
    if sys.argv[1] == "raise":
        raise RuntimeError("the block failed")
"""


def _env(data_dir: Path) -> dict:
    env = dict(os.environ, LPS_EMBEDDED_PG_PORT=str(PORT), LPS_EMBEDDED_PG_DATA=str(data_dir))
    env.pop("DATABASE_URL", None)
    return env


def _launch(data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "lps_site.embedded_pg", "run", "--", "sleep", "60"],
        cwd=settings.BASE_DIR,
        env=_env(data_dir),
        stderr=subprocess.PIPE,
    )


def _enter_a_block(data_dir: Path, ending: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", IN_A_BLOCK, ending],
        cwd=settings.BASE_DIR,
        env=_env(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _accepts_connections() -> bool:
    try:
        with psycopg.connect(f"postgres://postgres@127.0.0.1:{PORT}/lps", connect_timeout=1) as conn:
            return conn.execute("SELECT 1").fetchone() == (1,)
    except psycopg.OperationalError:
        return False


def _postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postmaster.pid").read_text().splitlines()[0])


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL])
def test_the_server_stops_when_the_launcher_is_stopped(data_dir, stop_signal):
    launcher = _launch(data_dir)
    try:
        assert wait_until(_accepts_connections, 60), launcher.stderr.read1().decode() if launcher.stderr else ""
        postmaster = _postmaster_pid(data_dir)
        launcher.send_signal(stop_signal)
        launcher.wait(timeout=30)
        assert wait_until(lambda: not alive(postmaster), 30)
        assert not _accepts_connections()
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait(timeout=30)
        if launcher.stderr:
            launcher.stderr.close()


@pytest.mark.parametrize("ending", ["return", "raise", "ctrl-c"])
def test_a_block_that_started_the_server_stops_it_however_the_block_ends(data_dir, ending):
    block = _enter_a_block(data_dir, ending)
    try:
        assert block.stdout.readline().strip() == f"postgres://postgres@127.0.0.1:{PORT}/lps", block.stderr.read()
        assert _accepts_connections()
        postmaster = _postmaster_pid(data_dir)
        if ending == "ctrl-c":
            block.send_signal(signal.SIGINT)
        else:
            block.stdin.write("done\n")
            block.stdin.flush()
        _, stderr = block.communicate(timeout=60)

        assert (block.returncode == 0) == (ending == "return"), stderr
        assert wait_until(lambda: not alive(postmaster), 30)
        assert not _accepts_connections()
        assert "already running" not in stderr
    finally:
        if block.poll() is None:
            block.kill()
            block.communicate(timeout=30)


def test_a_block_that_found_the_server_running_says_so_and_leaves_it_running(data_dir):
    env = _env(data_dir)
    subprocess.run(
        [sys.executable, "-m", "lps_site.embedded_pg", "start"], cwd=settings.BASE_DIR, env=env, check=True, timeout=90
    )
    try:
        postmaster = _postmaster_pid(data_dir)
        block = _enter_a_block(data_dir, "return")
        stdout, stderr = block.communicate("done\n", timeout=60)

        assert block.returncode == 0, stderr
        assert stdout.strip() == f"postgres://postgres@127.0.0.1:{PORT}/lps"
        assert f"using the PostgreSQL already running on port {PORT}; leaving it running" in stderr
        assert alive(postmaster)
        assert _accepts_connections()
    finally:
        subprocess.run(
            [sys.executable, "-m", "lps_site.embedded_pg", "stop"], cwd=settings.BASE_DIR, env=env, timeout=90
        )
    assert not _accepts_connections()


def test_stop_from_outside_stops_the_server_a_launcher_started_within_seconds_and_leaves_no_zombie(data_dir):
    launcher = _launch(data_dir)
    try:
        assert wait_until(_accepts_connections, 60), launcher.stderr.read1().decode() if launcher.stderr else ""
        postmaster = _postmaster_pid(data_dir)
        began = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "lps_site.embedded_pg", "stop"],
            cwd=settings.BASE_DIR, env=_env(data_dir), check=True, timeout=60,
        )  # fmt: skip
        took = time.monotonic() - began

        # It used to wait its full 30 s: the stopped server stayed a zombie under the launcher, "alive" to stop.
        assert took < 10, f"embedded_pg stop took {took:.1f} s"
        assert not _accepts_connections()
        assert wait_until(lambda: postmaster not in process_table(), 10), "the launcher collected its server"
        assert launcher.poll() is None, "the launcher's command goes on"
    finally:
        launcher.terminate()
        launcher.wait(timeout=30)
        if launcher.stderr:
            launcher.stderr.close()
