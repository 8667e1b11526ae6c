"""What every backend shares (:mod:`tcpair.sweeper.backends` says what a backend is):
the interface, runs sent in chunks, the stand-in result of a run whose worker kept
dying, and the backend that runs in this process."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

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


__all__ = [
    "CHUNK_SECONDS",
    "IDLE",
    "MAX_CHUNK",
    "MAX_CRASHES",
    "Backend",
    "Chunks",
    "InProcessBackend",
    "WorkerDied",
    "default_jobs",
    "run_chunk",
]
