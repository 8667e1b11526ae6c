"""Where :mod:`tcpair.simulate.plugins` looks for the modules of detectors and responders
written in Python: the directories of the scenario files this process has
loaded, then the current directory.

Kept apart from :mod:`tcpair.simulate.plugins` so that loading a scenario records its
directory without importing the plug-in machinery, which a run needs only when
the scenario names a Python part.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

_dirs: list[str] = []


def add_dirs(dirs: Iterable[str | Path]) -> None:
    """Look for plug-in modules in ``dirs`` first (in their order, before those
    added earlier: the scenario loaded last is the one about to run)."""
    new = [str(Path(d).resolve()) for d in dirs]
    _dirs[:] = [*dict.fromkeys(new), *(d for d in _dirs if d not in new)]


def search_dirs() -> list[str]:
    """The directories :func:`tcpair.simulate.plugins.load` tries before ``sys.path``: those
    added, then the current directory (absolute, so a worker elsewhere finds the
    same files)."""
    here = str(Path.cwd())
    return [*_dirs, *([] if here in _dirs else [here])]


__all__ = ["add_dirs", "search_dirs"]
