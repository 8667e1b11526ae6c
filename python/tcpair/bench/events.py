"""``tcpair bench``: events and delivered data packets per wall second on one
core, on the benchmark scenario (docs/performance.md). Wall time is measured
here, around the call into the core, so it includes parsing the scenario and
returning the result."""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from tcpair._errors import ScenarioError, require_core

BENCH_SCENARIO = "clrp_one_link"
BENCH_OVERRIDES = (
    'links.wireless.forward.loss={model="uniform", p=0.01}',
    "flows.tcp1.variant=reno",
)


def bench(duration: float = 3000.0, repeat: int = 3) -> dict[str, Any]:
    """Time ``_core.run`` on the benchmark scenario; wall time measured here, around the call."""
    from tcpair.base.paths import scenario_path
    from tcpair.simulate.result import prepare, to_json

    core = require_core()
    path = scenario_path(BENCH_SCENARIO, missing_ok=True)
    if path is None:
        raise ScenarioError(f"shipped scenario {BENCH_SCENARIO}.toml not found")
    sc = prepare(path, overrides=[*BENCH_OVERRIDES, f"run.duration={float(duration)!r}"])
    payload = to_json(sc)
    walls, loops, events, delivered = [], [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = json.loads(core.run(payload))
        walls.append(time.perf_counter() - t0)
        loops.append(res["summary"]["wall_s"])
        events.append(res["summary"]["events"])
        delivered.append(res["summary"]["delivered_data_packets"])
    ev_rate = [e / w for e, w in zip(events, walls, strict=True)]
    dl_rate = [d / w for d, w in zip(delivered, walls, strict=True)]
    loop_rate = [e / w for e, w in zip(events, loops, strict=True) if w > 0]
    limit = bare_heap_limit(core, events[0], repeat)
    return {
        "scenario": f"scenarios/{BENCH_SCENARIO}.toml",
        "setting": "uniform loss p=0.01 on wireless forward, reno",
        "duration_s": duration,
        "repeat": repeat,
        "events": events[0],
        "delivered_data_packets": delivered[0],
        "wall_s": {"best": min(walls), "median": statistics.median(walls)},
        "events_per_s": {"best": max(ev_rate), "median": statistics.median(ev_rate)},
        "delivered_per_s": {"best": max(dl_rate), "median": statistics.median(dl_rate)},
        "loop_events_per_s": _spread(loop_rate),
        "bare_heap": limit,
        "loop_vs_bare_heap": _ratio(loop_rate, limit),
    }


# Pending events in the bare heap: about what the benchmark scenario holds (a window
# of 30 packets and their ACKs on two hops, and a few timers).
BARE_HEAP_PENDING = 64


def bare_heap_limit(core: Any, events: int, repeat: int) -> dict[str, Any] | None:
    """The bare-heap limit on this machine, best of ``repeat``: the core's own event
    queue popping and rescheduling ``BARE_HEAP_PENDING`` events of the core's size,
    with nothing else to do, over as many events as the benchmark run processed.
    None for a core without it (a stand-in)."""
    limit = getattr(core, "bare_heap", None)
    if limit is None or events < 1:
        return None
    runs = [limit(events, BARE_HEAP_PENDING) for _ in range(repeat)]
    return {
        "events_per_s": max(rate for rate, _ in runs),
        "pending": BARE_HEAP_PENDING,
        "event_bytes": runs[0][1],
        "events": events,
    }


def _spread(rates: list[float]) -> dict[str, float] | None:
    return {"best": max(rates), "median": statistics.median(rates)} if rates else None


def _ratio(loop_rate: list[float], limit: dict[str, Any] | None) -> float | None:
    """The core loop's best events/s as a fraction of the bare heap's best."""
    if not loop_rate or limit is None:
        return None
    return max(loop_rate) / float(limit["events_per_s"])




# --- the regression guard ----------------------------------------------------------
# A stored baseline per kind of machine (CPU model and core count); a run well below
# it prints a warning. Benchmarks never fail the suite: a loaded machine can be slow.

GUARD_TOLERANCE = 0.5  # warn below half the baseline's median events/s


def machine_key() -> str:
    """CPU model and logical core count, e.g. ``AMD EPYC x 2``."""
    import os
    import platform

    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model or platform.processor() or platform.machine()} x {os.cpu_count()}"


def guard(report: dict[str, Any], baseline_file: str, record: bool = False) -> str:
    """Compare ``report``'s median events/s with the baseline for this machine.

    Returns one line for the user: the ratio and ``ok`` / ``WARNING``, or that no
    baseline exists for this machine. With ``record`` the report's median becomes
    this machine's baseline.
    """
    from pathlib import Path

    path = Path(baseline_file)
    try:
        stored = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ScenarioError(f"{path}: not a baseline file ({exc})") from None
    key = machine_key()
    now = float(report["events_per_s"]["median"])
    if record:
        stored[key] = {"events_per_s": now, "duration_s": report["duration_s"]}
        path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
        return f"baseline for {key}: {now:,.0f} events/s recorded in {path}"
    base = stored.get(key, {}).get("events_per_s")
    if not base:
        return f"no baseline for {key} in {path} (record one with --record-baseline)"
    ratio = now / float(base)
    verdict = "ok" if ratio >= GUARD_TOLERANCE else "WARNING: slower than half the baseline"
    return f"{now:,.0f} events/s = {ratio:.2f} x the baseline for {key} ({base:,.0f}): {verdict}"


__all__ = [
    "BARE_HEAP_PENDING",
    "BENCH_OVERRIDES",
    "BENCH_SCENARIO",
    "GUARD_TOLERANCE",
    "bare_heap_limit",
    "bench",
    "guard",
    "machine_key",
]
