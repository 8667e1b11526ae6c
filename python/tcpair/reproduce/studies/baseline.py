"""Target ``baseline``: Reno, NewReno and SACK goodput vs loss rate, with PFTK.

The sweep (``sweeps/baseline.toml``) runs Sun et al. 2005 (CLRP): one-wireless-link path
with uniform loss on the wireless link's forward (BS -> MH) direction. The
PFTK curve at each loss rate uses that point's measured mean RTT and, as T0,
its mean base RTO (the estimator's, before backoff: the model's own (1 + 32p^2)
factor accounts for the backoff, so the RTO that expired, backoff included,
would count it twice), b = 1, Wmax = the flow's window, capped at the
bottleneck's rate; the check tests the TCP machinery, not a guess of RTT or T0.

``sweeps/baseline_bursty.toml`` (target ``baseline_bursty``) runs the same path
under bursty loss (Gilbert-Elliott in packets: bursts of 4 packets on average),
where several losses in one window are the rule and SACK can show its
difference; it judges the SACK >= NewReno >= Reno ordering only (PFTK assumes
independent loss events).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair.evidence.models import mathis, pftk_kbps
from tcpair.evidence.stats import aggregate
from tcpair.evidence.verdict import Interval, above, within
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.claims import interval_of, judge, make_claim
from tcpair.reproduce.common import paired_ratios

FLOW = "tcp1"
VARIANTS: tuple[str, ...] = ("reno", "newreno", "sack")
PFTK_TOLERANCE = 0.25
ORDER_TOLERANCE = 0.05
ORDER_MIN_P = 0.02
CAPACITY_TOLERANCE = 0.02
PFTK_SOURCE = "PFTK model (Padhye et al. 2000)"

COLORS = {"reno": "#1f77b4", "newreno": "#ff7f0e", "sack": "#2ca02c"}


def _flow_entry(scenario: dict[str, Any]) -> dict[str, Any]:
    for f in scenario.get("flows", []):
        if f.get("name") == FLOW:
            return f
    return scenario.get("flows", [{}])[0]


def runs_table(ctx: Context) -> pd.DataFrame:
    """The successful runs of flow ``tcp1`` with the window the scenario gave it."""
    df = ctx.ok_runs
    df = df[df["flow"] == FLOW].copy()
    df["window"] = float(_flow_entry(ctx.spec.base(ctx.quick)).get("window", np.nan))
    return df


def _t0(df: pd.DataFrame) -> pd.Series:
    """T0 per run, as PFTK defines it: the base RTO (mean over the run's RTT samples,
    before any backoff); PFTK's (1 + 32p^2) term models the backoff itself."""
    return df["mean_rto_s"]


BURST_P = "p_gb"  # the bursty sweep's axis: Good -> Bad transition probability per packet


def mean_loss(p_gb: pd.Series, p_bg: float, loss_bad: float = 1.0) -> pd.Series:
    """Stationary loss rate of a Gilbert-Elliott chain with lossless Good state."""
    return loss_bad * p_gb / (p_gb + p_bg)


def parse_bandwidth(value: Any) -> float | None:
    """Bits/s from a scenario bandwidth (``2e6``, ``"2Mb"``, ``"2 Mb/s"``), else None."""
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    s = value.strip().lower().replace(" ", "").removesuffix("/s").removesuffix("ps")
    s = s.removesuffix("it").removesuffix("b")
    mult = {"k": 1e3, "m": 1e6, "g": 1e9}.get(s[-1:], 1.0)
    num = s[:-1] if s[-1:] in "kmg" else s
    try:
        return float(num) * mult
    except ValueError:
        return None


def bottleneck_kbps(scenario: dict[str, Any]) -> float | None:
    """The slowest link's rate in kb/s (the path here is a chain)."""
    rates = [parse_bandwidth(link.get("bandwidth")) for link in scenario.get("links", [])]
    known = [r for r in rates if r]
    return min(known) / 1000 if known else None


