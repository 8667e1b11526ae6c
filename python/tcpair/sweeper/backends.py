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

Runs travel to the workers in chunks (:class:`Chunks`): one at a time until the
first results show how long a run takes, then as many as take about
:data:`CHUNK_SECONDS`, so that runs of a fraction of a millisecond do not each
pay a round trip to a worker, while long runs still go one by one. With
``tick`` (seconds), a backend also yields ``(IDLE, None)`` when no result came
for that long, so the caller can commit what it holds before waiting on.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import math
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.base.plain import check_count

# How many times a run's own worker process may die (the run alone in it)
# before it is recorded as failed (Dask's default for allowed failures is 3 too).
MAX_CRASHES = 3

# Chunks of runs sent to a worker at once: about this many seconds of runs ...
CHUNK_SECONDS = 0.05
# ... and at most this many runs.
MAX_CHUNK = 256
# The index a backend yields (with no result) when nothing finished for ``tick`` seconds.
IDLE = -1


@dataclass(frozen=True)
class WorkerDied:
    """Stands in for the result of a run whose worker process kept dying."""

    message: str


def default_jobs() -> int:
    """All local cores: sweeps are embarrassingly parallel."""
    return os.cpu_count() or 1


class Chunks:
    """Consecutive chunks of ``n`` run indices: the first chunks hold one run;
    once runs have come back, a chunk holds about :data:`CHUNK_SECONDS` of
    them (at their mean time so far), at most :data:`MAX_CHUNK`, and at most
    a ``1 / (2 * workers)`` share of the runs left, so workers finish together."""

    def __init__(self, n: int, workers: int) -> None:
        self.n, self.workers, self.start = n, max(1, workers), 0
        self.runs, self.seconds = 0, 0.0

    def take(self) -> list[int]:
        """The next chunk (empty when every run was handed out)."""
        left = self.n - self.start
        if left <= 0:
            return []
        size = 1
        if self.runs:
            per_run = self.seconds / self.runs
            size = int(CHUNK_SECONDS / per_run) if per_run > 0 else MAX_CHUNK
        size = max(1, min(size, MAX_CHUNK, math.ceil(left / (2 * self.workers))))
        chunk = list(range(self.start, self.start + size))
        self.start += size
        return chunk

    def record(self, runs: int, seconds: float) -> None:
        """``runs`` finished in ``seconds`` of a worker's time."""
        self.runs += runs
        self.seconds += seconds


def run_chunk(fn: Callable[..., Any], chunk: Sequence[tuple[Any, ...]]) -> tuple[list[Any], float]:
    """Worker: ``fn(*args)`` for each argument tuple; the results and the seconds taken."""
    t0 = time.perf_counter()
    results = [fn(*args) for args in chunk]
    return results, time.perf_counter() - t0


