"""Ctrl-C and the worker processes of a local Dask cluster (``--dask-local``).

A terminal's Ctrl-C reaches the whole process group. A Dask worker of a local
cluster would take it too and print its event loop's traceback, while the sweep's
own process, interrupted, closes the cluster anyway and says how to resume. So the
workers this process starts ignore SIGINT and leave Ctrl-C to it. A user's own
cluster (``--scheduler``) is never touched.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin


@contextlib.contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside start with SIGINT ignored: a disposition they keep
    across exec, and Python then installs no KeyboardInterrupt of its own.

    A Ctrl-C in here, while the cluster starts, is lost: the next one stops the
    command."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set a handler (and Ctrl-C goes to it)
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


class LeaveCtrlCToTheClient(WorkerPlugin):
    """A worker that the nanny starts again after a death starts with Python's own
    Ctrl-C handling: once it is up, this plugin makes it ignore SIGINT too."""

    name = "tcpair-leave-ctrl-c-to-the-client"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
