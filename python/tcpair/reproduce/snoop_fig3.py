"""Target ``snoop_fig3`` (``snoop-fig3``): paper 002's Figure 3.

Goodput at the MH (KB/s) of one Reno flow through an ordinary BS and through a
snooping BS vs the wireless link's bit error rate (A), and Snoop's speedup over
Reno (B). Scenario: ``scenarios/snoop_paper.toml``; sweep:
``sweeps/snoop_fig3.toml``.

The paper's claims and how their verdicts are computed (on the means over seeds;
the detail gives the values with 95% CIs):

- "at least 10 times as high an error rate without any performance degradation":
  Reno's reference is its goodput at the lowest BER swept; a scheme is
  *undegraded* at BER b when its goodput is >= 90% of that reference. The claim
  holds when, for every b at which Reno is undegraded and 10b is also swept,
  Snoop is undegraded at 10b.
- "speedups of up to 25 times": holds when the largest speedup is within a
  factor of 2 of 25 (12.5..50).
- "the performance gain is maximum around an error rate of 1e-4": holds when the
  BER of the largest speedup lies in [3e-5, 3e-4].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.analysis import Analysis, Context
from tcpair.report import FAILS, HOLDS, NA, Claim, Figure
from tcpair.reproduce._common import (
    GOODPUT,
    fmt_values,
    pm,
    ratios,
    runs_with_goodput,
    save,
    scheme_points,
)

FLOW = "tcp1"
SCHEMES: tuple[str, ...] = ("reno", "snoop")
SOURCE = "Amir et al. 1995 (paper 002), Fig. 3"
UNDEGRADED = 0.90  # a scheme is undegraded at >= 90% of Reno's lowest-BER goodput
BER_FACTOR = 10.0
PAPER_SPEEDUP = 25.0
SPEEDUP_FACTOR = 2.0  # "up to ~25x" holds for a maximum in [25/2, 25*2]
PEAK_BAND = (3e-5, 3e-4)  # "maximum around an error rate of 1e-4"

COLORS = {"reno": "#1f77b4", "snoop": "#d62728"}


def points(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, ber): goodput in KB/s and the counters, mean/std/n/95% CI."""
    return scheme_points(runs, ["scheme", "ber"])


def speedups(pts: pd.DataFrame) -> pd.DataFrame:
    """Snoop / Reno goodput per BER with a 95% CI."""
    return ratios(pts, "scheme", "snoop", "reno", ["ber"])


def _mean_at(pts: pd.DataFrame, scheme: str) -> pd.Series:
    d = pts[pts["scheme"] == scheme]
    return pd.Series(d[f"{GOODPUT}_mean"].to_numpy(float), index=d["ber"].to_numpy(float))


def _find(series: pd.Series, x: float) -> float | None:
    """The value at the swept BER equal to ``x`` (to rounding), else None."""
    for k, v in series.items():
        if np.isclose(float(k), x, rtol=1e-6, atol=0.0):
            return float(v)
    return None


def largest_undegraded(series: pd.Series, reference: float) -> float | None:
    """Largest BER b such that the scheme is undegraded at every swept BER <= b."""
    best = None
    for b, g in series.sort_index().items():
        if g >= UNDEGRADED * reference:
            best = float(b)
        else:
            break
    return best


