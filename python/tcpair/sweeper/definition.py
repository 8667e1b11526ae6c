"""Sweep definitions: a base scenario, the parameters to vary, and the seeds.

A sweep file (TOML) or an equivalent dict::

    name = "loss-sweep"
    scenario = "clrp_one_link"        # shipped name, or a path relative to this file
    seeds = 5                          # seeds 1..5, or a list such as [1, 2, 7]
    metric = "goodput_kbps"            # watched by --until-ci, plotted by the report

    [set]                              # fixed values, applied before the axes
    "run.duration" = 100.0

    [[axis]]                           # axes combine as a full grid
    name = "p"
    param = "links.wireless.forward.loss.p"
    values = [0.0, 0.01, 0.05]

    [[axis]]                           # coupled: these parameters move together
    name = "queue"
    [axis.params]
    "links.wired.forward.queue" = [10, 50]
    "links.wireless.forward.queue" = [10, 50]

Each run is the base scenario with ``set``, then (in quick mode) ``quick.set``,
then one value of every axis, then its seed applied. A run is identified by
:func:`run_key`, a hash of that complete scenario, the seed and the simulator's
version and build, so a results store can tell which runs it already holds.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.base.paths import shipped_sweeps, sweep_path
from tcpair.base.plain import check_plain, read_toml
from tcpair.simulate.binding import TABLES as API_TABLES
from tcpair.simulate.plugins import fingerprint
from tcpair.simulate.scenario import Scenario, load_scenario, set_path
from tcpair.sweeper import parts as sweepparts
from tcpair.sweeper.axes import (
    RESERVED,
    Axis,
    err,
    parse_axis,
    parse_fixed,
    parse_seeds,
    unknown_keys,
)

# Per-packet tables a sweep may keep (``flows`` is in every run's rows anyway).
KEEPABLE = tuple(t for t in API_TABLES if t != "flows")
TOP_KEYS = {
    "name",
    "title",
    "description",
    "scenario",
    "seeds",
    "metric",
    "keep",
    "set",
    "axis",
    "quick",
    "target",
    "part",
}
QUICK_KEYS = {"seeds", "set"}
TARGET_KEYS = {"title", "claim", "analysis", "order"}


@dataclass(frozen=True)
class Target:
    """Marks a sweep as a ``tcpair reproduce`` target."""

    title: str
    claim: str = ""
    analysis: str | None = None
    order: int = 100


@dataclass(frozen=True)
class Task:
    """One run: the labels of its grid point, its seed and its full scenario."""

    key: str
    point: int
    labels: Mapping[str, Any]
    seed: int
    scenario: Scenario


@dataclass
class SweepSpec:
    """A parsed, checked sweep definition."""

    name: str
    scenario: Scenario
    seeds: tuple[int, ...]
    axes: tuple[Axis, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    quick_seeds: tuple[int, ...] | None = None
    quick_fixed: Mapping[str, Any] = field(default_factory=dict)
    metric: str = "goodput_kbps"
    keep: tuple[str, ...] = ()
    title: str = ""
    description: str = ""
    target: Target | None = None
    source: Path | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple[Any, ...] = ()  # tcpair.sweeper.parts.Part: grids on their own bases

    @property
    def display_title(self) -> str:
        """The target's title, else the sweep's title, else its name."""
        return self.target.title if self.target else (self.title or self.name)

    @property
    def axis_names(self) -> list[str]:
        return [a.name for a in self.axes]

    def seeds_for(self, quick: bool) -> tuple[int, ...]:
        return self.quick_seeds if quick and self.quick_seeds is not None else self.seeds

    @staticmethod
    def _grid(
        axes: Sequence[Axis], quick: bool
    ) -> Iterable[tuple[dict[str, Any], list[tuple[str, Any]]]]:
        ranges = [a.indices(quick) for a in axes]
        for combo in itertools.product(*ranges):
            labels: dict[str, Any] = {}
            settings: list[tuple[str, Any]] = []
            for axis, i in zip(axes, combo, strict=True):
                labels[axis.name] = axis.labels[i]
                settings.extend(zip(axis.params, axis.values[i], strict=True))
            yield labels, settings

    def base(self, quick: bool = False) -> Scenario:
        """The base scenario with ``set`` (and in quick mode ``quick.set``) applied."""
        sc = copy.deepcopy(self.scenario)
        for key, value in self.fixed.items():
            set_path(sc, key, value, what="set")
        if quick:
            for key, value in self.quick_fixed.items():
                set_path(sc, key, value, what="quick.set")
        return sc

    def plan(
        self,
        quick: bool = False,
        version: str = "",
        seeds: Mapping[int, Sequence[int]] | None = None,
    ) -> list[Task]:
        """Every run of the sweep; ``seeds`` overrides the seeds of given points.
        Grid points are numbered across the parts of a sweep made of parts."""
        tasks: list[Task] = []
        point = 0
        for base, axes, default_seeds, const in sweepparts.sections(self, quick):
            for labels, settings in self._grid(axes, quick):
                sc = copy.deepcopy(base)
                for key, value in settings:
                    set_path(sc, key, copy.deepcopy(value), what="axis")
                labels = {**const, **labels}
                for seed in (seeds or {}).get(point, default_seeds):
                    run_sc = _with_seed(sc, int(seed))
                    key = run_key(run_sc, int(seed), version)
                    tasks.append(Task(key, point, labels, int(seed), run_sc))
                point += 1
        return tasks

    def count(self, quick: bool = False) -> tuple[int, int, int]:
        """(grid points, seeds per point (the most of any part), runs)."""
        return sweepparts.count(self, quick)

    def to_dict(self) -> dict[str, Any]:
        """A self-contained dict that :func:`parse_sweep` reads back to the same plan."""
        out = dict(copy.deepcopy(self.raw))
        out["scenario"] = copy.deepcopy(self.scenario)
        out["name"] = self.name
        sweepparts.parts_to_dict(self, out)
        return out


def _with_seed(sc: Scenario, seed: int) -> Scenario:
    """The point's scenario with ``run.seed``: a new top level and ``run`` table,
    the rest shared with the point's other runs (nothing writes to a planned
    scenario; a sweep of a million runs plans in seconds, not minutes)."""
    if not isinstance(sc.get("run", {}), dict):
        run_sc = copy.deepcopy(sc)
        set_path(run_sc, "run.seed", seed)  # the error names the field
        return run_sc
    run_sc = dict(sc)
    run_sc["run"] = {**sc.get("run", {}), "seed": seed}
    return run_sc


def run_key(scenario: Mapping[str, Any], seed: int, version: str) -> str:
    """Identity of a run: SHA-256 over its canonical scenario, seed and version, and
    the source files of its parts written in Python if it has any (tcpair.simulate.plugins)."""
    ident: dict[str, Any] = {"scenario": scenario, "seed": int(seed), "version": version}
    if (python := fingerprint(scenario)) is not None:
        ident["python"] = python
    blob = json.dumps(
        ident,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _target(raw: Any) -> Target:
    if not isinstance(raw, Mapping):
        raise err("target", f"expected a table, got {raw!r}")
    unknown_keys(raw, TARGET_KEYS, "target")
    title = raw.get("title")
    if not isinstance(title, str) or not title:
        raise err("target.title", f"expected a string, got {title!r}")
    claim = raw.get("claim", "")
    analysis = raw.get("analysis")
    order = raw.get("order", 100)
    if not isinstance(claim, str):
        raise err("target.claim", f"expected a string, got {claim!r}")
    if analysis is not None and (not isinstance(analysis, str) or not analysis):
        raise err("target.analysis", f"expected a module name, got {analysis!r}")
    if isinstance(order, bool) or not isinstance(order, int):
        raise err("target.order", f"expected an integer, got {order!r}")
    return Target(title, claim, analysis, order)


def parse_sweep(raw: Mapping[str, Any], *, base_dir: Path | None = None) -> SweepSpec:
    """Check a sweep definition and load its base scenario.

    Every parameter path is tried on the base scenario here, so a typo fails
    before any run starts, with the axis and the key in the message.
    """
    if not isinstance(raw, Mapping):
        raise err("sweep", f"expected a table, got {type(raw).__name__}")
    unknown_keys(raw, TOP_KEYS, "")
    name = _name(raw.get("name"))
    scenario = _base_scenario(raw.get("scenario"), base_dir)
    seeds = parse_seeds(raw.get("seeds", 1), "seeds")
    metric = raw.get("metric", "goodput_kbps")
    if not isinstance(metric, str) or not metric:
        raise err("metric", f"expected a column name, got {metric!r}")
    keep = raw.get("keep", [])
    if not isinstance(keep, list) or any(k not in KEEPABLE for k in keep):
        raise err("keep", f"expected a list drawn from {list(KEEPABLE)}, got {keep!r}")
    axes, parts = _axes(raw, scenario, base_dir)
    quick = raw.get("quick", {})
    if not isinstance(quick, Mapping):
        raise err("quick", f"expected a table, got {quick!r}")
    unknown_keys(quick, QUICK_KEYS, "quick")
    spec = SweepSpec(
        name=name,
        scenario=scenario,
        seeds=seeds,
        axes=axes,
        fixed=parse_fixed(raw.get("set", {}), "set"),
        quick_seeds=parse_seeds(quick["seeds"], "quick.seeds") if "seeds" in quick else None,
        quick_fixed=parse_fixed(quick.get("set", {}), "quick.set"),
        metric=metric,
        keep=tuple(keep),
        title=str(raw.get("title", "")),
        description=str(raw.get("description", "")),
        target=_target(raw["target"]) if "target" in raw else None,
        raw=copy.deepcopy(dict(raw)),
        parts=parts,
    )
    if parts:
        sweepparts.probe_paths(spec)
        return spec
    # Try every setting once on the base, so a bad path fails now.
    probe = spec.base(quick=True)
    for axis in axes:
        for key, value in zip(axis.params, axis.values[0], strict=True):
            set_path(copy.deepcopy(probe), key, value, what=f"axis {axis.name!r}")
    return spec


def _name(name: Any) -> str:
    """The sweep's name: it names the store's folder too."""
    if not isinstance(name, str) or not name.strip():
        raise err("name", f"expected a non-empty string, got {name!r}")
    if any(c in name for c in "/\\") or name.startswith("."):
        raise err("name", f"must be usable as a directory name, got {name!r}")
    return name


def _base_scenario(src: Any, base_dir: Path | None) -> Scenario:
    """The sweep's base scenario: a table, or a file (beside the sweep file first)."""
    if isinstance(src, Mapping):
        return load_scenario(src)
    if isinstance(src, str) and src:
        rel = (base_dir / src) if base_dir is not None else None
        return load_scenario(rel if rel is not None and rel.is_file() else src)
    raise err("scenario", f"expected a scenario file name or a table, got {src!r}")


