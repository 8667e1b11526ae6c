"""tcpair: a deterministic packet-level simulator of TCP over wired-cum-wireless networks.

The simulation runs in a compiled Rust core (``tcpair._core``); this package holds
the API (here), and a subpackage per concern, bottom to top: ``base``, ``evidence``
(statistics, verdicts), ``results`` (the results store), ``simulate`` (one run),
``bench``, ``sweeper`` (sweeps and where they run), ``reporting`` (pages and plots),
``reproduce`` (a folder per paper), ``ns2`` and ``cli`` (docs/architecture.md). The
API's modules are imported on first use (``tcpair.run`` imports
``tcpair.simulate.result``), so ``import tcpair`` and ``python3 -m tcpair`` stay light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tcpair import _moved
from tcpair._errors import CoreMissingError, PluginError, ScenarioError, SimulationError

_moved.install()  # old import paths (tcpair.api, tcpair.runner, ...): see tcpair._moved

if TYPE_CHECKING:
    from pathlib import Path

    from tcpair.simulate.result import Result, catalog, core_version, run, validate
    from tcpair.simulate.scenario import apply_overrides, load_scenario

#: The API's names and the module each comes from, imported when first asked for.
_LAZY = {
    "Result": "tcpair.simulate.result",
    "catalog": "tcpair.simulate.result",
    "core_version": "tcpair.simulate.result",
    "run": "tcpair.simulate.result",
    "validate": "tcpair.simulate.result",
    "apply_overrides": "tcpair.simulate.scenario",
    "load_scenario": "tcpair.simulate.scenario",
}
#: Modules that ``import tcpair`` used to import, still reachable as attributes (at their
#: old paths, which :mod:`tcpair._moved` maps to the new ones).
_SUBMODULES = frozenset({"_perms", "api", "paths", "plain", "plugins", "scenario"})


def __getattr__(name: str) -> Any:
    """Import an API name or a submodule on first access (PEP 562), then keep it."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})


def sweep(
    sweep: Any,
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
    quick: bool = False,
    until_ci: float | None = None,
    max_seeds: int = 30,
    ci_metric: str | None = None,
    until_decided: bool = False,
    retry_failed: bool = False,
    progress: bool = True,
) -> Any:
    """Run a sweep (dict, TOML path or shipped name) into a results store.

    ``out`` is the store (default ``results/<name>``; rerunning resumes);
    ``jobs`` local worker processes (default: all cores; 1 runs in this
    process), or ``scheduler`` (a Dask address) or ``dask_local`` (workers of
    a Dask LocalCluster); ``quick`` the sweep's quick variant; ``until_ci``
    adds seeds (up to ``max_seeds``) until every point's 95% CI half-width of
    ``ci_metric`` is below that fraction of its mean; ``until_decided`` adds
    seeds (up to ``max_seeds``) until no claim of the sweep's target is
    inconclusive (``.incomplete`` says what the cap left short); ``retry_failed`` runs
    again the runs stored as failed; ``progress`` shows a progress bar (a
    plain line every few seconds when not on a terminal). Returns a
    :class:`tcpair.sweeper.view.SweepResult` (``.runs``, ``.points()``,
    ``.failures``, ``.table(name)``).
    """
    from tcpair.reporting.analysis import undecided_claims
    from tcpair.sweeper.runner import run_sweep

    return run_sweep(
        sweep,
        out,
        jobs=jobs,
        scheduler=scheduler,
        dask_local=dask_local,
        quick=quick,
        until_ci=until_ci,
        max_seeds=max_seeds,
        ci_metric=ci_metric,
        until_decided=until_decided,
        judge=undecided_claims if until_decided else None,
        retry_failed=retry_failed,
        progress=progress,
    )


def load(directory: str | Path) -> Any:
    """Read back what :meth:`Result.save` wrote (a :class:`Result`), or open a sweep's
    results store (a :class:`tcpair.sweeper.view.SweepResult`)."""
    from tcpair.base.plain import check_folder

    check_folder(directory, "directory")
    from pathlib import Path

    if (Path(directory) / "sweep.json").is_file():
        from tcpair.sweeper.view import open_sweep

        return open_sweep(directory)
    from tcpair.simulate.result import load_result

    return load_result(directory)


def load_results(directory: Any, **options: Any) -> Any:
    """Every run stored in ``directory`` as a pandas DataFrame (one row per run and flow)."""
    from tcpair.results.store import load_results as _load

    return _load(directory, **options)


def load_sweep(source: Any) -> Any:
    """Parse and check a sweep definition without running it."""
    from tcpair.sweeper.definition import load_sweep as _load

    return _load(source)


def plot(store: Any, **options: Any) -> Any:
    """A matplotlib Figure of a results store: ``x``, ``y``, ``facet``, ``hue``,
    ``out`` (saves it). See :func:`tcpair.reporting.plotting.plot`."""
    from tcpair.reporting.plotting import plot as _plot

    return _plot(store, **options)


def report(directory: Any) -> Any:
    """Build the HTML report for a results store or a folder of stores."""
    from tcpair.reporting.site import build_site

    return build_site(directory)


__all__ = [
    "CoreMissingError",
    "PluginError",
    "Result",
    "ScenarioError",
    "SimulationError",
    "apply_overrides",
    "catalog",
    "core_version",
    "load",
    "load_results",
    "load_scenario",
    "load_sweep",
    "plot",
    "report",
    "run",
    "sweep",
    "validate",
]