def points(runs: pd.DataFrame, capacity_kbps: float | None = None) -> pd.DataFrame:
    """Per (variant, p): mean, std, n, 95% CI of the metrics, plus PFTK (capped at
    ``capacity_kbps`` when given) and Mathis."""
    df = runs.copy()
    df["t0_s"] = _t0(df)
    agg = aggregate(
        df,
        ["variant", "p"],
        [
            "goodput_kbps",
            "throughput_kbps",
            "mean_rtt_s",
            "t0_s",
            "timeouts",
            "fast_retransmits",
            "window_cuts",
        ],
    )
    firsts = df.groupby(["variant", "p"], sort=True)[["packet_size", "window"]].first()
    agg = agg.merge(firsts.reset_index(), on=["variant", "p"], how="left")
    rtt = agg["mean_rtt_s_mean"].to_numpy(dtype=float)
    ok = np.isfinite(rtt) & (rtt > 0)
    pftk_vals = np.full(len(agg), np.nan)
    mathis_vals = np.full(len(agg), np.nan)
    if ok.any():
        sel = agg[ok]
        pftk_vals[ok] = pftk_kbps(
            sel["p"].to_numpy(float),
            sel["mean_rtt_s_mean"].to_numpy(float),
            sel["t0_s_mean"].fillna(0).to_numpy(float),
            sel["packet_size"].to_numpy(float),
            wmax=sel["window"].fillna(np.inf).to_numpy(float),
        )
        with np.errstate(divide="ignore"):
            mathis_vals[ok] = (
                np.asarray(mathis(sel["p"].to_numpy(float), sel["mean_rtt_s_mean"].to_numpy(float)))
                * sel["packet_size"].to_numpy(float)
                * 8
                / 1000
            )
    if capacity_kbps:
        pftk_vals = np.minimum(pftk_vals, capacity_kbps)
    agg["pftk_kbps"] = pftk_vals
    agg["mathis_kbps"] = np.where(agg["p"] > 0, mathis_vals, np.nan)
    agg["goodput_over_pftk"] = agg["goodput_kbps_mean"] / agg["pftk_kbps"]
    order = {v: i for i, v in enumerate(VARIANTS)}
    agg["_o"] = agg["variant"].map(lambda v: order.get(v, len(order)))
    return agg.sort_values(["_o", "p"]).drop(columns="_o").reset_index(drop=True)


def _fmt_ps(ps: Sequence[float]) -> str:
    return "{" + ", ".join(f"{p:.3g}" for p in ps) + "}"


def _goodput_iv(row: pd.Series, scale: float) -> Interval:
    """The point's mean goodput and its 95% CI, divided by ``scale``."""
    return Interval.from_halfwidth(
        float(row["goodput_kbps_mean"]) / scale,
        float(row["goodput_kbps_ci95"]) / scale,
        int(row["goodput_kbps_n"]),
    )


def claim_pftk(pts: pd.DataFrame) -> Claim:
    lo, hi = 1 - PFTK_TOLERANCE, 1 + PFTK_TOLERANCE
    rule = f"mean goodput / PFTK: 95% CI inside [{lo:g}, {hi:g}] at every p > 0"
    reno = pts[(pts["variant"] == "reno") & (pts["p"] > 0)].dropna(subset=["pftk_kbps"])
    text = (
        f"Reno goodput within {PFTK_TOLERANCE:.0%} of PFTK (b=1, T0 = mean base RTO, "
        f"Wmax = window, capped at the bottleneck's rate) at p in "
        f"{_fmt_ps(reno['p'].tolist())}"
    )
    parts = [
        judge(f"p={r['p']:g}", _goodput_iv(r, float(r["pftk_kbps"])), lambda iv: within(iv, lo, hi))
        for _, r in reno.iterrows()
    ]
    return make_claim(PFTK_SOURCE, text, "pftk", rule, parts, empty="no Reno points with loss")


def claim_order(
    runs: pd.DataFrame, ps: Sequence[float], min_p: float = ORDER_MIN_P, how: str = "uniform"
) -> Claim:
    floor = 1 - ORDER_TOLERANCE
    high = sorted(p for p in ps if p >= min_p)
    text = (
        f"with several losses per window SACK >= NewReno >= Reno (within "
        f"{ORDER_TOLERANCE:.0%}) under {how} loss at mean loss rate p in {_fmt_ps(high)}"
    )
    rule = (
        f"paired ratios SACK/NewReno and NewReno/Reno: 95% CI above {floor:g} at every "
        f"p >= {min_p:g}"
    )
    parts = []
    for num, den in (("sack", "newreno"), ("newreno", "reno")):
        r = paired_ratios(runs, "variant", num, den, ["p"], value="goodput_kbps")
        for _, row in r[r["p"] >= min_p].iterrows():
            iv = interval_of(row)
            parts.append(judge(f"{num}/{den} p={row['p']:.3g}", iv, lambda i: above(i, floor)))
    return make_claim(
        "Fall & Floyd 1996 (expected ordering)",
        text,
        "ordering" if how == "uniform" else f"ordering_{how}",
        rule,
        parts,
        empty=f"needs Reno, NewReno and SACK runs at p >= {ORDER_MIN_P:g}",
    )


