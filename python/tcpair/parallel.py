"""Run many scenarios on local cores, results in input order.

Each task is a complete scenario (seed included), so a result depends only on
its task, never on which worker ran it or when: the output is the same for
any ``jobs``. Workers get JSON strings and return only the summary and flow
rows; per-packet tables stay in the worker to keep inter-process traffic small.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from tcpair._errors import ScenarioError, SimulationError
from tcpair.api import run_json, to_json

_ERROR_KEY = "__error__"


def run_compact(scenario_json: str) -> dict[str, Any]:
    """Worker: run one scenario, keep ``summary`` and ``flows`` only.

    Scenario and simulation errors come back as data, not as raised
    exceptions: exception classes defined in an extension module may not
    survive pickling between processes, and the message is what matters.
    """
    try:
        res = run_json(json.loads(scenario_json))
    except ScenarioError as exc:
        return {_ERROR_KEY: "scenario", "message": str(exc)}
    except SimulationError as exc:
        return {_ERROR_KEY: "simulation", "message": str(exc)}
    return {"summary": res.get("summary", {}), "flows": res.get("flows", [])}


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    """Re-raise an error a worker reported, in this process, with its class."""
    kind = result.get(_ERROR_KEY)
    if kind == "scenario":
        raise ScenarioError(result["message"])
    if kind == "simulation":
        raise SimulationError(result["message"])
    return result


def default_jobs() -> int:
    """All local cores: sweeps are embarrassingly parallel."""
    return os.cpu_count() or 1


def run_many(
    scenarios: Sequence[Mapping[str, Any]],
    *,
    jobs: int | None = None,
    description: str = "running",
    console: Console | None = None,
    progress: bool = True,
    worker: Callable[[str], dict[str, Any]] = run_compact,
) -> list[dict[str, Any]]:
    """Run every scenario and return compact results in the input order.

    ``jobs=1`` runs in this process (no pool), which keeps tracebacks simple
    and lets tests substitute the core.
    """
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    payloads = [to_json(s) for s in scenarios]
    results: list[dict[str, Any] | None] = [None] * len(payloads)
    console = console or Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not progress,
        transient=False,
    ) as bar:
        task = bar.add_task(description, total=len(payloads))
        if jobs == 1 or len(payloads) <= 1:
            for i, payload in enumerate(payloads):
                results[i] = _checked(worker(payload))
                bar.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=min(jobs, len(payloads))) as pool:
                futures = {pool.submit(worker, p): i for i, p in enumerate(payloads)}
                try:
                    for fut in as_completed(futures):
                        results[futures[fut]] = _checked(fut.result())
                        bar.advance(task)
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    return [r for r in results if r is not None]


__all__ = ["default_jobs", "run_compact", "run_many"]
