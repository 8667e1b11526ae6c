"""Building the static HTML report from results stores.

``build_report(DIR)`` writes ``DIR/report/`` for one sweep store: the target's
plots (PNG and SVG), its tables, the paper's claim beside verdicts computed
from the numbers, the scenario used and the failed runs. ``verdicts.json``
holds one record per claim (:meth:`tcpair.report.Claim.record`: target,
claim_id, source, claim, rule, numbers, outcome, provisional, seeds, detail,
cause). ``build_site(ROOT)``
does that for every store under ROOT and writes ``ROOT/index.html``. The
report directory is replaced atomically, so a reader never sees half a page.
"""

from __future__ import annotations

import json
import tempfile
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
    """The target's analysis (or the generic one) with its files written into ``out``.

    Every claim is marked ``provisional`` when the runs are a quick run, and a target
    whose analysis computes no verdict gets its claim as "not assessed"."""
    spec = result.spec
    ctx = Context(result, out)
    if spec.target is not None and spec.target.analysis:
        found = analysis_module(spec.target.analysis).analyse(ctx)
    else:
        found = generic(ctx)
    if spec.target is not None and spec.target.claim and not found.claims:
        found.claims.append(
            Claim("paper", spec.target.claim, NA, "no verdict is computed yet", claim_id="paper")
        )
    for c in found.claims:
        c.provisional = result.quick
    return found


def claims_of(result: SweepResult) -> list[Claim]:
    """The target's claims on the runs as they stand, without writing a page (the
    analysis draws into a temporary directory): what ``--until-decided`` checks
    between rounds."""
    with tempfile.TemporaryDirectory(prefix="tcpair-claims-") as tmp:
        result._runs = None
        return list(_analyse(result, Path(tmp)).claims)


def short_numbers(claim: Claim) -> str:
    """The numbers that decided a claim, in a few words: the first part with the
    claim's outcome (``CLRP/Snoop p=0.1: 0.32 [0.3, 0.34]``) and how many parts."""
    parts = [(k, v) for k, v in claim.numbers.items() if isinstance(v, dict)]
    if not parts:
        return ""
    label, v = next(((k, v) for k, v in parts if v.get("outcome") == claim.verdict), parts[0])

    def num(x: object) -> str:
        return f"{x:.3g}" if isinstance(x, int | float) else "–"

    text = f"{label}: {num(v.get('estimate'))}"
    if v.get("low") is not None and v.get("low") != v.get("high"):
        text += f" [{num(v.get('low'))}, {num(v.get('high'))}]"
    if len(parts) > 1:
        text += f"; {len(parts)} parts"
    return text


def verdict_line(claim: Claim) -> str:
    """``<claim text>: <outcome> (<numbers>)``, the line the CLI prints."""
    inside = [x for x in (short_numbers(claim), "provisional" * claim.provisional) if x]
    return f"{claim.text}: {claim.verdict}" + (f" ({', '.join(inside)})" if inside else "")


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
    records: list[dict[str, Any]] = []

    def write(tmp: Path) -> None:
        found = _analyse(result, tmp)
        claims = list(found.claims)
        verdicts.extend(verdict_line(c) for c in claims)
        records.extend(c.record(spec.name) for c in claims)
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
        (tmp / VERDICTS).write_text(json.dumps(records, indent=2, allow_nan=False) + "\n")
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
        verdicts: list[dict[str, Any] | str] = []
        runs = ""
        if (d / REPORT_DIR / VERDICTS).is_file():
            # Claim records (older reports: "text: verdict" strings, passed on as they are)
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


__all__ = [
    "build_index",
    "build_report",
    "build_site",
    "claims_of",
    "short_numbers",
    "verdict_line",
]
