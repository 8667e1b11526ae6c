"""Error types shared by the Python layer and the compiled core.

The core (``tcpair._core``) defines ``ScenarioError`` and ``SimulationError``.
We reuse those classes when the core is built, so that an error raised while
parsing ``--set`` overrides in Python and one raised by the Rust validator are
caught by the same ``except`` clause. Without the core (e.g. while it is being
developed), equivalent pure-Python classes stand in.
"""

from __future__ import annotations

from types import ModuleType

_core: ModuleType | None
try:  # pragma: no cover - depends on whether the extension is built
    from tcpair import _core as _core_module

    _core = _core_module
except ImportError:  # pragma: no cover
    _core = None

if _core is not None:
    ScenarioError: type[ValueError] = _core.ScenarioError
    SimulationError: type[RuntimeError] = _core.SimulationError
    PluginError: type[RuntimeError] = _core.PluginError
else:

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """Bad scenario input; the message names the field and the value."""

    class SimulationError(RuntimeError):  # type: ignore[no-redef]
        """A valid scenario failed while running (e.g. event budget used up)."""

    class PluginError(SimulationError):  # type: ignore[no-redef]
        """A detector or responder written in Python raised or answered wrongly."""


class CoreMissingError(RuntimeError):
    """The compiled extension ``tcpair._core`` is not importable.

    Kept separate from user-input errors: it is an installation problem, and
    the CLI reports it with a hint on how to build the core.
    """


class StoreLocked(ScenarioError):
    """Another process is writing into the same results store."""


def require_core() -> ModuleType:
    """Return ``tcpair._core`` or raise a :class:`CoreMissingError` with a fix."""
    if _core is None:
        raise CoreMissingError(
            "the compiled core tcpair._core is not built; install the package with "
            "`python3 -m pip install .` from the repository root"
        )
    return _core


__all__ = [
    "CoreMissingError",
    "PluginError",
    "ScenarioError",
    "SimulationError",
    "StoreLocked",
    "require_core",
]