def claim_capacity(pts: pd.DataFrame, capacity_kbps: float) -> Claim:
    lo, hi = 1 - CAPACITY_TOLERANCE, 1 + CAPACITY_TOLERANCE
    text = (
        f"without loss, goodput within {CAPACITY_TOLERANCE:.0%} of the bottleneck "
        f"capacity ({capacity_kbps:.0f} kb/s)"
    )
    rule = f"mean goodput / capacity at p = 0: 95% CI inside [{lo:g}, {hi:g}] for every variant"
    zero = pts[pts["p"] == 0]
    parts = [
        judge(str(r["variant"]), _goodput_iv(r, capacity_kbps), lambda iv: within(iv, lo, hi))
        for _, r in zero.iterrows()
    ]
    return make_claim(
        "expected behaviour of a loss-free path", text, "capacity", rule, parts, fmt=".4g"
    )


def claims(pts: pd.DataFrame, capacity_kbps: float | None, runs: pd.DataFrame) -> list[Claim]:
    """Verdicts decided from 95% confidence intervals (:mod:`tcpair.evidence.verdict`)."""
    out = [claim_pftk(pts)]
    ps = [float(p) for p in pts["p"].unique()] if len(pts) else []
    if any(p >= ORDER_MIN_P for p in ps):
        out.append(claim_order(runs, ps))
    if capacity_kbps and (pts["p"] == 0).any():
        out.append(claim_capacity(pts, capacity_kbps))
    return out


def plot_goodput(pts: pd.DataFrame, out: Path, capacity_kbps: float | None) -> Figure:
    """Goodput vs p with 95% CI error bars and bands, PFTK and Mathis for Reno."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for variant in VARIANTS:
        d = pts[pts["variant"] == variant]
        if d.empty:
            continue
        ci = d["goodput_kbps_ci95"].fillna(0).to_numpy(float)
        y = d["goodput_kbps_mean"].to_numpy(float)
        x = d["p"].to_numpy(float)
        c = COLORS.get(variant)
        ax.errorbar(x, y, yerr=ci, marker="o", ms=4, capsize=3, color=c, label=variant)
        ax.fill_between(x, y - ci, y + ci, color=c, alpha=0.15, linewidth=0)
    reno = pts[pts["variant"] == "reno"].dropna(subset=["pftk_kbps"])
    if len(reno):
        ax.plot(
            reno["p"], reno["pftk_kbps"], "k--", lw=1.2, zorder=5, label="PFTK (Reno's RTT, T0)"
        )
        m = reno[reno["p"] > 0]
        ax.plot(m["p"], m["mathis_kbps"], ":", color="grey", lw=1.2, label="Mathis")
    if capacity_kbps:
        ax.axhline(capacity_kbps, color="#999", lw=0.8, ls="-.", label="bottleneck capacity")
    top = np.nanmax(pts["goodput_kbps_mean"].to_numpy(float)) if len(pts) else 1.0
    ax.set_ylim(0, max(top, capacity_kbps or 0) * 1.15 if np.isfinite(top) else None)
    ax.set_xlabel("packet loss rate p on the wireless link (BS -> MH)")
    ax.set_ylabel("goodput (kb/s)")
    ax.set_title("Goodput vs loss rate (mean and 95% CI over seeds)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(out / "goodput_vs_loss.png", dpi=120)
    fig.savefig(out / "goodput_vs_loss.svg")
    return Figure(
        "goodput_vs_loss.png",
        "Goodput of Reno, NewReno and SACK vs loss rate; bars and bands are 95% Student-t "
        "confidence intervals; the dashed line is PFTK from Reno's measured RTT and T0.",
        svg="goodput_vs_loss.svg",
    )


def plot_recoveries(pts: pd.DataFrame, out: Path) -> Figure:
    """Timeouts and fast retransmits per run: why the variants differ."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(9, 3.8), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, col, label in zip(
        axes,
        ("timeouts", "fast_retransmits"),
        ("timeouts per run", "fast retransmits per run"),
        strict=True,
    ):
        for variant in VARIANTS:
            d = pts[pts["variant"] == variant]
            if d.empty:
                continue
            ax.errorbar(
                d["p"],
                d[f"{col}_mean"],
                yerr=d[f"{col}_ci95"].fillna(0),
                marker="o",
                ms=3,
                capsize=2,
                color=COLORS.get(variant),
                label=variant,
            )
        ax.set_xlabel("loss rate p")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.savefig(out / "recoveries_vs_loss.png", dpi=110)
    fig.savefig(out / "recoveries_vs_loss.svg")
    return Figure(
        "recoveries_vs_loss.png",
        "Timeouts and fast retransmits per run (95% CI).",
        svg="recoveries_vs_loss.svg",
    )


