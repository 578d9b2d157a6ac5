"""docs/configuration.md names every environment variable the code reads, and nothing the code has stopped reading.

The variables are read off the source (django-environ calls in settings.py, os.environ look-ups anywhere in the
apps and the site, `${NAME…}` in the Procfile and bin/run), so a setting added without its row fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

PROJECT = Path(settings.BASE_DIR)
DOC = PROJECT / "docs" / "configuration.md"
APP_DIRS = ("lps_site", "jobs", "search", "negative_cache", "api", "console")
READ_PATTERNS = (
    re.compile(r"""\benv(?:\.[a-z]+)?\(\s*["']([A-Z][A-Z0-9_]+)["']"""),
    re.compile(r"""os\.environ(?:\.get)?\(\s*["']([A-Z][A-Z0-9_]+)["']"""),
    re.compile(r"""os\.environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]"""),
)
SHELL_PATTERN = re.compile(r"\$\{([A-Z][A-Z0-9_]+)[:}]")
DOC_ROW = re.compile(r"^\|(.*?)\|", re.MULTILINE)
NOT_SETTINGS = frozenset({"DJANGO_SETTINGS_MODULE", "PORT", "PATH", "HOME", "USER"})
"""Read by the code but not LPS's to configure: Django's own bootstrap, the platform's port, the shell's."""


def variables_read() -> set[str]:
    names: set[str] = set()
    for directory in APP_DIRS:
        for path in (PROJECT / directory).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            for pattern in READ_PATTERNS:
                names.update(pattern.findall(text))
    for path in (PROJECT / "Procfile", PROJECT / "bin" / "run"):
        names.update(SHELL_PATTERN.findall(path.read_text(encoding="utf-8")))
    return names - NOT_SETTINGS


def variables_documented() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    names: set[str] = set()
    for first_cell in DOC_ROW.findall(text):
        names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", first_cell))
    return names


def test_every_variable_the_code_reads_has_a_row_in_the_configuration_doc():
    assert variables_read() - variables_documented() == set()


def test_the_configuration_doc_has_no_row_for_a_variable_the_code_no_longer_reads():
    assert variables_documented() - variables_read() == set()


def test_the_reading_finds_settings_of_every_kind():
    read = variables_read()
    assert {"DATABASE_URL", "LPS_REAPER_INTERVAL", "LPS_EMBEDDED_PG_PORT", "LPS_WEB_BIND"} <= read
