"""What ``tcpair run`` shows: the flow table's columns (scheme columns only
when the scenario uses the scheme), each flow's detector accuracy, and a
spinner with the simulated duration while a long run is in the core."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

BASE_COLUMNS = [
    ("name", "flow"),
    ("variant", "variant"),
    ("goodput_kbps", "goodput kb/s"),
    ("throughput_kbps", "throughput kb/s"),
    ("sent", "sent"),
    ("retransmits", "rexmits"),
    ("timeouts", "timeouts"),
    ("fast_retransmits", "fast rexmits"),
    ("window_cuts", "cuts"),
    ("delay_mean_s", "delay s"),
    ("mean_rtt_s", "RTT s"),
]

# (scheme, columns): a scheme's columns are shown when it is configured or
# any of them is non-zero.
SCHEME_COLUMNS = [
    ("bs", [("bs_retransmits", "BS rexmits")]),
    ("eln", [("eln_retransmits", "ELN rexmits")]),
    ("syndrome", [("syndrome_credits", "Syndrome credits")]),
    ("clrp", [("clrp_notices", "CLRP notices"), ("clrp_retransmits", "CLRP rexmits")]),
    ("detector", [("detector_accuracy", "detector accuracy"), ("wireless_frs", "wireless FRs")]),
]


def _agents(scenario: Mapping[str, Any]) -> set[str]:
    """Names of the BS agents on any node."""
    names = set()
    for node in scenario.get("nodes") or []:
        for a in (node.get("bs") or []) if isinstance(node, Mapping) else []:
            names.add(str(a.get("agent") if isinstance(a, Mapping) else a))
    return names


def configured(scenario: Mapping[str, Any], flows: list[dict[str, Any]]) -> set[str]:
    """The schemes the scenario sets up (BS agents, ELN, Syndrome, CLRP, a detector)."""
    agents = _agents(scenario)
    on = {"bs"} if agents else set()
    if "eln_snoop" in agents or any(f.get("detector") == "eln" for f in flows):
        on.add("eln")
    if "syndrome" in agents:
        on.add("syndrome")
    if "clrp" in agents:
        on.add("clrp")
    if any(f.get("detector") not in (None, "none") for f in flows):
        on.add("detector")
    return on


def flow_columns(scenario: Mapping[str, Any], flows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The base columns plus those of every scheme in use."""
    on = configured(scenario, flows)
    cols = list(BASE_COLUMNS)
    for scheme, extra in SCHEME_COLUMNS:
        nonzero = any(f.get(k) not in (None, 0, 0.0) for f in flows for k, _ in extra)
        if scheme in on or nonzero:
            cols += extra
    return cols


def detector_accuracy(recoveries: Any) -> dict[str, float]:
    """Per flow: share of fast retransmits whose verdict matched the ground truth."""
    out: dict[str, float] = {}
    if recoveries is None or getattr(recoveries, "empty", True):
        return out
    need = {"flow", "event", "verdict", "true_verdict"}
    if not need <= set(recoveries.columns):
        return out
    fr = recoveries[recoveries["event"] == "fast_retransmit"]
    for flow, rows in fr.groupby("flow"):
        judged = rows[rows["true_verdict"].notna()]
        if len(judged):
            out[str(flow)] = float((judged["verdict"] == judged["true_verdict"]).mean())
    return out


@contextlib.contextmanager
def running(console: Console, what: str, duration: Any) -> Iterator[None]:
    """A spinner with the elapsed time while the core runs (terminals only)."""
    if console.is_jupyter or not console.is_terminal:
        yield
        return
    sim = f"{duration:g} s" if isinstance(duration, int | float) else str(duration)
    with Progress(
        SpinnerColumn(),
        TextColumn(f"simulating {what}: {sim} of simulated time"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        bar.add_task("run", total=None)
        yield


__all__ = ["configured", "detector_accuracy", "flow_columns", "running"]
