"""The package's modules import one another without a cycle, and each imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "openenv_bug_triage"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """Package modules that `name` imports anywhere in its body, deferred imports in functions included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
            candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c in MODULES and c != name)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    """One import cycle among the package's modules, or None (a module's own package excepted)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if node.startswith(nxt + "."):  # a submodule naming its own package reaches a sibling, not a cycle
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name)):
            return found
    return None


def test_the_import_graph_is_found() -> None:
    assert "openenv_bug_triage.tasks" in GRAPH["openenv_bug_triage.sources"]
    assert "openenv_bug_triage.generator" in GRAPH["openenv_bug_triage.sources"]
    assert "openenv_bug_triage.tasks" in GRAPH["openenv_bug_triage.generator"]


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    assert _cycle() is None, " -> ".join(_cycle() or [])


@pytest.mark.parametrize(
    "order",
    [
        ("tasks", "sources", "generator"),
        ("generator", "tasks", "sources"),
        ("sources", "generator", "tasks"),
        ("generator.render", "generator", "sources"),
    ],
)
def test_generator_tasks_and_sources_import_in_any_order(order: tuple[str, ...]) -> None:
    code = "; ".join(f"import openenv_bug_triage.{m}" for m in order)
    subprocess.run([sys.executable, "-c", code], check=True)
