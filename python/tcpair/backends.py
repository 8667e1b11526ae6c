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

import contextlib
import ctypes
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from tcpair._errors import ScenarioError

# How many times a run's own worker process may die (the run alone in it)
# before it is recorded as failed (Dask's default for allowed failures is 3 too).
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
    """A pool of ``jobs`` worker processes on this machine.

    Runs go to one shared pool. When a worker dies, the pool breaks and every
    run it held fails with it, though only one of them (at most one per
    worker) was running in the dead process: so those runs are not blamed but
    run again, each in a fresh worker process of its own, where a death is
    the run's own. A run whose own worker dies :data:`MAX_CRASHES` times comes
    back as :class:`WorkerDied`. Workers die with this process (Linux: a
    parent-death signal) and close the results store's lock they inherit.
    """

    name = "local pool"

    def __init__(self, jobs: int | None = None) -> None:
        self.workers = default_jobs() if jobs is None else max(1, int(jobs))

    def _pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers, initializer=worker_init, initargs=(os.getpid(),)
        )

    def map_unordered(self, fn, items, keys=None):  # type: ignore[no-untyped-def]
        suspects: list[int] = []
        yield from self._shared(fn, items, suspects)
        yield from self._isolated(fn, items, suspects)

    def _shared(self, fn, items, suspects):  # type: ignore[no-untyped-def]
        """Every run in one pool; runs lost to a broken pool go to ``suspects``."""
        if not items:
            return
        pool = self._pool(min(self.workers, len(items)))
        futures: dict[Future[Any], int] = {
            pool.submit(fn, *args): i for i, args in enumerate(items)
        }
        finished = False
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        suspects.append(futures[fut])
                        continue
                    yield futures[fut], result
            finished = True
        finally:
            _close(pool, abandon=not finished)

    def _isolated(self, fn, items, todo):  # type: ignore[no-untyped-def]
        """Each run in a fresh one-worker pool, ``workers`` at a time."""
        queue = deque((i, 0) for i in sorted(todo))
        running: dict[Future[Any], tuple[int, int, ProcessPoolExecutor]] = {}
        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    i, crashes = queue.popleft()
                    pool = self._pool(1)
                    running[pool.submit(fn, *items[i])] = (i, crashes, pool)
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    i, crashes, pool = running.pop(fut)
                    _close(pool, abandon=False)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        if crashes + 1 >= MAX_CRASHES:
                            yield i, WorkerDied(
                                f"the worker process running this run died {crashes + 1} "
                                "times (killed, or out of memory?)"
                            )
                        else:
                            queue.append((i, crashes + 1))
                        continue
                    yield i, result
        finally:
            for _, _, pool in running.values():
                _close(pool, abandon=True)


def _close(pool: ProcessPoolExecutor, *, abandon: bool) -> None:
    """Shut ``pool`` down; with ``abandon`` (Ctrl-C, an error while storing)
    its runs in flight are killed, not awaited: a run inside the core cannot be
    stopped any other way, and their results were never stored."""
    if abandon:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(timeout=5)
    # Waiting is quick once the workers are gone, and lets the pool's manager
    # thread finish before the interpreter exits.
    pool.shutdown(wait=True, cancel_futures=True)


PR_SET_PDEATHSIG = 1


def worker_init(parent: int) -> None:
    """In a new pool worker: die with the parent, let go of the store's lock."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    from tcpair.store import release_inherited_locks

    release_inherited_locks()


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
