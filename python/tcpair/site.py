"""Building the static HTML report from results stores.

``build_report(DIR)`` writes ``DIR/report/`` for one sweep store: the target's
plots (PNG and SVG), its tables, the paper's claim beside verdicts computed
from the numbers, the scenario used and the failed runs. ``build_site(ROOT)``
does that for every store under ROOT and writes ``ROOT/index.html``. The
report directory is replaced atomically, so a reader never sees half a page.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.analysis import Analysis, Context, analysis_module, generic
from tcpair.api import write_atomically
from tcpair.index_page import IndexEntry, write_index
from tcpair.paths import sweep_dirs
from tcpair.report import NA, Claim, Page, write_page
from tcpair.runner import OK, SweepResult, open_sweep
from tcpair.store import SWEEP
from tcpair.tomlout import dumps as toml_dumps

REPORT_DIR = "report"
VERDICTS = "verdicts.json"
STATUS = "status.json"


def _analyse(result: SweepResult, out: Path) -> Analysis:
    spec = result.spec
    ctx = Context(result, out)
    if spec.target is not None and spec.target.analysis:
        return analysis_module(spec.target.analysis).analyse(ctx)
    return generic(ctx)


def _scenario_text(result: SweepResult) -> str:
    """The base scenario as the TOML a user would write."""
    return toml_dumps(result.spec.base(result.quick))


def display_path(path: Path) -> str:
    """A sweep file's path as a page may show it: ``sweeps/NAME.toml`` for a
    shipped sweep, else relative to the current directory, else its name; never
    an absolute install path."""
    path = Path(path)
    resolved = path.resolve()
    for d in sweep_dirs():
        if resolved.parent == d.resolve():
            return f"sweeps/{path.name}"
    try:
        rel = os.path.relpath(resolved, Path.cwd())
    except ValueError:  # another drive (Windows)
        return path.name
    return path.name if rel.startswith("..") else rel


def _sweep_text(result: SweepResult) -> str:
    """The sweep definition as TOML: the file the user wrote, or its stored form."""
    src = result.spec.source
    if src is not None and Path(src).is_file():
        return f"# {display_path(Path(src))}\n" + Path(src).read_text(encoding="utf-8")
    raw = {k: v for k, v in result.spec.to_dict().items() if k != "scenario"}
    return toml_dumps(raw)


def _grid_text(result: SweepResult) -> str:
    """What a sweep without a description varies, in one sentence."""
    spec = result.spec
    axes = " x ".join(f"{a.name} ({len(a.indices(result.quick))} values)" for a in spec.axes)
    seeds = len(spec.seeds_for(result.quick))
    return f"A sweep over {axes or 'one point'}, {seeds} seeds per point."


def _all_targets(root: Path) -> bool:
    """Whether every store in ``root`` is a reproduce target (for the link's wording)."""
    stores = stores_under(root) if root.is_dir() else []
    return bool(stores) and all(_is_target(s) for s in stores)


def _is_target(directory: Path) -> bool:
    try:
        saved = json.loads((Path(directory) / SWEEP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool((saved.get("sweep") or {}).get("target"))


def build_report(directory: str | Path, *, index_href: str | None = None) -> list[str]:
    """Write ``directory/report/`` and return its verdict lines."""
    directory = Path(directory)
    result = open_sweep(directory)
    spec = result.spec
    runs = result.runs
    failures = result.failures
    n_runs = runs["run_key"].nunique() if len(runs) else 0
    n_ok = runs.loc[runs["status"] == OK, "run_key"].nunique() if len(runs) else 0
    verdicts: list[str] = []

    def write(tmp: Path) -> None:
        found = _analyse(result, tmp)
        claims = [
            dataclasses.replace(c, provisional=c.provisional or result.quick) for c in found.claims
        ]
        if spec.target is not None and spec.target.claim and not claims:
            claims.append(Claim("paper", spec.target.claim, NA, "no verdict is computed yet"))
        verdicts.extend(f"{c.text}: {c.verdict}" for c in claims)
        runs.to_csv(tmp / "runs.csv", index=False)
        pts = result.points()
        pts.to_csv(tmp / "points.csv", index=False)
        tables = list(found.tables)
        if len(failures):
            tables.append(("Failed runs", failures.drop(columns=["run_key"])))
        missing = runs[runs["status"] == "missing"].drop_duplicates("run_key")
        meta: dict[str, Any] = {
            "sweep": spec.name,
            "runs": f"{n_runs} ({n_ok} ok, {len(failures)} failed, {len(missing)} not run)",
            "seeds per point": ", ".join(
                sorted({str(len(g)) for _, g in runs.drop_duplicates("run_key").groupby("point")})
            ),
            "mode": "quick" if result.quick else "full",
        }
        page = Page(
            title=spec.display_title,
            intro=found.intro or spec.description or _grid_text(result),
            figures=found.figures,
            claims=claims,
            tables=tables,
            meta=meta,
            files=[
                *found.files,
                ("runs.csv", "every run (CSV; the store's runs.parquet has the same rows)"),
                ("points.csv", "per-point statistics (CSV)"),
            ],
            claim_text=spec.target.claim if spec.target else "",
            sections=[
                ("Sweep definition", _sweep_text(result)),
                ("Base scenario (after the sweep's fixed settings)", _scenario_text(result)),
            ],
            index_href=index_href,
            index_label="all targets" if _all_targets(directory.parent) else "all results",
            quick=result.quick,
        )
        write_page(tmp, page)
        (tmp / VERDICTS).write_text(json.dumps(verdicts, indent=2) + "\n")
        (tmp / STATUS).write_text(
            json.dumps(
                {
                    "runs": n_runs,
                    "ok": n_ok,
                    "failed": len(failures),
                    "quick": result.quick,
                    "target": spec.target is not None,
                }
            )
            + "\n"
        )

    write_atomically(directory / REPORT_DIR, write)
    return verdicts


def is_store(path: Path) -> bool:
    return (Path(path) / SWEEP).is_file()


def stores_under(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).iterdir() if p.is_dir() and is_store(p))


def _entry(root: Path, name: str, title: str | None, expected: bool) -> IndexEntry:
    d = Path(root) / name
    report = d / REPORT_DIR
    verdicts: list[Any] = []
    runs, quick = "", False
    if (report / VERDICTS).is_file():
        verdicts = json.loads((report / VERDICTS).read_text(encoding="utf-8"))
    status: dict[str, Any] = {}
    if (report / STATUS).is_file():
        status = json.loads((report / STATUS).read_text(encoding="utf-8"))
        runs = f"{status['runs']} runs, {status['failed']} failed"
        quick = bool(status.get("quick", False))
    if title is None and is_store(d):
        title = open_sweep(d).spec.display_title
    target = expected or bool(status.get("target", _is_target(d)))
    return IndexEntry(
        name=name,
        title=title or name,
        href=f"{name}/{REPORT_DIR}/index.html" if (report / "index.html").is_file() else None,
        verdicts=verdicts,
        runs=runs,
        quick=quick,
        is_target=target,
    )


def build_index(root: Path, expected: Sequence[tuple[str, str]] = ()) -> Path:
    """``root/index.html``: every store under ``root``, plus ``expected`` targets
    (name, title) that have not been run yet. ``verdicts.json`` may hold lines
    (``"claim: outcome"``) or claim records; both are counted."""
    titles = dict(expected)
    names = [n for n, _ in expected] + [p.name for p in stores_under(root) if p.name not in titles]
    entries = [_entry(root, name, titles.get(name), name in titles) for name in names]
    return write_index(root, entries)


def build_site(root: str | Path, expected: Sequence[tuple[str, str]] = ()) -> dict[str, list[str]]:
    """Reports for one store (``root`` is a store) or every store under ``root``."""
    root = Path(root)
    if not root.is_dir():
        raise ScenarioError(f"{root}: no such results directory")
    if is_store(root):
        return {root.name: build_report(root)}
    stores = stores_under(root)
    if not stores:
        raise ScenarioError(
            f"{root}: no results here (expected {SWEEP} in it or in its sub-directories)"
        )
    done = {s.name: build_report(s, index_href="../../index.html") for s in stores}
    build_index(root, expected)
    return done


__all__ = ["build_index", "build_report", "build_site"]
