"""What the sweep machinery costs per run beyond the simulation: stored runs per second.

A sweep of RUNS runs of DURATION simulated seconds each (0.01 s: a fraction of
a millisecond of simulation, so the store and the round trips are what is
measured) into a fresh store, then the same sweep again (everything stored:
pure resume cost), then ``tcpair.load_results``. Imports are done, and a Dask
cluster is started, before the clock starts (a local pool starts its workers
inside the timed sweep, as every sweep does). Usage::

    python3 benches/sweep_overhead.py [--jobs N] [--runs N] [--duration S] [--out DIR]
    python3 benches/sweep_overhead.py --dask-local 2     # a local Dask cluster instead
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import tcpair
import tcpair.evidence.stats  # imported here, not inside the timed sweep
from tcpair.sweeper.backends import make_backend
from tcpair.sweeper.runner import run_sweep

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "clrp_one_link.toml"
LOSS = [0.0, 0.01, 0.02, 0.05, 0.1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="local pool workers (1: in process)")
    ap.add_argument("--dask-local", type=int, default=None, help="a local Dask cluster instead")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler's address instead")
    ap.add_argument("--runs", type=int, default=5000, help="runs (a multiple of 5)")
    ap.add_argument("--duration", type=float, default=0.01, help="simulated seconds per run")
    ap.add_argument("--out", type=Path, default=Path("/tmp/tcpair-sweep-overhead"))
    a = ap.parse_args()
    sweep = {
        "name": "overhead",
        "scenario": str(SCENARIO),
        "seeds": max(1, a.runs // len(LOSS)),
        "set": {"run.duration": a.duration},
        "axis": [{"name": "p", "param": "links.wireless.forward.loss.p", "values": LOSS}],
    }
    t = time.perf_counter()
    if a.dask_local or a.scheduler:  # a cluster is started once, before its sweeps
        backend = make_backend(scheduler=a.scheduler, dask_local=a.dask_local)
        print(f"{backend.describe()}: started in {time.perf_counter() - t:.2f} s")
    else:  # the pool's workers start inside the timed sweep
        backend = make_backend(jobs=a.jobs)
    shutil.rmtree(a.out, ignore_errors=True)
    t = time.perf_counter()
    res = run_sweep(sweep, a.out, backend=backend, progress=False)
    dt = time.perf_counter() - t
    n = res.stats[0].executed
    where = f"dask-local={a.dask_local}" if a.dask_local else a.scheduler or f"jobs={a.jobs}"
    print(
        f"{where}: {n} runs of {a.duration} s in {dt:.2f} s = {n / dt:,.0f} stored runs/s, "
        f"{1000 * dt / n:.2f} ms/run"
    )
    t = time.perf_counter()
    run_sweep(sweep, a.out, backend=backend, progress=False)
    print(f"resume, all stored: {time.perf_counter() - t:.2f} s")
    backend.close()
    t = time.perf_counter()
    df = tcpair.load_results(a.out)
    print(f"load_results, {len(df)} rows: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
