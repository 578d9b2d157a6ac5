"""docs/configuration.md names every environment variable the code reads, with the default the code gives it, and
nothing the code has stopped reading.

The variables are read off the source (django-environ calls in settings.py, os.environ look-ups anywhere in the
site and every installed app, `${NAME…}` in the Procfile and bin/run), so a setting added without its row fails
here; so does a default changed in the code and not in the doc (a literal default: a number, a flag or a word).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.conf import settings

PROJECT = Path(settings.BASE_DIR)
DOC = PROJECT / "docs" / "configuration.md"
APP_DIRS = tuple(dict.fromkeys(["lps_site", *(app for app in settings.INSTALLED_APPS if (PROJECT / app).is_dir())]))
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


def defaults_in_code() -> dict[str, object]:
    """Each variable's literal default: django-environ's `default=` in settings.py, and os.environ.get's second
    argument anywhere in the site and the apps (a default computed at run time, like a path, is left out)."""
    defaults: dict[str, object] = {}
    paths = [
        path for directory in APP_DIRS for path in (PROJECT / directory).rglob("*.py") if "migrations" not in path.parts
    ]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            name = node.args[0].value
            if not (isinstance(name, str) and re.fullmatch(r"[A-Z][A-Z0-9_]+", name)):
                continue
            default = next((keyword.value for keyword in node.keywords if keyword.arg == "default"), None)
            if default is None and _is_environ_get(node.func) and len(node.args) == 2:
                default = node.args[1]
            if default is not None:
                with_value = _literal(default)
                if with_value is not None:
                    defaults[name] = with_value
    return defaults


def _is_environ_get(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "get" and ast.unparse(func.value) == "os.environ"


def _literal(node: ast.expr) -> object | None:
    """The value of a constant default, or of arithmetic on constants (24 * 3600); None for anything else."""
    try:
        value = eval(compile(ast.Expression(node), "<default>", "eval"), {"__builtins__": {}})  # noqa: S307
    except Exception:
        return None
    return value if isinstance(value, (bool, int, float, str)) else None


def documented_defaults() -> dict[str, str]:
    """The default cell of each variable's row: a row naming several variables gives each its share of a
    comma-separated cell (`300, 30`), or the whole cell to each when it names one value."""
    defaults: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        names = re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[0])
        values = [value.strip() for value in cells[1].split(",")]
        if names and len(values) == len(names):
            defaults.update(zip(names, values, strict=True))
        elif names and len(values) == 1:
            defaults.update(dict.fromkeys(names, values[0]))
    return defaults


def _same_default(in_code: object, in_doc: str) -> bool:
    written = in_doc.strip("`").split(" (")[0].strip("`")
    if isinstance(in_code, bool):
        return written in ({"true", "on"} if in_code else {"false", "off"})
    if isinstance(in_code, (int, float)):
        try:
            return float(written.replace("_", "")) == float(in_code)
        except ValueError:
            return False
    if in_code == "":
        # An empty default is "not set": the doc says what that means in words (—, found automatically).
        return not re.fullmatch(r"[0-9.]+|true|false", written)
    return written == in_code


def test_every_documented_default_is_the_one_the_code_gives():
    documented = documented_defaults()
    wrong = {
        name: (value, documented.get(name))
        for name, value in defaults_in_code().items()
        if name in documented and not _same_default(value, documented[name])
    }
    assert wrong == {}


def test_the_default_reading_finds_defaults_of_every_kind():
    defaults = defaults_in_code()
    assert defaults["LPS_MAX_ROUNDS"] == 3
    assert defaults["LPS_NEGATIVE_CACHE_TTL_SECONDS"] == 86400
    assert defaults["LPS_READ_PAGE_AS_SERVED"] is True
    assert defaults["LPS_EMBEDDED_PG_PORT"] == "54329"
    assert defaults["LPS_JUDGE_MODEL"] == "gpt-4o-mini"
