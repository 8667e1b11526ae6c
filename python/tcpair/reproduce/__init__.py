"""``tcpair reproduce``: the registry of experiments that reproduce published results.

A target is one module exposing ``TITLE`` and
``run(out_dir, *, jobs, quick, console, progress) -> list[str]`` (the verdict
lines for the index). Adding a target is one new file plus one line in
:data:`TARGETS`; modules are imported lazily so ``tcpair list`` stays fast.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from rich.console import Console

from tcpair._errors import ScenarioError
from tcpair.report import IndexEntry, write_index

TARGETS: dict[str, str] = {
    "baseline": "tcpair.reproduce.baseline",
}

VERDICTS_FILE = "verdicts.json"


def target_module(name: str) -> ModuleType:
    """Import the module implementing target ``name``."""
    try:
        return importlib.import_module(TARGETS[name])
    except KeyError:
        known = ", ".join(sorted(TARGETS))
        raise ScenarioError(f"unknown reproduce target {name!r} (known: {known}, all)") from None


def resolve_targets(names: Sequence[str]) -> list[str]:
    """Expand ``all`` and check names, keeping registry order without repeats."""
    if not names:
        raise ScenarioError("name a reproduce target or `all`")
    wanted: list[str] = []
    for n in names:
        for t in TARGETS if n == "all" else [n]:
            if t not in TARGETS:
                target_module(t)  # raises with the list of known targets
            if t not in wanted:
                wanted.append(t)
    return wanted


def write_results_index(out: Path) -> Path:
    """(Re)write ``out/index.html`` from whatever targets have results on disk."""
    entries = []
    for name in TARGETS:
        page = out / name / "index.html"
        verdicts: list[str] = []
        vfile = out / name / VERDICTS_FILE
        if vfile.is_file():
            verdicts = list(json.loads(vfile.read_text()))
        entries.append(
            IndexEntry(
                name=name,
                title=str(getattr(target_module(name), "TITLE", name)),
                href=f"{name}/index.html" if page.is_file() else None,
                verdicts=verdicts,
            )
        )
    return write_index(out, entries)


def reproduce(
    names: Sequence[str],
    out: Path,
    *,
    jobs: int | None = None,
    quick: bool = False,
    console: Console | None = None,
    progress: bool = True,
) -> dict[str, list[str]]:
    """Run the named targets into ``out/<target>/`` and refresh ``out/index.html``."""
    console = console or Console(stderr=True)
    out = Path(out)
    done: dict[str, list[str]] = {}
    for name in resolve_targets(names):
        mod = target_module(name)
        console.print(f"[bold]reproduce {name}[/bold]: {mod.TITLE}")
        verdicts = mod.run(out / name, jobs=jobs, quick=quick, console=console, progress=progress)
        done[name] = list(verdicts)
    write_results_index(out)
    return done


__all__ = ["TARGETS", "reproduce", "resolve_targets", "target_module", "write_results_index"]
