"""Helpers for tests that run tcpair in a child process."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import tcpair


def tcpair_env() -> dict[str, str]:
    """The environment for a child process that imports the same tcpair as this one."""
    env = dict(os.environ)
    pkg_parent = str(Path(tcpair.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + os.pathsep + env.get("PYTHONPATH", "")
    return env


def ctrl_c(proc: subprocess.Popen[str]) -> str:
    """Interrupt ``proc`` (started with ``start_new_session``) as Ctrl-C in a terminal
    does, to its whole process group; wait for it and return its stderr."""
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return err
