"""The Python API: run a scenario, get pandas tables back.

All simulation happens in the compiled core in one call; Python only prepares
the scenario JSON and shapes the result. Tables arrive column-oriented (a dict
of equal-length lists), which maps straight onto a DataFrame without a
per-row Python loop. Preparing, sending and decoding live in
:mod:`tcpair.simulate.binding` (what ``tcpair run`` imports), re-exported here.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcpair._errors import PluginError, ScenarioError, SimulationError, require_core
from tcpair.base.plain import BROWSER_FILES, check_folder
from tcpair.results.atomic import check_replaceable as check_replaceable  # re-exported
from tcpair.results.atomic import write_atomically as write_atomically
from tcpair.simulate.binding import TABLES as TABLES
from tcpair.simulate.binding import (
    ScenarioSource,
    compact,
    handed,
    prepare,
    run_json,
    run_text_traced,
    validate,
)
from tcpair.simulate.binding import run_json_text as run_json_text  # re-exported: callers import
from tcpair.simulate.binding import (
    run_json_traced as run_json_traced,  # these from tcpair.simulate.result
)
from tcpair.simulate.binding import scenario_name as scenario_name
from tcpair.simulate.binding import to_json as to_json
from tcpair.simulate.binding import with_trace as with_trace
from tcpair.simulate.scenario import Overrides, Scenario

if TYPE_CHECKING:  # pandas is imported when a table is first asked for: `tcpair run` starts fast
    import pandas as pd

# shutil, tempfile and tcpair.base.perms are imported where a result is saved or a
# run traced: a plain `tcpair run` uses none of them.


def _frame(table: Any) -> pd.DataFrame:
    import pandas as pd

    if table is None:
        return pd.DataFrame()
    if isinstance(table, list):  # rows (flows) or already row-oriented
        return pd.DataFrame(table)
    return pd.DataFrame(dict(table))


@dataclass
class Result:
    """One run's output: a summary dict and pandas tables.

    ``raw`` keeps the core's JSON-decoded answer untouched so nothing is lost
    by the DataFrame conversion (``to_json`` round-trips it).
    """

    raw: dict[str, Any]
    scenario: Scenario = field(default_factory=dict)
    name: str = "scenario"
    #: The event trace's Parquet file, when the run was traced.
    trace_path: Path | None = None
    _trace: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return result_summary(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython's pretty printer
        p.text(repr(self))

    @property
    def summary(self) -> dict[str, Any]:
        return self.raw.get("summary", {})

    @property
    def flows(self) -> pd.DataFrame:
        return _frame(self.raw.get("flows"))

    @property
    def drops(self) -> pd.DataFrame:
        return _frame(self.raw.get("drops"))

    @property
    def recoveries(self) -> pd.DataFrame:
        return _frame(self.raw.get("recoveries"))

    @property
    def timeseries(self) -> pd.DataFrame:
        return _frame(self.raw.get("timeseries"))

    @property
    def bs_state(self) -> pd.DataFrame:
        """State held by each BS agent (per flow and ``total``): peak and time-average."""
        return _frame(self.raw.get("bs_state"))

    @property
    def bs_counters(self) -> pd.DataFrame:
        """BS agents' own counters (local retransmissions, suppressed DUPACKs, ...)."""
        return _frame(self.raw.get("bs_counters"))

    @property
    def trace(self) -> pd.DataFrame:
        """The event trace (docs/trace.md), read from its Parquet file on first use."""
        if self._trace is None:
            if self.trace_path is None:
                raise ScenarioError(
                    "trace: this run was not traced; run it with trace=True "
                    "(or --trace, or a [trace] table in the scenario)"
                )
            from tcpair.simulate.trace import read

            self._trace = read(self.trace_path)
        return self._trace

    def follow(self, packet_id: int, flow: str | None = None) -> pd.DataFrame:
        """The trace's rows about one packet id (of ``flow``, when the network has
        several independent parts: ids are counted per part), in time order."""
        from tcpair.simulate.trace import follow

        return follow(self.trace, packet_id, flow)

    def time_sequence(self, flow: str, start: float | None = None, end: float | None = None) -> Any:
        """The time-sequence diagram of ``flow`` (a matplotlib Figure)."""
        from tcpair.simulate.trace_plot import time_sequence

        return time_sequence(self.trace, flow, start, end)

    @property
    def handoffs(self) -> pd.DataFrame:
        """The mobile host's handoffs, one row per handoff and flow (``[mobility]`` runs)."""
        return _frame(self.raw.get("handoffs"))

    def table(self, name: str) -> pd.DataFrame:
        """A table by name (one of :data:`TABLES`)."""
        if name not in TABLES:
            raise KeyError(f"unknown table {name!r}; expected one of {', '.join(TABLES)}")
        return getattr(self, name)

    def to_json(self, **kwargs: Any) -> str:
        """The core's result as a JSON string."""
        return json.dumps(self.raw, **kwargs)

    def compact(self) -> dict[str, Any]:
        """The CLI's ``--json`` object: the headline numbers at the top level."""
        return compact(self.raw)

    def save(self, directory: str | Path) -> Path:
        """Write ``summary.json``, ``scenario.json`` and one Parquet file per table.

        Everything is written into a temporary sibling directory that is then
        renamed into place, so a crash or a full disk never leaves a half-written
        result that looks complete.
        """
        check_folder(directory, "directory")
        return write_atomically(Path(directory), self._write_into, ours=RESULT_FILES)

    def _write_into(self, tmp: Path) -> None:
        head = {"name": self.name, "summary": self.summary, "flows": self.raw.get("flows", [])}
        (tmp / "summary.json").write_text(json.dumps(head, indent=2) + "\n")
        if self.scenario:
            (tmp / "scenario.json").write_text(json.dumps(self.scenario, indent=2, default=str))
        for name in TABLES:
            self.table(name).to_parquet(tmp / f"{name}.parquet", index=False)
        if self.trace_path is not None and self.trace_path.is_file():
            import shutil

            shutil.copyfile(self.trace_path, tmp / "trace.parquet")


