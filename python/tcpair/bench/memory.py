"""Memory of a run: this process's resident and peak sizes (Linux's
``/proc/self/status``), the size of the answer a caller keeps, and what a run adds
per flow beyond it."""

from __future__ import annotations

import sys
from typing import Any


def kept_mib(answer: Any) -> float:
    """What a caller keeps of a run's answer, in MiB: the sizes (``sys.getsizeof``) of
    the Python objects in ``answer``, the dicts and lists and all they hold, each
    object counted once; the allocator's own overhead is not in it."""
    seen: set[int] = set()
    stack = [answer]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple):
            stack.extend(obj)
    return total / (1024.0 * 1024.0)


def _own_status_mib(key: str) -> float | None:
    """A size in MiB from this process's ``/proc/self/status`` (Linux); None elsewhere."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(f"{key}:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def own_rss_mib() -> float | None:
    """This process's resident memory now in MiB (Linux's ``VmRSS``); None elsewhere."""
    return _own_status_mib("VmRSS")


def own_peak_rss_mib() -> float:
    """This process's peak resident memory in MiB: Linux's ``VmHWM``, that of this
    program alone; elsewhere ``ru_maxrss``, which on Linux would also count the
    memory of the process that forked this one (the bench's own, tens of MiB once it
    has built large scenarios)."""
    peak = _own_status_mib("VmHWM")
    if peak is not None:
        return peak
    import resource

    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / (1024.0 * 1024.0) if sys.platform == "darwin" else maxrss / 1024.0


def beyond_kept_kib_per_flow(r: dict[str, Any]) -> float | None:
    """What the run adds to its caller beyond what the caller keeps, per flow:
    :func:`run_kib_per_flow` less the answer the call returns (``kept_mib``); None
    where either is unknown."""
    added, kept = run_kib_per_flow(r), r.get("kept_mib")
    return None if added is None or kept is None else added - kept * 1024.0 / r["flows"]


def run_kib_per_flow(r: dict[str, Any]) -> float | None:
    """What the run adds to the process that calls it, per flow: the peak less the
    process's memory just before the call (the interpreter, its imports and the
    scenario the caller built and keeps), in KiB over the row's flows; None where
    the system does not tell the memory before (not Linux)."""
    before = r.get("rss_before_mib")
    return None if before is None else (r["peak_rss_mib"] - before) * 1024.0 / r["flows"]


__all__ = [
    "beyond_kept_kib_per_flow",
    "kept_mib",
    "own_peak_rss_mib",
    "own_rss_mib",
    "run_kib_per_flow",
]
