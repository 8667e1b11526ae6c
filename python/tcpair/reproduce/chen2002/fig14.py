"""Target ``syndrome_fig14``: Chen et al. 2002 (Syndrome), Figure 14, hand-offs.

S1 and S2 send to a mobile host handed off between its home agent and a foreign
agent at 8, 13, 18 and 23 s (1.2 s each); Reno, Snoop and Syndrome, the scheme at
both base stations (``scenarios/syndrome_fig14.toml``). The paper's four panels:
instantaneous throughput (1 s moving window) in (a) and (c), the sequence number in
(b) and (d); we read the pairs as S1 and S2 and draw, per scheme, the median trace
over the seeds with the band between the 25th and 75th percentiles.

What each claim is measured on (per run and flow; every verdict from 95% intervals
paired by seed, :mod:`tcpair.evidence.verdict`):

- "outperforms ... in instantaneous throughput": goodput over the run (the mean of
  the instantaneous throughput), Syndrome/Snoop and Syndrome/Reno above 1.
- "... and advance in TCP sequence number": the highest sequence number sent at
  the end of the run, the same two ratios above 1.
- "suffers least during hand-off": the *retained fraction* of each hand-off, the
  sequence advance from its start to 2 s after its end divided by what the rate of
  the 2 s before it would have sent in that time, averaged over the four hand-offs;
  Syndrome minus each other scheme above 0.
- "resumes ... immediately": the time from each hand-off's end to the flow's first
  new in-order delivery (the ``handoffs`` table's ``resumed_at``) and to the first
  sample whose moving-window throughput is back to half its value at the hand-off's
  start, averaged over the hand-offs; Syndrome minus each other scheme below 0.

Modules: :mod:`.fig14_traces` (the measures from the stored traces),
:mod:`.fig14_claims` (the verdicts) and this one (the plots and the page).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.stats import aggregate
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Figure
from tcpair.reproduce.chen2002.fig14_claims import claims, extra_claims
from tcpair.reproduce.chen2002.fig14_traces import (
    EXTRA,
    FLOWS,
    LABELS,
    SCHEMES,
    handoff_metrics,
    run_metrics,
    traces,
    with_labels,
)
from tcpair.reproduce.common import save

COLORS = {
    "reno": "#1f77b4",
    "snoop": "#d62728",
    "syndrome": "#2ca02c",
    "freeze": "#9467bd",
    "syndrome_freeze": "#ff7f0e",
    "snoop_moved": "#8c564b",
}
FLOW_LABELS = {"s1": "S1 -> MH", "s2": "S2 -> MH"}


def _load(ctx: Context, name: str, keys: Sequence[str]) -> pd.DataFrame:
    from tcpair.results.store import Store

    if not keys:
        return pd.DataFrame()
    return Store(ctx.result.directory).load_table(name, list(keys))


def plot_extra(m: pd.DataFrame, per_ho: pd.DataFrame, out: Path, stem: str) -> Figure:
    """Goodput over the run and time to first delivery per hand-off, every series."""
    import matplotlib.pyplot as plt

    order = [s for s in (*SCHEMES, *EXTRA) if s in set(m["scheme"])]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    g = aggregate(m, ["scheme", "flow"], ["goodput_kbps"])
    width = 0.8 / max(len(order), 1)
    for k, s in enumerate(order):
        d = g[g["scheme"] == s].set_index("flow").reindex(list(FLOWS))
        x = np.arange(len(FLOWS)) + k * width
        axes[0].bar(
            x,
            d["goodput_kbps_mean"] / 8,
            width,
            yerr=d["goodput_kbps_ci95"] / 8,
            color=COLORS[s],
            label=LABELS[s],
        )
        if not per_ho.empty:
            h = aggregate(per_ho[per_ho["scheme"] == s], ["handoff"], ["t_first"])
            axes[1].errorbar(
                h["handoff"] + 1 + (k - len(order) / 2) * 0.06,
                h["t_first_mean"],
                yerr=h["t_first_ci95"],
                color=COLORS[s],
                marker="o",
                label=LABELS[s],
            )
    axes[0].set_xticks(np.arange(len(FLOWS)) + 0.4 - width / 2, [FLOW_LABELS[f] for f in FLOWS])
    axes[0].set_ylabel("goodput over the run (KB/s)")
    axes[1].set_xlabel("hand-off")
    axes[1].set_ylabel("time to first new in-order delivery (s)")
    axes[1].set_xticks([1, 2, 3, 4])
    axes[0].legend(fontsize=7, loc="lower center")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    png, svg = save(fig, out, f"{stem}_extra")
    plt.close(fig)
    return Figure(
        png,
        "Every series, beyond the paper's three: goodput with its 95% CI (S1 and "
        "S2), and the time from each hand-off's end to the first new in-order "
        "delivery (both flows pooled, 95% CI).",
        svg,
        g,
    )


def plot_panels(
    tr: pd.DataFrame, handoffs: list[tuple[float, float]], out: Path, stem: str
) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    panels = [
        ("s1", "throughput_kbps"),
        ("s1", "seq_sent"),
        ("s2", "throughput_kbps"),
        ("s2", "seq_sent"),
    ]
    for ax, letter, (flow, col) in zip(axes.flat, "abcd", panels, strict=True):
        for s in SCHEMES:
            d = tr[(tr["scheme"] == s) & (tr["flow"] == flow)]
            if d.empty:
                continue
            scale = 1 / 8 if col == "throughput_kbps" else 1  # KB/s as the paper
            ax.plot(d["time_s"], d[f"{col}_median"] * scale, color=COLORS[s], label=LABELS[s])
            ax.fill_between(
                d["time_s"],
                d[f"{col}_q25"] * scale,
                d[f"{col}_q75"] * scale,
                color=COLORS[s],
                alpha=0.2,
                linewidth=0,
            )
        for a, b in handoffs:
            ax.axvspan(a, b, color="0.85", zorder=0)
        what = "throughput (KB/s, 1 s window)" if col == "throughput_kbps" else "sequence number"
        ax.set_title(f"({letter}) {FLOW_LABELS[flow]}: {what}", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    png, svg = save(fig, out, stem)
    plt.close(fig)
    return Figure(
        png,
        "Median over seeds per scheme, band from the 25th to the 75th percentile; "
        "grey: the hand-offs (MH between base stations).",
        svg,
        tr,
    )


def recovery_table(per_ho: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% CI of both recovery times per hand-off, scheme and flow."""
    if per_ho.empty:
        return pd.DataFrame()
    return aggregate(
        per_ho, ["handoff", "start", "flow", "scheme"], ["t_first", "t_half", "retained"]
    )


