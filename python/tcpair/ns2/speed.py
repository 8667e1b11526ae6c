"""Whole-process speed of tcpair against ns-2.35 on the same scenarios, paired.

Each case is run as two processes, ``tcpair run FILE --json`` (what a user
waits for: interpreter start, imports, the run, the tables) and ``ns SCRIPT``,
in alternation A B A B ... so that a change of machine load falls on both. The
ratio of each pair (ns-2 time / tcpair time) is kept; the report gives the two
medians, the median ratio and its spread (min, max), the core's own loop
time (``wall_s`` of the run's JSON) beside the whole process, and the start of
the same interpreter doing nothing (``python -c pass``, timed in each pair): the
floor under tcpair's whole-process time on that machine.

Given the core's own command (``tcpair-sim``: installed by ``cargo install
--locked --path crates/tcpair-core``, or built by ``cargo build --release --bin
tcpair-sim``), each pair also times it on the same scenario file with
``--summary``: the same run and the same flows and summary as ``tcpair run
--json``, without the interpreter and its imports. Its ratio says how much of the
gap to ns-2 is the simulation and how much the Python command around it.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcpair.ns2 import Ns2Missing, missing_message, ns_binary, ns_command
from tcpair.simulate.core_program import CoreBinaryFailed, core_binary_failed


@dataclass(frozen=True)
class Case:
    """One scenario in both simulators."""

    name: str
    what: str
    scenario: Callable[[], dict[str, Any]]
    ns2_script: str
    ns2_args: tuple[Any, ...]


def _one_link(variant: str, p: float, duration: float, bs: str = "") -> dict[str, Any]:
    from tcpair.ns2 import Point, one_link_overrides
    from tcpair.simulate.result import prepare

    ov = one_link_overrides(Point(variant, p, 30, limited_transmit=False, bs=bs), duration)
    return dict(prepare("clrp_one_link", overrides=ov, seed=1))


def dumbbell_scenario(n: int, bandwidth_mb: float, queue: int, duration: float) -> dict[str, Any]:
    """tcpair's side of ``dumbbell.tcl``: the same nodes, links and flows."""
    nodes = [{"name": "r1"}, {"name": "r2"}]
    links = [_link("bottleneck", "r1", "r2", f"{bandwidth_mb:g}Mb", "10ms", queue)]
    flows = []
    for i in range(n):
        nodes += [{"name": f"s{i}"}, {"name": f"d{i}"}]
        links += [
            _link(f"s{i}-r1", f"s{i}", "r1", "10Mb", "1ms", 50),
            _link(f"r2-d{i}", "r2", f"d{i}", "10Mb", "1ms", 50),
        ]
        flows.append(
            {"name": f"f{i}", "src": f"s{i}", "dst": f"d{i}", "variant": "reno",
             "packet_size": 1000, "window": 30}
        )
    return {
        "description": f"{n} Reno flows over a {bandwidth_mb:g} Mb/s dumbbell (speed comparison)",
        "run": {"duration": duration, "seed": 1},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }


def _link(name: str, a: str, b: str, bw: str, delay: str, queue: int) -> dict[str, Any]:
    return {"name": name, "from": a, "to": b, "bandwidth": bw, "delay": delay, "queue": queue}


BENCH_CASES: tuple[Case, ...] = (
    Case("reno_p0.01", "one-link path, Reno, p = 0.01, 3000 s",
         lambda: _one_link("reno", 0.01, 3000.0), "one_link.tcl",
         ("reno", 0.01, 30, 50, 3000.0, 1, 0)),
    Case("reno_p0.05", "one-link path, Reno, p = 0.05, 3000 s",
         lambda: _one_link("reno", 0.05, 3000.0), "one_link.tcl",
         ("reno", 0.05, 30, 50, 3000.0, 1, 0)),
    # ns-2's Snoop (LL/LLSnoop on a two-node LAN) against tcpair's snoop_ns2, the mode
    # that behaves as ns-2's does (docs/validation.md).
    Case("snoop_ns2_p0.05", "one-link path, Reno + ns-2's Snoop, p = 0.05, 3000 s",
         lambda: _one_link("reno", 0.05, 3000.0, bs="snoop_ns2"), "snoop_lan.tcl",
         ("reno", 0.05, 30, 50, 3000.0, 1, 0, 1)),
    Case("dumbbell_100", "100 Reno flows, 100 Mb/s dumbbell, 60 s",
         lambda: dumbbell_scenario(100, 100.0, 100, 60.0), "dumbbell.tcl",
         (100, 100, 100, 60.0, 1)),
)


def _timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed: {proc.stderr.strip()[:300]}")
    return wall, proc.stdout


