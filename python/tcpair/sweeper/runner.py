"""Running sweeps: plan, skip what the store holds, execute, store, repeat for --until-ci.

The store is written from this process only, in groups of runs as results
arrive (commit.py), so whichever backend runs the simulations, each run is
stored exactly once and a crash loses at most the runs still in flight or
waiting for their group's commit.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console

from tcpair._errors import PluginError, ScenarioError, SimulationError, require_core
from tcpair.base.plain import check_folder, first_names
from tcpair.results.store import Store
from tcpair.simulate.plugins import search_dirs, uses_plugins
from tcpair.sweeper.backends import IDLE, Backend, make_backend
from tcpair.sweeper.commit import FAILED, OK, Group, task_records, task_rows
from tcpair.sweeper.definition import SweepSpec, Task, load_sweep
from tcpair.sweeper.progress import PlainProgress, _progress
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


def run_task(payload: str, keep: Sequence[str] = (), dirs: Sequence[str] = ()) -> dict[str, Any]:
    """Worker: run one scenario; errors come back as data (exception classes from an
    extension module may not survive pickling, and the message is what matters).
    ``dirs``: where the client found the scenario's Python parts (tcpair.simulate.plugins)."""
    from tcpair.simulate.binding import run_json_text
    from tcpair.simulate.plugins import add_dirs

    add_dirs(dirs)
    try:
        res = run_json_text(payload)
    except PluginError as exc:  # the user's code failed: its message and traceback
        return {"status": FAILED, "error_kind": "plugin", "error": str(exc)}
    except ScenarioError as exc:
        return {"status": FAILED, "error_kind": "scenario", "error": str(exc)}
    except SimulationError as exc:
        return {"status": FAILED, "error_kind": "simulation", "error": str(exc)}
    except Exception as exc:  # a bug, but one run must not stop a sweep
        return {"status": FAILED, "error_kind": "internal", "error": f"{type(exc).__name__}: {exc}"}
    return {
        "status": OK,
        "summary": res.get("summary", {}),
        "flows": res.get("flows", []),
        "tables": {k: res.get(k) for k in keep},
    }


def execute(
    tasks: Sequence[Task],
    store: Store,
    backend: Backend,
    *,
    sweep: str,
    version: str,
    keep: Sequence[str] = (),
    retry_failed: bool = False,
    progress: bool = True,
    console: Console | None = None,
    description: str = "runs",
    watch: Callable[[], None] | None = None,
) -> ExecStats:
    """Run every task the store lacks and store them in groups as they finish
    (a run counts as executed once its group is stored). ``watch`` is called as each
    run comes back and every few tenths of a second between: what it raises stops
    the sweep there (the runs in flight are stopped, the groups stored are kept)."""
    unique: dict[str, Task] = {}
    for t in tasks:
        unique.setdefault(t.key, t)
    stored = store.status()
    todo = [
        t for k, t in unique.items() if k not in stored or (retry_failed and stored[k] == FAILED)
    ]
    stats = ExecStats(skipped=len(unique) - len(todo))
    console = console or Console(stderr=True)
    group = Group(store)
    with _progress(console, progress) as bar:
        pid = bar.add_task(description, total=len(unique), completed=stats.skipped, failed=0)

        def commit() -> None:
            runs, failed = group.commit()
            stats.executed += runs
            stats.failed += failed
            if runs:
                bar.update(pid, advance=runs, failed=stats.failed)

        payloads = [
            (json.dumps(t.scenario, default=str, allow_nan=False), tuple(keep), _dirs(t))
            for t in todo
        ]
        results = backend.map_unordered(
            run_task, payloads, [t.key for t in todo], tick=group.max_seconds / 4
        )
        try:
            for i, result in results:
                if watch is not None:
                    watch()
                if i != IDLE:
                    task = todo[i]
                    rows, tables = task_records(
                        task, result, sweep=sweep, version=version, scenario_json=payloads[i][0]
                    )
                    group.add(task.key, rows, tables)
                if group.due() or (i == IDLE and len(group)):
                    commit()
        except KeyboardInterrupt:
            # The runs already back are complete: keep them (the interrupt still stops us).
            with contextlib.suppress(Exception):
                commit()
            raise
        finally:
            # Whatever stops us (an interrupt, an error while storing), the runs
            # in flight stop now, not when the traceback that holds this frame
            # is let go, at the interpreter's exit.
            results.close()
        commit()
    return stats


def _dirs(task: Task) -> tuple[str, ...]:
    """Where the workers look for the task's Python parts (none: nothing to send)."""
    return tuple(search_dirs()) if uses_plugins(task.scenario) else ()


def _preflight(spec: SweepSpec, tasks: Sequence[Task], metrics: Sequence[str]) -> None:
    """Refuse bad input before anything is written.

    A sweep whose every grid point the core rejects is bad input, not a set of
    failed runs (a partly invalid grid runs, its failures stored). The metrics
    named for statistics are checked against the columns a run produces, from
    a throw-away 1 ms run of the first valid point.
    """
    core = require_core()
    firsts: dict[int, Task] = {}
    for t in tasks:
        firsts.setdefault(t.point, t)
    errors = []
    valid: Task | None = None
    for t in firsts.values():
        try:
            core.validate(json.dumps(t.scenario, default=str, allow_nan=False))
        except ScenarioError as exc:
            errors.append((t, str(exc)))
        else:
            valid = valid or t
    if valid is None:
        if not errors:
            return
        t, msg = errors[0]
        where = ", ".join(f"{k}={v}" for k, v in t.labels.items()) or "the base scenario"
        raise ScenarioError(f"sweep {spec.name!r}: every run is invalid; at {where}: {msg}")
    _check_metrics(valid, metrics)


