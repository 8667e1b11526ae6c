"""Chromium's DevTools protocol over its debugging pipe, for the site checker
(``browser.py``): launching a headless browser, sending commands and waiting for
replies and events with deadlines, and killing its whole process group.

Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and events
on fd 4 (``--remote-debugging-pipe``). Like ``browser.py`` this module must not
import tcpair.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-dev-shm-usage",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
)

# Chromium insists on fds 3 and 4; subprocess can only keep fds at their own
# numbers (pass_fds), so a tiny exec shim moves them there. Both are first copied
# above 10 so that neither dup2 can clobber the other end.
_FD_SHIM = (
    "import fcntl, os, sys\n"
    "r = fcntl.fcntl(int(sys.argv[1]), fcntl.F_DUPFD, 10)\n"
    "w = fcntl.fcntl(int(sys.argv[2]), fcntl.F_DUPFD, 10)\n"
    "os.dup2(r, 3)\n"
    "os.dup2(w, 4)\n"
    "os.close(r)\n"
    "os.close(w)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


class BrowserError(RuntimeError):
    """The browser could not be started, died, or broke the protocol."""


class _Timeout(Exception):
    """A deadline passed while waiting for the browser."""


class _Crashed(Exception):
    """The page's renderer crashed."""


class _DevTools:
    """A DevTools-protocol connection over Chromium's debugging pipe."""

    def __init__(self, proc: subprocess.Popen[bytes], wfd: int, rfd: int, stderr: Path):
        self.proc = proc
        self.wfd = wfd
        self.rfd = rfd
        self.stderr = stderr
        self.events: list[dict[str, Any]] = []
        self._buf = b""
        self._next_id = 0

    def stderr_tail(self, n: int = 15) -> str:
        try:
            text = self.stderr.read_text(errors="replace")
        except OSError:
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip() and "dbus" not in ln.lower()]
        return "\n".join(lines[-n:])

    def failure(self, what: str, wait: float = 2.0) -> BrowserError:
        """An error naming the exit status and the last lines of stderr."""
        try:  # a closed pipe comes a moment before the process can be reaped
            code: int | None = self.proc.wait(timeout=wait) if wait > 0 else self.proc.poll()
        except subprocess.TimeoutExpired:
            code = None
        status = "still running" if code is None else f"exit code {code}"
        tail = self.stderr_tail()
        detail = f"\nlast stderr lines:\n{tail}" if tail else ""
        return BrowserError(f"chromium {what} ({status}){detail}")

    def send(
        self, method: str, params: dict[str, Any] | None, session: str | None, deadline: float
    ) -> int:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            _, ready, _ = select.select([], [self.wfd], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise _Timeout(f"writing {method}")
            try:
                data = data[os.write(self.wfd, data) :]
            except BrokenPipeError:
                raise self.failure(f"closed its command pipe during {method}") from None
        return self._next_id

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout("waiting for the browser")
            ready, _, _ = select.select([self.rfd], [], [], min(left, 0.5))
            if not ready:
                if self.proc.poll() is not None:
                    raise self.failure("exited")
                continue
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise self.failure("closed its reply pipe")
            self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise BrowserError(f"unreadable DevTools message: {raw[:200]!r}") from exc

    def _pump(self, deadline: float) -> dict[str, Any]:
        msg = self._read_message(deadline)
        if "method" in msg:
            self.events.append(msg)
            if msg["method"] in ("Inspector.targetCrashed", "Target.targetCrashed"):
                raise _Crashed(msg["method"])
        return msg

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        deadline: float,
    ) -> dict[str, Any]:
        msg_id = self.send(method, params, session, deadline)
        while True:
            msg = self._pump(deadline)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise BrowserError(f"{method} failed: {msg['error']}")
                return msg.get("result", {})

    def wait_for(
        self, pred: Callable[[dict[str, Any]], bool], deadline: float, what: str, start: int = 0
    ) -> int:
        """Index in ``events`` of the first event from ``start`` on that satisfies ``pred``."""
        for i in range(start, len(self.events)):
            if pred(self.events[i]):
                return i
        while True:
            try:
                msg = self._pump(deadline)
            except _Timeout:
                raise _Timeout(what) from None
            if "method" in msg and pred(msg):
                return len(self.events) - 1


def _launch(chromium: str, workdir: Path) -> tuple[subprocess.Popen[bytes], int, int, Path]:
    cmd_r, cmd_w = os.pipe()  # we write commands, chromium reads them on fd 3
    out_r, out_w = os.pipe()  # chromium writes on fd 4, we read
    stderr_path = workdir / "chromium-stderr.txt"
    argv = [
        sys.executable,
        "-I",
        "-S",
        "-c",
        _FD_SHIM,
        str(cmd_r),
        str(out_w),
        chromium,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={workdir / 'profile'}",
        "about:blank",
    ]
    try:
        with open(stderr_path, "wb") as err:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                pass_fds=(cmd_r, out_w),
                start_new_session=True,  # its own process group, killed as a whole
            )
    except OSError:
        for fd in (cmd_r, cmd_w, out_r, out_w):
            os.close(fd)
        raise
    os.close(cmd_r)
    os.close(out_w)
    return proc, cmd_w, out_r, stderr_path


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the browser's process group (renderers included) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