def bench_case(
    case: Case, pairs: int, workdir: Path, core_binary: Path | None = None
) -> dict[str, Any]:
    """Time ``pairs`` alternating pairs of whole processes for one case (and the
    core's own program beside them, if given)."""
    from tcpair.base.tomlout import dumps

    scenario = case.scenario()
    path = workdir / f"{case.name}.toml"
    path.write_text(dumps(scenario))
    ours_cmd = [sys.executable, "-m", "tcpair", "run", str(path), "--json"]
    theirs_cmd = ns_command(case.ns2_script, case.ns2_args)
    start_cmd = [sys.executable, "-c", "pass"]
    alone_cmd = None
    if core_binary is not None:  # the same file, the same way a user would run it
        alone_cmd = [str(core_binary), "--summary", str(path)]
    # One untimed run of each first: the files each process reads are then in
    # the page cache for every timed pair, not the first alone, and a Python
    # that may cache bytecode has cached tcpair's (as an installed package has).
    _timed(ours_cmd)
    _timed(theirs_cmd)
    if alone_cmd is not None:
        _core_alone(alone_cmd, case.name)
    ours, theirs, core, start, alone = [], [], [], [], []
    for _ in range(pairs):
        wall, out = _timed(ours_cmd)
        ours.append(wall)
        core.append(float(json.loads(out)["wall_s"]))
        theirs.append(_timed(theirs_cmd)[0])
        start.append(_timed(start_cmd)[0])
        if alone_cmd is not None:
            alone.append(_core_alone(alone_cmd, case.name))
    row = {
        "case": case.name,
        "what": case.what,
        "pairs": pairs,
        "tcpair_s": statistics.median(ours),
        "tcpair_core_s": statistics.median(core),
        "python_start_s": statistics.median(start),
        "ns2_s": statistics.median(theirs),
        **_ratios("ratio", ours, theirs),
        "bytecode_cached": bytecode_cached(),
    }
    if alone:
        row.update(core_alone_s=statistics.median(alone), **_ratios("core_ratio", alone, theirs))
    return row


def _ratios(prefix: str, ours: list[float], theirs: list[float]) -> dict[str, float]:
    """The median, least and largest of ns-2's time over ours, pair by pair."""
    ratios = [b / a for a, b in zip(ours, theirs, strict=True)]
    return {
        f"{prefix}_median": statistics.median(ratios),
        f"{prefix}_min": min(ratios),
        f"{prefix}_max": max(ratios),
    }


def _core_alone(cmd: list[str], case: str) -> float:
    """One whole process of the core's own program; its failure in the user's terms."""
    try:
        wall, out = _timed(cmd)
    except OSError as e:
        raise core_binary_failed(cmd[0], f"case {case}", e.strerror or str(e)) from None
    except RuntimeError as e:
        raise core_binary_failed(cmd[0], f"case {case}", str(e)) from None
    try:
        json.loads(out)["summary"]["events"]
    except (ValueError, KeyError, TypeError):
        why = "its output is not the JSON answer of tcpair-sim --summary"
        raise core_binary_failed(cmd[0], f"case {case}", why) from None
    return wall


def bytecode_cached() -> bool:
    """Whether tcpair's modules load from cached bytecode. They do not in an
    editable install run with ``PYTHONDONTWRITEBYTECODE`` set: each ``tcpair``
    process then compiles the modules of its run path first (about 7 ms on the
    machine of docs/performance.md), which an installed package never does
    (``pip install`` compiles them once)."""
    import importlib.util

    # Found, not imported: the command line sits above this module.
    spec = importlib.util.find_spec("tcpair.cli.main")
    origin = spec.origin if spec else None
    return origin is not None and Path(importlib.util.cache_from_source(origin)).exists()


def bench_vs_ns2(
    pairs: int = 10,
    cases: Iterable[Case] = BENCH_CASES,
    progress: Callable[[str], None] | None = None,
    core_binary: str | Path | None = None,
) -> list[dict[str, Any]]:
    """Every case's paired timings (see the module doc); raises Ns2Missing without ns,
    and CoreBinaryFailed when ``core_binary`` is given and does not run a case."""
    if ns_binary() is None:
        raise Ns2Missing(missing_message())
    binary = None if core_binary is None else Path(core_binary).resolve()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tcpair-vs-ns2-") as tmp:
        for case in cases:
            if progress:
                progress(case.name)
            rows.append(bench_case(case, pairs, Path(tmp), binary))
    return rows


__all__ = [
    "BENCH_CASES",
    "Case",
    "CoreBinaryFailed",
    "bench_case",
    "bench_vs_ns2",
    "bytecode_cached",
    "dumbbell_scenario",
]
