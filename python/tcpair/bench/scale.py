"""Many flows through one base station: the benchmark (docs/performance.md, "Many
flows") of the scenario :func:`tcpair.bench.flows.flows_scenario` builds.

:func:`bench_flows` runs it for several N and base-station schemes, each run in
a fresh process so that its peak memory is its own, and reports wall time, peak
resident memory, events per second, delivered data packets per second and the
state the base station's agent held (peak and time-average packets and bytes,
per connection and in total).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tcpair._errors import SimulationError
from tcpair.bench.flows import LOSS_MODELS, SCHEMES, flows_scenario
from tcpair.bench.memory import beyond_kept_kib_per_flow, run_kib_per_flow
from tcpair.simulate.core_program import CoreBinaryFailed, core_binary_failed

_CHILD = r"""
import json, sys, time
from tcpair.simulate.result import run_json
from tcpair.bench.flows import flows_scenario
from tcpair.bench.memory import kept_mib, own_peak_rss_mib, own_rss_mib
from tcpair.bench.scale import bs_state_summary
n, scheme, duration = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
tables, loss_model, loss = sys.argv[4] == "1", sys.argv[5], float(sys.argv[6])
sc = flows_scenario(n, scheme, duration=duration, tables=tables, loss=loss,
                    loss_model=loss_model)
if len(sys.argv) > 7:  # the scenario for the core's own program, written here
    with open(sys.argv[7], "w") as f:
        json.dump(sc, f)
before = own_rss_mib()  # the interpreter, its imports and the caller's scenario
t0 = time.perf_counter()
res = run_json(sc)
wall = time.perf_counter() - t0
s = res["summary"]
print(json.dumps({
    "wall_s": wall, "loop_s": s["wall_s"], "events": s["events"],
    "delivered": s["delivered_data_packets"],
    "peak_rss_mib": own_peak_rss_mib(), "rss_before_mib": before,
    "kept_mib": kept_mib(res),
    **bs_state_summary(res.get("bs_state") or {}),
}))
"""


STATE_KEYS = (
    "bs_pkts_peak", "bs_pkts_mean", "bs_bytes_peak", "bs_bytes_mean",
    "conn_pkts_peak", "conn_pkts_mean", "conn_bytes_peak", "conn_bytes_mean",
)


def bs_state_summary(table: dict[str, list[Any]]) -> dict[str, float | None]:
    """The base station's state from a run's ``bs_state`` table (columns as lists):
    ``bs_*`` the agents' total (peak, and mean over time), ``conn_*`` per connection
    (the largest peak of any connection, and the mean over connections of their
    time-averages). None without an agent (plain Reno)."""
    flows = table.get("flow") or []
    if not flows:
        return dict.fromkeys(STATE_KEYS)
    rows = [
        {k: table[k][i] for k in ("pkts_peak", "pkts_mean", "bytes_peak", "bytes_mean")}
        for i in range(len(flows))
    ]
    total = [r for f, r in zip(flows, rows, strict=True) if f == "total"]
    conns = [r for f, r in zip(flows, rows, strict=True) if f != "total"]
    out: dict[str, float | None] = {}
    for what in ("pkts", "bytes"):
        out[f"bs_{what}_peak"] = float(sum(r[f"{what}_peak"] for r in total))
        out[f"bs_{what}_mean"] = float(sum(r[f"{what}_mean"] for r in total))
        out[f"conn_{what}_peak"] = float(max((r[f"{what}_peak"] for r in conns), default=0))
        out[f"conn_{what}_mean"] = (
            float(sum(r[f"{what}_mean"] for r in conns) / len(conns)) if conns else 0.0
        )
    return out


def bench_one(
    n: int,
    scheme: str,
    duration: float,
    timeout_s: float = 3600.0,
    tables: bool = True,
    loss_model: str = "uniform",
    loss: float = 0.01,
    core_binary: str | Path | None = None,
) -> dict[str, Any]:
    """One run in a fresh interpreter: its wall time from the scenario to the decoded
    result, the core's loop time (``outside_loop_s`` is the rest: building the
    simulation, validating, encoding the tables), the process's peak RSS, which
    includes the interpreter and its imports (about 17 MiB), and the base station's
    state (:func:`bs_state_summary`). Given ``core_binary`` (``tcpair-sim``), the same
    scenario also runs in the core's own program, without Python: its wall time and
    peak RSS as ``core_wall_s`` and ``core_peak_rss_mib`` (:func:`core_one`)."""
    from tcpair.simulate.binding import validate

    # Bad input (a scheme, a loss, a duration) fails here, in the core's words,
    # rather than in the child.
    validate(flows_scenario(1, scheme, duration=duration, tables=tables, loss=loss,
                            loss_model=loss_model))
    with tempfile.TemporaryDirectory(prefix="tcpair-scale-") as tmp:
        # The child writes the scenario for the core's program: this process never
        # holds a large one (its memory would be counted in a child forked later).
        scenario = Path(tmp) / "scenario.json"
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, str(n), scheme, repr(float(duration)),
             str(int(tables)), loss_model, repr(float(loss)),
             *([str(scenario)] if core_binary is not None else [])],
            capture_output=True, text=True, timeout=timeout_s, check=False,
        )
        if proc.returncode != 0:
            raise SimulationError(f"{n:,} {scheme} flows: {_child_failure(proc)}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        if core_binary is not None:
            r.update(core_one(core_binary, scenario, f"{n:,} {scheme} flows", r, timeout_s))
    r.update(
        flows=n,
        scheme=scheme,
        duration_s=duration,
        tables=tables,
        loss_model=loss_model,
        loss=loss,
        outside_loop_s=r["wall_s"] - r["loop_s"],
        events_per_s=r["events"] / r["loop_s"] if r["loop_s"] > 0 else float("nan"),
        delivered_per_s=r["delivered"] / r["loop_s"] if r["loop_s"] > 0 else float("nan"),
        us_per_delivered=1e6 * r["loop_s"] / r["delivered"] if r["delivered"] else float("nan"),
    )
    r["run_kib_per_flow"] = run_kib_per_flow(r)
    r["beyond_kept_kib_per_flow"] = beyond_kept_kib_per_flow(r)
    return r


def core_one(
    binary: str | Path, scenario: Path, what: str, expect: dict[str, Any],
    timeout_s: float = 3600.0,
) -> dict[str, float]:
    """The scenario in JSON file ``scenario`` run by the core's own program
    (``tcpair-sim --summary --peak-memory FILE``) in a process of its own: its wall
    time and the peak resident memory it reports of itself (Linux's ``VmHWM``; the
    ``wait4`` count of a child forked from this process would include this process's
    memory). Its answer must count the ``events`` and ``delivered`` of ``expect``,
    the same run through the Python API; else :class:`CoreBinaryFailed`."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(binary), "--summary", "--peak-memory", str(scenario)],
                              capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise core_binary_failed(binary, what, f"took over {timeout_s:g} s") from None
    except OSError as exc:
        raise core_binary_failed(binary, what, exc.strerror or str(exc)) from None
    wall = time.perf_counter() - t0
    err = proc.stderr.strip().splitlines()
    if proc.returncode != 0:
        raise core_binary_failed(
            binary, what, err[-1] if err else f"exit status {proc.returncode}")
    peak = [line.split("=", 1)[1] for line in err if line.startswith("peak_rss_kib=")]
    try:
        s = json.loads(proc.stdout)["summary"]
        kib = int(peak[-1])
    except (ValueError, KeyError, TypeError, IndexError):
        raise core_binary_failed(
            binary, what, "its output is not the answer of tcpair-sim --summary --peak-memory"
        ) from None
    got = (s.get("events"), s.get("delivered_data_packets"))
    if got != (expect["events"], expect["delivered"]):
        raise core_binary_failed(
            binary, what, f"its answer counts {got[0]} events and {got[1]} delivered packets "
            f"where the Python API counted {expect['events']} and {expect['delivered']}"
        )
    return {"core_wall_s": wall, "core_peak_rss_mib": kib / 1024.0}


