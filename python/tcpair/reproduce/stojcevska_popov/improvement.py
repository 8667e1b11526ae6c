"""Target ``pr_range``: Stojcevska and Popov (Prompt Recovery), Section 7's two general claims.

A grid over the Fig. 3 chain (bottleneck ratio, random loss rate p, per-link
delay); at every point the throughput by formula (7) of PR over Reno and of PR*
over NewReno, paired by seed (:func:`tcpair.evidence.verdict.paired_ratio`):

- "throughput increase in all cases": ratio above 1 at every point with p > 0;
- "ranges from 10% up to 70%": ratio inside [1.10, 1.70] at every point with p > 0;
- "identical to Reno/NewReno without random loss": at p = 0 the ratio inside
  1 ± 1% (:data:`IDENTICAL`), with the windows PR kept at p = 0 as the cause when
  it is not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from tcpair.evidence.verdict import Interval, above, within
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.claims import Part, interval_of, judge, make_claim
from tcpair.reproduce.common import paired_ratios, save

SOURCE = "Stojcevska and Popov (Prompt Recovery), Section 7"
DOC = 'docs/pr.md, section "Reproductions"'
FORMULA = "formula_throughput_mbps"
PAIRS: tuple[tuple[str, str], ...] = (("pr", "reno"), ("pr_star", "newreno"))
LABELS = {"reno": "Reno", "pr": "PR", "newreno": "NewReno", "pr_star": "PR*"}
RANGE = (1.10, 1.70)  # "from 10% up to 70%"
IDENTICAL = 0.01  # "identical": within 1%


def grid_keys(runs: pd.DataFrame, axes: Sequence[str]) -> list[str]:
    return [a for a in axes if a != "variant" and a in runs.columns]


def ratios(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """PR/Reno and PR*/NewReno per grid point, paired by seed."""
    parts = [
        paired_ratios(runs, "variant", new, old, list(keys), value=FORMULA).assign(
            pair=f"{LABELS[new]}/{LABELS[old]}", new=new
        )
        for new, old in PAIRS
    ]
    out = pd.concat(parts, ignore_index=True)
    return out.dropna(subset=["ratio"]) if not out.empty else out


def _label(row: pd.Series, keys: Sequence[str]) -> str:
    where = ",".join(f"{k}={row[k]:g}" for k in keys)
    return f"{row['pair']} {where}"


def _parts(r: pd.DataFrame, keys: Sequence[str], test: Callable[[Interval], str]) -> list[Part]:
    return [judge(_label(row, keys), interval_of(row), test) for _, row in r.iterrows()]


def _kept(runs: pd.DataFrame, variant: str, lossy: bool) -> str:
    d = runs[(runs["variant"] == variant) & ((runs["p"] > 0) if lossy else (runs["p"] == 0))]
    if d.empty or "wireless_frs" not in d:
        return ""
    c_true, c_said = d["frs_congestion_true"].sum(), d["frs_congestion_said_congestion"].sum()
    w_true, w_said = d["frs_wireless_true"].sum(), d["frs_wireless_said_wireless"].sum()
    text = (
        f"{LABELS[variant]} kept the window on {c_true - c_said} of {c_true} fast "
        f"retransmits of queue overflows"
    )
    if lossy:
        text += f" and on {w_said} of {w_true} of random losses"
    return text


def _timeouts_where_lower(runs: pd.DataFrame, r: pd.DataFrame, keys: Sequence[str]) -> str:
    """Timeouts per run of each side at the points where the new variant is lower."""
    low = r[(r["p"] > 0) & (r["ratio"] < 1)]
    if low.empty or "timeouts" not in runs:
        return ""
    texts = []
    for new, old in PAIRS:
        at = low[low["new"] == new][list(keys)].drop_duplicates()
        d = runs.merge(at, on=list(keys))
        if d.empty:
            continue
        t = d.groupby("variant")["timeouts"].mean()
        texts.append(
            f"{LABELS[new]} {t.get(new, float('nan')):.1f} timeouts per run against "
            f"{LABELS[old]}'s {t.get(old, float('nan')):.1f} there"
        )
    return "; ".join(texts)


def claim_increase(runs: pd.DataFrame, r: pd.DataFrame, keys: Sequence[str]) -> Claim:
    lossy = r[r["p"] > 0]
    parts = _parts(lossy, keys, lambda iv: above(iv, 1.0))
    below = sum(p.iv.estimate < 1 for p in parts)
    facts = "; ".join(
        f
        for f in (_timeouts_where_lower(runs, r, keys), *(_kept(runs, n, True) for n, _ in PAIRS))
        if f
    )
    return make_claim(
        SOURCE,
        "PR and PR* increase throughput over Reno and NewReno in all cases with random loss",
        "increase_all_cases",
        "paired ratio PR/Reno and PR*/NewReno of formula (7) throughput: 95% CI above 1 at "
        "every point with p > 0",
        parts,
        cause=f"{below} of {len(parts)} points have a ratio below 1; {facts}; {DOC}.",
        fmt=".3g",
        empty="needs runs with p > 0",
    )


def claim_range(runs: pd.DataFrame, r: pd.DataFrame, keys: Sequence[str]) -> Claim:
    lo, hi = RANGE
    lossy = r[r["p"] > 0]
    parts = _parts(lossy, keys, lambda iv: within(iv, lo, hi))
    est = [p.iv.estimate for p in parts]
    note = (
        f"Improvement from {min(est) - 1:+.1%} to {max(est) - 1:+.1%}; "
        f"{sum(lo <= e <= hi for e in est)} of {len(est)} estimates inside the paper's range."
        if est
        else ""
    )
    facts = "; ".join(_kept(runs, new, True) for new, _ in PAIRS)
    return make_claim(
        SOURCE,
        f"the improvement ranges from {lo - 1:.0%} up to {hi - 1:.0%}",
        "improvement_10_to_70",
        f"paired ratio PR/Reno and PR*/NewReno: 95% CI inside [{lo:g}, {hi:g}] at every "
        "point with p > 0",
        parts,
        note=note,
        cause=f"{facts}; {DOC}.",
        fmt=".3g",
        empty="needs runs with p > 0",
    )


def claim_identical(runs: pd.DataFrame, r: pd.DataFrame, keys: Sequence[str]) -> Claim:
    clean = r[r["p"] == 0]
    parts = _parts(clean, keys, lambda iv: within(iv, 1 - IDENTICAL, 1 + IDENTICAL))
    facts = "; ".join(_kept(runs, new, False) for new, _ in PAIRS)
    return make_claim(
        SOURCE,
        "without random loss PR is identical to Reno and PR* to NewReno",
        "identical_without_loss",
        f"paired ratio at p = 0: 95% CI inside [{1 - IDENTICAL:g}, {1 + IDENTICAL:g}] at "
        "every point",
        parts,
        cause=f"at p = 0 {facts}: a loss after six small RTTs in a row is taken as random "
        f"even when the queue overflowed; {DOC}.",
        fmt=".4g",
        empty="needs runs with p = 0",
    )


def plot_ratios(r: pd.DataFrame, out: Path) -> Figure:
    """Ratio against p, one panel per bottleneck ratio, one line per pair and delay."""
    from matplotlib.figure import Figure as MplFigure

    panels = sorted(set(r["bottleneck"])) if "bottleneck" in r else [None]
    fig = MplFigure(figsize=(3.4 * len(panels) + 1, 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    styles = {"PR/Reno": "-", "PR*/NewReno": "--"}
    delays = sorted(set(r["delay_ms"])) if "delay_ms" in r else [None]
    colors = dict(zip(delays, ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"], strict=False))
    for ax, b in zip(axes, panels, strict=True):
        d = r if b is None else r[r["bottleneck"] == b]
        for (pair, dl), g in d.groupby(["pair", "delay_ms"] if "delay_ms" in d else ["pair"]):
            g = g.sort_values("p")
            ax.errorbar(
                g["p"],
                g["ratio"],
                yerr=g["ratio_ci95"].fillna(0),
                ls=styles.get(pair, "-"),
                marker="o",
                ms=3,
                capsize=2,
                color=colors.get(dl, "#444"),
                label=f"{pair}, {dl:g} ms",
            )
        ax.axhspan(*RANGE, color="#2ca02c", alpha=0.1, lw=0)
        ax.axhline(1.0, color="#888", lw=0.8)
        ax.set_xlabel("random loss rate p")
        ax.set_title(f"bottleneck {b}x slower" if b is not None else "")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("throughput (7) / Reno's or NewReno's")
    axes[-1].legend(fontsize=7)
    png, svg = save(fig, out, "pr_range_ratios")
    return Figure(
        png,
        "PR/Reno (solid) and PR*/NewReno (dashed) throughput by formula (7), one colour per "
        "one-way link delay, paired by seed with 95% intervals; green band: the paper's "
        "10% to 70%.",
        svg=svg,
    )


def analyse(ctx: Context) -> Analysis:
    runs = ctx.ok_runs
    keys = grid_keys(runs, ctx.spec.axis_names)
    r = ratios(runs, keys) if keys and "p" in keys else pd.DataFrame()
    if r.empty:
        claims = [
            make_claim(SOURCE, t, i, "", [], empty="needs runs")
            for t, i in (("increase", "increase_all_cases"), ("identical", "identical"))
        ]
        return Analysis(claims=claims)
    figures = [plot_ratios(r, ctx.out)]
    shown = r[[*keys, "pair", "ratio", "ratio_low", "ratio_high", "seeds"]]
    intro = (
        "The paper names neither the topologies nor the scenarios of its 10-70% range; we "
        "vary its Fig. 3 chain (scenarios/pr_chain.toml): the bottleneck r1-r2 at 1/bottleneck of "
        "r0-r1's 10 Mb/s, uniform loss p on r3-r4 from 10 s, one-way delay delay_ms on every "
        "link. Throughput by formula (7), 30 s."
    )
    return Analysis(
        figures=figures,
        claims=[
            claim_increase(runs, r, keys),
            claim_range(runs, r, keys),
            claim_identical(runs, r, keys),
        ],
        tables=[("Paired ratios per point", shown)],
        intro=intro,
    )


__all__ = ["analyse", "claim_identical", "claim_increase", "claim_range", "ratios"]
