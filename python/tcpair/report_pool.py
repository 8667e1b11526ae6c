"""Reports built beside the runs: ``tcpair reproduce`` of several targets hands
each target's report (:func:`tcpair.site.build_report`) to worker processes of
its own and goes on to the next target's runs.

A report is mostly drawing (matplotlib) in one process: built in turn after
each sweep, the reports of ``reproduce all`` kept one core busy and the others
idle for about a minute on two cores (docs/performance.md, "Whole-job timings").
Here they are drawn while the next sweep runs, and side by side once the runs
are done (a rerun whose runs are all stored is nothing but reports).

The workers are started with ``spawn``, not ``fork``: a report must not inherit
the state of a process that is running a sweep (its pool's threads and locks).
A report that raises is raised again, in the parent, once it is collected: after
the sweep that follows it at the latest, so a bug in an analysis still stops the
work early. The workers leave Ctrl-C to the parent, which kills them on it or on
an error (:func:`tcpair.backends.close_pool`).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from types import TracebackType

from tcpair.backends import close_pool, worker_init
from tcpair.site import build_report


class Reports:
    """Build reports in ``workers`` processes (in this process, with ``workers`` <= 1),
    collected in the order they were submitted."""

    def __init__(self, workers: int) -> None:
        self.pool: ProcessPoolExecutor | None = None
        if workers > 1:
            self.pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=worker_init,
                initargs=(os.getpid(),),
            )
        self.pending: dict[str, Future[list[str]]] = {}
        self.built: dict[str, list[str]] = {}

    def submit(self, name: str, directory: Path, index_href: str) -> None:
        """Start ``name``'s report; raise what an earlier report raised, if it is done."""
        if self.pool is None:
            self.built[name] = build_report(directory, index_href=index_href)
            return
        self.pending[name] = self.pool.submit(build_report, directory, index_href=index_href)
        for fut in self.pending.values():
            if fut.done() and fut.exception() is not None:
                fut.result()

    def collect(self) -> dict[str, list[str]]:
        """Wait for every report: each target's verdict lines, in submission order."""
        for name, fut in self.pending.items():
            self.built[name] = fut.result()
        self.pending.clear()
        return dict(self.built)

    def __enter__(self) -> Reports:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.pool is not None:
            close_pool(self.pool, abandon=exc_type is not None)


__all__ = ["Reports"]
