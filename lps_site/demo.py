"""`./bin/run --demo`: the whole service against the fake Coupang and the fake Naver API, without the internet.

    python -m lps_site.demo run -- CMD …   write the demo's .env, run CMD, remove the .env when CMD ends
    python -m lps_site.demo forget         remove a .env a demo left behind (a kill -9), saying so

The demo's settings live in one `.env` at the project's root, which settings.py reads in every process of this
checkout: the web, worker and reaper the supervisor starts, and every `manage.py` command typed in another
terminal (`manage.py search` then goes to the fake Coupang too, not to www.coupang.com). The file's first line
marks it as the demo's: a `.env` of the operator's own is never overwritten (the demo refuses to start and says
so) and never removed. The fakes' ports are LPS_DEMO_COUPANG_PORT (8765), LPS_DEMO_NAVER_PORT (8766) and
LPS_DEMO_WEBHOOK_PORT (8767, a webhook receiver for the tour's callback_url); `fake_processes()` gives their
commands for the supervisor.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
ENV_FILE = BASE_DIR / ".env"
MARKER = "# Written by ./bin/run --demo and removed when it stops: the demo's fake marketplaces, for every command"
NAVER_CLIENT_ID = "lps-test-client-id"
NAVER_CLIENT_SECRET = "lps-test-client-secret"  # noqa: S105 (the fake's own test key)
"""The keys tests/fakes/naver_api.py accepts (it is not importable from here: tests/ sits above every app)."""


class DemoError(RuntimeError):
    """The demo cannot start as asked (a .env of the operator's own is in the way)."""


def ports() -> tuple[int, int, int]:
    """The fake Coupang's, the fake Naver API's and the webhook receiver's ports."""
    return (
        int(os.environ.get("LPS_DEMO_COUPANG_PORT", "8765")),
        int(os.environ.get("LPS_DEMO_NAVER_PORT", "8766")),
        int(os.environ.get("LPS_DEMO_WEBHOOK_PORT", "8767")),
    )


def env_text() -> str:
    """What the demo's .env holds."""
    coupang, naver, _ = ports()
    lines = [
        MARKER,
        "# in this checkout (manage.py search, createapikey…). A loopback callback_url is allowed here only.",
        f"LPS_COUPANG_URL=http://127.0.0.1:{coupang}",
        f"LPS_NAVER_URL=http://127.0.0.1:{naver}",
        f"NAVER_CLIENT_ID={NAVER_CLIENT_ID}",
        f"NAVER_CLIENT_SECRET={NAVER_CLIENT_SECRET}",
        "LPS_ALLOW_PRIVATE_CALLBACKS=true",
    ]
    return "\n".join(lines) + "\n"


def is_demo_env(path: Path = ENV_FILE) -> bool:
    """Whether `path` is a .env the demo wrote."""
    try:
        with path.open(encoding="utf-8") as file:
            return file.readline().rstrip("\n") == MARKER
    except FileNotFoundError:
        return False


def write_env(path: Path = ENV_FILE) -> None:
    """Write the demo's .env; raise DemoError if a .env that is not the demo's is there."""
    if path.exists() and not is_demo_env(path):
        raise DemoError(
            f"{path} is not the demo's (it has settings of your own): move it aside to run ./bin/run --demo"
        )
    path.write_text(env_text(), encoding="utf-8")


def forget_env(path: Path = ENV_FILE) -> bool:
    """Remove the demo's .env if it is there; return whether it was."""
    if not is_demo_env(path):
        return False
    path.unlink(missing_ok=True)
    return True


def fake_processes() -> dict[str, str]:
    """The fakes the supervisor starts beside web, worker and reaper: name → command."""
    coupang, naver, webhooks = ports()
    return {
        "fake-coupang": f"python -m tests.fakes.marketplace --port {coupang}",
        "fake-naver": f"python -m tests.fakes.naver_api --port {naver}",
        "webhooks": f"python -m tests.fakes.webhook_receiver --port {webhooks}",
    }


def run(command: list[str]) -> int:
    """Write the .env, run `command` to its end (SIGTERM forwarded; Ctrl-C reaches it from the terminal), then
    remove the .env; return its exit status."""
    write_env()
    print(f"demo: wrote {ENV_FILE.name} ({', '.join(shlex.quote(line) for line in env_text().splitlines()[2:])})")
    child = subprocess.Popen(command, cwd=BASE_DIR)

    def forward(signum, frame):
        # The terminal's Ctrl-C reaches the child as it reaches us (one process group); a SIGTERM sent to us
        # alone is passed on. Either way the child decides when it has stopped.
        if signum == signal.SIGTERM:
            child.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    try:
        status = child.wait()
    finally:
        forget_env()
        print(f"demo: removed {ENV_FILE.name}", flush=True)
    return status if status >= 0 else 128 - status


def main(argv: list[str]) -> int:
    if argv[:1] == ["forget"]:
        if forget_env():
            print(f"note: removed the {ENV_FILE.name} a demo left behind (./bin/run --demo writes it)", file=sys.stderr)
        return 0
    if argv[:2] == ["run", "--"] and len(argv) > 2:
        try:
            return run(argv[2:])
        except DemoError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if argv[:1] == ["processes"]:
        for name, command in fake_processes().items():
            print(f"{name}={command}")
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
