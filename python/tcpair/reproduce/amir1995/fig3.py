"""Target ``snoop_fig3`` (``snoop-fig3``): Amir et al. 1995 (Snoop), Figure 3.

Goodput at the MH (KB/s) of one Reno flow through an ordinary BS and through a
snooping BS vs the wireless link's bit error rate (A), and Snoop's speedup over
Reno (B). Scenario: ``scenarios/snoop_paper.toml``; sweep:
``sweeps/snoop_fig3.toml``.

The paper's claims and how their verdicts are decided (95% confidence
intervals, the rule of :mod:`tcpair.evidence.verdict`; ratios are paired by seed):

- "at least 10 times as high an error rate without any performance degradation":
  Reno's reference is its goodput at the lowest BER swept; a scheme is
  *undegraded* at BER b when its goodput over that reference (paired by seed)
  has its CI above 0.9. For every b with 10b swept and both inside the paper's
  range 1e-7..1e-4 ("for error rates between 10^-4 and 10^-7"): if Reno is
  undegraded at b, Snoop must be at 10b (:func:`tcpair.evidence.verdict.implies`).
- "speedups of up to 25 times": some BER's speedup CI lies within a factor of 2
  of 25 (12.5..50) and no BER's CI lies above 50.
- "the performance gain is maximum around an error rate of 1e-4": the largest
  speedup in [3e-5, 3e-4] exceeds every speedup outside that band (difference
  with the two CIs combined in quadrature above 0).
- "[the gain] tapers off for error rates larger than 10^-6 when there is a very
  low probability of multiple errors in any TCP transmission window": read as
  the low-error side (a low probability of multiple errors per window means a
  low BER; the text's "larger" contradicts its own reason), the speedup's CI lies
  below a tenth of the paper's 25x at every swept BER <= 1e-6.

The full mode runs 30 seeds: the speedup near the collapse of Reno is the ratio
of two small goodputs and varies widely from seed to seed.

Modules: :mod:`.fig3_claims` (the verdicts) and this one (the measures, the plots
and the page).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Figure
from tcpair.reproduce.amir1995.fig3_claims import PAPER_SPEEDUP, claims, largest_undegraded
from tcpair.reproduce.common import (
    GOODPUT,
    paired_ratios,
    runs_with_goodput,
    save,
    scheme_points,
)

FLOW = "tcp1"
SCHEMES: tuple[str, ...] = ("reno", "snoop")

COLORS = {"reno": "#1f77b4", "snoop": "#d62728"}


def points(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, ber): goodput in KB/s and the counters, mean/std/n/95% CI."""
    return scheme_points(runs, ["scheme", "ber"])


def speedups(runs: pd.DataFrame) -> pd.DataFrame:
    """Snoop / Reno goodput per BER, paired by seed, with a 95% CI."""
    return paired_ratios(runs, "scheme", "snoop", "reno", ["ber"])


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
        "Amir et al. 1995 (Snoop), Fig. 3(A): goodput of Reno with an ordinary "
        "and with a snooping BS vs the "
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
        "Amir et al. 1995 (Snoop), Fig. 3(B): ratio of mean goodputs "
        "Snoop/Reno per BER; bars are 95% "
        "confidence intervals of the ratio, paired by seed; dotted line: the paper's 25x.",
        svg=svg,
    )


def analyse(ctx: Context) -> Analysis:
    """Figures 3(A) and 3(B), per-point tables and verdicts."""
    runs = runs_with_goodput(ctx, [FLOW])
    pts = points(runs)
    sp = speedups(runs)
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
            "ratio_low": "CI low",
            "ratio_high": "CI high",
            "ratio_ci95": "±95% CI",
        }
    )
    missing = [s for s in SCHEMES if s not in set(pts.get("scheme", []))]
    intro = (
        "Amir et al. 1995 (Snoop), the path FH -- router -- BS -- MH (10 Mb/s "
        "100 us wired, 2 Mb/s 200 us "
        "wireless, 500-byte packets, 20-packet buffers), bit errors on BS -> MH, one Reno "
        "flow (window 16 = 8 KB, 500 ms timer tick, 1 s minimum RTO as in 4.3BSD-Reno). "
        "Goodput in KB/s (1 KB = 1000 bytes). Each point is the mean over seeds with a "
        "95% Student-t confidence interval."
    )
    if missing:
        intro += f" No successful runs for: {', '.join(missing)}."
    return Analysis(
        figures=[plot_goodput(pts, ctx.out), plot_speedup(sp, ctx.out)],
        claims=claims(runs, pts, sp),
        tables=[("Goodput per point", shown), ("Speedup Snoop / Reno", sp_shown)],
        files=[
            ("snoop_fig3_points.csv", "per-point statistics (CSV)"),
            ("snoop_fig3_speedup.csv", "speedup per BER with 95% CI (CSV)"),
        ],
        intro=intro,
    )


__all__ = ["SCHEMES", "analyse", "claims", "largest_undegraded", "points", "speedups"]
