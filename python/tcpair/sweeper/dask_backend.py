"""A Dask cluster as a backend: an existing scheduler (``--scheduler``) or a local
cluster started here (``--dask-local``). dask.distributed is imported only when one
is asked for (it is an extra: ``tcpair[dask]``)."""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.sweeper.workers import IDLE, Backend, Chunks, WorkerDied, default_jobs, run_chunk


class DaskBackend(Backend):
    """A Dask cluster: an existing scheduler, or a ``LocalCluster`` started here.

    Workers need tcpair installed. Dask reschedules the run of a worker that
    dies; a run that kills ``distributed.scheduler.allowed-failures`` workers
    comes back as :class:`WorkerDied`.
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None) -> None:
        # A local cluster's nannies set variables in this process's environment for their
        # workers (MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ...): put back at close.
        self._environ = dict(os.environ)
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
            _restore_environ(self._environ)


def _restore_environ(before: dict[str, str]) -> None:
    """This process's environment as it was before the cluster started."""
    for key in set(os.environ) - set(before):
        del os.environ[key]
    for key, value in before.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def _next_batch(done: Any, tick: float | None) -> list[Any]:
    """The futures of ``done`` (a Dask ``as_completed``) that finished: wait for at
    least one, or at most ``tick`` seconds (then none)."""
    if tick is None:
        return list(done.next_batch(block=True))
    deadline = time.monotonic() + tick
    while not done.has_ready() and time.monotonic() < deadline:
        time.sleep(0.002)
    return list(done.next_batch(block=False)) if done.has_ready() else []


__all__ = ["DaskBackend"]
