"""Running sweeps: plan, skip what the store holds, execute (execute.py), store, and
repeat in rounds of more seeds for ``--until-ci`` and ``--until-decided``.

The store is written from this process only, in groups of runs as results arrive
(commit.py). What is checked before anything is written is in checks.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console

from tcpair._errors import ScenarioError, require_core
from tcpair.base.plain import check_folder
from tcpair.results.store import Store
from tcpair.sweeper.backends import Backend, make_backend
from tcpair.sweeper.checks import check_metrics, preflight, refuse_other_sweep
from tcpair.sweeper.commit import FAILED, OK, task_records, task_rows
from tcpair.sweeper.definition import SweepSpec, load_sweep
from tcpair.sweeper.execute import execute, run_task
from tcpair.sweeper.progress import PlainProgress
from tcpair.sweeper.rounds import EXIT_INCOMPLETE, Judge, point_names, warn_incomplete
from tcpair.sweeper.view import ExecStats, SweepResult, open_sweep, plan_join, point_stats

DEFAULT_MAX_SEEDS = 30


def store_dir(spec: SweepSpec, out: str | Path | None) -> Path:
    """Where a sweep's results go: ``out``, else ``results/<name>``."""
    if out is None:
        return Path("results") / spec.name
    check_folder(out, "out")
    return Path(out)


def version_string() -> str:
    """The simulator's identity in run keys: release version plus source fingerprint."""
    core = require_core()
    build = getattr(core, "__build__", "")
    return f"{core.__version__}+{build}" if build else str(core.__version__)


def _unconverged(runs: pd.DataFrame, spec: SweepSpec, metric: str, frac: float) -> set[int]:
    """Points whose CI half-width exceeds ``frac`` of the mean for some flow.

    Points with no successful run have no statistics and are left alone: more
    seeds would fail alike.
    """
    pts = point_stats(runs, spec, metric)
    bad: set[int] = set()
    for _, row in pts.iterrows():
        n, mean, ci = row[f"{metric}_n"], row[f"{metric}_mean"], row[f"{metric}_ci95"]
        if n < 2 or not math.isfinite(ci) or ci > frac * abs(mean):
            bad.add(int(row["point"]))
    return bad


def _more_seeds(
    result: SweepResult, metric: str, until_ci: float | None, judge: Judge | None
) -> set[int]:
    """The points that want another round, recording on ``result`` why: points above
    the half-width (``until_ci``) and, while a claim is inconclusive
    (``judge``, for ``until_decided``), every point with a successful run (a claim may
    rest on any)."""
    spec, runs = result.spec, result.runs
    wanted: set[int] = set()
    result.unconverged, result.undecided = [], []
    if until_ci is not None:
        bad = sorted(_unconverged(runs, spec, metric, until_ci))
        result.unconverged = point_names(result.tasks, bad)
        wanted |= set(bad)
    if judge is not None:
        result.undecided = judge(result)
        if result.undecided:
            ok = runs[runs["status"] == OK] if "status" in runs.columns else runs
            wanted |= {int(p) for p in ok["point"].unique()}
    return wanted


def run_sweep(
    sweep: SweepSpec | Mapping[str, Any] | str | Path,
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
    backend: Backend | None = None,
    quick: bool = False,
    until_ci: float | None = None,
    max_seeds: int = DEFAULT_MAX_SEEDS,
    ci_metric: str | None = None,
    until_decided: bool = False,
    retry_failed: bool = False,
    progress: bool = True,
    console: Console | None = None,
    watch: Callable[[], None] | None = None,
    judge: Judge | None = None,
) -> SweepResult:
    """Run a sweep into the store ``out`` (default ``results/<name>``), resuming.

    ``until_ci`` (a fraction) and ``until_decided`` (the sweep's target has no
    inconclusive claim) add seeds in rounds up to ``max_seeds`` per point; when
    the cap stops them short, the result's ``unconverged``/``undecided`` name
    what is left and a warning is printed (the CLI then exits with code 3).
    ``until_decided`` needs ``judge``, which names the claims still inconclusive
    (``tcpair.sweep`` and the CLI pass :func:`tcpair.reporting.analysis.undecided_claims`).
    ``watch``: see :func:`execute`."""
    spec = load_sweep(sweep)
    _check_rounds(spec, quick, until_ci, until_decided, judge, max_seeds)
    plan = _Plan(
        spec, quick, version_string(), ci_metric or spec.metric, until_ci, max_seeds,
        judge=judge if until_decided else None,
    )
    directory = store_dir(spec, out)
    tasks = spec.plan(quick, plan.version)
    preflight(spec, tasks, [plan.metric])
    console = console or Console(stderr=True)
    store = Store(directory)
    refuse_other_sweep(store, spec)
    result = SweepResult(spec, directory, tasks, quick, base_runs=len({t.key for t in tasks}))
    owned = backend is None
    # The backend starts before the store is touched: a bad --scheduler leaves nothing.
    be = backend or make_backend(jobs=jobs, scheduler=scheduler, dask_local=dask_local)
    try:
        with store.writer():
            _save(store, plan)
            if progress:
                console.print(
                    f"[bold]{spec.name}[/bold]: {len(tasks)} runs on {be.describe()} -> {directory}"
                )
            opts = {"retry_failed": retry_failed, "progress": progress, "watch": watch}
            _rounds(plan, result, store, be, console, opts)
            store.compact()
    finally:
        if owned:
            be.close()
    return result


