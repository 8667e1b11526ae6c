"""Property test of the results store: whatever the order of writes, compactions
and interrupted compactions, loading sees each run once, in its newest version."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpair.results.store import Store

KEYS = [f"k{i}" for i in range(5)]

op = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(KEYS), st.integers(1, 3)),
    st.tuples(st.just("compact")),
    st.tuples(st.just("crash_after_compact_write")),
    st.tuples(st.just("failed_put"), st.sampled_from(KEYS)),
)


def rows(key: str, version: int, flows: int, status: str = "ok") -> pa.Table:
    return pa.Table.from_pylist(
        [
            {"run_key": key, "status": status, "version": version, "flow": f"f{i}"}
            for i in range(flows)
        ]
        if status == "ok"
        else [{"run_key": key, "status": status, "error": "boom"}]
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(op, max_size=25))
def test_store_sees_each_run_once_newest_first(ops: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "s")
        model: dict[str, tuple[str, int, int]] = {}  # key -> (status, version, flows)
        version = 0
        with store.writer():
            for o in ops:
                if o[0] == "put":
                    version += 1
                    store.put(o[1], rows(o[1], version, o[2]), {})
                    model[o[1]] = ("ok", version, o[2])
                elif o[0] == "failed_put":
                    store.put(o[1], rows(o[1], 0, 1, "failed"), {})
                    model[o[1]] = ("failed", 0, 1)
                elif o[0] == "compact":
                    store.compact()
                else:
                    # Crash between writing runs.parquet and deleting the run
                    # files: compact, then put the run files back.
                    files = {p.stem: pq.read_table(p) for p in store.runs_dir.glob("*.parquet")}
                    store.compact()
                    for key, table in files.items():
                        pq.write_table(table, store.runs_dir / f"{key}.parquet")
            df = store.load()
        assert store.status() == {k: v[0] for k, v in model.items()}
        if not model:
            assert df.empty
            return
        for key, (status, ver, flows) in model.items():
            got = df[df["run_key"] == key]
            assert len(got) == flows
            assert set(got["status"]) == {status}
            if status == "ok":
                assert set(got["version"]) == {ver}


def test_a_kept_table_reads_the_same_whatever_order_its_runs_were_stored_in() -> None:
    """Workers finish runs in any order; a kept table is read by run key, each run's
    rows in their own order (reports built from it are then the same files)."""
    runs = {k: pa.table({"t": [3.0, 1.0, 2.0], "v": [i, i + 1, i + 2]}) for i, k in enumerate(KEYS)}
    loaded = []
    for order in (KEYS, KEYS[::-1], KEYS[2:] + KEYS[:2]):
        with tempfile.TemporaryDirectory() as d:
            store = Store(Path(d) / "s")
            with store.writer():
                for k in order:
                    store.put(k, rows(k, 1, 1), {"timeseries": runs[k]})
            loaded.append(store.load_table("timeseries"))
    assert loaded[0]["run_key"].tolist() == [k for k in sorted(KEYS) for _ in range(3)]
    assert loaded[0].loc[loaded[0]["run_key"] == "k1", "t"].tolist() == [3.0, 1.0, 2.0]
    for other in loaded[1:]:
        assert other.equals(loaded[0])
