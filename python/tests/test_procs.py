"""The helpers that start children as a terminal does (procs.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

from procs import ignores_sigint, start_as_in_a_terminal

_SAYS_SIGINT = (
    "import signal; h = signal.getsignal(signal.SIGINT);"
    "print({signal.default_int_handler: 'default', signal.SIG_IGN: 'ignored'}.get(h, h))"
)


def test_a_child_gets_sigint_back_when_this_process_ignores_it() -> None:
    """A suite launched in the background ignores SIGINT; its Ctrl-C tests' children
    must not inherit that, or they never see the SIGINT they are sent."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        plain = subprocess.run(
            [sys.executable, "-c", _SAYS_SIGINT], capture_output=True, text=True, check=True
        )
        proc = start_as_in_a_terminal(
            [sys.executable, "-c", _SAYS_SIGINT], stdout=subprocess.PIPE, text=True
        )
        out, _ = proc.communicate(timeout=60)
    finally:
        signal.signal(signal.SIGINT, before)
    assert plain.stdout.strip() == "ignored"  # what a plain Popen passes on
    assert out.strip() == "default"


def test_ignores_sigint_reads_a_process_disposition() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        if sys.platform.startswith("linux"):
            assert ignores_sigint(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    child = start_as_in_a_terminal([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not ignores_sigint(child.pid)
    finally:
        child.kill()
        child.wait()
