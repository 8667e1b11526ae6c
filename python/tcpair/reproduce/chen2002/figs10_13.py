"""Targets ``syndrome_fig10`` .. ``syndrome_fig13``: Chen et al. 2002 (Syndrome), Figures 10-13.

One module for the four targets: they share the scenario
(``scenarios/syndrome_paper.toml``), the flows S1 -> MH (near) and S2 -> MH
(far), the schemes (Reno, tcpair's Snoop, ns-2's Snoop, ELN-Snoop, Syndrome)
and the plots; they differ in the x-axis (1/sqrt(p), or the duplication
probability for Fig. 12) and in the claims set beside our numbers (their rules:
:mod:`tcpair.reproduce.chen2002.claims`). :data:`FIGS` maps each sweep's name to
that choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.chen2002.claims import (
    CLOSE,
    DUP_ONSET,
    FLOWS,
    LABELS,
    claim_close,
    claim_dup_onset,
    claim_dup_worst,
    claim_gain,
    claim_rtt_bias,
    comparator,
    vs,
)
from tcpair.reproduce.common import GOODPUT, runs_with_goodput, save, scheme_points

SCHEMES: tuple[str, ...] = ("reno", "snoop", "snoop_ns2", "eln_snoop", "syndrome")

COLORS = {
    "reno": "#1f77b4",
    "snoop": "#d62728",
    "snoop_ns2": "#ff7f0e",
    "eln_snoop": "#9467bd",
    "syndrome": "#2ca02c",
}
STYLES = {"s1": "-", "s2": "--"}
FLOW_LABELS = {"s1": "S1 -> MH", "s2": "S2 -> MH"}


@dataclass(frozen=True)
class FigSpec:
    """What distinguishes one of the four targets."""

    figure: str
    x_axis: str  # the sweep axis: "p" or "dup"
    claims: tuple[str, ...]


FIGS: dict[str, FigSpec] = {
    "syndrome_fig10": FigSpec("10", "p", ("rtt_bias", "close", "gain")),
    "syndrome_fig10_mh": FigSpec("10", "p", ("rtt_bias", "close", "gain")),
    "syndrome_fig11": FigSpec("11", "p", ("rtt_bias", "close")),
    "syndrome_fig12": FigSpec("12", "dup", ("dup_onset", "dup_worst")),
    "syndrome_fig13": FigSpec("13", "p", ("rtt_bias", "close")),
}


def figspec(name: str, axes: list[str]) -> FigSpec:
    """The target's FigSpec; a renamed copy of a sweep is recognised by its axes."""
    if name in FIGS:
        return FIGS[name]
    if "dup" in axes:
        return FIGS["syndrome_fig12"]
    return FigSpec("", "p", ("rtt_bias", "close"))


def points(runs: pd.DataFrame, x_axis: str) -> pd.DataFrame:
    """Per (scheme, x, flow): goodput in KB/s and counters, mean/std/n/95% CI."""
    return scheme_points(runs, ["scheme", x_axis, "flow"])


def claims(runs: pd.DataFrame, spec: FigSpec) -> list[Claim]:
    """Verdicts decided from 95% confidence intervals (:mod:`tcpair.evidence.verdict`)."""
    x = spec.x_axis
    make = {
        "rtt_bias": lambda: claim_rtt_bias(runs, x),
        "close": lambda: claim_close(runs, x, spec.figure),
        "gain": lambda: claim_gain(runs, x),
        "dup_onset": lambda: claim_dup_onset(runs, x),
        "dup_worst": lambda: claim_dup_worst(runs, x),
    }
    return [make[c]() for c in spec.claims]


def _xvals(d: pd.DataFrame, x_axis: str) -> np.ndarray:
    x = d[x_axis].to_numpy(float)
    return 1 / np.sqrt(x) if x_axis == "p" else x


def _xlabel(x_axis: str) -> str:
    if x_axis == "p":
        return "1/sqrt(p), p = packet loss probability on the wireless link"
    return "probability of a packet being duplicated"


