"""Running a scenario in the compiled core: load it and apply overrides, send it
as JSON, decode the answer. What ``tcpair run`` and ``tcpair validate`` need and
no more: the :class:`tcpair.api.Result` around an answer (dataclasses, pandas)
lives in :mod:`tcpair.api`, which re-exports these functions.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tcpair._errors import PluginError, ScenarioError, SimulationError, require_core
from tcpair.scenario import Overrides, Scenario, prepare_scenario

ScenarioSource = Mapping[str, Any] | str | Path

#: The tables of a run's answer, in the order a result shows them.
TABLES = (
    "flows",
    "drops",
    "recoveries",
    "timeseries",
    "bs_state",
    "bs_counters",
    "handoffs",
)


def prepare(
    scenario: ScenarioSource, *, overrides: Overrides | None = (), seed: int | None = None
) -> Scenario:
    """Load ``scenario`` and apply overrides and seed; no validation yet."""
    return prepare_scenario(scenario, overrides, seed=seed)


def to_json(scenario: Mapping[str, Any]) -> str:
    """Serialise a scenario for the core.

    TOML dates/times have no JSON form; they are sent as strings so the core
    can reject them with a field-naming message instead of Python failing.
    """
    return json.dumps(scenario, default=str, allow_nan=False)


def run_json(scenario: Mapping[str, Any], *, tables: bool = True) -> dict[str, Any]:
    """Run a prepared scenario in the core and decode its JSON answer.

    ``tables=False`` asks only for ``summary`` and ``flows`` (what ``tcpair run``
    shows): the tables of every drop and recovery are neither encoded nor decoded.
    """
    if tables:
        return run_json_text(to_json(scenario))
    core = require_core()
    only = getattr(core, "run_summary", None)  # a stand-in core may have only `run`
    with _one_line_errors():
        if only is None:
            raw = json.loads(core.run(to_json(scenario)))
            return {"flows": raw.get("flows", []), "summary": raw.get("summary", {})}
        return json.loads(only(to_json(scenario)))


def run_json_text(scenario_json: str) -> dict[str, Any]:
    """:func:`run_json` of a scenario already serialised by :func:`to_json` (a
    sweep's workers receive it so: no decoding and encoding again)."""
    core = require_core()
    with _one_line_errors():
        return json.loads(core.run(scenario_json))


@contextlib.contextmanager
def _one_line_errors() -> Iterator[None]:
    """The core's messages quote what the user wrote, line breaks included:
    keep each message on one line."""
    try:
        yield
    except PluginError:  # the user's traceback: its lines are the point
        raise
    except (ScenarioError, SimulationError) as exc:
        text = str(exc)
        if "\n" not in text and "\r" not in text:
            raise
        raise type(exc)(text.replace("\r", "\\r").replace("\n", "\\n")) from None


def scenario_name(scenario: ScenarioSource) -> str:
    """A short name for a scenario: the file's stem, else ``scenario``."""
    if isinstance(scenario, Mapping):
        return "scenario"
    return Path(scenario).stem or "scenario"


def with_trace(sc: Scenario, *, trace: bool, pcap: str | Path | None) -> Scenario:
    """``sc`` with its ``[trace]`` table switched on for ``trace``/``pcap``."""
    if not trace and pcap is None:
        return sc
    out = dict(sc)
    table = dict(out.get("trace") or {})
    if pcap is not None:
        table["pcap"] = str(pcap)
        if not trace and "trace" not in sc:
            table["events"] = False
    if trace:
        table["events"] = True
    out["trace"] = table
    return out


def run_json_traced(
    scenario: Mapping[str, Any], path: Path | None = None, *, tables: bool = True
) -> tuple[dict[str, Any], Path | None]:
    """Run a prepared scenario; with an event trace (its ``[trace]`` table),
    stream it into ``path`` (default: a temporary file) and return that path.
    ``tables=False``: only ``summary`` and ``flows`` when untraced (:func:`run_json`).

    A run that fails leaves no output: the trace file and the pcap files it
    wrote are removed.
    """
    table = scenario.get("trace")
    pcap = table.get("pcap") if isinstance(table, Mapping) else None
    if not isinstance(pcap, str) or not pcap:
        return _run_traced(scenario, path, tables)
    pdir = Path(pcap)
    before = set(pdir.iterdir()) if pdir.is_dir() else None
    try:
        return _run_traced(scenario, path, tables)
    except BaseException:
        if pdir.is_dir():
            for f in set(pdir.iterdir()) - (before or set()):
                f.unlink(missing_ok=True)
            if before is None and not any(pdir.iterdir()):
                pdir.rmdir()
        raise


def _run_traced(
    scenario: Mapping[str, Any], path: Path | None, tables: bool = True
) -> tuple[dict[str, Any], Path | None]:
    table = scenario.get("trace")
    if not isinstance(table, Mapping) or table.get("events") is False:
        return run_json(scenario, tables=tables), None
    from tcpair.trace import ParquetTrace

    if path is None:
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="tcpair-trace-")) / "trace.parquet"
    core = require_core()
    try:
        sink = ParquetTrace(path)
    except OSError as e:
        raise ScenarioError(f"trace: cannot write {path}: {e.strerror or e}") from None
    try:
        text = core.run_traced(to_json(scenario), sink)
    except BaseException:
        sink.close()
        path.unlink(missing_ok=True)
        raise
    sink.close()
    return json.loads(text), path


def validate(
    scenario: ScenarioSource,
    *,
    overrides: Overrides | None = (),
    seed: int | None = None,
) -> Scenario:
    """Return the normalised scenario or raise :class:`ScenarioError`.

    Normalised: every default filled in and every quantity in base units
    (seconds, bit/s), so ``"2Mb"`` comes back as ``2000000.0``.
    """
    sc = prepare(scenario, overrides=overrides, seed=seed)
    core = require_core()
    with _one_line_errors():
        return json.loads(core.validate(to_json(sc)))


def compact(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The CLI's ``--json`` object of the core's answer ``raw``: the headline
    numbers at the top level."""
    s = raw.get("summary", {})
    return {
        "flows": raw.get("flows", []),
        "events": s.get("events"),
        "sim_time_s": s.get("sim_time_s"),
        "wall_s": s.get("wall_s"),
        "summary": s,
    }


__all__ = [
    "ScenarioSource",
    "compact",
    "prepare",
    "run_json",
    "run_json_text",
    "run_json_traced",
    "scenario_name",
    "to_json",
    "validate",
    "with_trace",
]
