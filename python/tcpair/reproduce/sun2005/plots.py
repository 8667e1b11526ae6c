"""Plots of the CLRP goodput and delay targets: the metric per scheme vs p, and
the goodput ratios between schemes (paired by seed) with the +-10% band."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tcpair.reporting.page import Figure
from tcpair.reproduce.common import save
from tcpair.reproduce.sun2005.claims import vs
from tcpair.reproduce.sun2005.spec import (
    CLOSE,
    COLORS,
    DELAY_WHAT,
    LABELS,
    PAPER_CLRP_DELAY,
    PAPER_SNOOP_DELAY,
    SCHEMES,
    FigSpec,
)


def _xlabel(spec: FigSpec) -> str:
    if spec.model == "markov":
        return "packet loss rate in the Good state (two-state Markov model)"
    return "packet loss rate (Expo error model)"


def _stem(spec: FigSpec) -> str:
    return f"clrp_fig{spec.figure or 'x'}"


def plot_metric(pts: pd.DataFrame, spec: FigSpec, out: Path, col: str) -> Figure:
    """Goodput (KB/s) or mean delay (s) per scheme vs p (log x), 95% CI bars."""
    from matplotlib.figure import Figure as MplFigure

    delay = col in DELAY_WHAT
    fig = MplFigure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for scheme in SCHEMES:
        d = pts[pts["scheme"] == scheme].sort_values("p") if "scheme" in pts.columns else pts
        if d.empty or f"{col}_mean" not in d.columns:
            continue
        ax.errorbar(
            d["p"],
            d[f"{col}_mean"],
            yerr=d[f"{col}_ci95"].fillna(0),
            marker="o",
            ms=4,
            capsize=3,
            color=COLORS[scheme],
            label=LABELS[scheme],
        )
    if delay:
        lo, hi = PAPER_CLRP_DELAY
        ax.axhspan(lo, hi, color=COLORS["clrp"], alpha=0.12, lw=0, label="paper: CLRP")
        ax.axhline(PAPER_SNOOP_DELAY[1], color=COLORS["snoop"], lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel(_xlabel(spec))
    ax.set_ylabel("mean end-to-end delay (s)" if delay else "goodput (KB/s)")
    what = "mean end-to-end delay" if delay else "throughput (goodput)"
    title = f"Fig. {spec.figure}: " if spec.figure else ""
    ax.set_title(f"{title}{what}, {spec.path} (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3, which="both")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    png, svg = save(fig, out, f"{_stem(spec)}_{col if delay else 'goodput'}")
    caption = (
        f"{what.capitalize()} of Reno, Snoop and CLRP against the {_xlabel(spec)}; bars are "
        "95% Student-t confidence intervals."
    )
    if delay:
        caption += (
            f" Delay of a segment: from its {DELAY_WHAT[col]}. Shaded: the paper's CLRP "
            "range (0.14-0.16 s); dotted: Snoop's 0.30 s at 10%."
        )
    return Figure(png, caption, svg=svg)


RATIO_PAIRS = (
    ("clrp", "snoop_ns2"),
    ("clrp", "snoop"),
    ("clrp_timer", "snoop_ns2"),
    ("clrp", "reno"),
    ("snoop_ns2", "reno"),
    ("snoop", "reno"),
)
LOG_RATIOS = 4.0  # ratios beyond this (the paper's up to 14x over Reno) get a log y-axis


REL_COLUMNS = ["pair", "p", "ratio", "ratio_low", "ratio_high", "ratio_ci95", "seeds"]


def relative(runs: pd.DataFrame) -> pd.DataFrame:
    """Goodput ratios CLRP/Snoop, CLRP/Reno, Snoop/Reno per p, paired by seed, with 95% CIs."""
    parts = [vs(runs, a, b).assign(pair=f"{LABELS[a]} / {LABELS[b]}") for a, b in RATIO_PAIRS]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=REL_COLUMNS)
    return pd.concat(parts, ignore_index=True)[REL_COLUMNS]


def plot_ratios(rel: pd.DataFrame, spec: FigSpec, out: Path) -> Figure:
    """Goodput ratios per pair of schemes vs p, with the ±10% band."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    # CLRP against a Snoop takes that Snoop's colour; every other pair its numerator's.
    colors = {
        f"{LABELS[a]} / {LABELS[b]}": COLORS[b if a == "clrp" and b != "reno" else a]
        for a, b in RATIO_PAIRS
    }
    for pair, d in rel.groupby("pair", sort=False):
        d = d.sort_values("p")
        ax.errorbar(
            d["p"],
            d["ratio"],
            yerr=d["ratio_ci95"].fillna(0),
            marker="o",
            ms=4,
            capsize=3,
            color=colors.get(str(pair), "#7f7f7f"),
            ls="-" if str(pair).startswith("CLRP") else "--",
            label=str(pair),
        )
    ax.axhspan(1 - CLOSE, 1 + CLOSE, color="#999", alpha=0.15, lw=0, label=f"±{CLOSE:.0%}")
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xscale("log")
    if len(rel) and rel["ratio"].max() > LOG_RATIOS:
        ax.set_yscale("log")
    ax.set_xlabel(_xlabel(spec))
    ax.set_ylabel("goodput ratio")
    ax.set_title("Goodput ratios between schemes (95% CI of the ratio)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, f"{_stem(spec)}_ratios")
    return Figure(
        png,
        "Ratios of mean goodputs at the same PLR; bars are 95% confidence intervals of the "
        f"ratio, paired by seed; the grey band is ±{CLOSE:.0%} (what the verdicts call close).",
        svg=svg,
    )


__all__ = ["plot_metric", "plot_ratios", "relative"]