def _handoff_spans(ho: pd.DataFrame) -> list[tuple[float, float]]:
    if ho.empty:
        return []
    spans = ho[["start", "end"]].drop_duplicates().sort_values("start")
    return [(float(a), float(b)) for a, b in spans.itertuples(index=False)]


def analyse(ctx: Context) -> Analysis:
    """The four panels, the recovery times per hand-off and the verdicts."""
    runs = ctx.ok_runs
    keys = list(runs["run_key"].unique()) if "run_key" in runs.columns else []
    ts = with_labels(_load(ctx, "timeseries", keys), runs)
    ho = with_labels(_load(ctx, "handoffs", keys), runs)
    per_ho = handoff_metrics(ts, ho)
    m = run_metrics(runs, ts, per_ho)
    stem = ctx.spec.name
    per_ho.to_csv(ctx.out / f"{stem}_handoffs.csv", index=False)
    paper = ts[ts["scheme"].isin(SCHEMES)] if not ts.empty else ts
    figures = (
        [plot_panels(traces(paper), _handoff_spans(ho), ctx.out, stem)] if not ts.empty else []
    )
    if set(EXTRA) & set(m["scheme"]):
        figures.append(plot_extra(m, per_ho, ctx.out, stem))
    intro = (
        "Hand-offs at 8, 13, 18 and 23 s, 1.2 s each (grey); recovery is measured from each "
        "hand-off's end. The moving-window throughput lags by construction: with a 1 s window "
        "it reaches half its earlier value about 0.5 s after full-rate delivery resumes, for "
        "every scheme alike."
    )
    if ts.empty:
        intro += " No time series were stored: the panels and the hand-off claims are missing."
    summary = aggregate(
        m, ["scheme", "flow"], ["goodput_kbps", "final_seq", "retained", "t_first", "t_half"]
    )
    return Analysis(
        figures=figures,
        claims=[*claims(m[m["scheme"].isin(SCHEMES)]), *extra_claims(m)],
        tables=[
            ("Per scheme and flow (mean and 95% CI over seeds)", summary),
            ("Recovery per hand-off (s; mean and 95% CI over seeds)", recovery_table(per_ho)),
        ],
        files=[
            (
                f"{stem}_handoffs.csv",
                "per run, flow and hand-off: recovery times, retained fraction (CSV)",
            )
        ],
        intro=intro,
    )


__all__ = [
    "analyse",
    "claims",
    "extra_claims",
    "handoff_metrics",
    "run_metrics",
    "traces",
    "with_labels",
]
