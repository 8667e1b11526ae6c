"""The Python package's modules form layers: no module imports (at the top, in a
function, or for type checking only) a module that imports it back, directly or
through others. The package's ``__init__`` (the API's surface, re-exporting from
below) is left out; docs/architecture.md, "The layers", lists the order."""

from __future__ import annotations

import ast
from pathlib import Path

import tcpair

PACKAGE = Path(tcpair.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in it."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "tcpair" or node.module.startswith("tcpair."):
                base = node.module.removeprefix("tcpair").removeprefix(".")
                for alias in node.names:
                    sub = f"{base}.{alias.name}".lstrip(".")
                    names.append(sub if sub in modules else base)
        elif isinstance(node, ast.Import):
            names = [a.name.removeprefix("tcpair.") for a in node.names]
        out |= {n for n in names if n in modules}
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph``, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n]
            if n not in state and (found := visit(n)):
                return found
        state[m] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_module_imports_one_that_imports_it_back() -> None:
    modules = _modules()
    graph = {m: _imports(p, modules) - {m} for m, p in modules.items()}
    assert len(graph) > 50 and graph["runner"], "the walk found the package's imports"
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