def claim_tolerance(pts: pd.DataFrame) -> Claim:
    text = (
        f"Snoop tolerates >= {BER_FACTOR:g}x the BER of Reno without degradation: for every "
        f"swept BER b at which Reno is undegraded (mean goodput >= {UNDEGRADED:.0%} of Reno's "
        f"at the lowest BER) and {BER_FACTOR:g}b is swept, Snoop at {BER_FACTOR:g}b is also "
        f">= {UNDEGRADED:.0%} of that reference"
    )
    reno, snoop = _mean_at(pts, "reno"), _mean_at(pts, "snoop")
    if reno.empty or snoop.empty:
        return Claim(SOURCE, text, NA, "needs both Reno and Snoop runs")
    ref = float(reno.sort_index().iloc[0])
    pairs = []
    for b, g in reno.sort_index().items():
        if g < UNDEGRADED * ref:
            continue
        s = _find(snoop, float(b) * BER_FACTOR)
        if s is not None:
            pairs.append((float(b), float(g), s))
    if not pairs or ref <= 0:
        return Claim(SOURCE, text, NA, "no swept BER b with Reno undegraded and 10b swept")
    bad = [(b, s) for b, _, s in pairs if s < UNDEGRADED * ref]
    lr, ls = largest_undegraded(reno, ref), largest_undegraded(snoop, ref)
    detail = (
        f"reference (Reno at BER {float(reno.sort_index().index[0]):g}) {ref:.1f} KB/s. "
        + "; ".join(
            f"Reno@{b:g} {g / ref:.0%}, Snoop@{b * BER_FACTOR:g} {s / ref:.0%}" for b, g, s in pairs
        )
        + f". Largest BER undegraded at every lower BER: Reno {lr:g}, Snoop "
        + (f"{ls:g}" if ls is not None else "none")
        + (f" ({ls / lr:g}x)." if ls is not None and lr else ".")
    )
    if bad:
        detail += " Snoop degraded at " + fmt_values(b * BER_FACTOR for b, _ in bad) + "."
    return Claim(SOURCE, text, FAILS if bad else HOLDS, detail)


def claim_speedup(sp: pd.DataFrame) -> list[Claim]:
    lo, hi = PAPER_SPEEDUP / SPEEDUP_FACTOR, PAPER_SPEEDUP * SPEEDUP_FACTOR
    text_max = (
        f"speedups of up to ~{PAPER_SPEEDUP:g}x: the largest mean speedup Snoop/Reno over the "
        f"swept BERs lies in [{lo:g}, {hi:g}] (within a factor {SPEEDUP_FACTOR:g} of "
        f"{PAPER_SPEEDUP:g})"
    )
    text_peak = (
        f"the gain is largest near BER 1e-4: the swept BER with the largest mean speedup lies "
        f"in [{PEAK_BAND[0]:g}, {PEAK_BAND[1]:g}]"
    )
    ok = sp.dropna(subset=["ratio"])
    if ok.empty:
        return [
            Claim(SOURCE, text_max, NA, "needs both Reno and Snoop runs"),
            Claim(SOURCE, text_peak, NA, "needs both Reno and Snoop runs"),
        ]
    top = ok.loc[ok["ratio"].idxmax()]
    where = float(top["ber"])
    seen = (
        f"largest speedup {pm(float(top['ratio']), float(top['ratio_ci95']))}x at BER "
        f"{where:g}; all: "
        + "; ".join(f"{b:g}: {r:.2f}x" for b, r in zip(ok["ber"], ok["ratio"], strict=True))
    )
    in_band = lo <= float(top["ratio"]) <= hi
    in_peak = PEAK_BAND[0] * (1 - 1e-9) <= where <= PEAK_BAND[1] * (1 + 1e-9)
    return [
        Claim(SOURCE, text_max, HOLDS if in_band else FAILS, seen),
        Claim(SOURCE, text_peak, HOLDS if in_peak else FAILS, seen),
    ]


def claims(pts: pd.DataFrame, sp: pd.DataFrame) -> list[Claim]:
    """Verdicts computed from the numbers, never written by hand."""
    return [claim_tolerance(pts), *claim_speedup(sp)]