def _axes(
    raw: Mapping[str, Any], scenario: Scenario, base_dir: Path | None
) -> tuple[tuple[Axis, ...], tuple[Any, ...]]:
    """The sweep's axes and parts: ``[[axis]]`` tables, or ``[[part]]`` tables each with
    axes of its own (the sweep's axes are then their union); names used once."""
    axes_raw = raw.get("axis", [])
    if not isinstance(axes_raw, list):
        raise err("axis", "expected an array of tables ([[axis]])")
    axes = tuple(parse_axis(a, i) for i, a in enumerate(axes_raw))
    parts: tuple[Any, ...] = ()
    if "part" in raw:
        if axes:
            raise err("axis", "a sweep with [[part]] tables gives its axes in each part")
        parts = sweepparts.parse_parts(raw["part"], scenario, base_dir)
        axes = sweepparts.union_axes(parts)
    names = [a.name for a in axes]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise err("axis", f"axis name {sorted(dup)[0]!r} used twice")
    return axes, parts


def load_sweep(source: Mapping[str, Any] | str | Path) -> SweepSpec:
    """A sweep from a dict, a TOML path or a shipped sweep's name."""
    if isinstance(source, SweepSpec):
        return source
    if isinstance(source, Mapping):
        return parse_sweep(source)
    if isinstance(source, bool) or not isinstance(source, str | os.PathLike):
        raise TypeError(
            "sweep: expected a sweep file's path, a shipped sweep's name or a dict, "
            f"got {type(source).__name__}"
        )
    path = Path(source)
    try:
        found = path.is_file()
    except OSError as exc:  # e.g. a name longer than the system allows
        shown = str(source) if len(str(source)) <= 60 else str(source)[:60] + "..."
        raise ScenarioError(f"{shown}: cannot be a sweep file ({exc.strerror})") from None
    if not found:
        shipped = sweep_path(str(source), missing_ok=True) if path.parent == Path(".") else None
        if shipped is None:
            raise ScenarioError(f"{source}: no such sweep file")
        path = shipped
    raw = read_toml(path, "sweep file")
    check_plain(raw)
    try:
        spec = parse_sweep(raw, base_dir=path.parent)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    spec.source = path
    return spec


def shipped_targets() -> dict[str, SweepSpec]:
    """Every reproduce target (a shipped sweep with a ``[target]`` table), in report
    order (``target.order``, then name)."""
    found = []
    for name, path in shipped_sweeps().items():
        spec = load_sweep(path)
        if spec.target is not None:
            found.append((spec.target.order, name, spec))
    return {name: spec for _, name, spec in sorted(found, key=lambda t: (t[0], t[1]))}


__all__ = [
    "RESERVED",
    "Axis",
    "SweepSpec",
    "Target",
    "Task",
    "load_sweep",
    "parse_sweep",
    "run_key",
    "shipped_targets",
]
