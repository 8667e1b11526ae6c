"""Checking and repairing a results store: ``tcpair store check`` and
``tcpair store repair`` (docs/reliability.md).

Check verifies every committed file against the store's manifest (SHA-256)
and that it reads; repair sets aside what fails (under ``quarantine/``) and
runs again every run of the stored sweep that is no longer stored. Runs are
deterministic, so the repaired store holds the same results as before the
damage (wall times and finish times aside).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tcpair._errors import ScenarioError
from tcpair.results.manifest import Problem, quarantine
from tcpair.results.store import SWEEP, Store
from tcpair.sweeper.backends import make_backend
from tcpair.sweeper.runner import ExecStats, execute, open_sweep


def _store(directory: str | Path) -> Store:
    store = Store(directory)
    if not store.exists():
        raise ScenarioError(f"{directory}: not a tcpair results store (no {SWEEP})")
    return store


def check_store(directory: str | Path) -> list[Problem]:
    """Every stored file that is damaged, stray or unreadable (reads only)."""
    return _store(directory).check()


@dataclass
class Repair:
    """What :func:`repair_store` did."""

    problems: list[Problem] = field(default_factory=list)
    moved: list[Path] = field(default_factory=list)
    stats: ExecStats | None = None


def repair_store(
    directory: str | Path, *, jobs: int | None = None, progress: bool = False
) -> Repair:
    """Quarantine what :func:`check_store` finds, then run the missing runs again."""
    store = _store(directory)
    out = Repair()
    with store.writer():
        out.problems = store.check()
        sweep_bad = [p for p in out.problems if p.path.name == SWEEP]
        if sweep_bad:
            raise ScenarioError(
                f"{sweep_bad[0]}; run the sweep again with its sweep file and --out "
                f"{directory} to rewrite it (stored runs are kept), then repair"
            )
        out.moved = quarantine(store.root, out.problems, warn=False)
        res = open_sweep(directory)
        version = (store.sweep_definition() or {}).get("version", "")
        with make_backend(jobs=jobs) as backend:
            out.stats = execute(
                res.tasks,
                store,
                backend,
                sweep=res.spec.name,
                version=version,
                keep=res.spec.keep,
                progress=progress,
                description=f"repair {res.spec.name}",
            )
        store.compact()
    return out


__all__ = ["Repair", "check_store", "repair_store"]
