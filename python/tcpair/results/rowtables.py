"""Arrow tables of stored runs: joining tables whose columns or types differ,
and keeping one copy of each run (the newest) when a run is stored twice."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def concat(tables: Sequence[pa.Table]) -> pa.Table:
    """Concatenate tables whose columns differ (a failed run has no flow metrics)
    or whose types were inferred differently (null vs string, int vs float).
    A column whose types cannot be unified (a type changed between versions)
    becomes text rather than making the whole store unreadable."""
    tables = [t for t in tables if t.num_columns]
    if not tables:
        return pa.table({})
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        clash = _clashing(tables)
        texts = [_as_text(t, clash) for t in tables]
        return pa.concat_tables(texts, promote_options="permissive")


def _clashing(tables: Sequence[pa.Table]) -> set[str]:
    """Columns with more than one non-null type across ``tables``."""
    types: dict[str, set[str]] = {}
    for t in tables:
        for f in t.schema:
            if not pa.types.is_null(f.type):
                types.setdefault(f.name, set()).add(str(f.type))
    return {name for name, ts in types.items() if len(ts) > 1}


def _as_text(table: pa.Table, names: set[str]) -> pa.Table:
    for name in names & set(table.column_names):
        i = table.column_names.index(name)
        text = [None if v is None else str(v) for v in table.column(name).to_pylist()]
        table = table.set_column(i, name, pa.array(text, pa.string()))
    return table


def keyed(table: pa.Table, key: str) -> pa.Table:
    """``table`` with a first column ``run_key`` holding ``key``."""
    return table.add_column(0, "run_key", pa.array([key] * table.num_rows, pa.string()))


def newest(parts: Sequence[pa.Table]) -> pa.Table:
    """``parts`` concatenated, keeping for each ``run_key`` only the rows of the
    last part that holds it (parts come oldest first: a run stored again, a
    failed run retried, or run files left beside their compacted copy)."""
    table = concat(parts)
    if "run_key" not in table.column_names or len(parts) < 2:
        return table
    origin = np.repeat(np.arange(len(parts)), [p.num_rows for p in parts])
    keys = table.column("run_key").combine_chunks()
    codes = pc.dictionary_encode(keys).indices.to_numpy(zero_copy_only=False)
    last = np.full(codes.max(initial=-1) + 1, -1)
    np.maximum.at(last, codes, origin)
    keep = last[codes] == origin
    return table if keep.all() else table.filter(pa.array(keep))


__all__ = ["concat", "keyed", "newest"]
