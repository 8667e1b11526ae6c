"""Sweeps made of parts: several grids, each on its own base scenario, in one sweep.

A sweep whose cases do not form one full grid (a study that runs some schemes on one
topology and others on another) lists ``[[part]]`` tables instead of top-level axes::

    name = "study"
    scenario = "clrp_one_link"        # the default base of every part
    seeds = 10
    [set]                              # applied to every part first
    "run.warmup" = 10.0

    [[part]]
    name = "one link"
    [[part.axis]]
    name = "scheme"
    ...

    [[part]]
    name = "two links"
    scenario = "clrp_two_links"        # this part's own base
    seeds = 5                          # this part's own seeds
    set = { "run.duration" = 60.0 }    # after the sweep's set
    quick = { seeds = 2 }              # after the sweep's quick table
    [[part.axis]]
    name = "scheme"
    ...

Each part is a full grid of its own axes on its own base. The runs of every part are
one sweep: one store, one report, grid points numbered across the parts in order.
Every run carries the column ``part`` (the part's name) and one column per axis name
used by any part (empty where a part lacks that axis). Axes of the same name in
different parts may have different labels and parameters.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcpair.simulate.scenario import Scenario, load_scenario, set_path
from tcpair.sweeper.axes import (
    Axis,
    err,
    named_table,
    parse_axis,
    parse_fixed,
    parse_seeds,
    unknown_keys,
)

PART_KEYS = {"name", "scenario", "seeds", "set", "axis", "quick"}
PART_AXIS = "part"


@dataclass(frozen=True)
class Part:
    """One grid of a sweep made of parts."""

    name: str
    scenario: Scenario
    axes: tuple[Axis, ...]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] | None = None
    quick_seeds: tuple[int, ...] | None = None
    quick_fixed: Mapping[str, Any] = field(default_factory=dict)

    def base(self, spec: Any, quick: bool) -> Scenario:
        """The part's base with the sweep's ``set`` then its own (and in quick mode
        the sweep's ``quick.set`` then its own)."""
        sc = copy.deepcopy(self.scenario)
        steps = [("set", spec.fixed), (f"part {self.name!r}.set", self.fixed)]
        if quick:
            steps += [("quick.set", spec.quick_fixed)]
            steps += [(f"part {self.name!r}.quick.set", self.quick_fixed)]
        for what, table in steps:
            for key, value in table.items():
                set_path(sc, key, value, what=what)
        return sc

    def seeds_for(self, spec: Any, quick: bool) -> tuple[int, ...]:
        if quick:
            if self.quick_seeds is not None:
                return self.quick_seeds
            if spec.quick_seeds is not None:
                return tuple(spec.quick_seeds)
        return self.seeds if self.seeds is not None else tuple(spec.seeds)


def _scenario(src: Any, default: Scenario, base_dir: Path | None, where: str) -> Scenario:
    if src is None:
        return copy.deepcopy(default)
    if isinstance(src, Mapping):
        return load_scenario(src)
    if isinstance(src, str) and src:
        rel = (base_dir / src) if base_dir is not None else None
        return load_scenario(rel if rel is not None and rel.is_file() else src)
    raise err(f"{where}.scenario", f"expected a scenario file name or a table, got {src!r}")


def parse_part(raw: Any, i: int, default: Scenario, base_dir: Path | None) -> Part:
    """One ``[[part]]`` table, checked (its axes as top-level axes are)."""
    name = named_table(raw, f"part[{i}]", PART_KEYS)
    where = f"part {name!r}"
    axes_raw = raw.get("axis", [])
    if not isinstance(axes_raw, list):
        raise err(f"{where}.axis", "expected an array of tables ([[part.axis]])")
    axes = tuple(parse_axis(a, j) for j, a in enumerate(axes_raw))
    names = [a.name for a in axes]
    for a in axes:
        if a.name == PART_AXIS:
            raise err(f"{where}.axis", f"{PART_AXIS!r} is the column naming the part")
        if names.count(a.name) > 1:
            raise err(f"{where}.axis", f"axis name {a.name!r} used twice")
    quick = raw.get("quick", {})
    if not isinstance(quick, Mapping):
        raise err(f"{where}.quick", f"expected a table, got {quick!r}")
    unknown_keys(quick, {"seeds", "set"}, f"{where}.quick")
    return Part(
        name=name,
        scenario=_scenario(raw.get("scenario"), default, base_dir, where),
        axes=axes,
        fixed=parse_fixed(raw.get("set", {}), f"{where}.set"),
        seeds=parse_seeds(raw["seeds"], f"{where}.seeds") if "seeds" in raw else None,
        quick_seeds=(
            parse_seeds(quick["seeds"], f"{where}.quick.seeds") if "seeds" in quick else None
        ),
        quick_fixed=parse_fixed(quick.get("set", {}), f"{where}.quick.set"),
    )


def parse_parts(raw: Any, default: Scenario, base_dir: Path | None) -> tuple[Part, ...]:
    if not isinstance(raw, list) or not raw:
        raise err("part", "expected a non-empty array of tables ([[part]])")
    parts = tuple(parse_part(p, i, default, base_dir) for i, p in enumerate(raw))
    names = [p.name for p in parts]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise err("part", f"part name {dup[0]!r} used twice")
    return parts


def union_axes(parts: Sequence[Part]) -> tuple[Any, ...]:
    """The columns of a sweep made of parts: ``part``, then every axis name in the order
    first seen, each with the labels any part gives it (for listings and reports; the
    runs are planned per part)."""
    labels: dict[str, list[Any]] = {PART_AXIS: [p.name for p in parts]}
    kept: dict[str, list[Any]] = {PART_AXIS: [p.name for p in parts]}
    for p in parts:
        for a in p.axes:
            have = labels.setdefault(a.name, [])
            quick = kept.setdefault(a.name, [])
            for j, lab in enumerate(a.labels):
                if lab not in have:
                    have.append(lab)
                if j in a.indices(True) and lab not in quick:
                    quick.append(lab)
    out = []
    for name, labs in labels.items():
        idx = tuple(labs.index(x) for x in kept[name])
        out.append(Axis(name, (), tuple(() for _ in labs), tuple(labs), idx))
    return tuple(out)


Section = tuple[Scenario, tuple[Any, ...], tuple[int, ...], dict[str, Any]]


def sections(spec: Any, quick: bool) -> list[Section]:
    """(base, axes, seeds, constant labels) of each grid of ``spec``, in order."""
    if not spec.parts:
        return [(spec.base(quick), spec.axes, spec.seeds_for(quick), {})]
    return [
        (p.base(spec, quick), p.axes, p.seeds_for(spec, quick), {PART_AXIS: p.name})
        for p in spec.parts
    ]


def count(spec: Any, quick: bool) -> tuple[int, int, int]:
    """(grid points, most seeds per point, runs) over every part."""
    points = runs = most = 0
    for _, axes, seeds, _ in sections(spec, quick):
        n = math.prod(len(a.indices(quick)) for a in axes)
        points += n
        runs += n * len(seeds)
        most = max(most, len(seeds))
    return points, most, runs


def probe_paths(spec: Any) -> None:
    """Try every part's first settings on its quick base, so a bad key fails now."""
    for part in spec.parts:
        probe = part.base(spec, True)
        for axis in part.axes:
            for key, value in zip(axis.params, axis.values[0], strict=True):
                set_path(
                    copy.deepcopy(probe), key, value, what=f"part {part.name!r} axis {axis.name!r}"
                )


def parts_to_dict(spec: Any, out: dict[str, Any]) -> None:
    """Embed each part's resolved base, so the saved definition reads back alone."""
    if spec.parts and isinstance(out.get("part"), list):
        for raw, part in zip(out["part"], spec.parts, strict=True):
            raw["scenario"] = copy.deepcopy(part.scenario)


__all__ = ["PART_AXIS", "Part", "count", "parse_parts", "sections", "union_axes"]
