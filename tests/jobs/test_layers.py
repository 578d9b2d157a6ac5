"""The queue at the bottom: nothing `jobs/` imports, directly or through the site's own modules, is a product app.

A plain AST walk rather than import-linter: the rule is one sentence, the walk is a few lines with no new
dependency, it runs inside the suite (so `./bin/test` and CI enforce it), and its failure names the file, the
line and the chain of imports that led there. It reads every import statement, the ones inside functions too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

PROJECT = Path(settings.BASE_DIR)
QUEUE_PACKAGE = "jobs"
# The site's configuration (settings, database routing) is below every app; jobs/ may lean on it.
SITE_PACKAGE = "lps_site"


def first_party_packages() -> set[str]:
    """The top-level packages of this repository (apps, the site, tests, benches)."""
    return {path.parent.name for path in PROJECT.glob("*/__init__.py")}


def product_apps() -> set[str]:
    """Every installed app of this repository other than the queue: what jobs/ must never import."""
    ours = first_party_packages()
    return {config.name.split(".")[0] for config in apps.get_app_configs()} & ours - {QUEUE_PACKAGE, SITE_PACKAGE}


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


def forbidden_imports(package: str, forbidden: set[str], root: Path = PROJECT) -> list[str]:
    """Every chain of first-party imports from a module of `package` that reaches a package in `forbidden`."""
    chains: list[str] = []
    seen: set[Path] = set()
    pending = [(path, f"{path.relative_to(root)}") for path in sorted((root / package).rglob("*.py"))]
    while pending:
        path, chain = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for module, line in imports_of(path, root):
            top = module.split(".")[0]
            if top in forbidden:
                chains.append(f"{chain}:{line} imports {module}")
            elif top in (package, SITE_PACKAGE) and (target := module_path(module, root)) is not None:
                pending.append((target, f"{chain}:{line} → {target.relative_to(root)}"))
    return sorted(chains)


def test_the_product_apps_are_the_installed_apps_of_this_repository_other_than_the_queue():
    assert {"search", "negative_cache", "api"} <= product_apps()
    assert QUEUE_PACKAGE not in product_apps()


def test_the_queue_imports_no_product_app_directly_or_through_the_site():
    assert forbidden_imports(QUEUE_PACKAGE, product_apps()) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from search import retention\n", "imports search"),
        ("def later():\n    import api.models\n", "imports api.models"),
        ("from lps_site import leaning\n", "→ lps_site/leaning.py"),
    ],
)
def test_the_layer_check_catches_a_forbidden_import_however_it_is_written(tmp_path, source, expected):
    (tmp_path / "queue_pkg").mkdir()
    (tmp_path / "queue_pkg" / "__init__.py").write_text("")
    (tmp_path / "queue_pkg" / "module.py").write_text(source)
    (tmp_path / SITE_PACKAGE).mkdir()
    (tmp_path / SITE_PACKAGE / "__init__.py").write_text("")
    (tmp_path / SITE_PACKAGE / "leaning.py").write_text("from search.models import Product\n")

    chains = forbidden_imports("queue_pkg", {"search", "api"}, root=tmp_path)

    assert len(chains) == 1
    assert expected in chains[0]
