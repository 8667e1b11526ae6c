"""Many flows through one base station: the scenario generator and its benchmark
(docs/performance.md, "Many flows").

:func:`flows_scenario` builds N concurrent bulk TCP flows, each from its own
wired sender (10 Mb/s) through one base station to its own mobile host over a
2 Mb/s wireless hop with uniform loss; the wired delays spread the base round
trips evenly over 20-200 ms so the flows are not in phase. :func:`bench_flows`
runs it for several N and base-station schemes, each run in a fresh process so
that its peak memory is its own, and reports wall time, peak resident memory,
events per second and delivered data packets per second.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Any

from tcpair._errors import ScenarioError

RTT_MIN_S = 0.020
RTT_MAX_S = 0.200
SCHEMES = ("reno", "snoop", "eln_snoop", "syndrome", "clrp")


def flows_scenario(
    n: int,
    scheme: str = "reno",
    *,
    duration: float = 60.0,
    loss: float = 0.01,
    seed: int = 1,
    tables: bool = True,
) -> dict[str, Any]:
    """N flows s_i -> bs -> m_i; ``scheme`` is ``reno`` (no BS agent) or a BS agent's name.

    Flow i's wired one-way delay is chosen so that its base RTT is
    ``20 ms + 180 ms * i / max(n - 1, 1)``; windows are 30 packets of 1000 bytes.
    With ``tables=False`` the run keeps neither the ``drops`` nor the
    ``recoveries`` table (``output.drops`` and ``output.recoveries`` false: a
    row per lost packet and per recovery, about 1.5 GB at 10,000 flows and 60 s).
    """
    if not isinstance(n, int) or n < 1:
        raise ScenarioError(f"flows: a positive number of flows is needed, got {n!r}")
    if scheme not in SCHEMES:
        raise ScenarioError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    bs_agents = [] if scheme == "reno" else [scheme]
    nodes: list[dict[str, Any]] = [{"name": "bs", "kind": "router", "bs": bs_agents}]
    links: list[dict[str, Any]] = []
    flows: list[dict[str, Any]] = []
    for i in range(n):
        rtt = RTT_MIN_S + (RTT_MAX_S - RTT_MIN_S) * i / max(n - 1, 1)
        nodes += [{"name": f"s{i}"}, {"name": f"m{i}"}]
        links.append(_link(f"w{i}", f"s{i}", "bs", "10Mb", rtt / 2, "wired", None))
        links.append(_link(f"r{i}", "bs", f"m{i}", "2Mb", 64e-6, "wireless", loss))
        flow: dict[str, Any] = {
            "name": f"f{i}", "src": f"s{i}", "dst": f"m{i}", "variant": "reno",
            "packet_size": 1000, "window": 30,
        }
        if scheme == "eln_snoop":
            flow["tcp"] = {"detector": "eln"}
        elif scheme == "syndrome":
            flow["tcp"] = {"eln": True}
            flow["sink"] = {"syndrome": True}
        elif scheme == "clrp":
            flow["sink"] = {"clrp": True}
        flows.append(flow)
    return {
        "description": f"{n} Reno flows through one base station ({scheme}), mixed RTTs",
        "run": {"duration": float(duration), "seed": int(seed)},
        "output": {"drops": bool(tables), "recoveries": bool(tables)},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }


def _link(
    name: str, a: str, b: str, bw: str, delay_s: float, kind: str, loss: float | None
) -> dict[str, Any]:
    link: dict[str, Any] = {
        "name": name, "from": a, "to": b, "bandwidth": bw, "delay": delay_s,
        "queue": 50, "kind": kind,
    }
    if loss is not None:
        link["forward"] = {"loss": {"model": "uniform", "p": float(loss)}}
    return link


_CHILD = r"""
import json, resource, sys, time
from tcpair.api import run_json
from tcpair.scale import flows_scenario
n, scheme, duration = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
tables = sys.argv[4] == "1"
t0 = time.perf_counter()
res = run_json(flows_scenario(n, scheme, duration=duration, tables=tables))
wall = time.perf_counter() - t0
s = res["summary"]
print(json.dumps({
    "wall_s": wall, "loop_s": s["wall_s"], "events": s["events"],
    "delivered": s["delivered_data_packets"],
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
}))
"""


def bench_one(
    n: int, scheme: str, duration: float, timeout_s: float = 3600.0, tables: bool = True
) -> dict[str, Any]:
    """One run in a fresh interpreter: its wall time from the scenario to the decoded
    result, the core's loop time (``outside_loop_s`` is the rest: building the
    simulation, validating, encoding the tables), and the process's peak RSS,
    which includes the interpreter and its imports (about 17 MiB)."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(n), scheme, repr(float(duration)), str(int(tables))],
        capture_output=True, text=True, timeout=timeout_s, check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"flows={n} scheme={scheme}: {proc.stderr.strip()[-400:]}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    r.update(
        flows=n,
        scheme=scheme,
        duration_s=duration,
        tables=tables,
        outside_loop_s=r["wall_s"] - r["loop_s"],
        events_per_s=r["events"] / r["loop_s"] if r["loop_s"] > 0 else float("nan"),
        delivered_per_s=r["delivered"] / r["loop_s"] if r["loop_s"] > 0 else float("nan"),
        us_per_delivered=1e6 * r["loop_s"] / r["delivered"] if r["delivered"] else float("nan"),
    )
    return r


def bench_flows(
    ns: Iterable[int],
    schemes: Iterable[str] = ("reno", "snoop"),
    duration: float = 60.0,
    progress: Callable[[int, str], None] | None = None,
    tables: bool = True,
) -> list[dict[str, Any]]:
    """:func:`bench_one` for every N x scheme, in order, each with ``setup_s``: the
    wall time of the same scenario run for 1 ms (nearly all of it building the
    simulation and encoding its result)."""
    rows = []
    for scheme in schemes:
        for n in ns:
            if progress:
                progress(n, scheme)
            r = bench_one(n, scheme, duration, tables=tables)
            r["setup_s"] = bench_one(n, scheme, 0.001, tables=tables)["wall_s"]
            rows.append(r)
    return rows


__all__ = ["SCHEMES", "bench_flows", "bench_one", "flows_scenario"]
