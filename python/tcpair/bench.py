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
    from tcpair.api import prepare, to_json
    from tcpair.paths import scenario_path

    core = require_core()
    path = scenario_path(BENCH_SCENARIO, missing_ok=True)
    if path is None:
        raise ScenarioError(f"shipped scenario {BENCH_SCENARIO}.toml not found")
    sc = prepare(path, overrides=[*BENCH_OVERRIDES, f"run.duration={float(duration)!r}"])
    payload = to_json(sc)
    walls, events, delivered = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = json.loads(core.run(payload))
        walls.append(time.perf_counter() - t0)
        events.append(res["summary"]["events"])
        delivered.append(res["summary"]["delivered_data_packets"])
    ev_rate = [e / w for e, w in zip(events, walls, strict=True)]
    dl_rate = [d / w for d, w in zip(delivered, walls, strict=True)]
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
    }


__all__ = ["BENCH_OVERRIDES", "BENCH_SCENARIO", "bench"]
