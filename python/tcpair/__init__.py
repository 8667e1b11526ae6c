"""tcpair: a deterministic packet-level simulator of TCP over wired-cum-wireless networks.

The simulation runs in a compiled Rust core (``tcpair._core``); this package
holds the API, the CLI, sweeps, the results store and the experiments that
reproduce the papers. Sweep machinery is imported on first use, so
``import tcpair`` stays light.
"""

from __future__ import annotations

from typing import Any

from tcpair._errors import CoreMissingError, ScenarioError, SimulationError
from tcpair.api import Result, catalog, core_version, run, validate
from tcpair.scenario import apply_overrides, load_scenario


def sweep(sweep: Any, out: Any = None, **options: Any) -> Any:
    """Run a sweep (dict, TOML path or shipped name) into a results store.

    See :func:`tcpair.runner.run_sweep` for the options (``jobs``,
    ``scheduler``, ``dask_local``, ``quick``, ``until_ci``, ...). Returns a
    :class:`tcpair.runner.SweepResult` (``.runs``, ``.points()``, ``.failures``).
    """
    from tcpair.runner import run_sweep

    return run_sweep(sweep, out, **options)


def load_results(directory: Any, **options: Any) -> Any:
    """Every run stored in ``directory`` as a pandas DataFrame (one row per run and flow)."""
    from tcpair.store import load_results as _load

    return _load(directory, **options)


def load_sweep(source: Any) -> Any:
    """Parse and check a sweep definition without running it."""
    from tcpair.sweepdef import load_sweep as _load

    return _load(source)


def plot(store: Any, **options: Any) -> Any:
    """A matplotlib Figure of a results store: ``x``, ``y``, ``facet``, ``hue``,
    ``out`` (saves it). See :func:`tcpair.plotting.plot`."""
    from tcpair.plotting import plot as _plot

    return _plot(store, **options)


def report(directory: Any) -> Any:
    """Build the HTML report for a results store or a folder of stores."""
    from tcpair.site import build_site

    return build_site(directory)


__all__ = [
    "CoreMissingError",
    "Result",
    "ScenarioError",
    "SimulationError",
    "apply_overrides",
    "catalog",
    "core_version",
    "load_results",
    "load_scenario",
    "load_sweep",
    "plot",
    "report",
    "run",
    "sweep",
    "validate",
]
