"""What the app imports is declared, and the lock files pin what these tests run on.

``requirements.txt`` keeps ranges (for people who embed the package); ``requirements.lock`` and
``requirements-dev.lock`` pin one version each, and both README commands install from them. The test environment
was installed from ``requirements-dev.lock`` (tests/run.sh), so every version it pins is the one installed here.
"""

from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = {"app", "model", "pages", "serve", "streamlit_app"}
SOURCES = [*sorted((ROOT / "app").rglob("*.py")), *sorted((ROOT / "model").rglob("*.py"))]
SOURCES += [*sorted((ROOT / "pages").glob("*.py")), ROOT / "serve.py", ROOT / "streamlit_app.py"]


def requirements(path: Path) -> dict[str, Requirement]:
    """The requirements a pip file names (``-r`` included), by canonical name."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            found |= requirements(path.parent / line[3:].strip())
        elif line and not line.startswith("-"):
            requirement = Requirement(line)
            found[canonicalize_name(requirement.name)] = requirement
    return found


def pins(path: Path) -> dict[str, Version]:
    found = {}
    for name, requirement in requirements(path).items():
        (specifier,) = requirement.specifier  # a lock pins exactly one version
        assert specifier.operator == "==", (path.name, name)
        found[name] = Version(specifier.version)
    return found


def imported_modules(path: Path) -> set[str]:
    """The top-level modules a file imports, anywhere in it (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


# The tests and benchmarks import their own helpers (tests/apptest_helpers.py, bench/…) by file name, and
# bench/chart_library.py the package it writes from an earlier commit.
HELPERS = {p.stem for folder in ("tests", "bench") for p in (ROOT / folder).glob("*.py")} | {"tests", "previous_charts"}
DEV_SOURCES = [*sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "bench").glob("*.py"))]


@pytest.mark.parametrize(
    ("ranges", "sources"), [("requirements.txt", SOURCES), ("requirements-dev.txt", DEV_SOURCES)], ids=["app", "dev"]
)
def test_every_third_party_module_imported_is_declared(ranges, sources):
    declared = set(requirements(ROOT / ranges))
    distributions = metadata.packages_distributions()
    missing = {}
    for path in sources:
        for module in imported_modules(path) - PROJECT - HELPERS - set(sys.stdlib_module_names):
            names = {canonicalize_name(d) for d in distributions.get(module, [module])}
            if not names & declared:
                missing.setdefault(module, []).append(str(path.relative_to(ROOT)))
    assert not missing, missing


@pytest.mark.parametrize(
    ("ranges", "lock"), [("requirements.txt", "requirements.lock"), ("requirements-dev.txt", "requirements-dev.lock")]
)
def test_each_lock_pins_every_requirement_within_its_range(ranges, lock):
    pinned = pins(ROOT / lock)
    for name, requirement in requirements(ROOT / ranges).items():
        assert name in pinned, (lock, name)
        assert requirement.specifier.contains(pinned[name], prereleases=True), (lock, name, pinned[name])


def test_the_tests_run_on_the_versions_the_dev_lock_pins_and_the_app_lock_agrees():
    dev = pins(ROOT / "requirements-dev.lock")
    for name, version in dev.items():
        installed = Version(metadata.version(name))
        assert Version(installed.public) == version, (name, str(installed), str(version))  # torch: 2.13.0+cpu
    app = pins(ROOT / "requirements.lock")
    assert {name: dev.get(name) for name in app} == app
