"""Building the static HTML report from results stores.

``build_report(DIR)`` writes ``DIR/report/`` for one sweep store: the target's
plots (PNG and SVG), its tables, the paper's claim beside verdicts computed
from the numbers, the scenario used and the failed runs. ``verdicts.json``
holds one record per claim (:meth:`tcpair.reporting.page.Claim.record`: target,
claim_id, source, claim, rule, numbers, outcome, provisional, seeds, detail,
cause). ``build_site(ROOT)``
does that for every store under ROOT and writes ``ROOT/index.html``. The
report directory is replaced atomically, so a reader never sees half a page.

Pages of several stores are drawn in worker processes (:class:`Reports`): a page
is mostly matplotlib's drawing in one process, so ``reproduce all`` drew its 29
pages after each target's sweep with one core busy and the rest idle (about a
minute on two cores, docs/performance.md, "Whole-job timings"). ``reproduce``
now hands each page to the workers and goes on with the next target's runs;
``build_site`` draws a folder's pages side by side. The workers are started with
``spawn``: a page must not inherit the state of a process running a sweep (its
pool's threads and locks). A page that raises is raised again in the parent once
collected (after the next target's runs at the latest), and the workers leave
Ctrl-C to the parent, which kills them on it or on an error.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.base.paths import sweep_dirs
from tcpair.base.tomlout import dumps as toml_dumps
from tcpair.reporting.analysis import analyse_sweep
from tcpair.reporting.analysis import claims_of as claims_of  # re-exported
from tcpair.reporting.index_page import IndexEntry, write_index
from tcpair.reporting.page import Claim, Page, write_page
from tcpair.results.atomic import write_atomically
from tcpair.results.store import SWEEP
from tcpair.sweeper.backends import close_pool, default_jobs, worker_init
from tcpair.sweeper.commit import OK
from tcpair.sweeper.definition import shipped_targets
from tcpair.sweeper.view import SweepResult, open_sweep

REPORT_DIR = "report"
VERDICTS = "verdicts.json"
STATUS = "status.json"


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
    spec, runs = result.spec, result.runs
    verdicts: list[str] = []

    def write(tmp: Path) -> None:
        counts = _counts(result)
        found = analyse_sweep(result, tmp)
        claims = list(found.claims)
        verdicts.extend(verdict_line(c) for c in claims)
        runs.to_csv(tmp / "runs.csv", index=False)
        result.points().to_csv(tmp / "points.csv", index=False)
        tables = list(found.tables)
        if len(result.failures):
            tables.append(("Failed runs", result.failures.drop(columns=["run_key"])))
        page = Page(
            title=spec.display_title,
            intro=found.intro or spec.description or _grid_text(result),
            figures=found.figures,
            claims=claims,
            tables=tables,
            meta=_meta(result, counts),
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
        records = [c.record(spec.name) for c in claims]
        (tmp / VERDICTS).write_text(json.dumps(records, indent=2, allow_nan=False) + "\n")
        (tmp / STATUS).write_text(json.dumps(_status(result, counts)) + "\n")

    write_atomically(directory / REPORT_DIR, write)
    return verdicts


def _counts(result: SweepResult) -> tuple[int, int]:
    """Runs in the store and those that succeeded (by run key)."""
    runs = result.runs
    if not len(runs):
        return 0, 0
    return runs["run_key"].nunique(), runs.loc[runs["status"] == OK, "run_key"].nunique()


def _meta(result: SweepResult, counts: tuple[int, int]) -> dict[str, Any]:
    """The page's facts about the sweep: runs, seeds per point, mode."""
    runs = result.runs
    n_runs, n_ok = counts
    missing = runs[runs["status"] == "missing"].drop_duplicates("run_key")
    return {
        "sweep": result.spec.name,
        "runs": f"{n_runs} ({n_ok} ok, {len(result.failures)} failed, {len(missing)} not run)",
        "seeds per point": ", ".join(
            sorted({str(len(g)) for _, g in runs.drop_duplicates("run_key").groupby("point")})
        ),
        "mode": "quick" if result.quick else "full",
    }


def _status(result: SweepResult, counts: tuple[int, int]) -> dict[str, Any]:
    """The report's status file: what the index reads of this store."""
    n_runs, n_ok = counts
    return {
        "runs": n_runs,
        "ok": n_ok,
        "failed": len(result.failures),
        "quick": result.quick,
        "target": result.spec.target is not None,
    }


def _report_worker_init(parent: int) -> None:
    """A report worker leaves Ctrl-C to the parent, whose ``Reports`` exit kills it
    (waiting for work when the terminal's interrupt reached it, it printed a
    traceback). A sweep's workers keep the default: the terminal's interrupt
    reaches them too, and ``runner.execute`` ends its pool on the way out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker_init(parent)


class Reports:
    """Build reports in ``workers`` processes (in this process, with ``workers`` <= 1),
    collected in the order they were submitted."""

    def __init__(self, workers: int) -> None:
        self.pool: ProcessPoolExecutor | None = None
        if workers > 1:
            self.pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_report_worker_init,
                initargs=(os.getpid(),),
            )
        self.pending: dict[str, Future[list[str]]] = {}
        self.built: dict[str, list[str]] = {}

    def submit(self, name: str, directory: Path, index_href: str) -> None:
        """Start ``name``'s report; raise what an earlier report raised, if it is done."""
        if self.pool is None:
            self.built[name] = build_report(directory, index_href=index_href)
            return
        self.pending[name] = self.pool.submit(build_report, directory, index_href=index_href)
        self.raise_failed()

    def raise_failed(self) -> None:
        """Raise what a report drawn so far raised, if one did: called while the next
        target's sweep runs, so that the command stops then, not after that sweep."""
        for fut in self.pending.values():
            if fut.done() and fut.exception() is not None:
                fut.result()

    def collect(self) -> dict[str, list[str]]:
        """Wait for every report: each target's verdict lines, in submission order."""
        for name, fut in self.pending.items():
            self.built[name] = fut.result()
        self.pending.clear()
        return dict(self.built)

    def __enter__(self) -> Reports:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.pool is not None:
            close_pool(self.pool, abandon=exc_type is not None)


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
    with Reports(min(len(stores), default_jobs())) as reports:
        for s in stores:
            reports.submit(s.name, s, index_href="../../index.html")
        done = reports.collect()
    build_index(root, expected or _targets_present(stores))
    return done


def _targets_present(stores: Sequence[Path]) -> list[tuple[str, str]]:
    """The reproduce targets among ``stores``, in report order (as ``reproduce all``
    lists them); the other stores follow in name order."""
    names = {s.name for s in stores}
    return [
        (n, spec.target.title)
        for n, spec in shipped_targets().items()
        if n in names and spec.target
    ]


__all__ = [
    "Reports",
    "build_index",
    "build_report",
    "build_site",
    "claims_of",
    "short_numbers",
    "verdict_line",
]
