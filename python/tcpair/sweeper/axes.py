"""The parts a sweep's grid is made of, and the checks of the tables that give
them: an axis (one or more parameters moving together, with its labels and
quick subset), the seeds, a table of fixed ``"dotted.key" = value``, and the
error that names the field. Shared by whole sweeps (:mod:`tcpair.sweeper.definition`)
and sweeps made of parts (:mod:`tcpair.sweeper.parts`)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tcpair._errors import ScenarioError

# Columns every stored run row has; axis names must not shadow them.
RESERVED = frozenset(
    {
        "run_key",
        "sweep",
        "point",
        "seed",
        "status",
        "error_kind",
        "error",
        "tcpair_version",
        "finished_at",
        "scenario",
        "flow",
    }
)
AXIS_KEYS = {"name", "param", "values", "params", "labels", "quick"}


def err(where: str, message: str) -> ScenarioError:
    return ScenarioError(f"{where}: {message}")


def unknown_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise err(
            f"{where}.{extra[0]}" if where else extra[0],
            f"unknown field (expected one of: {', '.join(sorted(allowed))})",
        )


def is_scalar(v: Any) -> bool:
    return isinstance(v, str | int | float | bool) and not (
        isinstance(v, float) and not math.isfinite(v)
    )


def label_of(v: Any) -> str | int | float | bool:
    """A scalar that stands for ``v`` in tables and plots."""
    if is_scalar(v):
        return v
    if isinstance(v, Mapping):
        return ",".join(f"{k}={label_of(x)}" for k, x in v.items())
    return json.dumps(v, sort_keys=True, default=str)


@dataclass(frozen=True)
class Axis:
    """One dimension of the grid: one or more parameters moving together."""

    name: str
    params: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]  # one tuple (a value per param) per point
    labels: tuple[Any, ...]
    quick: tuple[int, ...] | None = None  # indices kept in quick mode

    def indices(self, quick: bool) -> Sequence[int]:
        return self.quick if quick and self.quick is not None else range(len(self.values))


# The most seeds per point a sweep may ask for by count (a mistyped count
# would otherwise plan billions of runs).
MAX_SEED_COUNT = 1_000_000


def parse_seeds(value: Any, where: str) -> tuple[int, ...]:
    if isinstance(value, bool):
        raise err(where, f"expected a count or a list of seeds, got {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise err(where, f"must be >= 1, got {value}")
        if value > MAX_SEED_COUNT:
            raise err(where, f"must be at most {MAX_SEED_COUNT}, got {value}")
        return tuple(range(1, value + 1))
    if isinstance(value, list) and value:
        out = []
        for i, s in enumerate(value):
            if isinstance(s, bool) or not isinstance(s, int) or s < 0 or s >= 2**63:
                raise err(
                    f"{where}[{i}]", f"expected an integer seed >= 0, got {s!r} (at most 2^63 - 1)"
                )
            out.append(s)
        if len(set(out)) != len(out):
            raise err(where, f"repeated seed in {out}")
        return tuple(out)
    raise err(where, f"expected a count >= 1 or a non-empty list of seeds, got {value!r}")


def parse_fixed(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise err(where, f'expected a table of "dotted.key" = value, got {value!r}')
    for key, v in value.items():
        if "." not in key and isinstance(v, Mapping):
            raise err(
                f"{where}.{key}",
                'quote full dotted keys (e.g. "run.duration" = 60): an unquoted dotted '
                "key in TOML makes a nested table, which would replace the whole section",
            )
    return dict(value)


def numeric_uniform(values: list[Any]) -> list[Any]:
    """Mixed ints and floats in one axis become floats: one column type per label."""
    nums = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if nums and len(nums) == len(values) and any(isinstance(v, float) for v in nums):
        return [float(v) for v in values]
    return values


def named_table(raw: Any, where: str, keys: Any) -> str:
    """``raw`` must be a table with only ``keys`` and a non-empty ``name``: its name."""
    if not isinstance(raw, Mapping):
        raise err(where, f"expected a table, got {raw!r}")
    unknown_keys(raw, keys, where)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise err(f"{where}.name", f"expected a non-empty string, got {name!r}")
    return name


def parse_axis(raw: Any, i: int) -> Axis:
    name = named_table(raw, f"axis[{i}]", AXIS_KEYS)
    where = f"axis {name!r}"
    if name in RESERVED or name.startswith("run_"):
        raise err(
            f"{where}.name",
            f"{name!r} is a reserved column name (reserved: run_*, {', '.join(sorted(RESERVED))})",
        )
    if ("param" in raw) == ("params" in raw):
        raise err(where, "give either param + values, or params (a table of lists)")
    params, columns = _columns(raw, where)
    rows = list(zip(*columns, strict=True))
    labels = _labels(raw, where, rows)
    quick = _quick(raw["quick"], where, labels) if "quick" in raw else None
    return Axis(name, params, tuple(rows), tuple(labels), quick)


def _columns(raw: Mapping[str, Any], where: str) -> tuple[tuple[str, ...], list[list[Any]]]:
    """The axis's parameters and a list of values for each (``param`` + ``values``, or
    ``params``, a table of coupled lists of one length)."""
    if "param" in raw:
        param = raw["param"]
        values = raw.get("values")
        if not isinstance(param, str) or not param:
            raise err(f"{where}.param", f"expected a dotted key, got {param!r}")
        if not isinstance(values, list) or not values:
            raise err(f"{where}.values", f"expected a non-empty list, got {values!r}")
        return (param,), [values]
    table = raw["params"]
    if not isinstance(table, Mapping) or not table:
        raise err(f"{where}.params", f"expected a table of lists, got {table!r}")
    params = tuple(table)
    columns = []
    for p, vs in table.items():
        if not isinstance(vs, list) or not vs:
            raise err(f"{where}.params.{p}", f"expected a non-empty list, got {vs!r}")
        columns.append(vs)
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise err(
            f"{where}.params",
            "coupled parameters need lists of equal length, got "
            + ", ".join(f"{p}: {len(c)}" for p, c in zip(params, columns, strict=True)),
        )
    return params, columns


def _labels(raw: Mapping[str, Any], where: str, rows: list[tuple[Any, ...]]) -> list[Any]:
    """The axis's labels: given (strings or numbers, one per row), or the first
    parameter's values; distinct either way."""
    if "labels" in raw:
        labels = raw["labels"]
        if not isinstance(labels, list) or len(labels) != len(rows):
            raise err(f"{where}.labels", f"expected a list of {len(rows)} labels, got {labels!r}")
        bad = [x for x in labels if not is_scalar(x)]
        if bad:
            raise err(f"{where}.labels", f"labels must be strings or numbers, got {bad[0]!r}")
    else:
        labels = [label_of(r[0]) for r in rows]
    labels = numeric_uniform(list(labels))
    if len(set(map(repr, labels))) != len(labels):
        raise err(f"{where}.labels", f"labels must be distinct, got {labels}")
    return labels


def _quick(wanted: Any, where: str, labels: list[Any]) -> tuple[int, ...]:
    """The indices of the labels the quick variant keeps."""
    if not isinstance(wanted, list) or not wanted:
        raise err(f"{where}.quick", f"expected a non-empty list of labels, got {wanted!r}")
    idx = []
    for w in wanted:
        match = [j for j, lab in enumerate(labels) if lab == w]
        if not match:
            raise err(f"{where}.quick", f"{w!r} is not one of the axis labels {labels}")
        idx.append(match[0])
    return tuple(idx)


__all__ = [
    "AXIS_KEYS",
    "MAX_SEED_COUNT",
    "RESERVED",
    "Axis",
    "err",
    "is_scalar",
    "label_of",
    "named_table",
    "numeric_uniform",
    "parse_axis",
    "parse_fixed",
    "parse_seeds",
    "unknown_keys",
]
