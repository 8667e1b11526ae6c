"""What the sweep machinery costs per run beyond the simulation.

500 runs of 1 simulated second (well under 1 ms of simulation each) into a
fresh store, then the same sweep again (everything stored: pure resume cost),
then ``tcpair.load_results``. Usage::

    python3 benches/sweep_overhead.py [JOBS] [STORE_DIR]
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import tcpair

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "clrp_one_link.toml"


def main() -> None:
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else None
    store = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/tmp/tcpair-sweep-overhead")
    sweep = {
        "name": "overhead",
        "scenario": str(SCENARIO),
        "seeds": 100,
        "set": {"run.duration": 1.0},
        "axis": [
            {
                "name": "p",
                "param": "links.wireless.forward.loss.p",
                "values": [0.0, 0.01, 0.02, 0.05, 0.1],
            }
        ],
    }
    shutil.rmtree(store, ignore_errors=True)
    t = time.perf_counter()
    res = tcpair.sweep(sweep, store, jobs=jobs, progress=False)
    dt = time.perf_counter() - t
    n = res.stats[0].executed
    print(f"jobs={jobs}: {n} runs in {dt:.2f} s = {n / dt:.0f} runs/s, {1000 * dt / n:.1f} ms/run")
    t = time.perf_counter()
    tcpair.sweep(sweep, store, jobs=jobs, progress=False)
    print(f"resume, all stored: {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    df = tcpair.load_results(store)
    print(f"load_results, {len(df)} rows: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
