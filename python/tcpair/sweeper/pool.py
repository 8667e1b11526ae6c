"""The local process pool (the default backend): workers that leave Ctrl-C to the
sweep's process, die with it and let go of the store's lock; a run whose own worker
keeps dying comes back as :class:`~tcpair.sweeper.workers.WorkerDied`."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tcpair.sweeper.workers import (
    IDLE,
    MAX_CRASHES,
    Backend,
    Chunks,
    WorkerDied,
    default_jobs,
    run_chunk,
)


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


__all__ = ["LocalBackend", "close_pool", "worker_init"]
