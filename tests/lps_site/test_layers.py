"""Imports point down: every package of the tree imports only the packages on floors below its own.

The floors, lowest first (ARCHITECTURE.md draws them): the site's configuration, the generic queue, the product
apps (each product app may lean on the ones listed before it), and the edges, the clients' API and the
operators' console, which nothing imports. An installed app of this repository that is on no floor fails the
test, so a new app is placed on purpose.

A plain AST walk rather than import-linter: the rule is one sentence, the walk is a few lines with no new
dependency, it runs inside the suite (so `./bin/test` and CI enforce it), and its failure names the file and the
line. It reads every import statement, the ones inside functions too. The tests and benches stand outside.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

PROJECT = Path(settings.BASE_DIR)
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"lps_site"}),
    frozenset({"jobs"}),
    frozenset({"negative_cache"}),
    frozenset({"search"}),
    frozenset({"corrections", "watches"}),
    frozenset({"api", "console"}),
)
"""Lowest first. A package may import the packages of lower floors, never its own floor's others or a higher one."""
OUTSIDE = frozenset({"tests", "bench"})
"""First-party packages that use the apps and are used by none."""


def first_party_packages() -> set[str]:
    """The top-level packages of this repository (apps, the site, tests, benches)."""
    return {path.parent.name for path in PROJECT.glob("*/__init__.py")}


def floor_of(package: str) -> int | None:
    return next((number for number, floor in enumerate(FLOORS) if package in floor), None)


def module_path(module: str, root: Path = PROJECT) -> Path | None:
    """The file of a first-party module (a package's __init__.py), or None when it is not in this repository."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imports_of(path: Path, root: Path = PROJECT) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import statement in `path`, those inside functions included."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append((module, node.lineno))
            # `from jobs import queue` imports the module jobs.queue: follow it too.
            found += [
                (f"{module}.{alias.name}", node.lineno)
                for alias in node.names
                if module_path(f"{module}.{alias.name}", root)
            ]
    return found


def upward_imports(package: str, root: Path = PROJECT) -> list[str]:
    """Every import in a module of `package` of a first-party package that is not on a lower floor."""
    ours = first_party_packages_of(root) - OUTSIDE
    own = floor_of(package)
    found = []
    for path in sorted((root / package).rglob("*.py")):
        for module, line in imports_of(path, root):
            top = module.split(".")[0]
            if top == package or top not in ours:
                continue
            floor = floor_of(top)
            if own is None or floor is None or floor >= own:
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return sorted(set(found))


def first_party_packages_of(root: Path) -> set[str]:
    return {path.parent.name for path in root.glob("*/__init__.py")}


def test_every_installed_app_of_this_repository_stands_on_a_floor():
    ours = first_party_packages()
    installed = {config.name.split(".")[0] for config in apps.get_app_configs()} & ours
    assert {package for package in installed if floor_of(package) is None} == set()
    assert {"search", "negative_cache", "api", "console", "jobs"} <= installed


@pytest.mark.parametrize("package", sorted(set().union(*FLOORS)))
def test_a_package_imports_only_the_floors_below_it(package):
    assert upward_imports(package) == []


@pytest.mark.parametrize(
    ("package", "source", "expected"),
    [
        ("jobs", "from search import retention\n", "jobs/module.py:1 imports search"),
        ("jobs", "def later():\n    import api.models\n", "jobs/module.py:2 imports api.models"),
        ("lps_site", "from jobs import queue\n", "lps_site/module.py:1 imports jobs"),
        ("search", "from console.formatting import won\n", "search/module.py:1 imports console.formatting"),
        ("api", "from console import admin\n", "api/module.py:1 imports console"),
    ],
)
def test_the_layer_check_catches_an_upward_import_however_it_is_written(tmp_path, package, source, expected):
    for name in set().union(*FLOORS):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / package / "module.py").write_text(source)

    found = upward_imports(package, root=tmp_path)

    assert len(found) == 1
    assert found[0].startswith(expected)
