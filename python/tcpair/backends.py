"""Where runs execute: this process, a local process pool, or a Dask cluster.

A backend takes a worker function and argument tuples and yields
``(index, result)`` as runs finish, in any order. Every run is self-contained
(its scenario carries its seed), so results do not depend on the backend, the
number of workers or the completion order; the caller stores each result under
its run key.

A worker process that dies (killed, out of memory) never produces a result for
its run; the backends resubmit such runs and, if the same run keeps killing
workers, yield a :class:`WorkerDied` in its place so the sweep can record it as
failed and carry on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from tcpair._errors import ScenarioError

# How many times a run may be in flight when a worker process dies before it
# is recorded as failed (Dask's own default for allowed failures is 3 too).
MAX_CRASHES = 3


@dataclass(frozen=True)
class WorkerDied:
    """Stands in for the result of a run whose worker process kept dying."""

    message: str


def default_jobs() -> int:
    """All local cores: sweeps are embarrassingly parallel."""
    return os.cpu_count() or 1


class Backend:
    """Interface: ``map_unordered`` and ``close``; usable as a context manager."""

    name = "backend"
    workers = 1

    def map_unordered(
        self,
        fn: Callable[..., Any],
        items: Sequence[tuple[Any, ...]],
        keys: Sequence[str] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        raise NotImplementedError

    def close(self) -> None:
        """Release workers; the default has none."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"


class InProcessBackend(Backend):
    """Runs one after another in this process: simple tracebacks, no pickling."""

    name = "in-process"

    def map_unordered(self, fn, items, keys=None):  # type: ignore[no-untyped-def]
        for i, args in enumerate(items):
            yield i, fn(*args)


class LocalBackend(Backend):
    """A pool of ``jobs`` worker processes on this machine."""

    name = "local pool"

    def __init__(self, jobs: int | None = None) -> None:
        self.workers = default_jobs() if jobs is None else max(1, int(jobs))

    def map_unordered(self, fn, items, keys=None):  # type: ignore[no-untyped-def]
        todo = list(range(len(items)))
        crashes = [0] * len(items)
        while todo:
            pool = ProcessPoolExecutor(max_workers=min(self.workers, len(todo)))
            futures: dict[Future[Any], int] = {pool.submit(fn, *items[i]): i for i in todo}
            todo = []
            finished = False
            try:
                pending = set(futures)
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        i = futures[fut]
                        try:
                            result = fut.result()
                        except BrokenProcessPool:
                            crashes[i] += 1
                            if crashes[i] >= MAX_CRASHES:
                                yield (
                                    i,
                                    WorkerDied(
                                        f"a worker process died {crashes[i]} times while this run "
                                        "was in flight (killed, or out of memory?)"
                                    ),
                                )
                            else:
                                todo.append(i)
                            continue
                        yield i, result
                finished = True
            finally:
                if not finished:
                    # Interrupted (Ctrl-C, an error while storing): runs in flight
                    # are abandoned, not awaited; a run inside the core cannot be
                    # stopped any other way. Their results were never stored.
                    procs = list((getattr(pool, "_processes", None) or {}).values())
                    for proc in procs:
                        proc.terminate()
                    for proc in procs:
                        proc.join(timeout=5)
                # Waiting is quick once the workers are gone, and lets the pool's
                # manager thread finish before the interpreter exits.
                pool.shutdown(wait=True, cancel_futures=True)


class DaskBackend(Backend):
    """A Dask cluster: an existing scheduler, or a ``LocalCluster`` started here.

    Workers need tcpair installed. Dask reschedules the run of a worker that
    dies; a run that kills ``distributed.scheduler.allowed-failures`` workers
    comes back as :class:`WorkerDied`.
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ScenarioError(
                "the Dask backend needs dask.distributed: python3 -m pip install 'tcpair[dask]'"
            ) from None
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="15s")
            except (OSError, TimeoutError) as exc:
                raise ScenarioError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
            self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
            self.address = scheduler
        else:
            n = default_jobs() if local_workers is None else max(1, int(local_workers))
            self.cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster)
            self.workers = n
            self.address = self.cluster.scheduler_address
        self.name = f"dask at {self.address}"

    def map_unordered(self, fn, items, keys=None):  # type: ignore[no-untyped-def]
        from distributed import as_completed

        futures = [
            self.client.submit(fn, *args, key=f"tcpair-{keys[i]}" if keys else None, pure=False)
            for i, args in enumerate(items)
        ]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in as_completed(futures):
                i = index[fut.key]
                try:
                    result = fut.result()
                except Exception as exc:  # KilledWorker and friends
                    result = WorkerDied(f"{type(exc).__name__}: {exc}")
                fut.release()
                yield i, result
        finally:
            for f in futures:
                f.cancel()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_backend(
    *, jobs: int | None = None, scheduler: str | None = None, dask_local: int | None = None
) -> Backend:
    """The backend the options ask for (local pool by default; ``jobs=1`` in-process)."""
    if scheduler and dask_local:
        raise ScenarioError("--scheduler and --dask-local: give one, not both")
    if scheduler or dask_local:
        return DaskBackend(scheduler, dask_local)
    if jobs is not None and int(jobs) < 1:
        raise ScenarioError(f"--jobs: must be >= 1, got {jobs}")
    if jobs == 1:
        return InProcessBackend()
    return LocalBackend(jobs)


__all__ = [
    "Backend",
    "DaskBackend",
    "InProcessBackend",
    "LocalBackend",
    "WorkerDied",
    "default_jobs",
    "make_backend",
]
