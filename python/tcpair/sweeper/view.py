"""How a sweep looks from a notebook or the CLI: its :class:`SweepResult` (the
planned runs joined with what the store holds, and their statistics), a
one-line summary, kept tables joined with their run's parameters, failures
grouped by message, and the check of every grid point (``tcpair sweep
--dry-run``). Reading only: :mod:`tcpair.sweeper.runner` runs the sweeps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tcpair._errors import ScenarioError, require_core
from tcpair.evidence.stats import aggregate
from tcpair.results.store import Store
from tcpair.sweeper.commit import FAILED, OK
from tcpair.sweeper.definition import SweepSpec, Task, parse_sweep

MISSING = "missing"


@dataclass
class ExecStats:
    """What one :func:`execute` call did."""

    skipped: int = 0
    executed: int = 0
    failed: int = 0


@dataclass(repr=False)
class SweepResult:
    """A sweep's runs (restricted to its plan) and their statistics."""

    spec: SweepSpec
    directory: Path
    tasks: list[Task]
    quick: bool = False
    stats: list[ExecStats] = field(default_factory=list)
    _runs: pd.DataFrame | None = None
    base_runs: int = 0  # runs at the sweep's own seeds (the rest were added by rounds)
    unconverged: list[str] = field(default_factory=list)  # points above --until-ci at the cap
    undecided: list[str] = field(default_factory=list)  # claims inconclusive at the cap

    @property
    def incomplete(self) -> bool:
        """``--until-ci``/``--until-decided`` reached ``--max-seeds`` short of its aim."""
        return bool(self.unconverged or self.undecided)

    @property
    def planned_runs(self) -> int:
        return len({t.key for t in self.tasks})

    def counts_line(self) -> str:
        """What this call ran and what the store holds for the plan, e.g. ``0 runs
        executed; 625 stored (180 at the base seeds, 445 added by more-seed rounds)``."""
        executed = sum(s.executed for s in self.stats)
        failed = sum(s.failed for s in self.stats)
        total = self.planned_runs
        line = f"{executed} runs executed ({failed} failed); {total} runs in the plan"
        extra = total - self.base_runs
        if extra > 0:
            line += f" ({self.base_runs} at the base seeds, {extra} added by more-seed rounds)"
        return line + f", {total - executed} of them already stored"

    @property
    def runs(self) -> pd.DataFrame:
        """One row per run and flow, labels from the plan, metrics from the store."""
        if self._runs is None:
            self._runs = plan_join(self.tasks, Store(self.directory).load(), self.spec)
        return self._runs

    @property
    def failures(self) -> pd.DataFrame:
        df = self.runs
        bad = df[df["status"] == FAILED]
        cols = ["run_key", *self.spec.axis_names, "seed", "status", "error_kind", "error"]
        return bad.drop_duplicates("run_key")[[c for c in cols if c in bad.columns]]

    def points(self, metrics: Sequence[str] | str | None = None) -> pd.DataFrame:
        """Per grid point and flow: mean, std, n and 95% Student-t CI of each metric."""
        return point_stats(self.runs, self.spec, metrics)

    def table(self, name: str) -> pd.DataFrame:
        """A table the sweep keeps per run (``keep``, e.g. ``timeseries``), each row
        joined with its run's point, axis values and seed."""
        return kept_table(self, name)

    def __repr__(self) -> str:
        return sweep_summary(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython's pretty printer
        p.text(repr(self))


def plan_join(tasks: Sequence[Task], stored: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """Rows of the planned runs: the plan's labels joined to stored metrics by key."""
    plan = pd.DataFrame(
        [{"run_key": t.key, "point": t.point, **t.labels, "seed": t.seed} for t in tasks]
    )
    if plan.empty:
        return plan
    if stored.empty or "run_key" not in stored.columns:
        plan["status"] = MISSING
        return plan
    drop = [c for c in ("point", "seed", *spec.axis_names) if c in stored.columns]
    df = plan.merge(stored.drop(columns=drop), on="run_key", how="left")
    df["status"] = df["status"].fillna(MISSING)
    return df


def point_stats(
    runs: pd.DataFrame, spec: SweepSpec, metrics: Sequence[str] | str | None = None
) -> pd.DataFrame:
    """Aggregate ok runs by grid point (and flow when there is one)."""
    if metrics is None:
        metrics = [spec.metric]
    elif isinstance(metrics, str):
        metrics = [metrics]
    ok = runs[runs["status"] == OK] if "status" in runs.columns else runs
    missing = [m for m in metrics if m not in ok.columns]
    if missing and len(ok):
        raise ScenarioError(
            f"metric {missing[0]!r}: no such column (try one of: "
            f"{', '.join(c for c in ok.columns if ok[c].dtype.kind in 'fi')})"
        )
    by = ["point", *spec.axis_names]
    if "flow" in ok.columns and ok["flow"].notna().any():
        by.append("flow")
    if ok.empty:
        return pd.DataFrame(columns=by)
    return aggregate(ok, by, list(metrics))


def open_sweep(directory: str | Path) -> SweepResult:
    """The :class:`SweepResult` of the sweep last run into ``directory``."""
    store = Store(directory)
    saved = store.sweep_definition()
    if saved is None:
        raise ScenarioError(f"{directory}: not a tcpair sweep directory (no sweep.json)")
    spec = parse_sweep(saved["sweep"])
    if saved.get("source"):
        spec.source = Path(saved["source"])
    seeds = {int(k): v for k, v in (saved.get("point_seeds") or {}).items()}
    quick = bool(saved.get("quick"))
    tasks = spec.plan(quick, saved.get("version", ""), seeds=seeds)
    return SweepResult(spec, Path(directory), tasks, quick)


def sweep_summary(res: SweepResult) -> str:
    """``<tcpair.SweepResult NAME: 24 runs (22 ok, 2 failed), axes variant x p; DIR>``."""
    plan = {t.key for t in res.tasks}
    try:
        status = Store(res.directory).status() if res.directory.exists() else {}
    except (OSError, ValueError):
        status = {}
    ok = sum(1 for k in plan if status.get(k) == OK)
    failed = sum(1 for k in plan if status.get(k) == FAILED)
    missing = len(plan) - ok - failed
    parts = (
        [f"{ok} ok"] + [f"{failed} failed"] * bool(failed) + [f"{missing} missing"] * bool(missing)
    )
    axes = " x ".join(res.spec.axis_names) or "no axes"
    quick = " (quick)" if res.quick else ""
    return (
        f"<tcpair.SweepResult {res.spec.name}{quick}: {len(plan)} runs ({', '.join(parts)}), "
        f"axes {axes}, metric {res.spec.metric}; {res.directory}>"
    )


def kept_table(res: SweepResult, name: str) -> pd.DataFrame:
    """The kept table ``name`` of every planned run, with point, axis labels and seed."""
    kept = getattr(res.spec, "keep", ())
    if name not in kept:
        known = ", ".join(kept) or "none (add keep = [...] to the sweep)"
        raise ScenarioError(f"table {name!r}: the sweep does not keep it (kept: {known})")
    plan = pd.DataFrame(
        [{"run_key": t.key, "point": t.point, **t.labels, "seed": t.seed} for t in res.tasks]
    ).drop_duplicates("run_key")
    table = Store(res.directory).load_table(name, list(plan["run_key"]))
    if table.empty:
        return table
    clash = [c for c in plan.columns if c in table.columns and c != "run_key"]
    return plan.merge(table.drop(columns=clash), on="run_key", how="inner")


def failure_groups(fails: pd.DataFrame, axis_names: list[str]) -> list[dict[str, Any]]:
    """Failed runs grouped by error message: count and one example's parameters."""
    groups: list[dict[str, Any]] = []
    if fails.empty:
        return groups
    for error, rows in fails.groupby(fails["error"].fillna("(no message)"), sort=False):
        first = rows.iloc[0]
        example = {a: _plain(first[a]) for a in axis_names if a in rows.columns}
        example["seed"] = _plain(first.get("seed"))
        groups.append({"error": str(error), "count": len(rows), "example": example})
    groups.sort(key=lambda g: -g["count"])
    return groups


def invalid_points(spec: SweepSpec, quick: bool) -> list[dict[str, Any]]:
    """Every grid point the core rejects, grouped by message (count, example labels)."""
    core = require_core()
    firsts: dict[int, Any] = {}
    for t in spec.plan(quick, ""):
        firsts.setdefault(t.point, t)
    bad: dict[str, dict[str, Any]] = {}
    for t in firsts.values():
        try:
            core.validate(json.dumps(t.scenario, default=str, allow_nan=False))
        except (ScenarioError, ValueError) as exc:
            group = bad.setdefault(str(exc), {"error": str(exc), "count": 0, "example": t.labels})
            group["count"] += 1
    return sorted(bad.values(), key=lambda g: -g["count"])


def invalid_grid_message(spec: SweepSpec, groups: list[dict[str, Any]], points: int) -> str:
    """One line naming the invalid points' fields and values."""
    n = sum(g["count"] for g in groups)
    parts = []
    for g in groups[:3]:
        where = ", ".join(f"{k}={v}" for k, v in g["example"].items()) or "the base scenario"
        more = f" and {g['count'] - 1} more point(s)" if g["count"] > 1 else ""
        parts.append(f"at {where}{more}: {g['error']}")
    rest = f"; and {len(groups) - 3} other error(s)" if len(groups) > 3 else ""
    return f"sweep {spec.name!r}: {n} of {points} points are invalid: " + "; ".join(parts) + rest


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


__all__ = [
    "MISSING",
    "ExecStats",
    "SweepResult",
    "failure_groups",
    "invalid_grid_message",
    "invalid_points",
    "kept_table",
    "open_sweep",
    "plan_join",
    "point_stats",
    "sweep_summary",
]
