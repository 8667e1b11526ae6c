"""What ``tcpair run`` shows: the flow table's columns (scheme columns only
when the scenario uses the scheme), each flow's detector accuracy, and a
spinner with the simulated duration while a long run is in the core."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported only for a terminal's spinner
    from rich.console import Console

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
    # Park et al. 2010, §3: the detector's accuracy against the ground truth.
    (
        "detector",
        [
            ("detector", "detector"),
            ("wireless_frs", "wireless FRs"),
            ("acc_w", "A_w"),
            ("acc_c", "A_c"),
            ("acc_t", "A_t"),
        ],
    ),
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
        # Counters only: a plain sender's accuracy (0 / 1 / 0.5 by definition) is no sign.
        counters = [k for k, _ in extra if k != "detector" and not k.startswith("acc_")]
        nonzero = any(f.get(k) not in (None, 0, 0.0) for f in flows for k in counters)
        if scheme in on or nonzero:
            cols += extra
    return cols


MAC_FIELDS = [
    ("data_frames", "data frames"),
    ("retries", "retries"),
    ("collisions", "collisions"),
    ("frame_errors", "frame errors"),
    ("contention_drops", "retry-limit drops (contention)"),
    ("frame_error_drops", "retry-limit drops (frame error)"),
    ("queue_drops", "interface-queue drops"),
]


def mac_line(summary: Mapping[str, Any]) -> str:
    """The 802.11 media's counters after the warm-up, or '' for a run without a medium."""
    mac = summary.get("mac")
    if not isinstance(mac, Mapping):
        return ""
    parts = ", ".join(f"{label} {mac.get(k, 0)}" for k, label in MAC_FIELDS)
    return f"802.11 MAC after the warm-up: {parts}"


@contextlib.contextmanager
def running(console: Console, what: str, duration: Any) -> Iterator[None]:
    """A spinner with the elapsed time while the core runs (terminals only)."""
    if console.is_jupyter or not console.is_terminal:
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

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


__all__ = ["configured", "flow_columns", "running"]