#: What :meth:`Result.save` writes into its folder, and a file browser's files
#: (replaced with the folder, no loss).
RESULT_FILES = (
    frozenset({"summary.json", "scenario.json", "trace.parquet"})
    | {f"{t}.parquet" for t in TABLES}
    | BROWSER_FILES
)


def run(
    scenario: ScenarioSource,
    *,
    overrides: Overrides | None = (),
    seed: int | None = None,
    trace: bool | str | Path | None = None,
    pcap: str | Path | None = None,
) -> Result:
    """Run ``scenario`` (a TOML path, a shipped scenario's name or a dict).

    ``overrides`` is a dict ``{"links.wireless.forward.loss.p": 0.02}`` or a
    list of ``dotted.key=value`` strings as on the command line (``*`` stands
    for every list element: ``flows.*.variant``); ``seed`` sets ``run.seed``.
    ``trace`` switches the event trace on (``True``: into a temporary file; a
    path: into that Parquet file); ``pcap`` writes one pcap file per link
    direction into that directory (docs/trace.md). A ``[trace]`` table in the
    scenario filters both (and switches the trace on by itself).
    Raises :class:`ScenarioError` for bad input and :class:`SimulationError`
    when a valid run fails (e.g. event budget).
    """
    if not (trace is None or isinstance(trace, bool | str | os.PathLike)):
        raise TypeError(f"trace: expected True, False or a file's path, got {type(trace).__name__}")
    if pcap is not None:
        check_folder(pcap, "pcap")
    sc = prepare(scenario, overrides=overrides, seed=seed, read_only=True)
    sc = with_trace(sc, trace=bool(trace), pcap=pcap)
    path = None if trace is None or isinstance(trace, bool) else Path(trace)
    # Through the run neither the prepared scenario nor its text is held, only
    # the text compressed (at 10,000 flows 18 MiB of dicts, a 5 MiB text, 0.3
    # MiB compressed: 15 ms to compress, 13 to expand); the result's scenario
    # is read back from it once the run's state is gone.
    text, table = to_json(sc), sc.get("trace")
    del sc
    kept = zlib.compress(text.encode(), 1)
    box = handed(text)
    del text
    raw, trace_path = run_text_traced(box, table, path)
    return Result(raw=raw, scenario=json.loads(zlib.decompress(kept)),
                  name=scenario_name(scenario), trace_path=trace_path)


def load_result(directory: str | Path) -> Result:
    """Read back what :meth:`Result.save` wrote. ``tcpair.load`` also opens a sweep's
    results store; this reads a saved run only."""
    check_folder(directory, "directory")
    d = Path(directory)
    if not (d / "summary.json").is_file():
        raise ScenarioError(f"{d}: not a saved result (no summary.json) nor a sweep store")
    import pandas as pd

    head = json.loads((d / "summary.json").read_text())
    raw: dict[str, Any] = {"summary": head.get("summary", {}), "flows": head.get("flows", [])}
    for name in TABLES:
        path = d / f"{name}.parquet"
        if name != "flows" and path.is_file():
            raw[name] = pd.read_parquet(path).to_dict(orient="list")
    scenario_file = d / "scenario.json"
    sc = json.loads(scenario_file.read_text()) if scenario_file.is_file() else {}
    trace = d / "trace.parquet"
    return Result(
        raw=raw,
        scenario=sc,
        name=head.get("name", d.name),
        trace_path=trace if trace.is_file() else None,
    )


def result_summary(r: Result) -> str:
    """One line: name, seed, simulated time, flows' goodput, non-empty tables."""
    s = r.summary
    flows = r.raw.get("flows") or []
    goodputs = [f.get("goodput_kbps") for f in flows]
    shown = "/".join(f"{g / 1000:.3g}" for g in goodputs[:4] if isinstance(g, int | float))
    more = "/..." if len(goodputs) > 4 else ""
    tables = [t for t in TABLES if _has_rows(r.raw.get(t))]
    sim = s.get("sim_time_s")
    sim_s = f" {sim:g} s" if isinstance(sim, int | float) else ""
    return (
        f"<tcpair.Result {r.name} seed={s.get('seed')}{sim_s}: {len(flows)} flow"
        f"{'' if len(flows) == 1 else 's'}, goodput {shown or '-'}{more} Mb/s; "
        f"tables: {', '.join(tables) or 'none'}>"
    )


def _has_rows(table: Any) -> bool:
    if isinstance(table, list):
        return bool(table)
    if isinstance(table, Mapping):
        return any(len(v) for v in table.values() if isinstance(v, list))
    return False


def catalog() -> dict[str, Any]:
    """What the core offers: TCP variants, error models, impairments."""
    core = require_core()
    return json.loads(core.catalog())


def core_version() -> str | None:
    """The compiled core's version, or None when it is not built."""
    try:
        return str(require_core().__version__)
    except RuntimeError:
        return None


__all__ = [
    "RESULT_FILES",
    "TABLES",
    "PluginError",
    "Result",
    "ScenarioError",
    "SimulationError",
    "catalog",
    "check_replaceable",
    "core_version",
    "load_result",
    "prepare",
    "result_summary",
    "run",
    "run_json",
    "validate",
    "write_atomically",
]
