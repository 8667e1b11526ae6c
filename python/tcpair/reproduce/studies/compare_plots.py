"""The figures of ``compare-all``: each scheme's ratio over Reno per family, and over the
uniform loss sweep."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.reporting.page import Figure
from tcpair.reproduce.common import save

SWEEP_MODEL = "uniform"


def plot_families(ranks: pd.DataFrame, order: Sequence[str], out: Path) -> Figure | None:
    """Each scheme's mean goodput ratio over Reno per family, with its 95% interval."""
    from matplotlib.figure import Figure as MplFigure

    fams = list(dict.fromkeys(ranks["family"]))
    if not fams:
        return None
    fig = MplFigure(figsize=(10, 4.8), layout="constrained")
    ax = fig.add_subplot()
    names = [s for s in order if s in set(ranks["scheme"])]
    x = np.arange(len(names))
    width = 0.8 / len(fams)
    for i, fam in enumerate(fams):
        g = ranks[ranks["family"] == fam].set_index("scheme").reindex(names)
        est = g["estimate"].to_numpy(float)
        err = np.vstack([est - g["low"].to_numpy(float), g["high"].to_numpy(float) - est])
        ax.errorbar(
            x + (i - (len(fams) - 1) / 2) * width,
            est,
            yerr=np.nan_to_num(err).clip(0),
            fmt="o",
            ms=3,
            capsize=2,
            label=fam,
        )
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("goodput / Reno's (mean over the family)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, ncol=2)
    png, svg = save(fig, out, "compare_all_families")
    return Figure(
        png,
        "Per scenario family (direction x loss model), each scheme's goodput "
        "over Reno's: per seed the mean over the family's loss rates, mean over "
        "seeds with its 95% interval.",
        svg=svg,
    )


def sweep_rows(rat: pd.DataFrame) -> pd.DataFrame:
    """The per-scenario ratios of the uniform loss sweep: the family with the most
    uniform loss rates (per direction), rates above 0."""
    u = rat[rat["family"].str.endswith(f", {SWEEP_MODEL}") & (rat["rate"] > 0)]
    if u.empty:
        return u
    counts = u.groupby(["direction", "family"])["rate"].nunique()
    best = counts[counts == counts.max()].reset_index()["family"]
    return u[u["family"].isin(set(best))]


def plot_loss_sweep(rat: pd.DataFrame, order: Sequence[str], out: Path) -> Figure | None:
    """Goodput over Reno's against the uniform loss rate, one panel per direction."""
    from matplotlib.figure import Figure as MplFigure

    u = sweep_rows(rat)
    fams = list(dict.fromkeys(u["family"])) if not u.empty else []
    if not fams or u["rate"].nunique() < 3:
        return None
    fig = MplFigure(figsize=(11, 4.8), layout="constrained")
    axes = fig.subplots(1, len(fams), sharey=True, squeeze=False)[0]
    names = [s for s in order if s in set(u["scheme"])]
    colours = [f"C{i % 10}" for i in range(len(names))]
    styles = ["-", "--", ":", "-."]
    for ax, fam in zip(axes, fams, strict=True):
        g = u[u["family"] == fam]
        for i, s in enumerate(names):
            r = g[g["scheme"] == s].sort_values("rate")
            if r.empty:
                continue
            ax.errorbar(
                r["rate"] * 100,
                r["ratio"],
                yerr=np.vstack([r["ratio"] - r["ratio_low"], r["ratio_high"] - r["ratio"]])
                .clip(0)
                .astype(float),
                color=colours[i],
                ls=styles[(i // 10) % len(styles)],
                marker="o",
                ms=2.5,
                lw=1,
                capsize=1.5,
                label=s,
            )
        ax.axhline(1.0, color="#888", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("mean loss rate on the wireless hop (%)")
        ax.set_title(fam, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("goodput / Reno's")
    axes[-1].legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    png, svg = save(fig, out, "compare_all_loss_sweep")
    return Figure(
        png,
        "The loss sweep: each scheme's goodput over Reno's against the uniform loss rate "
        "(paired by seed, 95% intervals), per direction.",
        svg=svg,
    )


__all__ = ["plot_families", "plot_loss_sweep", "sweep_rows"]
