"""Reading a large results store back: ``tcpair.load_results`` of a million runs.

A real sweep of SAMPLE runs (0.01 s simulated each) gives the rows; they are
repeated, each copy with its own run key, seed and scenario text, up to RUNS
runs and committed through the store as a sweep commits them (groups of 256
runs). Then, timed: ``load_results`` of the store as a killed sweep leaves it
(one file per group), the compaction a finished sweep ends with, and
``load_results`` of the compacted store. Usage::

    python3 benches/store_read.py [--runs 1000000] [--sample 1000] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

import tcpair
import tcpair.sweeper.runner
from tcpair.results.store import Store
from tcpair.sweeper.commit import GROUP_RUNS

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "clrp_one_link.toml"


def sample_rows(n: int, out: Path) -> pa.Table:
    """The stored rows of ``n`` real runs (one flow each), scenario text included."""
    sweep = {
        "name": "read",
        "scenario": str(SCENARIO),
        "seeds": max(1, n // 5),
        "set": {"run.duration": 0.01},
        "axis": [
            {
                "name": "p",
                "param": "links.wireless.forward.loss.p",
                "values": [0.0, 0.01, 0.02, 0.05, 0.1],
            }
        ],
    }
    tcpair.sweep(sweep, out, jobs=2, progress=False)
    return Store(out)._load_arrow()


def copies(sample: pa.Table, start: int, n: int) -> pa.Table:
    """Runs ``start .. start + n`` of the synthetic store: sample rows, new identities."""
    idx = pa.array([i % sample.num_rows for i in range(start, start + n)])
    t = sample.take(idx)
    ids = [str(i) for i in range(start, start + n)]
    keys = [hashlib.sha256(s.encode()).hexdigest() for s in ids]
    t = t.set_column(t.column_names.index("run_key"), "run_key", pa.array(keys))
    seeds = pa.array(range(start, start + n), pa.int64())
    t = t.set_column(t.column_names.index("seed"), "seed", seeds)
    scen = pc.binary_join_element_wise(t.column("scenario"), pa.array(ids), "")
    return t.set_column(t.column_names.index("scenario"), "scenario", scen)


def timed(what: str, fn):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn()
    print(f"{what}: {time.perf_counter() - t:.2f} s")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1_000_000)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path("/tmp/tcpair-store-read"))
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    sample = sample_rows(a.sample, a.out / "sample")
    store = Store(a.out / "big")
    store.root.mkdir(parents=True)
    shutil.copy(a.out / "sample" / "sweep.json", store.root / "sweep.json")
    t = time.perf_counter()
    with store.writer():
        for start in range(0, a.runs, GROUP_RUNS):
            store.put_group(copies(sample, start, min(GROUP_RUNS, a.runs - start)), {})
    print(f"{a.runs:,} runs committed in groups of {GROUP_RUNS}: {time.perf_counter() - t:.1f} s")
    files = len(list(store.runs_dir.glob("*.parquet")))
    df = timed(f"load_results, {files:,} group files", lambda: tcpair.load_results(store.root))
    mib = df.memory_usage().sum() / 2**20
    print(f"  {len(df):,} rows x {len(df.columns)} columns, {mib:,.0f} MiB")
    with Store(store.root).writer() as w:
        timed("compaction into runs.parquet", w.compact)
    size = (store.root / "runs.parquet").stat().st_size
    print(f"  runs.parquet: {size / 2**20:,.0f} MiB")
    df = timed("load_results, compacted", lambda: tcpair.load_results(store.root))
    timed("Store.status (resume's look-up)", Store(store.root).status)
    timed("tcpair store check", Store(store.root).check)
    assert len(df) == a.runs and df["run_key"].is_unique


if __name__ == "__main__":
    main()
