"""Group commit: a sweep stores its finished runs in groups, not one by one.

A run's rows wait in a :class:`Group` until the group holds :data:`GROUP_RUNS`
runs, its oldest run has waited :data:`GROUP_SECONDS`, or the backend reports
that no result is coming soon; then the whole group is written as one file per
table (one write and one fsync each, ``Store.put_group``). A run counts as
stored (progress, counts) only once its group's files are in place: a kill
loses the runs of the group being filled, never a run reported stored, and the
next sweep runs exactly those again.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from tcpair.results.rowtables import concat, keyed
from tcpair.results.store import Store
from tcpair.sweeper.backends import WorkerDied
from tcpair.sweeper.definition import Task

OK = "ok"
FAILED = "failed"

# A group is committed when it holds this many runs ...
GROUP_RUNS = 256
# ... or its first run has waited this long (seconds).
GROUP_SECONDS = 0.2


class Group:
    """The finished runs not yet stored, and their commit to ``store``."""

    def __init__(
        self,
        store: Store,
        *,
        max_runs: int | None = None,
        max_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.clock = store, clock
        self.max_runs = GROUP_RUNS if max_runs is None else max_runs
        self.max_seconds = GROUP_SECONDS if max_seconds is None else max_seconds
        self._rows: list[list[dict[str, Any]]] = []
        self._tables: dict[str, list[pa.Table]] = {}
        self._failed = 0
        self._since = 0.0

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, key: str, rows: list[dict[str, Any]], tables: Mapping[str, pa.Table]) -> None:
        """Hold one finished run: its rows (one per flow) and its kept tables."""
        if not self._rows:
            self._since = self.clock()
        self._rows.append(rows)
        self._failed += rows[0].get("status") != OK
        for name, table in tables.items():
            self._tables.setdefault(name, []).append(keyed(table, key))

    def due(self) -> bool:
        """Full, or its oldest run has waited long enough."""
        return bool(self._rows) and (
            len(self._rows) >= self.max_runs or self.clock() - self._since >= self.max_seconds
        )

    def commit(self) -> tuple[int, int]:
        """Store the group (nothing when empty); returns (runs stored, of them failed)."""
        if not self._rows:
            return 0, 0
        rows = _rows_table(self._rows)
        tables = {name: concat(parts) for name, parts in self._tables.items()}
        self.store.put_group(rows, tables)
        done = (len(self._rows), self._failed)
        self._rows, self._tables, self._failed = [], {}, 0
        return done


def _summary_columns(summary: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in summary.items():
        if k == "seed":
            continue
        if isinstance(v, Mapping):
            for k2, v2 in v.items():
                out[f"run_{k}_{k2}"] = v2
        else:
            out[f"run_{k}"] = v
    return out


def task_rows(
    task: Task, result: Mapping[str, Any] | WorkerDied, *, sweep: str, version: str
) -> tuple[pa.Table, dict[str, pa.Table]]:
    """The stored rows of one run (one per flow) and its kept tables."""
    rows, tables = task_records(task, result, sweep=sweep, version=version)
    return _rows_table([rows]), tables


def task_records(
    task: Task,
    result: Mapping[str, Any] | WorkerDied,
    *,
    sweep: str,
    version: str,
    scenario_json: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, pa.Table]]:
    """:func:`task_rows` with the rows as dicts (a group builds one table of many
    runs); ``scenario_json`` is the run's scenario as JSON when already at hand."""
    if isinstance(result, WorkerDied):
        result = {"status": FAILED, "error_kind": "worker", "error": result.message}
    base: dict[str, Any] = {
        "run_key": task.key,
        "sweep": sweep,
        "point": task.point,
        **task.labels,
        "seed": task.seed,
        "status": result.get("status", FAILED),
        "error_kind": result.get("error_kind"),
        "error": result.get("error"),
        "tcpair_version": version,
        "finished_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "scenario": scenario_json or json.dumps(task.scenario, default=str),
    }
    base.update(_summary_columns(result.get("summary", {})))
    rows = []
    for flow in result.get("flows", []) or [{}]:
        row = dict(base)
        for k, v in flow.items():
            col = "flow" if k == "name" else k
            if col in base and col != "flow":
                col = f"flow_{k}"  # an axis named like a flow field keeps its name
            row[col] = v
        row.setdefault("flow", None)
        rows.append(row)
    tables = {
        name: pa.Table.from_pylist(t) if isinstance(t, list) else pa.table(dict(t))
        for name, t in (result.get("tables") or {}).items()
        if t is not None
    }
    return rows, tables


def _storable(v: Any) -> Any:
    """Parquet columns hold 64-bit integers: a larger one (an axis value the
    core refused, say) is stored as its text rather than failing the sweep."""
    if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
        return str(v)
    return v


def _rows_table(runs: Sequence[list[dict[str, Any]]]) -> pa.Table:
    """One table of every run's rows, with every column any row has (a run on an
    802.11 medium has MAC counters the others lack; a row without a column holds
    null there). Types are inferred over the whole group; runs whose values clash
    (an axis of numbers and texts) are built one by one and unified as the store
    unifies its files."""
    try:
        return _table([row for rows in runs for row in rows])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return concat([_table([_storable_row(r) for r in rows]) for rows in runs])


def _table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    """``rows`` as a table whose columns are the union of their keys, in the order
    they first appear. (``pa.Table.from_pylist`` takes the first row's keys only, so
    a column that first appears in a later row would be lost.)"""
    names = list(dict.fromkeys(k for row in rows for k in row))
    return pa.Table.from_pydict({k: [row.get(k) for row in rows] for k in names})


def _storable_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: _storable(v) for k, v in row.items()}


__all__ = [
    "FAILED",
    "GROUP_RUNS",
    "GROUP_SECONDS",
    "OK",
    "Group",
    "task_records",
    "task_rows",
]
