"""Shared by the targets ``respond_w`` and ``respond_c`` (Park et al. 2010, §4, Figs. 3-4).

Each run is one responding method (axis ``method``) on one scenario of the 802.11b
chain. A run's value is the goodput of all its flows summed (one flow in the W group,
N in the C group). Goodput is compared with method 0 (TCP's own response) on the same
scenario and seed (common random numbers), as the paper sets method 0 to 100%.

**Relative goodput of a bar.** A bar of the paper's figures pools several scenarios
(e.g. "3 hops" pools the loss rates and buffer sizes). Per seed, the mean over the
bar's scenarios of goodput(method) / goodput(reference); then the mean over seeds with
its 95% Student-t interval (:func:`tcpair.evidence.verdict.mean_ci`). Comparing two methods
(``21`` against ``1``) uses the same rule with the other method as the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import FAILS, HOLDS, INCONCLUSIVE, Interval, above, mean_ci
from tcpair.reporting.page import Figure
from tcpair.reproduce.claims import Part, judge
from tcpair.reproduce.common import save

SOURCE = "Park et al. 2010, §4"
DOC = "docs/responders.md"
BASE = "0"
ADAPTIVE = "adaptive"
# Table 1: TCP's own response, restore, slow start (11-17), congestion avoidance (21-27).
SLOW_START = tuple(str(m) for m in range(11, 18))
AVOIDANCE = tuple(str(m) for m in range(21, 28))
FIFTEEN = ("1", *SLOW_START, *AVOIDANCE)
COUNTS = ("timeouts", "fast_retransmits", "wireless_frs", "window_cuts", "retransmits")


def per_run(runs: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """One row per run: the axes, the seed, goodput and counters summed over its flows."""
    keys = [a for a in axes if a in runs.columns]
    cols = ["goodput_kbps", *(c for c in COUNTS if c in runs.columns)]
    if runs.empty:
        return pd.DataFrame(columns=[*keys, "seed", *cols])
    g = runs.groupby([*keys, "seed"], sort=True)[cols].sum().reset_index()
    g["method"] = g["method"].astype(str)
    return g


def select(g: pd.DataFrame, where: Mapping[str, object]) -> pd.DataFrame:
    """The runs at the fixed axis values ``where``."""
    for k, v in where.items():
        g = g[g[k] == v]
    return g


def cells_of(g: pd.DataFrame) -> list[str]:
    """The scenario axes: every column naming a point except the method and the seed."""
    return [c for c in g.columns if c not in ("method", "seed", "goodput_kbps", *COUNTS)]


def relative(g: pd.DataFrame, num: str, den: str) -> Interval:
    """Per seed the mean over ``g``'s scenarios of goodput(num)/goodput(den); the
    mean over seeds with its 95% interval."""
    cells = cells_of(g)
    on = [*cells, "seed"]
    a = g.loc[g["method"] == num, [*on, "goodput_kbps"]]
    b = g.loc[g["method"] == den, [*on, "goodput_kbps"]]
    both = a.merge(b, on=on, suffixes=("_n", "_d"))
    both = both[both["goodput_kbps_d"] > 0]
    if both.empty:
        return mean_ci([])
    ratio = both["goodput_kbps_n"] / both["goodput_kbps_d"]
    return mean_ci(ratio.groupby(both["seed"]).mean().to_numpy(float))


def at_most(iv: Interval, threshold: float) -> str:
    """Claim ``estimate <= threshold`` ("does not improve"): the mirror of ``above``."""
    return {HOLDS: FAILS, FAILS: HOLDS}.get(above(iv, threshold), INCONCLUSIVE)


METHOD_ORDER = (BASE, *FIFTEEN, ADAPTIVE)


def methods_in(g: pd.DataFrame) -> list[str]:
    """The methods of the runs, in Table 1's order (adaptive last)."""
    have = set(g["method"])
    return [m for m in METHOD_ORDER if m in have]


def bars(g: pd.DataFrame, by: str, ref: str = BASE) -> pd.DataFrame:
    """Every method's goodput relative to ``ref`` per value of axis ``by`` (pooling
    the other scenario axes of ``g``): one bar of the paper's figure per row."""
    rows = []
    for value, part in g.groupby(by, sort=True):
        for m in methods_in(part):
            iv = relative(part, m, ref)
            rows.append(
                {
                    by: value,
                    "method": m,
                    "relative": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "seeds": iv.n,
                }
            )
    return pd.DataFrame(rows)


