"""The README's tour and the examples of docs/api.md and docs/naver.md run as written, from a fresh copy of the
clone: `./bin/run --demo` in one "terminal", every other ```sh block of those documents, in order, in a second one.

The copy holds the files git tracks (and new ones it does not ignore), as a clone would, with the shared .venv
linked in (a clone's `./bin/run` would make its own; the copy skips that install, nothing else). Its embedded
PostgreSQL, its web server and the demo's fakes get ports of their own; the blocks are run with the documented
ports swapped for those, and with nothing else changed. A block that starts the service must be `./bin/run --demo`
itself (the first terminal); the README's set-up block, which must come first and hold exactly `./bin/run` and
`./bin/test`, is the one block not run (`./bin/test` would run this suite inside itself).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.addresses import free_port

PROJECT = Path(settings.BASE_DIR)
DOCUMENTS = ("README.md", "docs/api.md", "docs/naver.md")
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)
WEB, WEBHOOKS = "127.0.0.1:8000", "127.0.0.1:8767"
SETUP_BLOCK = ["./bin/run", "./bin/test"]
START_SECONDS = 300
EXAMPLES_SECONDS = 900


def sh_blocks(document: str) -> list[str]:
    return SH_BLOCK.findall((PROJECT / document).read_text(encoding="utf-8"))


def second_terminal_script() -> str:
    """Every example block of the documents, in order, as one script."""
    parts = []
    for document in DOCUMENTS:
        blocks = sh_blocks(document)
        if document == "README.md":
            blocks = blocks[1:]
        for block in blocks:
            if block.strip().startswith("./bin/run"):
                assert block.split("#")[0].strip() == "./bin/run --demo", f"{document}: {block!r}"
                continue
            parts.append(f"# --- {document}\n{block}")
    return "\n".join(parts)


def test_the_readme_starts_with_exactly_the_two_set_up_commands():
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    first = sh_blocks("README.md")[0]

    assert text.index("```sh") < text.index("\n## ")
    assert [line.split("#")[0].strip() for line in first.splitlines()] == SETUP_BLOCK


def test_the_docs_name_no_file_a_clone_lacks():
    for path in [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert "shared/" not in text, path.name
        assert not re.search(r"SPEC\s*§", text), path.name


def test_every_example_calls_the_service_through_the_demo_ports_and_python_through_the_venv():
    script = second_terminal_script()

    assert set(re.findall(r"127\.0\.0\.1:\d+", script)) == {WEB, WEBHOOKS}
    assert not re.search(r"(^|[\s(])python3? ", script), "python without .venv/bin/"


def _copy_of_the_clone(destination: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = PROJECT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (destination / ".venv").symlink_to((PROJECT / ".venv").resolve())
    return destination


def _answers(address: str) -> bool:
    host, port = address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


@pytest.mark.browser
@pytest.mark.timeout(START_SECONDS + EXAMPLES_SECONDS + 180)
def test_the_tour_and_the_docs_examples_run_as_written_against_the_demo_from_a_fresh_clone(tmp_path):
    clone = _copy_of_the_clone(tmp_path / "lps")
    web, webhooks = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("LPS_", "DATABASE_", "NAVER_", "OPENAI_")) or name == "LPS_CHROMIUM"
    }
    environment.update(
        LPS_EMBEDDED_PG_PORT=str(free_port()),
        LPS_WEB_BIND=web,
        LPS_DEMO_COUPANG_PORT=str(free_port()),
        LPS_DEMO_NAVER_PORT=str(free_port()),
        LPS_DEMO_WEBHOOK_PORT=webhooks.split(":")[1],
        WEB_CONCURRENCY="1",
    )
    first_log = (tmp_path / "first-terminal.log").open("w")
    first = subprocess.Popen(
        ["./bin/run", "--demo"],
        cwd=clone,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=first_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a terminal of its own: Ctrl-C below reaches its whole foreground group
    )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(web):
            assert first.poll() is None, (tmp_path / "first-terminal.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "first-terminal.log").read_text()
            time.sleep(1)
        assert (clone / ".env").read_text().startswith("# Written by ./bin/run --demo")

        script = second_terminal_script().replace(WEB, web).replace(WEBHOOKS, webhooks)
        second = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=clone,
            env=environment,
            capture_output=True,
            text=True,
            timeout=EXAMPLES_SECONDS,
        )
        out = second.stdout
        assert second.returncode == 0, f"{out}\n{second.stderr}\n{(tmp_path / 'first-terminal.log').read_text()}"
        assert not re.search(r'"result":\s*[1-9]', out), out

        # The README's tour: Naver's catalog is the lowest, the shop's price set against it, the ad and the
        # sold-out listing named as left out; the unknown product's second search answered from the cache.
        documents = _json_values(out)
        tour = next(value for value in documents if "price_check" in value and "by_marketplace" in value)
        assert tour["lowest"]["price"] == 197_000
        assert tour["by_marketplace"]["coupang"]["lowest"]["price"] == 209_000
        assert tour["price_check"] == {
            "your_price": 259_000,
            "lowest_price": 197_000,
            "gap_won": 62_000,
            "gap_percent": 31.5,
        }
        assert {(item["price"], item["why"]) for item in tour["left_out"]} >= {(199_000, "ad"), (189_000, "sold_out")}
        cached = next(value for value in documents if set(value) == {"outcome", "cached", "cache"})
        assert (cached["outcome"], cached["cached"]) == ("not_found", True)
        # docs/api.md: the correction moves the lowest to the next listing; the kept secret verifies a webhook.
        corrected = next(value for value in documents if "corrections" in value)
        assert corrected["lowest"]["price"] == 203_500
        assert "signature ok" in out
        rotated = json.loads((clone / ".lps" / "my-shop-secret.json").read_text())
        assert rotated["name"] == "my-shop"
        assert rotated["webhook_secret"] != json.loads((clone / ".lps" / "my-shop.json").read_text())["webhook_secret"]
    finally:
        os.killpg(first.pid, signal.SIGINT)  # the terminal's Ctrl-C
        try:
            first.wait(timeout=120)
        finally:
            if first.poll() is None:
                os.killpg(first.pid, signal.SIGKILL)
                first.wait()
            first_log.close()
    assert not (clone / ".env").exists(), "the demo left its .env behind"


def _json_values(out: str) -> list:
    """Every JSON object printed, in order (jq's pretty output spans lines; curl's and -c's take one)."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while (start := out.find("{", at)) != -1:
        try:
            value, at = decoder.raw_decode(out, start)
        except json.JSONDecodeError:
            at = start + 1
            continue
        values.append(value)
    return values
