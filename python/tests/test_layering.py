"""The Python package's subpackages form layers (docs/architecture.md, "The Python
layers"): a module imports (at the top, in a function, or for type checking only)
only modules of its own subpackage or of a layer below, so no import runs upward
and no two modules import each other, directly or through others. The package's
``__init__`` (the API's surface, re-exporting from every layer) is left out.

Modules stay small enough to read whole, and functions short enough to see on one
screen."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tcpair
from tcpair import _moved

PACKAGE = Path(tcpair.__file__).resolve().parent

#: Bottom to top. A top-level module (``_errors``) is its own group.
LAYERS = [
    {"_errors", "_moved"},
    {"base"},
    {"evidence"},
    {"results"},
    {"simulate"},
    {"bench"},
    {"sweeper"},
    {"reporting"},
    {"reproduce"},
    {"ns2"},
    {"cli", "examples"},
    {"__main__"},
]
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _imported_names(path: Path) -> list[str]:
    """Every ``tcpair`` module path ``path`` imports, as written (with the package prefix
    removed): ``from tcpair.a.b import c`` gives ``a.b.c``; ``import tcpair.a`` gives ``a``."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "tcpair" or node.module.startswith("tcpair."):
                base = node.module.removeprefix("tcpair").removeprefix(".")
                names += [f"{base}.{a.name}".lstrip(".") for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name.removeprefix("tcpair.") for a in node.names
                      if a.name.startswith("tcpair.")]
    return names


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` stands for: itself, or the module it is a name of."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in it."""
    return {m for n in _imported_names(path) if (m := _resolve(n, modules))}


def _layer(module: str) -> int:
    top = module.split(".")[0]
    for i, group in enumerate(LAYERS):
        if top in group:
            return i
    raise AssertionError(f"{module}: its subpackage {top!r} has no layer in LAYERS")


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


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(p, modules) - {m} for m, p in modules.items() if m != ""}


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = _graph()
    assert len(graph) > 50 and graph["sweeper.runner"], "the walk found the package's imports"
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_import_runs_up_the_layers() -> None:
    upward = [
        f"{m} -> {n}"
        for m, deps in sorted(_graph().items())
        for n in sorted(deps)
        if _layer(n) > _layer(m)
        or (_layer(n) == _layer(m) and n.split(".")[0] != m.split(".")[0])
    ]
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_every_subpackage_has_a_layer() -> None:
    for m in _modules():
        _layer(m)


def test_the_package_imports_no_old_path() -> None:
    """Old paths (tcpair._moved) are for users' code; the package names the new ones."""
    modules = _modules()
    old = {p.removeprefix("tcpair.") for p in _moved.MOVED}
    found = [
        f"{m}: {n}"
        for m, p in sorted(modules.items())
        for n in _imported_names(p)
        if n in old or n.rpartition(".")[0] in old
    ]
    assert not found, "imports of old paths:\n" + "\n".join(found)


def test_every_old_path_leads_to_a_module_that_exists() -> None:
    modules = _modules()
    for old, new in _moved.MOVED.items():
        assert new.removeprefix("tcpair.") in modules, f"{old} -> {new}: no such module"
        assert old.removeprefix("tcpair.") not in modules, f"{old} exists again"


def test_modules_and_functions_are_short() -> None:
    long_modules, long_functions = [], []
    for m, p in sorted(_modules().items()):
        text = p.read_text(encoding="utf-8")
        if (n := len(text.splitlines())) > MAX_MODULE_LINES:
            long_modules.append(f"{m}: {n} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long_functions.append(f"{m}.{node.name}: {size} lines")
    assert not long_modules, f"modules over {MAX_MODULE_LINES} lines: " + ", ".join(long_modules)
    assert not long_functions, f"functions over {MAX_FUNCTION_LINES} lines: " + ", ".join(
        long_functions
    )


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    from tcpair.cli.common import EXIT_RUNTIME\n")
    modules = _modules()
    (dep,) = _imports(mod, modules)
    assert dep == "cli.common" and _layer(dep) > _layer("sweeper.runner")


@pytest.mark.parametrize(
    ("old", "name"),
    [("tcpair.api", "Result"), ("tcpair.runner", "run_sweep"), ("tcpair.store", "Store")],
)
def test_an_old_path_still_imports_with_a_warning(old: str, name: str) -> None:
    import importlib
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=old.replace(".", r"\.") + " moved to"):
        module = importlib.import_module(old)
    new = importlib.import_module(_moved.MOVED[old])
    assert getattr(module, name) is getattr(new, name)


def test_the_old_api_load_opens_a_sweep_store_too() -> None:
    import importlib
    import sys
    import warnings

    sys.modules.pop("tcpair.api", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        api = importlib.import_module("tcpair.api")
    assert api.load is tcpair.load
