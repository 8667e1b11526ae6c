"""Building the static HTML report from results stores.

``build_report(DIR)`` writes ``DIR/report/`` for one sweep store: the target's
plots (PNG and SVG), its tables, the paper's claim beside verdicts computed
from the numbers, the scenario used and the failed runs. ``build_site(ROOT)``
does that for every store under ROOT and writes ``ROOT/index.html``. The
report directory is replaced atomically, so a reader never sees half a page.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.analysis import Analysis, Context, analysis_module, generic
from tcpair.api import write_atomically
from tcpair.report import NA, Claim, IndexEntry, Page, write_index, write_page
from tcpair.runner import OK, SweepResult, open_sweep
from tcpair.store import SWEEP

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
    return json.dumps(result.spec.base(result.quick), indent=2, default=str)


def _sweep_text(result: SweepResult) -> str:
    src = result.spec.source
    if src is not None and Path(src).is_file():
        return f"# {src}\n" + Path(src).read_text(encoding="utf-8")
    raw = {k: v for k, v in result.spec.to_dict().items() if k != "scenario"}
    return json.dumps(raw, indent=2, default=str)


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
        claims = list(found.claims)
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
            intro=found.intro or spec.description or spec.title,
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
        )
        write_page(tmp, page)
        (tmp / VERDICTS).write_text(json.dumps(verdicts, indent=2) + "\n")
        (tmp / STATUS).write_text(
            json.dumps({"runs": n_runs, "ok": n_ok, "failed": len(failures)}) + "\n"
        )

    write_atomically(directory / REPORT_DIR, write)
    return verdicts


def is_store(path: Path) -> bool:
    return (Path(path) / SWEEP).is_file()


def stores_under(root: Path) -> list[Path]:
    return sorted(p for p in Path(root).iterdir() if p.is_dir() and is_store(p))


def build_index(root: Path, expected: Sequence[tuple[str, str]] = ()) -> Path:
    """``root/index.html``: every store under ``root``, plus ``expected`` targets
    (name, title) that have not been run yet."""
    entries = []
    names = [n for n, _ in expected] + [
        p.name for p in stores_under(root) if p.name not in dict(expected)
    ]
    titles = dict(expected)
    for name in names:
        d = Path(root) / name
        page = d / REPORT_DIR / "index.html"
        verdicts, runs = [], ""
        if (d / REPORT_DIR / VERDICTS).is_file():
            verdicts = json.loads((d / REPORT_DIR / VERDICTS).read_text())
        if (d / REPORT_DIR / STATUS).is_file():
            st = json.loads((d / REPORT_DIR / STATUS).read_text())
            runs = f"{st['runs']} runs, {st['failed']} failed"
        title = titles.get(name)
        if title is None and is_store(d):
            title = open_sweep(d).spec.display_title
        entries.append(
            IndexEntry(
                name=name,
                title=title or name,
                href=f"{name}/{REPORT_DIR}/index.html" if page.is_file() else None,
                verdicts=verdicts,
                runs=runs,
            )
        )
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