def plot_goodput(pts: pd.DataFrame, out: Path) -> Figure:
    """Fig. 3(A): goodput (KB/s) vs BER, log x, 95% CI bars."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for scheme in SCHEMES:
        d = pts[pts["scheme"] == scheme].sort_values("ber")
        if d.empty:
            continue
        ax.errorbar(
            d["ber"],
            d[f"{GOODPUT}_mean"],
            yerr=d[f"{GOODPUT}_ci95"].fillna(0),
            marker="o",
            ms=4,
            capsize=3,
            color=COLORS.get(scheme),
            label="Reno + snooping BS" if scheme == "snoop" else "Reno (ordinary BS)",
        )
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("bit error rate on BS -> MH")
    ax.set_ylabel("goodput at the MH (KB/s)")
    ax.set_title("Fig. 3(A): goodput vs bit error rate (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, "snoop_goodput_vs_ber")
    return Figure(
        png,
        "Paper 002 Fig. 3(A): goodput of Reno with an ordinary and with a snooping BS vs the "
        "bit error rate of the wireless link; bars are 95% Student-t confidence intervals "
        "(the paper shows standard deviations, listed in the table).",
        svg=svg,
    )


def plot_speedup(sp: pd.DataFrame, out: Path) -> Figure:
    """Fig. 3(B): speedup Snoop/Reno vs BER with 95% CI."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ok = sp.dropna(subset=["ratio"])
    if len(ok):
        ax.errorbar(
            ok["ber"],
            ok["ratio"],
            yerr=ok["ratio_ci95"].fillna(0),
            marker="s",
            ms=4,
            capsize=3,
            color=COLORS["snoop"],
            label="Snoop / Reno",
        )
        ax.legend(fontsize=8)
    ax.axhline(1.0, color="#888", lw=0.8, ls="--")
    ax.axhline(PAPER_SPEEDUP, color="#888", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bit error rate on BS -> MH")
    ax.set_ylabel("speedup (goodput ratio)")
    ax.set_title("Fig. 3(B): Snoop's speedup over Reno (95% CI)")
    ax.grid(alpha=0.3, which="both")
    png, svg = save(fig, out, "snoop_speedup_vs_ber")
    return Figure(
        png,
        "Paper 002 Fig. 3(B): ratio of mean goodputs Snoop/Reno per BER; bars are 95% "
        "confidence intervals of the ratio (delta method); dotted line: the paper's 25x.",
        svg=svg,
    )


def analyse(ctx: Context) -> Analysis:
    """Figures 3(A) and 3(B), per-point tables and verdicts."""
    runs = runs_with_goodput(ctx, [FLOW])
    pts = points(runs)
    sp = speedups(pts)
    pts.to_csv(ctx.out / "snoop_fig3_points.csv", index=False)
    sp.to_csv(ctx.out / "snoop_fig3_speedup.csv", index=False)
    cols = {
        "scheme": "scheme",
        "ber": "BER",
        f"{GOODPUT}_mean": "goodput KB/s",
        f"{GOODPUT}_std": "std",
        f"{GOODPUT}_ci95": "±95% CI",
        f"{GOODPUT}_n": "seeds",
        "timeouts_mean": "timeouts",
        "window_cuts_mean": "window cuts",
        "bs_retransmits_mean": "BS rexmits",
    }
    shown = pts[[c for c in cols if c in pts.columns]].rename(columns=cols)
    sp_shown = sp.rename(
        columns={
            "ber": "BER",
            "snoop_KBps": "Snoop KB/s",
            "reno_KBps": "Reno KB/s",
            "ratio": "speedup",
            "ratio_ci95": "±95% CI",
        }
    )
    missing = [s for s in SCHEMES if s not in set(pts.get("scheme", []))]
    intro = (
        "Paper 002's path FH -- router -- BS -- MH (10 Mb/s 100 us wired, 2 Mb/s 200 us "
        "wireless, 500-byte packets, 20-packet buffers), bit errors on BS -> MH, one Reno "
        "flow (window 16 = 8 KB, 500 ms timer tick, 1 s minimum RTO as in 4.3BSD-Reno). "
        "Goodput in KB/s (1 KB = 1000 bytes). Each point is the mean over seeds with a "
        "95% Student-t confidence interval."
    )
    if missing:
        intro += f" No successful runs for: {', '.join(missing)}."
    return Analysis(
        figures=[plot_goodput(pts, ctx.out), plot_speedup(sp, ctx.out)],
        claims=claims(pts, sp),
        tables=[("Goodput per point", shown), ("Speedup Snoop / Reno", sp_shown)],
        files=[
            ("snoop_fig3_points.csv", "per-point statistics (CSV)"),
            ("snoop_fig3_speedup.csv", "speedup per BER with 95% CI (CSV)"),
        ],
        intro=intro,
    )


__all__ = ["SCHEMES", "analyse", "claims", "largest_undegraded", "points", "speedups"]
