"""What a sweep checks before it writes anything: that some point of its grid is a
valid scenario, that the metrics it was asked for are columns of a run, and that its
store holds no other sweep nor files of the user's own."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tcpair._errors import ScenarioError, SimulationError, require_core
from tcpair.base.plain import first_names
from tcpair.results.store import Store
from tcpair.sweeper.definition import SweepSpec, Task


def preflight(spec: SweepSpec, tasks: Sequence[Task], metrics: Sequence[str]) -> None:
    """Refuse bad input before anything is written.

    A sweep whose every grid point the core rejects is bad input, not a set of
    failed runs (a partly invalid grid runs, its failures stored). The metrics
    named for statistics are checked against the columns a run produces, from
    a throw-away 1 ms run of the first valid point.
    """
    core = require_core()
    firsts: dict[int, Task] = {}
    for t in tasks:
        firsts.setdefault(t.point, t)
    errors = []
    valid: Task | None = None
    for t in firsts.values():
        try:
            core.validate(json.dumps(t.scenario, default=str, allow_nan=False))
        except ScenarioError as exc:
            errors.append((t, str(exc)))
        else:
            valid = valid or t
    if valid is None:
        if not errors:
            return
        t, msg = errors[0]
        where = ", ".join(f"{k}={v}" for k, v in t.labels.items()) or "the base scenario"
        raise ScenarioError(f"sweep {spec.name!r}: every run is invalid; at {where}: {msg}")
    check_metrics(valid, metrics)


def check_metrics(valid: Task, metrics: Sequence[str]) -> None:
    """Refuse ``metrics`` that are not columns of a run: a throw-away 1 ms run
    of ``valid`` (a task the core accepts) says which columns there are."""
    core = require_core()
    probe = json.loads(json.dumps(valid.scenario, default=str))
    probe.setdefault("run", {}).update({"duration": 0.001, "warmup": 0.0})
    try:
        flows = json.loads(core.run(json.dumps(probe))).get("flows", [])
    except (ScenarioError, SimulationError):
        return
    if not flows:
        return
    for m in metrics:
        if m not in flows[0]:
            numeric = sorted(k for k, v in flows[0].items() if isinstance(v, int | float))
            raise ScenarioError(f"metric {m!r}: no such flow metric (one of: {', '.join(numeric)})")


def refuse_other_sweep(store: Store, spec: SweepSpec) -> None:
    """A store holds one sweep: another one's runs would be hidden by it; and a
    folder of the user's own is not made a store (its files are not ours to
    set aside)."""
    foreign = store.foreign_names()
    if foreign:
        raise ScenarioError(
            f"--out {store.root}: holds files that are not a tcpair results store "
            f"({first_names(foreign)}); give the sweep a new or empty folder "
            f"(default results/{spec.name})"
        )
    saved = store.sweep_definition() if store.exists() else None
    other = (saved or {}).get("sweep", {}).get("name")
    if other is not None and other != spec.name:
        raise ScenarioError(
            f"--out {store.root}: holds the results of sweep {other!r}; sweep {spec.name!r} "
            f"would hide them. Give it its own --out (default results/{spec.name}); "
            "tcpair.load_results on each store reads both"
        )


__all__ = ["check_metrics", "preflight", "refuse_other_sweep"]