def _child_failure(proc: subprocess.CompletedProcess[str]) -> str:
    """Why a run's process failed. A Python error ends with its message (the
    last line written); a process ended by a signal says why first, if at all:
    an allocation the system refuses aborts the core (SIGABRT) after "memory
    allocation of N bytes failed", and the kernel's out-of-memory killer
    sends SIGKILL, which leaves nothing written."""
    lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode).name
        hint = " (the system may have run out of memory)" if sig == "SIGKILL" else ""
        why = f": {lines[0]}" if lines else ""
        return f"the run's process was ended by {sig}{hint}{why}"
    return lines[-1] if lines else f"the run's process exited with status {proc.returncode}"


def bench_flows(
    ns: Iterable[int],
    schemes: Iterable[str] = ("reno", "snoop"),
    duration: float = 60.0,
    progress: Callable[[int, str, int], None] | None = None,
    tables: bool = True,
    loss_model: str = "uniform",
    loss: float = 0.01,
    passes: int = 1,
    within_s: float | None = None,
    core_binary: str | Path | None = None,
) -> list[dict[str, Any]]:
    """:func:`bench_one` for every N x scheme, each with ``setup_s``: the wall time of
    the same scenario run for 1 ms (nearly all of it building the simulation and
    encoding its result).

    With ``passes`` > 1 every N x scheme runs that many times, pass after pass (each
    pass runs them all in order, so that a drift of the machine's speed falls on every
    scheme alike), and each row is the pass of median wall time (the lower middle one
    for an even count) with every pass's wall time beside it (:func:`merge_passes`).
    ``progress`` is told (N, scheme, pass), passes counted from 1. ``core_binary``: each
    run also in the core's own program (:func:`bench_one`)."""
    from tcpair.simulate.binding import validate

    ns, schemes = list(ns), list(schemes)
    kw: dict[str, Any] = {"tables": tables, "loss_model": loss_model, "loss": loss}
    for scheme in schemes:  # every input checked before the first run (and its progress line)
        validate(flows_scenario(1, scheme, duration=duration, **kw))
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for k in range(1, passes + 1):
        for scheme in schemes:
            for n in ns:
                if progress:
                    progress(n, scheme, k)
                runs.setdefault((scheme, n), []).append(
                    bench_one(n, scheme, duration, core_binary=core_binary, **kw))
    rows = []
    for scheme in schemes:
        for n in ns:
            r = merge_passes(runs[(scheme, n)], within_s)
            r["setup_s"] = bench_one(n, scheme, 0.001, **kw)["wall_s"]
            rows.append(r)
    return rows