def _check_metrics(valid: Task, metrics: Sequence[str]) -> None:
    """Refuse ``metrics`` that are not columns of a run: a throw-away 1 ms run
    of ``valid`` (a task the core accepts) says which columns there are."""
    core = require_core()
    probe = json.loads(json.dumps(valid.scenario, default=str))
    probe.setdefault("run", {}).update({"duration": 0.001, "warmup": 0.0})
    try:
        flows = json.loads(core.run(json.dumps(probe))).get("flows", [])
    except (ScenarioError, SimulationError):
        return
    if not flows:
        return
    for m in metrics:
        if m not in flows[0]:
            numeric = sorted(k for k, v in flows[0].items() if isinstance(v, int | float))
            raise ScenarioError(f"metric {m!r}: no such flow metric (one of: {', '.join(numeric)})")


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
    metric = ci_metric or spec.metric
    directory = store_dir(spec, out)
    version = version_string()
    tasks = spec.plan(quick, version)
    _preflight(spec, tasks, [metric])
    console = console or Console(stderr=True)
    store = Store(directory)
    _refuse_other_sweep(store, spec)
    point_seeds: dict[int, list[int]] = {}
    result = SweepResult(spec, directory, tasks, quick, base_runs=len({t.key for t in tasks}))
    owned = backend is None
    # The backend starts before the store is touched: a bad --scheduler leaves nothing.
    be = backend or make_backend(jobs=jobs, scheduler=scheduler, dask_local=dask_local)
    try:
        with store.writer():
            _save(store, spec, quick, version, point_seeds, until_ci, metric)
            if progress:
                console.print(
                    f"[bold]{spec.name}[/bold]: {len(tasks)} runs on {be.describe()} -> {directory}"
                )
            round_no = 0
            while True:
                desc = spec.name if round_no == 0 else f"{spec.name} (more seeds, {round_no})"
                result.stats.append(
                    execute(
                        tasks,
                        store,
                        be,
                        sweep=spec.name,
                        version=version,
                        keep=spec.keep,
                        retry_failed=retry_failed,
                        progress=progress,
                        console=console,
                        description=desc,
                        watch=watch,
                    )
                )
                result.tasks, result._runs = tasks, None
                if until_ci is None and not until_decided:
                    break
                wanted = _more_seeds(result, metric, until_ci, judge if until_decided else None)
                grow = {p for p in wanted if len(point_seeds.get(p, base_seeds)) < max_seeds}
                if not grow:
                    if wanted:
                        warn_incomplete(console, result, max_seeds, until_ci)
                    break
                for p in sorted(grow):
                    have = list(point_seeds.get(p, base_seeds))
                    start = max(have) + 1
                    add = min(len(base_seeds), max_seeds - len(have))
                    point_seeds[p] = have + list(range(start, start + add))
                tasks = spec.plan(quick, version, seeds=point_seeds)
                _save(store, spec, quick, version, point_seeds, until_ci, metric)
                round_no += 1
            store.compact()
    finally:
        if owned:
            be.close()
    return result


def _refuse_other_sweep(store: Store, spec: SweepSpec) -> None:
    """A store holds one sweep: another one's runs would be hidden by it; and a
    folder of the user's own is not made a store (its files are not ours to
    set aside)."""
    foreign = store.foreign_names()
    if foreign:
        raise ScenarioError(
            f"--out {store.root}: holds files that are not a tcpair results store "
            f"({first_names(foreign)}); give the sweep a new or empty folder "
            f"(default results/{spec.name})"
        )
    saved = store.sweep_definition() if store.exists() else None
    other = (saved or {}).get("sweep", {}).get("name")
    if other is not None and other != spec.name:
        raise ScenarioError(
            f"--out {store.root}: holds the results of sweep {other!r}; sweep {spec.name!r} "
            f"would hide them. Give it its own --out (default results/{spec.name}); "
            "tcpair.load_results on each store reads both"
        )


def _save(
    store: Store,
    spec: SweepSpec,
    quick: bool,
    version: str,
    point_seeds: Mapping[int, Sequence[int]],
    until_ci: float | None,
    metric: str,
) -> None:
    store.save_sweep(
        {
            "sweep": spec.to_dict(),
            "source": str(spec.source) if spec.source else None,
            "quick": quick,
            "version": version,
            "point_seeds": {str(k): list(v) for k, v in point_seeds.items()},
            "until_ci": until_ci,
            "ci_metric": metric,
        }
    )


def check_metric(spec: SweepSpec, quick: bool, metric: str | None = None) -> None:
    """For a dry run whose every point the core accepts: ``metric`` (default the
    sweep's) against the columns a run produces, as a sweep checks it before it
    writes anything."""
    tasks = spec.plan(quick, version_string())
    if tasks:
        _check_metrics(tasks[0], [metric or spec.metric])


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
