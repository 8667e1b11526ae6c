"""Running a scenario in the compiled core: load it and apply overrides, send it
as JSON, decode the answer. What ``tcpair run`` and ``tcpair validate`` need and
no more: the :class:`tcpair.simulate.result.Result` around an answer (dataclasses, pandas)
lives in :mod:`tcpair.simulate.result`, which re-exports these functions.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tcpair._errors import PluginError, ScenarioError, SimulationError, require_core
from tcpair.base.plain import NotFinite
from tcpair.simulate.scenario import Overrides, Scenario, prepare_scenario

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
    scenario: ScenarioSource,
    *,
    overrides: Overrides | None = (),
    seed: int | None = None,
    read_only: bool = False,
) -> Scenario:
    """Load ``scenario`` and apply overrides and seed; no validation yet.
    ``read_only``: :func:`tcpair.simulate.scenario.prepare_scenario`'s.

    A number JSON cannot carry (``nan``, ``inf``) under a key the scenario does not
    have is told as the unknown key it is, as any other value would be."""
    try:
        return prepare_scenario(scenario, overrides, seed=seed, read_only=read_only)
    except NotFinite as exc:
        found = exc.scenario
        if found is None and isinstance(overrides, Mapping):
            try:  # the non-finite number is a value of ``overrides``
                found = prepare_scenario(
                    scenario, {k: _nulled(v) for k, v in overrides.items()}, seed=seed
                )
            except (ScenarioError, RecursionError):
                found = None
        if found is not None:
            _raise_unknown_key(found)
        raise


def _nulled(value: Any) -> Any:
    """``value`` with every non-finite number made ``None`` (JSON's null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _nulled(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_nulled(v) for v in value]
    return value


def _raise_unknown_key(scenario: Mapping[str, Any]) -> None:
    """Raise the core's error if it finds an unknown key in ``scenario`` with its
    non-finite numbers made null; return if it finds none (or cannot be asked)."""
    try:
        text = to_json(_nulled(scenario))
    except (RecursionError, TypeError, ValueError):  # unfit for JSON otherwise too
        return
    try:
        core = require_core()
    except RuntimeError:  # CoreMissingError: no core to ask
        return
    try:
        with _one_line_errors():
            core.validate(text)
    except ScenarioError as exc:
        if "unknown key " in str(exc):
            raise exc from None


def to_json(scenario: Mapping[str, Any]) -> str:
    """Serialise a scenario for the core.

    TOML dates/times have no JSON form; they are sent as strings so the core
    can reject them with a field-naming message instead of Python failing.
    """
    return json.dumps(scenario, default=str, allow_nan=False)


#: A scenario's JSON text, or the text handed over (:func:`handed`).
Text = str | list[str]


def run_json(scenario: Mapping[str, Any], *, tables: bool = True) -> dict[str, Any]:
    """Run a prepared scenario in the core and decode its JSON answer.

    ``tables=False`` asks only for ``summary`` and ``flows`` (what ``tcpair run``
    shows): the tables of every drop and recovery are neither encoded nor decoded.
    The scenario's text is handed over (:func:`handed`): nothing holds it
    through the run.
    """
    return _answer(handed(to_json(scenario)), tables)


def handed(text: str) -> list[str]:
    """``text`` in a list for the core to take it out of (``[text]``, left empty).

    Called on a text that nothing else refers to (``handed(to_json(sc))``), it
    lets Python free the text as soon as the core has read it, instead of
    holding it through the whole run: 5 MiB at 10,000 flows.
    """
    return [text]


def run_json_text(scenario_json: str) -> dict[str, Any]:
    """:func:`run_json` of a scenario already serialised by :func:`to_json` (a
    sweep's workers receive it so: no decoding and encoding again)."""
    return _answer(scenario_json, True)


def _answer(text: Text, tables: bool) -> dict[str, Any]:
    """The core's decoded answer to ``text``: every table, or with ``tables``
    false only ``summary`` and ``flows``."""
    core = require_core()
    only = None if tables else getattr(core, "run_summary", None)
    with _one_line_errors():
        if only is not None:
            return json.loads(only(text))
        raw = json.loads(core.run(text))  # a stand-in core may have only `run`
        return raw if tables else {"flows": raw.get("flows", []), "summary": raw.get("summary", {})}


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
    return run_text_traced(handed(to_json(scenario)), scenario.get("trace"), path, tables=tables)


def run_text_traced(
    text: Text, table: Any, path: Path | None = None, *, tables: bool = True
) -> tuple[dict[str, Any], Path | None]:
    """:func:`run_json_traced` of a scenario's text (or the text handed over:
    :func:`handed`) and its ``[trace]`` table (``scenario.get("trace")``), for a
    caller that holds no longer the scenario through the run (``tcpair.run``)."""
    pcap = table.get("pcap") if isinstance(table, Mapping) else None
    if not isinstance(pcap, str) or not pcap:
        return _run_traced(text, table, path, tables)
    pdir = Path(pcap)
    before = set(pdir.iterdir()) if pdir.is_dir() else None
    try:
        return _run_traced(text, table, path, tables)
    except BaseException:
        if pdir.is_dir():
            for f in set(pdir.iterdir()) - (before or set()):
                f.unlink(missing_ok=True)
            if before is None and not any(pdir.iterdir()):
                pdir.rmdir()
        raise


def _run_traced(
    text: Text, table: Any, path: Path | None, tables: bool = True
) -> tuple[dict[str, Any], Path | None]:
    if not isinstance(table, Mapping) or table.get("events") is False:
        return _answer(text, tables), None
    from tcpair.simulate.trace import ParquetTrace

    if path is None:
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="tcpair-trace-")) / "trace.parquet"
    core = require_core()
    try:
        sink = ParquetTrace(path)
    except OSError as e:
        raise ScenarioError(f"trace: cannot write {path}: {e.strerror or e}") from None
    try:
        answer = core.run_traced(text, sink)
    except BaseException:
        sink.close()
        path.unlink(missing_ok=True)
        raise
    sink.close()
    return json.loads(answer), path


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
    "handed",
    "prepare",
    "run_json",
    "run_json_text",
    "run_json_traced",
    "run_text_traced",
    "scenario_name",
    "to_json",
    "validate",
    "with_trace",
]
