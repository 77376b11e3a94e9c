"""The shape of model/: its modules import one another without a cycle, at their tops, and none grows past 600
lines. Read from the source with ``ast``, so nothing is imported and a cycle hidden by an import inside a
function cannot slip back in unnoticed: such an import must have a reason of its own (see the modules' comments).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "model"
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(MODEL.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_time_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run when the module is imported: not those inside functions, nor under TYPE_CHECKING."""
    found, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def targets(name: str, path: Path, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The project modules an import statement in module ``name`` (file ``path``) loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        source = f"{package}.{node.module}" if node.module else package
    else:
        source = node.module or ""
    return {source} | {f"{source}.{alias.name}" for alias in node.names}  # `from pkg import submodule` too


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found = set()
        for node in import_time_imports(tree):
            found |= targets(name, path, node)
        graph[name] = {t for t in found if t in MODULES and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_graph_sees_the_imports_it_should():
    # A check that finds no cycle is only worth something if it reads the edges: a few that must be there.
    graph = import_graph()
    assert "model.cli_args" in graph["model.cli"]
    assert {"model.training.commands", "model.analysis.commands"} <= graph["model.cli"]
    assert "model.cli_args" in graph["model.training.commands"]
    assert "model.training.pretrain" in graph["model.training.batching"]
    assert "model.data.corpus" not in graph["model.training.commands"]  # deferred inside cmd_corpus


def test_model_modules_import_each_other_without_a_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_reports_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_model_does_not_import_the_pages():
    # .importlinter forbids model -> app; pages/ is no package it can name, so it is checked here.
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in targets(name, path, node):
                    assert target.split(".")[0] != "pages", f"{name} imports {target}"


def test_no_model_module_is_longer_than_600_lines():
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"split these by responsibility: {too_long}"
