"""What a test may not leave behind in the pytest process: changed signal handlers,
environment variables or working directory.

Tests run in one process, in any order (pytest-randomly): a handler, variable or
directory one test leaves changed would decide how the tests after it run. The
autouse fixtures of conftest.py take :func:`snapshot` before each test (and each
module, for its module-scoped fixtures) and fail it, naming what changed, when
the state after it differs; they put the state back first, so that the tests
after it run as they would have.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

# Set by pytest itself for the test being run (its phase changes from setup to teardown).
_OWN_VARIABLES = frozenset({"PYTEST_CURRENT_TEST"})


def _catchable() -> list[signal.Signals]:
    return sorted(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))


def _name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


@dataclass(frozen=True)
class State:
    handlers: dict[int, object]
    environ: dict[str, str]
    cwd: str


def snapshot() -> State:
    """This process's signal handlers, environment and working directory."""
    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        cwd = "(a directory since deleted)"
    return State(
        handlers={int(s): signal.getsignal(s) for s in _catchable()},
        environ={k: v for k, v in os.environ.items() if k not in _OWN_VARIABLES},
        cwd=cwd,
    )


def _handler(h: object) -> str:
    if h is None:
        return "a handler not set from Python"
    if isinstance(h, signal.Handlers):
        return h.name
    return getattr(h, "__qualname__", None) or repr(h)


def changes(before: State, after: State) -> list[str]:
    """What differs from ``before`` in ``after``, one phrase each (none: unchanged)."""
    out = []
    for signum, h in before.handlers.items():
        if after.handlers.get(signum) != h:
            was, now = _handler(h), _handler(after.handlers.get(signum))
            out.append(f"{_name(signum)}'s handler ({was}, now {now})")
    for key in sorted(before.environ.keys() | after.environ.keys()):
        was, now = before.environ.get(key), after.environ.get(key)
        if was != now:
            what = "unset" if was is None else repr(was)
            out.append(f"${key} ({what}, now {'unset' if now is None else repr(now)})")
    if before.cwd != after.cwd:
        out.append(f"the working directory ({before.cwd}, now {after.cwd})")
    return out


def restore(state: State) -> None:
    """Put this process's handlers, environment and working directory back as in ``state``."""
    for signum, h in state.handlers.items():
        if h is not None and signal.getsignal(signum) != h:
            signal.signal(signum, h)  # type: ignore[arg-type]
    for key in list(os.environ):
        if key not in _OWN_VARIABLES and key not in state.environ:
            del os.environ[key]
    for key, value in state.environ.items():
        if os.environ.get(key) != value:
            os.environ[key] = value
    if os.path.isdir(state.cwd):
        os.chdir(state.cwd)


def check_unchanged(what: str) -> Iterator[None]:
    """Fixture body: fail ``what`` (a test, a module) if it changes the process's state."""
    before = snapshot()
    yield
    changed = changes(before, snapshot())
    if changed:
        restore(before)
        pytest.fail(f"{what} left changed: " + "; ".join(changed), pytrace=False)


@pytest.fixture(autouse=True)
def unchanged_process_state(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test leaves signal handlers, environment and working directory as it found them."""
    yield from check_unchanged(f"the test {request.node.name}")


@pytest.fixture(autouse=True, scope="module")
def unchanged_process_state_by_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """So do a module's module-scoped fixtures (set up before a test's own check)."""
    yield from check_unchanged(f"the module {request.module.__name__} (its fixtures)")