class Backend:
    """Interface: ``map_unordered`` and ``close``; usable as a context manager."""

    name = "backend"
    workers = 1

    def map_unordered(
        self,
        fn: Callable[..., Any],
        items: Sequence[tuple[Any, ...]],
        keys: Sequence[str] | None = None,
        tick: float | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """``(index, fn(*items[index]))`` as runs finish; ``(IDLE, None)`` when
        ``tick`` seconds pass with no result (not at all without ``tick``)."""
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
    """Runs one after another in this process: simple tracebacks, no pickling.
    With ``tick``, yields ``IDLE`` before a run when the last one took longer
    than ``tick`` (the wait for the next result will be long too)."""

    name = "in-process"

    def map_unordered(self, fn, items, keys=None, tick=None):  # type: ignore[no-untyped-def]
        slow = False
        for i, args in enumerate(items):
            if slow:
                yield IDLE, None
            t0 = time.monotonic()
            result = fn(*args)
            slow = tick is not None and time.monotonic() - t0 >= tick
            yield i, result


class LocalBackend(Backend):
    """A pool of ``jobs`` worker processes on this machine.

    Chunks of runs go to one shared pool. When a worker dies, the pool breaks
    and every chunk it held fails with it, though only one run (at most one
    per worker) was running in the dead process: so those runs are not blamed
    but run again, each in a fresh worker process of its own, where a death is
    the run's own; the runs not yet handed out go on in a new shared pool. A
    run whose own worker dies :data:`MAX_CRASHES` times comes back as
    :class:`WorkerDied`. Workers die with this process (Linux: a
    parent-death signal) and close the results store's lock they inherit.
    """

    name = "local pool"

    def __init__(self, jobs: int | None = None) -> None:
        self.workers = default_jobs() if jobs is None else max(1, int(jobs))

    def _pool(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers, initializer=worker_init, initargs=(os.getpid(),)
        )

    def map_unordered(self, fn, items, keys=None, tick=None):  # type: ignore[no-untyped-def]
        suspects: list[int] = []
        chunks = Chunks(len(items), self.workers)
        while chunks.start < len(items):  # a new shared pool after each broken one
            yield from self._shared(fn, items, chunks, suspects, tick)
        yield from self._isolated(fn, items, suspects, tick)

    def _shared(self, fn, items, chunks, suspects, tick):  # type: ignore[no-untyped-def]
        """Chunks of runs in one pool, two per worker in flight, until every run
        was handed out or the pool broke; runs lost with it go to ``suspects``."""
        pool = self._pool(min(self.workers, len(items)))
        running: dict[Future[Any], list[int]] = {}
        broken = finished = False
        try:
            while True:
                while not broken and len(running) < 2 * self.workers and (chunk := chunks.take()):
                    running[pool.submit(run_chunk, fn, [items[i] for i in chunk])] = chunk
                if not running:
                    break
                done, _ = wait(running, timeout=tick, return_when=FIRST_COMPLETED)
                if not done:
                    yield IDLE, None
                for fut in done:
                    chunk = running.pop(fut)
                    try:
                        results, seconds = fut.result()
                    except BrokenProcessPool:
                        suspects.extend(chunk)
                        broken = True
                        continue
                    chunks.record(len(chunk), seconds)
                    yield from zip(chunk, results, strict=True)
            finished = True
        finally:
            close_pool(pool, abandon=not finished)

    def _isolated(self, fn, items, todo, tick=None):  # type: ignore[no-untyped-def]
        """Each run in a fresh one-worker pool, ``workers`` at a time."""
        queue = deque((i, 0) for i in sorted(todo))
        running: dict[Future[Any], tuple[int, int, ProcessPoolExecutor]] = {}
        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    i, crashes = queue.popleft()
                    pool = self._pool(1)
                    running[pool.submit(fn, *items[i])] = (i, crashes, pool)
                done, _ = wait(running, timeout=tick, return_when=FIRST_COMPLETED)
                if not done:
                    yield IDLE, None
                for fut in done:
                    i, crashes, pool = running.pop(fut)
                    close_pool(pool, abandon=False)
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
                close_pool(pool, abandon=True)


def close_pool(pool: ProcessPoolExecutor, *, abandon: bool) -> None:
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
    """In a new pool worker: leave Ctrl-C to the parent, die with the parent, let
    go of the store's lock.

    A terminal's Ctrl-C reaches the whole process group. A worker waiting for its
    next run would raise KeyboardInterrupt there and print its own traceback
    before the parent stopped it; the parent, interrupted, kills the workers of
    its runs in flight itself (:func:`close_pool`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    from tcpair.results.store import release_inherited_locks

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
        self._sized = 0.0  # when the cluster's size was last asked for
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="15s")
            except (OSError, TimeoutError) as exc:
                raise ScenarioError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
            except ValueError as exc:  # Dask's parse of the address (no port, unknown scheme)
                raise ScenarioError(
                    f"--scheduler {scheduler!r} is not a scheduler's address ({exc}); "
                    "give it as tcp://HOST:PORT"
                ) from None
            self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
            self.address = scheduler
        else:
            n = default_jobs() if local_workers is None else max(1, int(local_workers))
            from tcpair.sweeper.dask_local import LeaveCtrlCToTheClient, children_ignore_ctrl_c

            with children_ignore_ctrl_c():
                self.cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # Its log lines are noise here (a worker's heartbeat to a scheduler
                    # that closed first, say): what a failure means reaches the sweep
                    # as a failed run or a worker's death.
                    silence_logs=logging.CRITICAL,
                )
            self.client = Client(self.cluster)
            # A worker the nanny starts again later (after a death) starts with Python's
            # own Ctrl-C: it is told to leave Ctrl-C to this process once it is up.
            self.client.register_plugin(LeaveCtrlCToTheClient())
            self.workers = n
            self.address = self.cluster.scheduler_address
        self.name = f"dask at {self.address}"

    def map_unordered(self, fn, items, keys=None, tick=None):  # type: ignore[no-untyped-def]
        from distributed import as_completed

        chunks = Chunks(len(items), self.workers)
        self._sized = 0.0
        alone: deque[int] = deque()  # runs of a failed chunk, to run one by one
        running: dict[str, tuple[Any, list[int]]] = {}
        done = as_completed(loop=self.client.loop)
        try:
            while True:
                self._top_up(fn, items, keys, chunks, alone, running, done)
                if not running:
                    break
                batch = _next_batch(done, tick)
                if not batch:
                    yield IDLE, None
                for fut in batch:
                    _, chunk = running.pop(fut.key)
                    try:
                        results, seconds = fut.result()
                    except Exception as exc:  # KilledWorker and friends
                        if len(chunk) > 1:
                            alone.extend(chunk)
                        else:
                            yield chunk[0], WorkerDied(f"{type(exc).__name__}: {exc}")
                        continue
                    finally:
                        fut.release()
                    chunks.record(len(chunk), seconds)
                    yield from zip(chunk, results, strict=True)
        finally:
            for fut, _ in running.values():
                fut.cancel()

    def _top_up(self, fn, items, keys, chunks, alone, running, done) -> None:  # type: ignore[no-untyped-def]
        """Submit chunks until four per worker thread are in flight (the cluster
        may grow or shrink: its size is asked for again every second)."""
        if time.monotonic() - self._sized >= 1.0:
            self._sized = time.monotonic()
            chunks.workers = max(1, sum(self.client.nthreads().values()))
        while len(running) < 4 * chunks.workers:
            chunk = [alone.popleft()] if alone else chunks.take()
            if not chunk:
                return
            key = f"tcpair-{keys[chunk[0]]}-{len(chunk)}" if keys else None
            fut = self.client.submit(
                run_chunk, fn, [items[i] for i in chunk], key=key, pure=False
            )
            running[fut.key] = (fut, chunk)
            done.add(fut)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _next_batch(done: Any, tick: float | None) -> list[Any]:
    """The futures of ``done`` (a Dask ``as_completed``) that finished: wait for at
    least one, or at most ``tick`` seconds (then none)."""
    if tick is None:
        return list(done.next_batch(block=True))
    deadline = time.monotonic() + tick
    while not done.has_ready() and time.monotonic() < deadline:
        time.sleep(0.002)
    return list(done.next_batch(block=False)) if done.has_ready() else []


def make_backend(
    *, jobs: int | None = None, scheduler: str | None = None, dask_local: int | None = None
) -> Backend:
    """The backend the options ask for (local pool by default; ``jobs=1`` in-process)."""
    if scheduler and dask_local:
        raise ScenarioError("--scheduler and --dask-local: give one, not both")
    # Only the Python API reaches these two (the CLI's options refuse 0 first):
    # the arguments' own names.
    if dask_local is not None and check_count(dask_local, "dask_local") < 1:
        raise ScenarioError(f"dask_local: must be >= 1, got {dask_local}")
    if scheduler or dask_local:
        return DaskBackend(scheduler, dask_local)
    if jobs is not None and check_count(jobs, "jobs") < 1:
        raise ScenarioError(f"jobs: must be >= 1, got {jobs}")
    if jobs == 1:
        return InProcessBackend()
    return LocalBackend(jobs)


__all__ = [
    "IDLE",
    "Backend",
    "Chunks",
    "DaskBackend",
    "InProcessBackend",
    "LocalBackend",
    "WorkerDied",
    "close_pool",
    "default_jobs",
    "make_backend",
    "worker_init",
]
