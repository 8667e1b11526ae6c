"""Executing a sweep's runs: every task the store lacks goes to a backend, and the
results are committed to the store in groups as they come back (commit.py), so
whichever backend runs the simulations, each run is stored exactly once and a crash
loses at most the runs still in flight or waiting for their group's commit."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console

from tcpair._errors import PluginError, ScenarioError, SimulationError
from tcpair.results.store import Store
from tcpair.simulate.plugins import search_dirs, uses_plugins
from tcpair.sweeper.backends import IDLE, Backend
from tcpair.sweeper.commit import FAILED, OK, Group, task_records
from tcpair.sweeper.definition import Task
from tcpair.sweeper.progress import _progress
from tcpair.sweeper.view import ExecStats


def run_task(payload: str, keep: Sequence[str] = (), dirs: Sequence[str] = ()) -> dict[str, Any]:
    """Worker: run one scenario; errors come back as data (exception classes from an
    extension module may not survive pickling, and the message is what matters).
    ``dirs``: where the client found the scenario's Python parts (tcpair.simulate.plugins)."""
    from tcpair.simulate.binding import run_json_text
    from tcpair.simulate.plugins import add_dirs

    add_dirs(dirs)
    try:
        res = run_json_text(payload)
    except PluginError as exc:  # the user's code failed: its message and traceback
        return {"status": FAILED, "error_kind": "plugin", "error": str(exc)}
    except ScenarioError as exc:
        return {"status": FAILED, "error_kind": "scenario", "error": str(exc)}
    except SimulationError as exc:
        return {"status": FAILED, "error_kind": "simulation", "error": str(exc)}
    except Exception as exc:  # a bug, but one run must not stop a sweep
        return {"status": FAILED, "error_kind": "internal", "error": f"{type(exc).__name__}: {exc}"}
    return {
        "status": OK,
        "summary": res.get("summary", {}),
        "flows": res.get("flows", []),
        "tables": {k: res.get(k) for k in keep},
    }


def execute(
    tasks: Sequence[Task],
    store: Store,
    backend: Backend,
    *,
    sweep: str,
    version: str,
    keep: Sequence[str] = (),
    retry_failed: bool = False,
    progress: bool = True,
    console: Console | None = None,
    description: str = "runs",
    watch: Callable[[], None] | None = None,
) -> ExecStats:
    """Run every task the store lacks and store them in groups as they finish
    (a run counts as executed once its group is stored). ``watch`` is called as each
    run comes back and every few tenths of a second between: what it raises stops
    the sweep there (the runs in flight are stopped, the groups stored are kept)."""
    todo, total = _todo(tasks, store, retry_failed)
    stats = ExecStats(skipped=total - len(todo))
    console = console or Console(stderr=True)
    group = Group(store)
    with _progress(console, progress) as bar:
        pid = bar.add_task(description, total=total, completed=stats.skipped, failed=0)

        def commit() -> None:
            runs, failed = group.commit()
            stats.executed += runs
            stats.failed += failed
            if runs:
                bar.update(pid, advance=runs, failed=stats.failed)

        payloads = [_payload(t, keep) for t in todo]
        results = backend.map_unordered(
            run_task, payloads, [t.key for t in todo], tick=group.max_seconds / 4
        )
        try:
            for i, result in results:
                if watch is not None:
                    watch()
                if i != IDLE:
                    rows, tables = task_records(
                        todo[i], result, sweep=sweep, version=version, scenario_json=payloads[i][0]
                    )
                    group.add(todo[i].key, rows, tables)
                if group.due() or (i == IDLE and len(group)):
                    commit()
        except KeyboardInterrupt:
            # The runs already back are complete: keep them (the interrupt still stops us).
            with contextlib.suppress(Exception):
                commit()
            raise
        finally:
            # Whatever stops us (an interrupt, an error while storing), the runs
            # in flight stop now, not when the traceback that holds this frame
            # is let go, at the interpreter's exit.
            results.close()
        commit()
    return stats


def _todo(tasks: Sequence[Task], store: Store, retry_failed: bool) -> tuple[list[Task], int]:
    """The tasks the store lacks (or holds as failed, with ``retry_failed``), one per run
    key, and how many run keys the tasks have."""
    unique: dict[str, Task] = {}
    for t in tasks:
        unique.setdefault(t.key, t)
    stored = store.status()
    todo = [
        t for k, t in unique.items() if k not in stored or (retry_failed and stored[k] == FAILED)
    ]
    return todo, len(unique)


def _payload(task: Task, keep: Sequence[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """What a worker gets for one run (:func:`run_task`'s arguments)."""
    return json.dumps(task.scenario, default=str, allow_nan=False), tuple(keep), _dirs(task)


def _dirs(task: Task) -> tuple[str, ...]:
    """Where the workers look for the task's Python parts (none: nothing to send)."""
    return tuple(search_dirs()) if uses_plugins(task.scenario) else ()


__all__ = ["execute", "run_task"]
