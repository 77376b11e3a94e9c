"""The house's rules, checked on the source: pages only route, imports run pages -> app -> model, a concept
imports core and model only and core no concept (``.importlinter``), no import cycle and no import hidden in a function to dodge one,
no file over 600 lines, and every ``st.session_state`` key declared in a settings registry."""

from __future__ import annotations

import ast
import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.registry import CORE, concept_modules, concept_names
from app.core.state import DERIVED_KEYS, SESSION, SETTINGS

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600
MAX_PAGE_LINES = 30
SOURCES = sorted(p for folder in ("app", "model", "pages") for p in (ROOT / folder).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES if not p.is_relative_to(ROOT / "pages")}


def imported(path: Path, *, top_level: bool) -> set[str]:
    """The project modules ``path`` imports: at its top level, or inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level else [n for n in ast.walk(tree) if n not in tree.body]
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [f"{module}.{alias.name}" for alias in node.names]
            found |= {name for name in names if name in MODULES} or ({module} & MODULES.keys())
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in MODULES}
    return found


def area(module: str) -> str:
    """ "model", "core", a concept's name, or "app" for the package itself."""
    parts = module.split(".")
    if parts[0] == "model":
        return "model"
    return parts[1] if len(parts) > 1 else "app"


def test_the_rules_see_every_concept_and_core():
    assert {"attention", "masking", "finetune", "classroom"} <= set(concept_names())
    assert CORE not in concept_names()
    assert {area(m) for m in MODULES} >= {"model", "core", "attention"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_is_over_600_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


@pytest.mark.parametrize("name", concept_names())
def test_a_page_only_routes_into_its_concept(name):
    page = ROOT / "pages" / f"{name}.py"
    assert page.exists(), f"app/{name}/ has no page"
    source = page.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_PAGE_LINES
    tree = ast.parse(source)
    imports = {f"{n.module}.{a.name}" for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert imports == {f"app.{name}.page", "app.core.navigation.require_entry"}
    assert "page.render(require_entry())" in source


def test_the_import_contracts_name_every_concept_and_are_kept():
    """``.importlinter`` holds the import rules: model/ imports no app module and no UI library; a concept imports
    core and model only, and core no concept. import-linter reads every import, inside functions too."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    assert config["importlinter:contract:concepts"]["layers"].replace("|", " ").split() == [*concept_names(), CORE]
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_the_apps_own_package_imports_core_only():
    assert {area(m) for m in imported(ROOT / "app" / "__init__.py", top_level=True)} <= {"core"}
    assert not imported(ROOT / "app" / "__init__.py", top_level=False)


def test_no_import_cycle_and_no_app_module_imported_inside_a_function():
    graph = {module: imported(path, top_level=True) for module, path in MODULES.items()}
    hidden = sorted(
        f"{module} -> {target}"
        for module, path in MODULES.items()
        for target in imported(path, top_level=False)
        if target.startswith("app") and target != module  # a module run as __main__ may import itself by name
    )
    assert hidden == []  # an app module imported inside a function is how a cycle hides

    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(target) :] + [target]))
            if target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])


def session_keys(path: Path) -> set[str]:
    """The literal keys ``path`` reads or writes in ``st.session_state`` (directly, or through a name bound to it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def is_state(node) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "session_state") or (
            isinstance(node, ast.Name) and node.id in aliases
        )

    aliases = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "session_state"
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_state(node.value):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_state(node.func.value):
            if node.func.attr in ("get", "pop", "setdefault") and node.args and isinstance(node.args[0], ast.Constant):
                keys.add(node.args[0].value)
            if node.func.attr == "update":
                keys |= {keyword.arg for keyword in node.keywords if keyword.arg}
    return keys


def test_every_session_state_key_is_declared_in_a_settings_registry():
    files = [*sorted((ROOT / "app").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "streamlit_app.py"]
    used = {key: path for path in files for key in session_keys(path)}
    assert {"text", "lang", "finetune_task", "class_room", "masking_draw_count"} <= used.keys()  # the scan finds them
    derived = [re.compile(pattern) for pattern in DERIVED_KEYS]
    undeclared = sorted(
        f"{used[key].relative_to(ROOT)}: {key}"
        for key in used
        if key not in SETTINGS and key not in SESSION and not any(p.fullmatch(key) for p in derived)
    )
    assert undeclared == []


def test_each_concept_declares_only_its_own_settings():
    """A concept's settings are named after it (a link's parameters cannot collide), and its settings module only
    declares: it reads and writes no state."""
    declared = concept_modules("settings")
    assert {"attention", "finetune", "classroom"} <= declared.keys()
    for name, module in declared.items():
        assert [key for key in module.SETTINGS if not key.startswith(f"{name}_")] == [], name
        assert session_keys(ROOT / "app" / name / "settings.py") == set(), name


def test_core_reaches_a_concept_only_through_the_registry_and_only_its_settings():
    """import-linter cannot see importlib's by-name imports, so they are declared here: ``app/core/registry.py`` is
    the only module of core that imports by name, it imports each concept's ``settings.py`` alone, and a settings
    module imports core and model only, so the edge brings no page, chart or logic of a concept into core."""
    by_name = [p for p in (ROOT / "app" / "core").rglob("*.py") if "importlib" in p.read_text(encoding="utf-8")]
    assert by_name == [ROOT / "app" / "core" / "registry.py"]
    asked = {
        found
        for path in (ROOT / "app").rglob("*.py")
        for found in re.findall(r"concept_modules\(\"(\w+)\"\)", path.read_text(encoding="utf-8"))
    }
    assert asked == {"settings"}
    for name in concept_modules("settings"):
        path = ROOT / "app" / name / "settings.py"
        reached = imported(path, top_level=True) | imported(path, top_level=False)
        assert {area(m) for m in reached} <= {"core", "model"}, name


MAX_FUNCTION_LINES = 80
MAX_RENDER_LINES = 40


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


@pytest.mark.parametrize("path", sorted((ROOT / "app").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_reads_as_its_sections(path):
    """No function in app/ over 80 lines (a nested one counts in its parent's too), and a page's ``render`` under 40:
    it reads as its sections in order, each a named function."""
    long = [(name, line, size) for name, line, size in _functions(path) if size > MAX_FUNCTION_LINES]
    assert not long
    if path.name == "page.py":
        assert [size for name, _, size in _functions(path) if name == "render"][0] < MAX_RENDER_LINES
