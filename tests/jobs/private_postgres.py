"""A throw-away PostgreSQL server (the embedded binaries, a free port, a temporary folder).

The restart test stops and starts one at will without disturbing the shared server; the queue bench runs
one with fsync off to show what the engine costs without the disk.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from lps_site import embedded_pg


class PrivatePostgres:
    """A PostgreSQL server of one's own, run as the embedded server's account when we are root."""

    def __init__(self, root: Path, *, fsync: bool = False):
        self.root = root
        self.data = root / "data"
        self.log = root / "server.log"
        self.fsync = fsync
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.user = embedded_pg._server_user()

    def _as_server(self, args: list[str]) -> None:
        subprocess.run(
            args,
            check=True,
            capture_output=True,
            timeout=60,
            preexec_fn=embedded_pg._as_server_user(self.user, die_with_parent=False),
        )

    def init(self) -> None:
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        self._as_server(
            [embedded_pg._bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync"]
        )

    def start(self) -> None:
        options = (
            f"-h 127.0.0.1 -p {self.port} -k {self.data} -c max_connections=50 "
            f"-c fsync={'on' if self.fsync else 'off'} -c shared_buffers=128MB"
        )
        self._as_server(
            [embedded_pg._bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start"]
        )

    def stop(self) -> None:
        self._as_server([embedded_pg._bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"


@contextlib.contextmanager
def running_private_postgres(*, fsync: bool = False) -> Iterator[PrivatePostgres]:
    """Start a private server; stop it and delete its data afterwards."""
    server = PrivatePostgres(Path(tempfile.mkdtemp(prefix="lps-private-pg-")), fsync=fsync)
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
