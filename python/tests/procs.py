"""Helpers for tests that run tcpair in a child process."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import tcpair


def tcpair_env() -> dict[str, str]:
    """The environment for a child process that imports the same tcpair as this one."""
    env = dict(os.environ)
    pkg_parent = str(Path(tcpair.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _sigint_as_in_a_terminal() -> None:
    """Run in the child between fork and exec: SIGINT back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_as_in_a_terminal(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kwargs)`` as a shell in a terminal starts a job: in a
    session (process group) of its own, with SIGINT's default action whatever this
    process's is. A test suite started in the background (``nohup``, ``&`` in a
    script) has SIGINT ignored, and children inherit that: a Python child then never
    sees Ctrl-C, as the product means (it keeps an ignored SIGINT ignored)."""
    return subprocess.Popen(
        args, start_new_session=True, preexec_fn=_sigint_as_in_a_terminal, **kwargs
    )


def ignores_sigint(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT (Linux's /proc; False elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


def ctrl_c(proc: subprocess.Popen[str]) -> str:
    """Interrupt ``proc`` (started by :func:`start_as_in_a_terminal`) as Ctrl-C in a
    terminal does, to its whole process group; wait for it and return its stderr."""
    if ignores_sigint(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the child ignores SIGINT: start it with start_as_in_a_terminal")
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return err
