"""tcpair: a deterministic packet-level simulator of TCP over wired-cum-wireless networks.

The simulation runs in a compiled Rust core (``tcpair._core``); this package
holds the API, the CLI and the experiments that reproduce the papers.
"""

from tcpair._errors import CoreMissingError, ScenarioError, SimulationError
from tcpair.api import Result, catalog, core_version, run, validate
from tcpair.scenario import apply_overrides, load_scenario

__all__ = [
    "CoreMissingError",
    "Result",
    "ScenarioError",
    "SimulationError",
    "apply_overrides",
    "catalog",
    "core_version",
    "load_scenario",
    "run",
    "validate",
]
