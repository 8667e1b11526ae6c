"""How a sweep looks from a notebook or the CLI: a one-line summary, kept
tables joined with their run's parameters, failures grouped by message, and
the check of every grid point (``tcpair sweep --dry-run``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from tcpair._errors import ScenarioError, require_core
from tcpair.store import Store

if TYPE_CHECKING:
    from tcpair.runner import SweepResult
    from tcpair.sweepdef import SweepSpec


def sweep_summary(res: SweepResult) -> str:
    """``<tcpair.SweepResult NAME: 24 runs (22 ok, 2 failed), axes variant x p; DIR>``."""
    plan = {t.key for t in res.tasks}
    try:
        status = Store(res.directory).status() if res.directory.exists() else {}
    except (OSError, ValueError):
        status = {}
    ok = sum(1 for k in plan if status.get(k) == "ok")
    failed = sum(1 for k in plan if status.get(k) == "failed")
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
    "failure_groups",
    "invalid_grid_message",
    "invalid_points",
    "kept_table",
    "sweep_summary",
]
