"""Import paths of modules that moved when the package was grouped into subpackages.

Code written against an earlier release (``from tcpair.api import run``,
``import tcpair.runner``) keeps working for one more release: importing an old
path gives the module at its new place, under both names, with a
``DeprecationWarning`` that names the new path. This table is the one place that
lists them; it is removed in the release after.

Old paths whose name is now a subpackage's (``tcpair.cli``, ``tcpair.bench``) need
no entry: the subpackage re-exports what the module had.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: Old module path -> the module that now holds it.
MOVED: dict[str, str] = {
    "tcpair._perms": "tcpair.base.perms",
    "tcpair._plugin_dirs": "tcpair.base.plugin_dirs",
    "tcpair.paths": "tcpair.base.paths",
    "tcpair.plain": "tcpair.base.plain",
    "tcpair.tomlout": "tcpair.base.tomlout",
    "tcpair.stats": "tcpair.evidence.stats",
    "tcpair.verdict": "tcpair.evidence.verdict",
    "tcpair.models": "tcpair.evidence.models",
    "tcpair.store": "tcpair.results.store",
    "tcpair.manifest": "tcpair.results.manifest",
    "tcpair.atomic": "tcpair.results.atomic",
    "tcpair.rowtables": "tcpair.results.rowtables",
    "tcpair.api": "tcpair.simulate.result",
    "tcpair.scenario": "tcpair.simulate.scenario",
    "tcpair.plugins": "tcpair.simulate.plugins",
    "tcpair.runcore": "tcpair.simulate.binding",
    "tcpair.trace": "tcpair.simulate.trace",
    "tcpair.trace_plot": "tcpair.simulate.trace_plot",
    "tcpair.core_program": "tcpair.simulate.core_program",
    "tcpair.scale": "tcpair.bench.scale",
    "tcpair.sweepdef": "tcpair.sweeper.definition",
    "tcpair.sweepparts": "tcpair.sweeper.parts",
    "tcpair.sweepaxes": "tcpair.sweeper.axes",
    "tcpair.sweepview": "tcpair.sweeper.view",
    "tcpair.runner": "tcpair.sweeper.runner",
    "tcpair.rounds": "tcpair.sweeper.rounds",
    "tcpair.backends": "tcpair.sweeper.backends",
    "tcpair.dask_local": "tcpair.sweeper.dask_local",
    "tcpair.progress": "tcpair.sweeper.progress",
    "tcpair.commit": "tcpair.sweeper.commit",
    "tcpair.repair": "tcpair.sweeper.repair",
    "tcpair.site": "tcpair.reporting.site",
    "tcpair.page": "tcpair.reporting.page",
    "tcpair.index_page": "tcpair.reporting.index_page",
    "tcpair.plotting": "tcpair.reporting.plotting",
    "tcpair.analysis": "tcpair.reporting.analysis",
    "tcpair.metrics": "tcpair.reporting.metrics",
    "tcpair.cli_common": "tcpair.cli.common",
    "tcpair.cli_bench": "tcpair.cli.bench",
    "tcpair.cli_info": "tcpair.cli.info",
    "tcpair.cli_store": "tcpair.cli.store",
    "tcpair.cli_sweep": "tcpair.cli.sweep",
    "tcpair.plot_cli": "tcpair.cli.plot",
    "tcpair.runview": "tcpair.cli.runview",
    # Sweep files of earlier releases name their target's analysis by these paths, and
    # a target of one's own imports the shared helpers (docs: "Adding a target").
    "tcpair.reproduce._claims": "tcpair.reproduce.claims",
    "tcpair.reproduce._common": "tcpair.reproduce.common",
    "tcpair.reproduce.snoop_fig3": "tcpair.reproduce.amir1995.fig3",
    "tcpair.reproduce.syndrome": "tcpair.reproduce.chen2002.figs10_13",
    "tcpair.reproduce.syndrome_claims": "tcpair.reproduce.chen2002.claims",
    "tcpair.reproduce.syndrome_fig14": "tcpair.reproduce.chen2002.fig14",
    "tcpair.reproduce.clrp": "tcpair.reproduce.sun2005",
    "tcpair.reproduce.clrp.claims": "tcpair.reproduce.sun2005.claims",
    "tcpair.reproduce.clrp.cwnd": "tcpair.reproduce.sun2005.cwnd",
    "tcpair.reproduce.clrp.plots": "tcpair.reproduce.sun2005.plots",
    "tcpair.reproduce.clrp.readings": "tcpair.reproduce.sun2005.readings",
    "tcpair.reproduce.clrp.spec": "tcpair.reproduce.sun2005.spec",
    "tcpair.reproduce.pr_fairness": "tcpair.reproduce.stojcevska_popov.fairness",
    "tcpair.reproduce.pr_range": "tcpair.reproduce.stojcevska_popov.improvement",
    "tcpair.reproduce.pr_tables": "tcpair.reproduce.stojcevska_popov.tables",
    "tcpair.reproduce.lda_accuracy": "tcpair.reproduce.park2010.accuracy",
    "tcpair.reproduce.respond": "tcpair.reproduce.park2010.respond",
    "tcpair.reproduce.respond_c": "tcpair.reproduce.park2010.respond_c",
    "tcpair.reproduce.respond_w": "tcpair.reproduce.park2010.respond_w",
    "tcpair.reproduce.baseline": "tcpair.reproduce.studies.baseline",
    "tcpair.reproduce.compare_all": "tcpair.reproduce.studies.compare_all",
    "tcpair.reproduce.compare_deploy": "tcpair.reproduce.studies.compare_deploy",
    "tcpair.reproduce.compare_plan": "tcpair.reproduce.studies.compare_plan",
    "tcpair.reproduce.compare_plots": "tcpair.reproduce.studies.compare_plots",
    "tcpair.reproduce.detector_matrix": "tcpair.reproduce.studies.detector_matrix",
    "tcpair.reproduce.detector_matrix_plot": "tcpair.reproduce.studies.detector_matrix_plot",
    "tcpair.reproduce.adaptive_responder": "tcpair.reproduce.studies.adaptive_responder",
}

#: Names an old module had that now live elsewhere: ``tcpair.api.load`` opened a
#: saved run or a sweep's store, which ``tcpair.load`` does now.
RENAMED: dict[str, dict[str, str]] = {"tcpair.api": {"load": "tcpair:load"}}


class _OldPath:
    """Finds an old path of :data:`MOVED` and loads it as the module at its new place (a
    meta path finder and its loader; ``importlib.abc`` is not imported for them, to keep
    ``import tcpair`` light)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; the old path goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        if spec.name not in RENAMED:
            return module
        # A copy of the module's namespace, with the names that moved put back.
        old = ModuleType(spec.name, module.__doc__)
        old.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        for name, where in RENAMED[spec.name].items():
            mod, _, attr = where.partition(":")
            setattr(old, name, getattr(importlib.import_module(mod), attr))
        return old

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new place ran when it was imported."""


def install() -> None:
    """Put the finder of old paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPath) for f in sys.meta_path):
        sys.meta_path.append(_OldPath())
