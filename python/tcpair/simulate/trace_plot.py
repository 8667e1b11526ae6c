"""The time-sequence diagram of one flow from the event trace (as tcptrace and
ns-2's xgraph draw it): segments sent, retransmissions by origin, ACKs
received, drops."""

from __future__ import annotations

from typing import Any

import pandas as pd

from tcpair._errors import ScenarioError


def time_sequence(
    trace: pd.DataFrame,
    flow: str,
    start: float | None = None,
    end: float | None = None,
    ax: Any = None,
) -> Any:
    """Draw ``flow``'s time-sequence diagram between ``start`` and ``end``
    (seconds) and return the matplotlib Figure."""
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    flows = sorted(trace["flow"].dropna().unique())
    if flow not in flows:
        raise ScenarioError(f"flow: no flow named {flow!r} in the trace (has {flows})")
    t = trace[trace["flow"] == flow]
    if start is not None:
        t = t[t["time_s"] >= start]
    if end is not None:
        t = t[t["time_s"] < end]
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 5))
    else:
        fig = ax.figure
    _draw(ax, t)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segment number")
    window = "" if start is None and end is None else f", {start or 0:g}-{end or '':} s"
    ax.set_title(f"time-sequence diagram of {flow}{window}")
    ax.legend(loc="upper left", fontsize="small")
    ax.grid(True, alpha=0.3)
    return fig


def _draw(ax: Any, t: pd.DataFrame) -> None:
    """One mark per event of the flow's trace ``t``: segments sent, retransmitted by the
    sender or the base station, dropped; ACKs received as a step, ACKs dropped."""
    sends = t[t["kind"] == "send"]
    first = sends[sends["origin"] == "first"]
    again = sends[sends["origin"] == "sender"]
    local = t[t["kind"] == "bs_local_retransmit"]
    acks = t[t["kind"] == "ack_received"]
    drops = t[(t["kind"] == "drop") & (t["packet"] == "data")]
    ack_drops = t[(t["kind"] == "drop") & (t["packet"] == "ack")]
    ax.plot(first["time_s"], first["seq"], "|", color="tab:blue", label="segment sent")
    ax.plot(again["time_s"], again["seq"], "s", mfc="none", color="tab:red",
            label="retransmitted by the sender")
    ax.plot(local["time_s"], local["seq"], "D", mfc="none", color="tab:green",
            label="retransmitted by the BS")
    ax.step(acks["time_s"], acks["seq"], where="post", color="tab:gray", lw=0.8,
            label="ACK received (next expected)")
    ax.plot(drops["time_s"], drops["seq"], "x", color="black", label="segment dropped")
    if len(ack_drops):
        ax.plot(ack_drops["time_s"], ack_drops["seq"], "+", color="tab:orange", label="ACK dropped")