def merge_passes(runs: list[dict[str, Any]], within_s: float | None = None) -> dict[str, Any]:
    """One row for several passes of the same N x scheme: the pass of median wall time,
    with ``passes``, every pass's wall time in order (``wall_s_passes``), their
    ``wall_s_min`` and ``wall_s_max``, the largest peak memory of any pass and, given
    ``within_s``, how many passes took at most that long (``passes_within``). The
    passes simulate the same thing, so they must agree on every event: a difference is
    a determinism bug, reported as such."""
    first = runs[0]
    for r in runs[1:]:
        for key in ("events", "delivered", *STATE_KEYS):
            if r[key] != first[key]:
                raise RuntimeError(
                    f"flows={first['flows']} scheme={first['scheme']}: passes differ in "
                    f"{key} ({first[key]} against {r[key]}): the run is not deterministic"
                )
    walls = [r["wall_s"] for r in runs]
    row = dict(sorted(runs, key=lambda r: r["wall_s"])[(len(runs) - 1) // 2])
    row.update(
        passes=len(runs),
        wall_s_passes=walls,
        wall_s_min=min(walls),
        wall_s_max=max(walls),
        peak_rss_mib=max(r["peak_rss_mib"] for r in runs),
    )
    for key in ("run_kib_per_flow", "beyond_kept_kib_per_flow"):
        values = [r.get(key) for r in runs]
        row[key] = None if None in values else max(values)
    if "core_peak_rss_mib" in first:
        row["core_peak_rss_mib"] = max(r["core_peak_rss_mib"] for r in runs)
    if within_s is not None:
        row.update(within_s=within_s, passes_within=sum(w <= within_s for w in walls))
    return row


SAVED = "scale.json"
"""The file name under a compare-all sweep's directory whose rows (``tcpair bench --flows
... --save DIR/scale.json``) the compare-all report shows as its scale table."""


def scale_table(rows: Iterable[dict[str, Any]]) -> Any:
    """The rows of :func:`bench_flows` as the report's table: per scheme and N the
    simulator's wall time (of several passes: the median, with the fastest and the
    slowest) and peak memory and the base station's state."""
    import pandas as pd

    def num(v: Any, fmt: str) -> str:
        return "-" if v is None else format(v, fmt)

    rows = list(rows)
    spread = any(r.get("passes", 1) > 1 for r in rows)
    out = []
    for r in rows:
        passes = {
            "passes": r.get("passes", 1),
            "wall s fastest / slowest": f"{r.get('wall_s_min', r['wall_s']):.2f} / "
            f"{r.get('wall_s_max', r['wall_s']):.2f}",
        } if spread else {}
        out.append({
            "scheme": r["scheme"],
            "flows": r["flows"],
            "simulated s": r["duration_s"],
            "loss": f"{r.get('loss_model', 'uniform')} {r.get('loss', 0.01):g}",
            "wall s": round(r["wall_s"], 2),
            **passes,
            "peak RSS MiB": round(r["peak_rss_mib"]),
            "us per delivered": round(r["us_per_delivered"], 2),
            "BS packets peak / mean": f"{num(r.get('bs_pkts_peak'), ',.0f')} / "
            f"{num(r.get('bs_pkts_mean'), ',.1f')}",
            "BS KiB peak / mean": "-" if r.get("bs_bytes_peak") is None else
            f"{r['bs_bytes_peak'] / 1024:,.0f} / {r['bs_bytes_mean'] / 1024:,.1f}",
            "per connection packets peak / mean": f"{num(r.get('conn_pkts_peak'), ',.0f')} / "
            f"{num(r.get('conn_pkts_mean'), ',.2f')}",
        })
    return pd.DataFrame(out)


__all__ = [
    "LOSS_MODELS",
    "SAVED",
    "SCHEMES",
    "STATE_KEYS",
    "CoreBinaryFailed",
    "bench_flows",
    "bench_one",
    "bs_state_summary",
    "core_one",
    "flows_scenario",
    "merge_passes",
    "scale_table",
]