def plot_goodput(pts: pd.DataFrame, spec: FigSpec, out: Path) -> Figure:
    """Goodput (KB/s) of S1 (solid) and S2 (dashed) per scheme vs 1/sqrt(p) or dup."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    x = spec.x_axis
    for scheme in SCHEMES:
        for flow in FLOWS:
            d = pts[(pts["scheme"] == scheme) & (pts["flow"] == flow)]
            if d.empty:
                continue
            d = d.assign(_x=_xvals(d, x)).sort_values("_x")
            ax.errorbar(
                d["_x"],
                d[f"{GOODPUT}_mean"],
                yerr=d[f"{GOODPUT}_ci95"].fillna(0),
                marker="o" if flow == "s1" else "^",
                ms=4,
                capsize=3,
                ls=STYLES[flow],
                color=COLORS[scheme],
                label=f"{LABELS[scheme]}, {FLOW_LABELS[flow]}",
            )
    ax.set_ylim(bottom=0)
    ax.set_xlabel(_xlabel(x))
    ax.set_ylabel("goodput (KB/s)")
    title = f"Fig. {spec.figure}: " if spec.figure else ""
    ax.set_title(f"{title}goodput per flow (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    stem = f"syndrome_fig{spec.figure or 'x'}_goodput"
    png, svg = save(fig, out, stem)
    return Figure(
        png,
        f"Goodput of S1 -> MH (solid) and S2 -> MH (dashed), one colour per scheme, against "
        f"{'1/sqrt(p) as in the paper' if x == 'p' else 'the duplication probability'}; "
        "bars are 95% Student-t confidence intervals.",
        svg=svg,
    )


def plot_ratios(runs: pd.DataFrame, spec: FigSpec, out: Path) -> Figure:
    """Goodput relative to the comparator Snoop per scheme and flow, with the ±10% band."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = spec.x_axis
    den = comparator(runs)
    for scheme in (s for s in SCHEMES if s != den):
        r = vs(runs, x, scheme, den).dropna(subset=["ratio"])
        for flow in FLOWS:
            d = r[r["flow"] == flow]
            if d.empty:
                continue
            d = d.assign(_x=_xvals(d, x)).sort_values("_x")
            ax.errorbar(
                d["_x"],
                d["ratio"],
                yerr=d["ratio_ci95"].fillna(0),
                marker="o" if flow == "s1" else "^",
                ms=4,
                capsize=3,
                ls=STYLES[flow],
                color=COLORS[scheme],
                label=f"{LABELS[scheme]} / {LABELS[den]}, {FLOW_LABELS[flow]}",
            )
    ax.axhspan(1 - CLOSE, 1 + CLOSE, color="#999", alpha=0.15, lw=0, label="±10%")
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xlabel(_xlabel(x))
    ax.set_ylabel(f"goodput / {LABELS[den]}'s goodput")
    ax.set_title(f"Goodput relative to {LABELS[den]} (95% CI of the ratio)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    png, svg = save(fig, out, f"syndrome_fig{spec.figure or 'x'}_vs_snoop")
    return Figure(
        png,
        f"Ratio of mean goodputs to {LABELS[den]}'s (the comparator the paper used, when it "
        "ran) at the same point and flow; bars are 95% confidence intervals of the ratio, "
        "paired by seed; the grey band is ±10%.",
        svg=svg,
    )


def _intro(name: str, missing: list[str]) -> str:
    """The paper's setup, the Snoops compared, and the schemes with no runs."""
    intro = (
        "Chen et al. 2002 (Syndrome), Section 6: S1 -> MH (near, 3 hops) and "
        "S2 -> MH (far, 5 hops) through the "
        "base station HA; every link 2 Mb/s 5 ms with 100-packet buffers, 1000-byte packets, "
        "window 20. Loss on HA -> MH and, at 1/50 of it, on S1 -> n8 (Fig. 9 is missing from "
        "the paper: the topology is our reconstruction, see scenarios/syndrome_paper.toml). "
        "Goodput in KB/s (1 KB = 1000 bytes), mean over seeds with 95% Student-t CIs. "
        "Two Snoops: SNOOP (ns-2) is ns-2.35's snoop.cc (tcpair's snoop_ns2), the comparator "
        "the paper used, against which every claim about Snoop is judged; SNOOP (tcpair) is "
        "Amir et al. 1995's Snoop as written (docs/snoop.md); ELN-SNOOP is the ELN-based "
        "Snoop of the paper's §2.2. Each claim's detail also gives the verdict of the same "
        "rule against the other Snoops."
    )
    if name.endswith("_mh"):
        intro += (
            " This target reverses the flows (MH -> S1, MH -> S2; loss on MH -> HA and "
            "n8 -> S1): the direction the paper reports only as behaving alike."
        )
    if missing:
        intro += f" No successful runs for: {', '.join(missing)}."
    return intro


def analyse(ctx: Context) -> Analysis:
    """Figure, ratio plot, tables and verdicts for one of the four targets."""
    spec = figspec(ctx.spec.name, ctx.spec.axis_names)
    x = spec.x_axis
    runs = runs_with_goodput(ctx, FLOWS)
    pts = points(runs, x)
    stem = ctx.spec.name
    pts.to_csv(ctx.out / f"{stem}_points.csv", index=False)
    cols = {
        "scheme": "scheme",
        x: x,
        "flow": "flow",
        f"{GOODPUT}_mean": "goodput KB/s",
        f"{GOODPUT}_ci95": "±95% CI",
        f"{GOODPUT}_n": "seeds",
        "timeouts_mean": "timeouts",
        "window_cuts_mean": "window cuts",
        "bs_retransmits_mean": "BS rexmits",
        "eln_retransmits_mean": "ELN rexmits",
        "syndrome_credits_mean": "credits",
    }
    shown = pts[[c for c in cols if c in pts.columns]].rename(columns=cols)
    if x == "p" and len(shown):
        shown.insert(2, "1/sqrt(p)", 1 / np.sqrt(shown["p"].astype(float)))
    den = comparator(runs)
    rel = pd.concat(
        [vs(runs, x, s, den).assign(scheme=s) for s in SCHEMES if s != den],
        ignore_index=True,
    )
    rel = rel[["scheme", x, "flow", "ratio", "ratio_low", "ratio_high", "seeds"]].rename(
        columns={"ratio": f"/ {LABELS[den]}", "ratio_low": "CI low", "ratio_high": "CI high"}
    )
    present = set(pts["scheme"]) if "scheme" in pts.columns else set()
    expected = {a.name: a.labels for a in ctx.spec.axes}.get("scheme", SCHEMES)
    missing = [s for s in expected if s not in present]
    intro = _intro(ctx.spec.name, missing)
    return Analysis(
        figures=[plot_goodput(pts, spec, ctx.out), plot_ratios(runs, spec, ctx.out)],
        claims=claims(runs, spec),
        tables=[("Goodput per point and flow", shown), (f"Relative to {LABELS[den]}", rel)],
        files=[(f"{stem}_points.csv", "per-point statistics (CSV)")],
        intro=intro,
    )


__all__ = [
    "DUP_ONSET",
    "FIGS",
    "FLOWS",
    "SCHEMES",
    "FigSpec",
    "analyse",
    "claim_close",
    "claims",
    "figspec",
    "points",
    "vs",
]