def _bursty(ctx: Context, runs: pd.DataFrame) -> pd.DataFrame:
    """The bursty sweep's runs with ``p`` = the chain's stationary loss rate."""
    links = ctx.spec.base(ctx.quick)["links"]
    wl = next(lk for lk in links if lk.get("name") == "wireless")["forward"]["loss"]
    p_bg = float(wl["p_bad_to_good"])
    runs = runs.copy()
    runs["p"] = mean_loss(runs[BURST_P].astype(float), p_bg, float(wl.get("loss_bad", 1.0)))
    return runs


def analyse(ctx: Context) -> Analysis:
    """Plots, per-point table and verdicts for the baseline sweeps."""
    runs = runs_table(ctx)
    bursty = BURST_P in runs.columns
    if bursty:
        runs = _bursty(ctx, runs)
    capacity = bottleneck_kbps(ctx.spec.base(ctx.quick))
    pts = points(runs, capacity)
    pts.to_csv(ctx.out / "baseline_points.csv", index=False)
    shown = pts[
        [
            "variant",
            "p",
            "goodput_kbps_mean",
            "goodput_kbps_ci95",
            "goodput_kbps_n",
            "pftk_kbps",
            "goodput_over_pftk",
            "mean_rtt_s_mean",
            "t0_s_mean",
            "timeouts_mean",
            "fast_retransmits_mean",
        ]
    ].rename(
        columns={
            "goodput_kbps_mean": "goodput kb/s",
            "goodput_kbps_ci95": "±95% CI",
            "goodput_kbps_n": "seeds",
            "pftk_kbps": "PFTK kb/s",
            "goodput_over_pftk": "/PFTK",
            "mean_rtt_s_mean": "RTT s",
            "t0_s_mean": "T0 s",
            "timeouts_mean": "timeouts",
            "fast_retransmits_mean": "fast rexmits",
        }
    )
    if bursty:
        ps = [float(p) for p in pts["p"].unique()]
        found = [claim_order(runs, ps, min_p=0.0, how="bursty")] if len(pts) else []
    else:
        found = claims(pts, capacity, runs)
    how = (
        "bursty loss on BS -> MH (Gilbert-Elliott in packets; p is the stationary loss rate)"
        if bursty
        else "uniform loss on BS -> MH"
    )
    return Analysis(
        figures=[plot_goodput(pts, ctx.out, capacity), plot_recoveries(pts, ctx.out)],
        claims=found,
        tables=[("Per point", shown)],
        files=[("baseline_points.csv", "per-point statistics with PFTK and Mathis (CSV)")],
        intro="Sun et al. 2005 (CLRP): one-wireless-link path (FH-BS 10 Mb/s 10 ms, "
        "BS-MH 2 Mb/s 64 us, "
        f"1000-byte packets, window 30) with {how}. Each point is the mean "
        "over seeds with a 95% Student-t confidence interval. PFTK uses each point's measured "
        "mean RTT and mean base RTO as T0 (b = 1, no delayed ACKs; Wmax = window), capped "
        "at the bottleneck's rate.",
    )


__all__ = ["VARIANTS", "analyse", "claims", "points", "runs_table"]
