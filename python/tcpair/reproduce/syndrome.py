"""Targets ``syndrome_fig10`` .. ``syndrome_fig13``: Chen et al. 2002 (Syndrome), Figures 10-13.

One module for the four targets: they share the scenario
(``scenarios/syndrome_paper.toml``), the flows S1 -> MH (near) and S2 -> MH
(far), the schemes (Reno, Snoop, Syndrome) and the plots; they differ in the
x-axis (1/sqrt(p), or the duplication probability for Fig. 12) and in the claims
set beside our numbers. :data:`FIGS` maps each sweep's name to that choice.

Every verdict is decided from 95% confidence intervals by the rule of
:mod:`tcpair.verdict`; ratios of goodputs are paired by seed (and S1/S2 by run):

- RTT bias (Fig. 10's first observation): S1/S2 above 1 for every scheme and
  loss rate.
- "very close, and comparable" (Figs. 10, 11, 13): Syndrome/Snoop inside
  1 +- 10% for each flow at every point.
- "30-80 per cent more than TCP senders in the case of high packet loss rates"
  (Fig. 10): at every p >= 0.05, Snoop/Reno and Syndrome/Reno above 1.30 for
  both flows; the detail reports the range seen beside the paper's 30-80%.
- Fig. 12, "notable discrepancy only when duplication exceeds 0.05 (S1) and
  0.1 (S2)": for each flow Syndrome/Snoop inside 1 +- 10% at every duplication
  probability up to the flow's onset and outside it at some probability above.
- Fig. 12, "in the worst case ... 20 per cent more aggressively than SNOOP":
  Syndrome/Snoop below 1.2 at every point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.analysis import Analysis, Context
from tcpair.page import FAILS, HOLDS, NA, Claim, Figure
from tcpair.reproduce._claims import Part, interval_of, judge, make_claim
from tcpair.reproduce._common import (
    GOODPUT,
    paired_ratios,
    runs_with_goodput,
    save,
    scheme_points,
)
from tcpair.verdict import Interval, above, all_of, any_of, below, outside, within

FLOWS: tuple[str, ...] = ("s1", "s2")
SCHEMES: tuple[str, ...] = ("reno", "snoop", "syndrome")
SOURCE = "Chen et al. 2002 (Syndrome)"
_DOC = 'docs/syndrome.md, section "What the reproduction shows"'
RTT_CAUSE = (
    "S1 alone crosses the wired link with loss p/50, which a base station cannot hide, so "
    f"at high loss its advantage of the shorter RTT is lost; {_DOC}."
)
CLOSE_CAUSE = (
    "Syndrome repairs losses end to end with a sender held to its window: a second "
    "wireless loss in one window often waits for the timer, while Snoop repairs every "
    f"loss locally within milliseconds; {_DOC}."
)
ONSET_CAUSE = f"No gap beyond 10% appears at any duplication probability; {_DOC}."
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


def vs(runs: pd.DataFrame, x_axis: str, num: str, den: str) -> pd.DataFrame:
    """Goodput ratio ``num``/``den`` per (x, flow), paired by seed, with a 95% CI."""
    return paired_ratios(runs, "scheme", num, den, [x_axis, "flow"])


def _ratio_parts(
    r: pd.DataFrame, x_axis: str, test: Callable[[Interval], str], prefix: str = ""
) -> list[Part]:
    return [
        judge(f"{prefix}{row['flow']} {x_axis}={row[x_axis]:g}", interval_of(row), test)
        for _, row in r.iterrows()
    ]


def _band(iv: Interval) -> str:
    return within(iv, 1 - CLOSE, 1 + CLOSE)


def claim_rtt_bias(runs: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        "TCP favours the short-RTT connection: mean goodput S1 -> MH > S2 -> MH for every "
        "scheme and loss rate"
    )
    rule = "paired ratio S1/S2 (same runs): 95% CI above 1 for every scheme and point"
    src = f"{SOURCE}, Fig. 10"
    r = paired_ratios(runs, "flow", "s1", "s2", ["scheme", x_axis])
    parts = [
        judge(f"{row['scheme']} {x_axis}={row[x_axis]:g}", interval_of(row), _above_one)
        for _, row in r.iterrows()
    ]
    return make_claim(
        src, text, "rtt_bias", rule, parts, cause=RTT_CAUSE, empty="needs runs of both flows"
    )


def _above_one(iv: Interval) -> str:
    return above(iv, 1.0)


def claim_close(runs: pd.DataFrame, x_axis: str, fig: str) -> Claim:
    text = (
        f"Syndrome comparable to Snoop: goodput ratio Syndrome/Snoop within 1 ± {CLOSE:.0%} "
        f"for both flows at every {x_axis}"
    )
    if fig == "11":
        text += " (the paper: 'comparable, and sometimes slightly better')"
    rule = (
        f"paired ratio Syndrome/Snoop: 95% CI inside [{1 - CLOSE:g}, {1 + CLOSE:g}] for each "
        "flow at every point"
    )
    r = vs(runs, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    src = f"{SOURCE}, Fig. {fig}" if fig else SOURCE
    parts = _ratio_parts(r, x_axis, _band)
    above_n = sum(p.iv.low > 1 for p in parts if p.iv.defined)
    note = f"Syndrome above Snoop (CI above 1) at {above_n} of {len(parts)} points."
    return make_claim(
        src,
        text,
        "comparable",
        rule,
        parts,
        note=note,
        cause=CLOSE_CAUSE,
        empty="needs both Snoop and Syndrome runs",
    )


def claim_gain(runs: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"at high loss (p >= {HIGH_LOSS_P:g}) Snoop and Syndrome get >= {GAIN_MIN:.0%} more "
        f"goodput than Reno, both flows (the paper reports {GAIN_MIN:.0%}-{GAIN_MAX:.0%})"
    )
    rule = (
        f"paired ratios Snoop/Reno and Syndrome/Reno: 95% CI above {1 + GAIN_MIN:g} for each "
        f"flow at every p >= {HIGH_LOSS_P:g}"
    )
    src = f"{SOURCE}, Fig. 10"
    parts: list[Part] = []
    missing = []
    for scheme in ("snoop", "syndrome"):
        r = vs(runs, x_axis, scheme, "reno").dropna(subset=["ratio"])
        r = r[r[x_axis] >= HIGH_LOSS_P * (1 - 1e-9)]
        if r.empty:
            missing.append(scheme)
        parts += _ratio_parts(r, x_axis, lambda iv: above(iv, 1 + GAIN_MIN), f"{LABELS[scheme]} ")
    gains = [p.iv.estimate - 1 for p in parts]
    note = ""
    if gains:
        inside = sum(GAIN_MIN <= g <= GAIN_MAX for g in gains)
        note = (
            f"Gain from {min(gains):+.0%} to {max(gains):+.0%}; {inside} of {len(gains)} "
            f"within the paper's {GAIN_MIN:.0%}-{GAIN_MAX:.0%}."
        )
    if missing and parts:
        note += f" Not assessed for: {', '.join(missing)} (no runs)."
    claim = make_claim(
        src,
        text,
        "gain_over_reno",
        rule,
        parts,
        note=note,
        empty=f"needs Reno and Snoop/Syndrome runs at p >= {HIGH_LOSS_P:g}",
    )
    if missing and claim.verdict == HOLDS:
        claim.verdict = NA
    return claim


def claim_dup_onset(runs: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"a notable gap (|Syndrome/Snoop - 1| > {DUP_GAP:.0%}) appears only once the "
        f"duplication probability exceeds {DUP_ONSET['s1']:g} for S1 and {DUP_ONSET['s2']:g} "
        f"for S2: no such gap at or below the onset, and one at some probability above it"
    )
    lo, hi = 1 - DUP_GAP, 1 + DUP_GAP
    rule = (
        f"per flow, paired ratio Syndrome/Snoop: 95% CI inside [{lo:g}, {hi:g}] at every "
        "probability up to the onset, and outside it at some probability above"
    )
    src = f"{SOURCE}, Fig. 12"
    r = vs(runs, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    parts, per_flow = [], []
    for flow in FLOWS:
        d = r[r["flow"] == flow]
        if d.empty:
            continue
        onset = DUP_ONSET[flow] * (1 + 1e-9)
        early = _ratio_parts(d[d[x_axis] <= onset], x_axis, _band)
        late = _ratio_parts(d[d[x_axis] > onset], x_axis, lambda iv: outside(iv, lo, hi))
        parts += early + late
        per_flow.append(all_of([all_of(p.outcome for p in early), any_of(p.outcome for p in late)]))
        if not late:
            per_flow[-1] = FAILS  # nothing swept above the onset: no gap can appear
    outcome = all_of(per_flow)
    return make_claim(
        src,
        text,
        "duplication_onset",
        rule,
        parts,
        combine=lambda _: outcome,
        cause=ONSET_CAUSE,
        empty="needs both Snoop and Syndrome runs",
    )


def claim_dup_worst(runs: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        f"in the worst case Syndrome is at most ~{WORST_AGGRESSION - 1:.0%} more aggressive "
        f"than Snoop: largest goodput ratio Syndrome/Snoop <= {WORST_AGGRESSION:g} (the paper's "
        f"worst case: S2 at duplication 0.1)"
    )
    rule = f"paired ratio Syndrome/Snoop: 95% CI below {WORST_AGGRESSION:g} at every point"
    src = f"{SOURCE}, Fig. 12"
    r = vs(runs, x_axis, "syndrome", "snoop").dropna(subset=["ratio"])
    parts = _ratio_parts(r, x_axis, lambda iv: below(iv, WORST_AGGRESSION))
    return make_claim(
        src, text, "worst_case", rule, parts, empty="needs both Snoop and Syndrome runs"
    )


def claims(runs: pd.DataFrame, spec: FigSpec) -> list[Claim]:
    """Verdicts decided from 95% confidence intervals (:mod:`tcpair.verdict`)."""
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
    """Goodput relative to Snoop per scheme and flow, with the ±10% band."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = spec.x_axis
    for scheme in ("reno", "syndrome"):
        r = vs(runs, x, scheme, "snoop").dropna(subset=["ratio"])
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
        "confidence intervals of the ratio, paired by seed; the grey band is ±10%.",
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
        [vs(runs, x, s, "snoop").assign(scheme=s) for s in ("syndrome", "reno")],
        ignore_index=True,
    )
    rel = rel[["scheme", x, "flow", "ratio", "ratio_low", "ratio_high", "seeds"]].rename(
        columns={"ratio": "/ SNOOP", "ratio_low": "CI low", "ratio_high": "CI high"}
    )
    present = set(pts["scheme"]) if "scheme" in pts.columns else set()
    expected = {a.name: a.labels for a in ctx.spec.axes}.get("scheme", SCHEMES)
    missing = [s for s in expected if s not in present]
    intro = (
        "Chen et al. 2002 (Syndrome), Section 6: S1 -> MH (near, 3 hops) and "
        "S2 -> MH (far, 5 hops) through the "
        "base station HA; every link 2 Mb/s 5 ms with 100-packet buffers, 1000-byte packets, "
        "window 20. Loss on HA -> MH and, at 1/50 of it, on S1 -> n8 (Fig. 9 is missing from "
        "the paper: the topology is our reconstruction, see scenarios/syndrome_paper.toml). "
        "Goodput in KB/s (1 KB = 1000 bytes), mean over seeds with 95% Student-t CIs."
    )
    if missing:
        intro += f" No successful runs for: {', '.join(missing)}."
    return Analysis(
        figures=[plot_goodput(pts, spec, ctx.out), plot_ratios(runs, spec, ctx.out)],
        claims=claims(runs, spec),
        tables=[("Goodput per point and flow", shown), ("Relative to SNOOP", rel)],
        files=[(f"{stem}_points.csv", "per-point statistics (CSV)")],
        intro=intro,
    )


__all__ = ["FIGS", "FLOWS", "SCHEMES", "FigSpec", "analyse", "claims", "figspec", "points"]
