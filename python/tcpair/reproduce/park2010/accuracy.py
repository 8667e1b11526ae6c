"""Target ``lda_accuracy``: Park et al. 2010, Fig. 1 (a) and (b).

Every detector (``detector`` axis) runs on every mixed-loss path of the sweep
(every other axis is a scenario key: wireless loss ``p``, ``buffer``,
``competing`` flows, or any axis added later) with the same seeds. Only the
measured flow ``tcp1`` carries the detector; competing flows are plain Reno.

- Accuracy (Fig. 1(a)): per detector and seed the fast-retransmit counts of all
  scenarios are pooled, giving A_w, A_c and A_t for that seed; the estimate is
  the mean over seeds with its Student-t interval. Plain TCP (``none``) scores
  0, 1, 0.5 by definition. "LDA_EQ has the highest A_t" is decided on the paired
  differences (by seed) of A_t between LDA_EQ and each other detector.
- Enhancement (Fig. 1(b)): per scenario the paired ratio (by seed) of tcp1's
  goodput with the detector and responder 1 to plain TCP's; per detector the
  lowest and highest of those ratios and the average (per seed, the mean of the
  per-scenario ratios; mean and interval over seeds).

Modules: :mod:`.accuracy_measures` (accuracy and enhancement), :mod:`.accuracy_claims`
(the verdicts) and this one (the plots and the page).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Figure
from tcpair.reproduce.common import save
from tcpair.reproduce.park2010.accuracy_claims import (
    claim_average,
    claim_highest,
    claim_lda_eq_paper,
    claim_not_always,
)
from tcpair.reproduce.park2010.accuracy_measures import (
    PAPER_LDA_EQ,
    accuracy,
    accuracy_table,
    enhancement,
    enhancement_summary,
    per_seed_accuracy,
    point_table,
    scenario_keys,
)


def plot_accuracy(table: pd.DataFrame, out: Path) -> Figure:
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(table))
    for i, (name, color) in enumerate([("A_w", "#1f77b4"), ("A_c", "#d62728"), ("A_t", "#2ca02c")]):
        ax.bar(
            x + (i - 1) * 0.27,
            100 * table[name],
            0.27,
            yerr=100 * table[f"{name} ±95%"].fillna(0),
            capsize=2,
            color=color,
            label=name,
        )
    if "LDA_EQ" in list(table["detector"]):
        xi = list(table["detector"]).index("LDA_EQ")
        for i, k in enumerate(PAPER_LDA_EQ):
            ax.plot(xi + (i - 1) * 0.27, 100 * PAPER_LDA_EQ[k], "k*", ms=10)
        ax.plot([], [], "k*", ms=10, label="Park et al. 2010 (LDA_EQ)")
    ax.set_xticks(x)
    ax.set_xticklabels(table["detector"])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy against the ground truth (mean over seeds, 95% CI)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, ncols=4, loc="lower right")
    png, svg = save(fig, out, "lda_accuracy")
    return Figure(
        png,
        "A_w, A_c and A_t per detector, fast-retransmit counts pooled over every scenario per "
        "seed (bars: mean over seeds, 95% Student-t intervals); stars: the paper's LDA_EQ.",
        svg=svg,
    )


def plot_enhancement(summary: pd.DataFrame, out: Path) -> Figure:
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(8, 4), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(summary))
    lo, hi = 100 * summary["lowest"], 100 * summary["highest"]
    ax.vlines(x, lo, hi, color="#1f77b4", lw=6, alpha=0.5, label="lowest to highest")
    ax.errorbar(
        x,
        100 * summary["average"],
        yerr=100 * summary["average ±95%"].fillna(0),
        fmt="o",
        color="#d62728",
        capsize=3,
        label="average (95% CI)",
    )
    ax.axhline(0, color="#888", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(summary["detector"])
    ax.set_ylabel("goodput enhancement over plain TCP (%)")
    ax.set_title("With responder 1 (Park et al. 2010, Fig. 1(b))")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, "lda_enhancement")
    return Figure(
        png,
        "Per detector, the lowest and highest goodput ratio to plain TCP over the scenarios "
        "(paired by seed) and the average enhancement with its 95% interval.",
        svg=svg,
    )


def analyse(ctx: Context) -> Analysis:
    runs = ctx.ok_runs
    keys = scenario_keys(runs, ctx.spec.axis_names)
    acc = accuracy(runs)
    acc_tab = accuracy_table(runs)
    summary = enhancement_summary(runs, keys) if keys else pd.DataFrame()
    figures = [plot_accuracy(acc_tab, ctx.out)] if not acc_tab.empty else []
    if not summary.empty:
        figures.append(plot_enhancement(summary, ctx.out))
    points = point_table(runs, keys)
    plain = points[points["detector"] == "TCP"]
    volume = (
        f" Plain TCP's fast retransmits per run, over the scenarios: "
        f"{plain['wireless FRs'].min():.0f}-{plain['wireless FRs'].max():.0f} wireless, "
        f"{plain['congestion FRs'].min():.0f}-{plain['congestion FRs'].max():.0f} congestion."
        if not plain.empty
        else ""
    )
    intro = (
        "Park et al. 2010 measured on a 5-hop IEEE 802.11 chain in QualNet; we run "
        "point-to-point wired-cum-wireless paths (scenarios/lda_mixed.toml; the chain serves "
        "the responding methods, respond-w and respond-c, and the detectors' accuracy on it "
        "is not run yet): "
        "s -> r -> bs -> mh with a 2 Mb/s wireless hop whose queue (buffer) overflows and "
        "whose channel loses packets (p), alone or with competing Reno flows. The measured "
        "flow is NewReno with the detector and responder 1; accuracies count its fast "
        "retransmits by their true cause (docs/lda.md)." + volume
    )
    return Analysis(
        figures=figures,
        claims=[
            claim_lda_eq_paper(runs, acc),
            claim_highest(runs),
            claim_not_always(runs, keys),
            claim_average(runs, keys),
        ],
        tables=[
            ("Accuracy per detector (pooled over the scenarios)", acc_tab),
            ("Goodput enhancement over plain TCP with responder 1", summary),
            ("Per scenario and detector", points),
            ("Goodput ratio to plain TCP per scenario", enhancement(runs, keys)),
        ],
        intro=intro,
    )


__all__ = [
    "accuracy",
    "analyse",
    "enhancement",
    "enhancement_summary",
    "per_seed_accuracy",
    "point_table",
]
