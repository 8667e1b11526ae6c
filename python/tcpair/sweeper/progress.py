"""Sweep progress: a live bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class PlainProgress:
    """Progress as a plain line every few seconds ("120/640 runs, 18 s").

    Used where a live bar would break: output that is not a terminal (a log
    file, a pipe, CI) and Jupyter, where rich's live display needs widgets.
    Implements the part of :class:`rich.progress.Progress` that :func:`execute`
    uses.
    """

    def __init__(self, console: Console, interval: float = 5.0) -> None:
        self.console = console
        self.interval = interval
        self.tasks: dict[int, dict[str, Any]] = {}
        self._start = time.monotonic()
        self._last = self._start

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for pid in self.tasks:
            self._line(pid)

    def add_task(self, description: str, total: int, completed: int = 0, failed: int = 0) -> int:
        pid = len(self.tasks)
        self.tasks[pid] = {
            "description": description,
            "total": total,
            "completed": completed,
            "failed": failed,
            "shown": None,
        }
        return pid

    def update(self, pid: int, advance: int = 0, failed: int | None = None) -> None:
        task = self.tasks[pid]
        task["completed"] += advance
        if failed is not None:
            task["failed"] = failed
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._line(pid)

    def _line(self, pid: int) -> None:
        t = self.tasks[pid]
        state = (t["completed"], t["failed"])
        if t["shown"] == state:
            return
        t["shown"] = state
        failed = f", {t['failed']} failed" if t["failed"] else ""
        elapsed = time.monotonic() - self._start
        self.console.print(
            f"{t['description']}: {t['completed']}/{t['total']} runs{failed}, {elapsed:.0f} s",
            markup=False,
            highlight=False,
        )


def _progress(console: Console, enabled: bool) -> Progress | PlainProgress:
    """A live bar on a terminal; plain lines elsewhere (pipes, logs, Jupyter)."""
    if enabled and (console.is_jupyter or not console.is_terminal):
        return PlainProgress(console)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[red]{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
    )


__all__ = ["PlainProgress", "_progress"]