def panels(g: pd.DataFrame, first: str, first_at: Mapping[str, object]) -> dict[str, pd.DataFrame]:
    """The paper's two panels: (a) by axis ``first`` at ``first_at`` (one hop), and
    (b) by hop count, pooling every other axis."""
    out = {}
    a = select(g, first_at)
    if not a.empty and first in a.columns:
        out["a"] = bars(a, first)
    if "hops" in g.columns:
        out["b"] = bars(g, "hops")
    return out


def bar_parts(
    table: pd.DataFrame, by: str, methods: Sequence[str], test, label: str = ""
) -> list[Part]:
    """One judged part per bar of ``methods`` in a panel table."""
    parts = []
    for _, r in table[table["method"].isin(list(methods))].iterrows():
        iv = Interval(float(r["relative"]), float(r["low"]), float(r["high"]), int(r["seeds"]))
        parts.append(judge(f"{label}{r['method']} {by}={r[by]}", iv, test))
    return parts


def behaviour(g: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per ``by`` group and method: the mean per run of goodput and the counters
    (what the causes are read from)."""
    keys = [c for c in by if c in g.columns]
    cols = ["goodput_kbps", *(c for c in COUNTS if c in g.columns)]
    if g.empty:
        return pd.DataFrame()
    t = g.groupby([*keys, "method"], sort=False)[cols].mean().reset_index()
    order = {m: i for i, m in enumerate(methods_in(g))}
    return t.sort_values([*keys, "method"], key=lambda s: s.map(order) if s.name == "method" else s)


def mean_of(g: pd.DataFrame, method: str, col: str) -> float:
    v = g.loc[g["method"] == method, col]
    return float(v.mean()) if len(v) else float("nan")


def counts_text(g: pd.DataFrame, methods: Sequence[str], col: str = "timeouts") -> str:
    """``method 0: 389, 21: 457`` for the mean of ``col`` per run."""
    return ", ".join(f"{m}: {mean_of(g, m, col):.0f}" for m in methods)


def bar_label(by: str, v: object) -> str:
    """A legend entry: ``loss 1%``, ``5 flows``, ``1 hop``."""
    if by == "loss":
        return f"loss {100 * float(v):g}%"  # type: ignore[arg-type]
    if by == "hops":
        return f"{v} hop" + ("" if v == 1 else "s")
    return f"{v} {by}"


def plot_panel(table: pd.DataFrame, by: str, title: str, out: Path, stem: str) -> Figure:
    """Method on x, relative goodput (%) on y, one bar per value of ``by``, 95% whiskers."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(11, 4.2), layout="constrained")
    ax = fig.add_subplot()
    methods = [m for m in methods_in(table)]
    values = sorted(table[by].unique())
    x = np.arange(len(methods))
    width = 0.8 / max(len(values), 1)
    colors = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")
    for i, v in enumerate(values):
        t = table[table[by] == v].set_index("method").reindex(methods)
        est = 100 * t["relative"].to_numpy(float)
        err = 100 * np.vstack([t["relative"] - t["low"], t["high"] - t["relative"]])
        ax.bar(
            x + (i - (len(values) - 1) / 2) * width,
            est,
            width,
            yerr=np.nan_to_num(err).clip(min=0),
            capsize=2,
            color=colors[i % len(colors)],
            label=bar_label(by, v),
        )
    ax.axhline(100, color="#333", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(methods)
    ax.set_xlabel("responding method (Park et al. 2010, Table 1)")
    ax.set_ylabel("goodput, % of method 0")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, ncols=len(values))
    png, svg = save(fig, out, stem)
    caption = (
        f"{title}: each method's goodput as a percentage of method 0's on the same scenarios "
        "and seeds (per seed the mean over the bar's scenarios of the ratio; mean over "
        "seeds with its 95% CI as the whisker)."
    )
    return Figure(png, caption, svg=svg, table=table)


__all__ = [
    "ADAPTIVE",
    "AVOIDANCE",
    "BASE",
    "FIFTEEN",
    "METHOD_ORDER",
    "SLOW_START",
    "at_most",
    "bar_parts",
    "bars",
    "behaviour",
    "counts_text",
    "panels",
    "per_run",
    "plot_panel",
    "relative",
    "select",
]
