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

from tcpair._errors import ScenarioError
from tcpair.base.plain import check_count
from tcpair.sweeper.dask_backend import DaskBackend
from tcpair.sweeper.pool import LocalBackend, close_pool, worker_init
from tcpair.sweeper.workers import (
    IDLE,
    Backend,
    Chunks,
    InProcessBackend,
    WorkerDied,
    default_jobs,
)


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