@dataclass
class _Plan:
    """What a sweep's rounds go by: the sweep, its seeds so far per point, and the aims."""

    spec: SweepSpec
    quick: bool
    version: str
    metric: str
    until_ci: float | None
    max_seeds: int
    judge: Judge | None = None
    point_seeds: dict[int, list[int]] = field(default_factory=dict)
    base_seeds: Sequence[int] = field(init=False)

    def __post_init__(self) -> None:
        self.base_seeds = self.spec.seeds_for(self.quick)


def _check_rounds(
    spec: SweepSpec,
    quick: bool,
    until_ci: float | None,
    until_decided: bool,
    judge: Judge | None,
    max_seeds: int,
) -> None:
    """Refuse rounds of seeds that could not run: before anything is written."""
    if until_ci is not None and not (0 < until_ci < 1):
        raise ScenarioError(f"--until-ci: expected a fraction in (0, 1), got {until_ci}")
    if until_decided and (spec.target is None or not spec.target.analysis):
        raise ScenarioError(
            f"--until-decided: sweep {spec.name!r} has no [target] analysis whose claims "
            "could be decided (use --until-ci)"
        )
    if until_decided and judge is None:
        raise ScenarioError(
            "until_decided: no judge of the target's claims was given "
            "(pass judge=tcpair.reporting.analysis.undecided_claims, or use tcpair.sweep)"
        )
    base_seeds = spec.seeds_for(quick)
    if (until_ci is not None or until_decided) and max_seeds < len(base_seeds):
        raise ScenarioError(
            f"--max-seeds: {max_seeds} is fewer than the sweep's {len(base_seeds)} seeds"
        )


def _rounds(
    plan: _Plan,
    result: SweepResult,
    store: Store,
    be: Backend,
    console: Console,
    opts: dict[str, Any],
) -> None:
    """Execute the sweep's tasks, then more seeds at the points that want them, round
    after round, until none does or the cap stops them (with a warning)."""
    spec, tasks, round_no = plan.spec, result.tasks, 0
    while True:
        desc = spec.name if round_no == 0 else f"{spec.name} (more seeds, {round_no})"
        result.stats.append(
            execute(
                tasks, store, be, sweep=spec.name, version=plan.version, keep=spec.keep,
                console=console, description=desc, **opts,
            )
        )
        result.tasks, result._runs = tasks, None
        if plan.until_ci is None and plan.judge is None:
            return
        wanted = _more_seeds(result, plan.metric, plan.until_ci, plan.judge)
        seeds = plan.point_seeds
        grow = {p for p in wanted if len(seeds.get(p, plan.base_seeds)) < plan.max_seeds}
        if not grow:
            if wanted:
                warn_incomplete(console, result, plan.max_seeds, plan.until_ci)
            return
        for p in sorted(grow):
            have = list(seeds.get(p, plan.base_seeds))
            start = max(have) + 1
            add = min(len(plan.base_seeds), plan.max_seeds - len(have))
            seeds[p] = have + list(range(start, start + add))
        tasks = spec.plan(plan.quick, plan.version, seeds=seeds)
        _save(store, plan)
        round_no += 1


def _save(store: Store, plan: _Plan) -> None:
    store.save_sweep(
        {
            "sweep": plan.spec.to_dict(),
            "source": str(plan.spec.source) if plan.spec.source else None,
            "quick": plan.quick,
            "version": plan.version,
            "point_seeds": {str(k): list(v) for k, v in plan.point_seeds.items()},
            "until_ci": plan.until_ci,
            "ci_metric": plan.metric,
        }
    )


def check_metric(spec: SweepSpec, quick: bool, metric: str | None = None) -> None:
    """For a dry run whose every point the core accepts: ``metric`` (default the
    sweep's) against the columns a run produces, as a sweep checks it before it
    writes anything."""
    tasks = spec.plan(quick, version_string())
    if tasks:
        check_metrics(tasks[0], [metric or spec.metric])


def dry_run(spec: SweepSpec, out: str | Path | None, quick: bool) -> dict[str, Any]:
    """What a sweep would do: grid size, runs, and how many the store already has."""
    directory = store_dir(spec, out)
    points, seeds, runs = spec.count(quick)
    info: dict[str, Any] = {
        "name": spec.name,
        "points": points,
        "seeds_per_point": seeds,
        "runs": runs,
        "axes": {a.name: list(a.labels[i] for i in a.indices(quick)) for a in spec.axes},
        "directory": str(directory),
    }
    store = Store(directory)
    if store.exists():
        tasks = spec.plan(quick, version_string())
        stored = store.status()
        keys = {t.key for t in tasks}
        info["stored"] = sum(1 for k in keys if stored.get(k) == OK)
        info["stored_failed"] = sum(1 for k in keys if stored.get(k) == FAILED)
        info["to_run"] = len(keys) - info["stored"] - info["stored_failed"]
    else:
        info["stored"] = 0
        info["stored_failed"] = 0
        info["to_run"] = runs
    return info


__all__ = [
    "EXIT_INCOMPLETE",
    "ExecStats",
    "PlainProgress",
    "SweepResult",
    "check_metric",
    "dry_run",
    "execute",
    "open_sweep",
    "plan_join",
    "point_stats",
    "run_sweep",
    "run_task",
    "task_records",
    "task_rows",
    "version_string",
]
