"""Targets ``syndrome_fig10`` .. ``syndrome_fig13``: paper 000's Figures 10-13.

One module for the four targets: they share the scenario
(``scenarios/syndrome_paper.toml``), the flows S1 -> MH (near) and S2 -> MH
(far), the schemes (Reno, Snoop, Syndrome) and the plots; they differ in the
x-axis (1/sqrt(p), or the duplication probability for Fig. 12) and in the claims
set beside our numbers. :data:`FIGS` maps each sweep's name to that choice.

Every verdict is computed from the means over seeds (the details give the
values; the tables give 95% CIs):

- RTT bias (Fig. 10's first observation): mean goodput S1 > S2 for every scheme
  and loss rate.
- "very close, and comparable" (Figs. 10, 11, 13): goodput ratio
  Syndrome/Snoop within 1 +- 10% for each flow at every point.
- "30-80 per cent more than TCP senders in the case of high packet loss rates"
  (Fig. 10): at every p >= 0.05, Snoop/Reno and Syndrome/Reno >= 1.30 for both
  flows; the detail reports the range seen beside the paper's 30-80%.
- Fig. 12, "notable discrepancy only when duplication exceeds 0.05 (S1) and
  0.1 (S2)": for each flow the gap |Syndrome/Snoop - 1| is <= 10% at every
  duplication probability up to the flow's onset and > 10% at some probability
  above it.
- Fig. 12, "in the worst case ... 20 per cent more aggressively than SNOOP":
  the largest Syndrome/Snoop ratio over flows and duplication probabilities is
  <= 1.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.analysis import Analysis, Context
from tcpair.report import FAILS, HOLDS, NA, Claim, Figure
from tcpair.reproduce._common import (
    GOODPUT,
    fmt_values,
    ratios,
    runs_with_goodput,
    save,
    scheme_points,
)

FLOWS: tuple[str, ...] = ("s1", "s2")
SCHEMES: tuple[str, ...] = ("reno", "snoop", "syndrome")
SOURCE = "Chen et al. 2002 (paper 000)"
CLOSE = 0.10  # "comparable": within 10% of Snoop
HIGH_LOSS_P = 0.05  # "high packet loss rates"
GAIN_MIN, GAIN_MAX = 0.30, 0.80  # "30-80 per cent more than TCP"
DUP_GAP = 0.10  # a "notable" gap
DUP_ONSET = {"s1": 0.05, "s2": 0.1}
WORST_AGGRESSION = 1.20

COLORS = {"reno": "#1f77b4", "snoop": "#d62728", "syndrome": "#2ca02c"}
STYLES = {"s1": "-", "s2": "--"}
LABELS = {"reno": "TCP-Reno", "snoop": "SNOOP", "syndrome": "Syndrome"}
FLOW_LABELS = {"s1": "S1 -> MH", "s2": "S2 -> MH"}


@dataclass(frozen=True)
class FigSpec:
    """What distinguishes one of the four targets."""

    figure: str
    x_axis: str  # the sweep axis: "p" or "dup"
    claims: tuple[str, ...]


FIGS: dict[str, FigSpec] = {
    "syndrome_fig10": FigSpec("10", "p", ("rtt_bias", "close", "gain")),
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


def vs(pts: pd.DataFrame, x_axis: str, num: str, den: str) -> pd.DataFrame:
    """Goodput ratio ``num``/``den`` per (x, flow) with a 95% CI."""
    return ratios(pts, "scheme", num, den, [x_axis, "flow"])


def _means(pts: pd.DataFrame, x_axis: str) -> pd.DataFrame:
    if pts.empty:
        return pd.DataFrame()
    return pts.pivot_table(
        index=[x_axis, "scheme"], columns="flow", values=f"{GOODPUT}_mean", aggfunc="first"
    )


def claim_rtt_bias(pts: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        "TCP favours the short-RTT connection: mean goodput S1 -> MH > S2 -> MH for every "
        "scheme and loss rate"
    )
    piv = _means(pts, x_axis)
    if piv.empty or not all(f in piv.columns for f in FLOWS):
        return Claim(f"{SOURCE}, Fig. 10", text, NA, "needs runs of both flows")
    piv = piv.dropna(subset=list(FLOWS))
    ratio = piv["s1"] / piv["s2"]
    bad = ratio[~(piv["s1"] > piv["s2"])]
    worst = ratio.idxmin()
    detail = (
        f"S1/S2 from {ratio.min():.2f} ({worst[1]}, {x_axis}={worst[0]:g}) to {ratio.max():.2f} "
        f"over {len(ratio)} points"
    )
    if len(bad):
        detail += "; S1 <= S2 at " + ", ".join(f"{s} {x_axis}={x:g}" for x, s in bad.index)
    return Claim(f"{SOURCE}, Fig. 10", text, FAILS if len(bad) else HOLDS, detail)


def claim_close(pts: pd.DataFrame, x_axis: str, fig: str) -> Claim:
    text = (
        f"Syndrome comparable to Snoop: goodput ratio Syndrome/Snoop within 1 ± {CLOSE:.0%} "
        f"for both flows at every {x_axis}"
    )
    if fig == "11":
        text += " (the paper: 'comparable, and sometimes slightly better')"
    r = vs(pts, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    src = f"{SOURCE}, Fig. {fig}" if fig else SOURCE
    if r.empty:
        return Claim(src, text, NA, "needs both Snoop and Syndrome runs")
    off = r[(r["ratio"] - 1).abs() > CLOSE]
    above = int((r["ratio"] > 1).sum())
    detail = (
        f"Syndrome/Snoop from {r['ratio'].min():.3f} to {r['ratio'].max():.3f}; Syndrome above "
        f"Snoop at {above} of {len(r)} points"
    )
    if len(off):
        detail += "; outside the band at " + ", ".join(
            f"{f} {x_axis}={x:g} ({v:.2f})"
            for x, f, v in zip(off[x_axis], off["flow"], off["ratio"], strict=True)
        )
    return Claim(src, text, FAILS if len(off) else HOLDS, detail)


def claim_gain(pts: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"at high loss (p >= {HIGH_LOSS_P:g}) Snoop and Syndrome get >= {GAIN_MIN:.0%} more "
        f"goodput than Reno, both flows (the paper reports {GAIN_MIN:.0%}-{GAIN_MAX:.0%})"
    )
    src = f"{SOURCE}, Fig. 10"
    parts = []
    for scheme in ("snoop", "syndrome"):
        r = vs(pts, x_axis, scheme, "reno").dropna(subset=["ratio"])
        r = r[r[x_axis] >= HIGH_LOSS_P * (1 - 1e-9)]
        if len(r):
            parts.append(r.assign(scheme=scheme))
    if not parts:
        return Claim(src, text, NA, f"needs Reno and Snoop/Syndrome runs at p >= {HIGH_LOSS_P:g}")
    r = pd.concat(parts, ignore_index=True)
    gain = r["ratio"] - 1
    bad = r[gain < GAIN_MIN]
    in_paper = int(((gain >= GAIN_MIN) & (gain <= GAIN_MAX)).sum())
    detail = "; ".join(
        f"{LABELS[s]} {f} p={x:g}: {g:+.0%}"
        for s, f, x, g in zip(r["scheme"], r["flow"], r[x_axis], gain, strict=True)
    ) + (
        f". Gain from {gain.min():+.0%} to {gain.max():+.0%}; {in_paper} of {len(r)} within "
        f"the paper's {GAIN_MIN:.0%}-{GAIN_MAX:.0%}."
    )
    missing = {"snoop", "syndrome"} - set(r["scheme"])
    if missing:
        detail += f" Not assessed for: {', '.join(sorted(missing))} (no runs)."
    verdict = FAILS if len(bad) else (NA if missing else HOLDS)
    return Claim(src, text, verdict, detail)


def claim_dup_onset(pts: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"a notable gap (|Syndrome/Snoop - 1| > {DUP_GAP:.0%}) appears only once the "
        f"duplication probability exceeds {DUP_ONSET['s1']:g} for S1 and {DUP_ONSET['s2']:g} "
        f"for S2: no such gap at or below the onset, and one at some probability above it"
    )
    src = f"{SOURCE}, Fig. 12"
    r = vs(pts, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    if r.empty:
        return Claim(src, text, NA, "needs both Snoop and Syndrome runs")
    problems, notes = [], []
    assessed = 0
    for flow in FLOWS:
        d = r[r["flow"] == flow]
        if d.empty:
            continue
        onset = DUP_ONSET[flow]
        gap = (d["ratio"] - 1).abs()
        below = d[d[x_axis] <= onset * (1 + 1e-9)]
        above = d[d[x_axis] > onset * (1 + 1e-9)]
        early = below[gap.loc[below.index] > DUP_GAP]
        notes.append(
            f"{flow}: Syndrome/Snoop "
            + ", ".join(f"{x:g}: {v:.2f}" for x, v in zip(d[x_axis], d["ratio"], strict=True))
        )
        if len(early):
            problems.append(f"{flow} already > {DUP_GAP:.0%} at {fmt_values(early[x_axis])}")
        if above.empty:
            problems.append(f"{flow}: no duplication probability above {onset:g} swept")
        elif not (gap.loc[above.index] > DUP_GAP).any():
            problems.append(f"{flow}: no gap > {DUP_GAP:.0%} above {onset:g}")
        assessed += 1
    if not assessed:
        return Claim(src, text, NA, "no S1/S2 points")
    detail = "; ".join(notes) + (". " + "; ".join(problems) + "." if problems else ".")
    return Claim(src, text, FAILS if problems else HOLDS, detail)


def claim_dup_worst(pts: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"in the worst case Syndrome is at most ~{WORST_AGGRESSION - 1:.0%} more aggressive "
        f"than Snoop: largest goodput ratio Syndrome/Snoop <= {WORST_AGGRESSION:g} (the paper's "
        f"worst case: S2 at duplication 0.1)"
    )
    src = f"{SOURCE}, Fig. 12"
    r = vs(pts, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    if r.empty:
        return Claim(src, text, NA, "needs both Snoop and Syndrome runs")
    top = r.loc[r["ratio"].idxmax()]
    ci = float(top["ratio_ci95"])
    detail = (
        f"largest {float(top['ratio']):.3f}"
        + (f" ± {ci:.3f}" if np.isfinite(ci) else "")
        + f" ({top['flow']} at {x_axis}={float(top[x_axis]):g}); smallest "
        f"{r['ratio'].min():.3f}"
    )
    ok = float(top["ratio"]) <= WORST_AGGRESSION
    return Claim(src, text, HOLDS if ok else FAILS, detail)


def claims(pts: pd.DataFrame, spec: FigSpec) -> list[Claim]:
    """Verdicts computed from the numbers, never written by hand."""
    x = spec.x_axis
    make = {
        "rtt_bias": lambda: claim_rtt_bias(pts, x),
        "close": lambda: claim_close(pts, x, spec.figure),
        "gain": lambda: claim_gain(pts, x),
        "dup_onset": lambda: claim_dup_onset(pts, x),
        "dup_worst": lambda: claim_dup_worst(pts, x),
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


def plot_ratios(pts: pd.DataFrame, spec: FigSpec, out: Path) -> Figure:
    """Goodput relative to Snoop per scheme and flow, with the ±10% band."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = spec.x_axis
    for scheme in ("reno", "syndrome"):
        r = vs(pts, x, scheme, "snoop").dropna(subset=["ratio"])
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
                label=f"{LABELS[scheme]} / SNOOP, {FLOW_LABELS[flow]}",
            )
    ax.axhspan(1 - CLOSE, 1 + CLOSE, color="#999", alpha=0.15, lw=0, label="±10%")
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xlabel(_xlabel(x))
    ax.set_ylabel("goodput / SNOOP's goodput")
    ax.set_title("Goodput relative to SNOOP (95% CI of the ratio)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    png, svg = save(fig, out, f"syndrome_fig{spec.figure or 'x'}_vs_snoop")
    return Figure(
        png,
        "Ratio of mean goodputs to SNOOP's at the same point and flow; bars are 95% "
        "confidence intervals of the ratio (delta method); the grey band is ±10%.",
        svg=svg,
    )


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
    rel = pd.concat(
        [vs(pts, x, s, "snoop").assign(scheme=s) for s in ("syndrome", "reno")],
        ignore_index=True,
    )
    rel = rel[["scheme", x, "flow", "ratio", "ratio_ci95"]].rename(
        columns={"ratio": "/ SNOOP", "ratio_ci95": "±95% CI"}
    )
    present = set(pts["scheme"]) if "scheme" in pts.columns else set()
    expected = {a.name: a.labels for a in ctx.spec.axes}.get("scheme", SCHEMES)
    missing = [s for s in expected if s not in present]
    intro = (
        "Paper 000 Section 6: S1 -> MH (near, 3 hops) and S2 -> MH (far, 5 hops) through the "
        "base station HA; every link 2 Mb/s 5 ms with 100-packet buffers, 1000-byte packets, "
        "window 20. Loss on HA -> MH and, at 1/50 of it, on S1 -> n8 (Fig. 9 is missing from "
        "the paper: the topology is our reconstruction, see scenarios/syndrome_paper.toml). "
        "Goodput in KB/s (1 KB = 1000 bytes), mean over seeds with 95% Student-t CIs."
    )
    if missing:
        intro += f" No successful runs for: {', '.join(missing)}."
    return Analysis(
        figures=[plot_goodput(pts, spec, ctx.out), plot_ratios(pts, spec, ctx.out)],
        claims=claims(pts, spec),
        tables=[("Goodput per point and flow", shown), ("Relative to SNOOP", rel)],
        files=[(f"{stem}_points.csv", "per-point statistics (CSV)")],
        intro=intro,
    )


__all__ = ["FIGS", "FLOWS", "SCHEMES", "FigSpec", "analyse", "claims", "figspec", "points"]
