"""The cwnd traces of Figs. 8-9 (Sun et al. 2005): per-run statistics, the
claims about them, and the trace plots.

"Always" and "usually", said of the one run the paper plots, become "in more
than half of the seeds" (:func:`tcpair.evidence.verdict.most_of` over seeds, each seed an
exact observation); comparisons of CLRP with Snoop are paired by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import (
    FAILS,
    HOLDS,
    Interval,
    above,
    below,
    most_of,
    paired_difference,
    paired_ratio,
)
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.claims import Part, judge, make_claim, not_assessed
from tcpair.reproduce.common import GOODPUT, save
from tcpair.reproduce.sun2005.spec import (
    CLRP_CWND,
    COLORS,
    FLOW,
    FREQUENT_TIMEOUTS,
    LABELS,
    MOST,
    PLOT_TOP,
    SCHEMES,
    SNOOP_CWND_CAP,
    WINDOW,
    FigSpec,
    fig_source,
)

_RESULTS = 'docs/clrp.md, section "What they gave (full mode, 5 seeds, 2026-11-21)"'
CAP_CAUSE = (
    "Snoop's cwnd passes 12 during the ELN sender's fast-recovery inflation, though it "
    f"stays below 12 most of the time; {_RESULTS}."
)


CWND_COLUMNS = [
    "scheme",
    "seed",
    "max_cwnd",
    "max_window",
    "mean_cwnd",
    "mean_window",
    "below_cap",
    "falls_to_one",
    "timeouts",
    GOODPUT,
]


def cwnd_stats(runs: pd.DataFrame, ts: pd.DataFrame, window: float = WINDOW) -> pd.DataFrame:
    """Per run: largest and time-average cwnd (samples are evenly spaced), the
    time-average of the usable window min(cwnd, ``window``), the share of samples
    below :data:`SNOOP_CWND_CAP`, how often the trace falls to 1, the run's
    timeouts and goodput (KB/s)."""
    need = {"run_key", "cwnd"}
    if ts.empty or runs.empty or not need <= set(ts.columns) or "run_key" not in runs.columns:
        return pd.DataFrame(columns=CWND_COLUMNS)
    if "flow" in ts.columns:
        ts = ts[ts["flow"] == FLOW]
    meta = runs.drop_duplicates("run_key").set_index("run_key")
    rows = []
    for key, g in ts.groupby("run_key", sort=False):
        if key not in meta.index or g.empty:
            continue
        c = g.sort_values("time_s")["cwnd"].to_numpy(float) if "time_s" in g else g["cwnd"]
        c = np.asarray(c, float)
        one = c <= 1
        m = meta.loc[key]
        rows.append(
            {
                "scheme": m["scheme"],
                "seed": int(m["seed"]),
                "max_cwnd": float(c.max()),
                "max_window": float(np.minimum(c, window).max()),
                "mean_cwnd": float(c.mean()),
                "mean_window": float(np.minimum(c, window).mean()),
                "below_cap": float((c < SNOOP_CWND_CAP).mean()),
                "falls_to_one": int(np.sum(one[1:] & ~one[:-1])),
                "timeouts": float(m["timeouts"]) if "timeouts" in m else math.nan,
                GOODPUT: float(m[GOODPUT]) if GOODPUT in m else math.nan,
            }
        )
    if not rows:
        return pd.DataFrame(columns=CWND_COLUMNS)
    return pd.DataFrame(rows).sort_values(["scheme", "seed"]).reset_index(drop=True)


def _span_of(v: pd.Series) -> str:
    return f"{v.min():.1f} to {v.max():.1f}" if v.min() != v.max() else f"{v.min():.1f}"


def _exact(value: float) -> Interval:
    return Interval(float(value), float(value), float(value), 1)


def _per_seed(d: pd.DataFrame, col: str, ok: pd.Series) -> list[Part]:
    return [
        Part(f"seed {int(s)}", _exact(v), HOLDS if good else FAILS)
        for s, v, good in zip(d["seed"], d[col], ok, strict=True)
    ]


def _over_seeds(claim: Claim, parts: list[Part]) -> Claim:
    """A claim over seeds used as many seeds as it has parts (each one run)."""
    claim.seeds = len(parts) or None
    return claim


def _most_rule(what: str) -> str:
    return f"{what} in more than {MOST:.0%} of the seeds (most_of over seeds)"


def claim_snoop_cap(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"Snoop always keeps its congestion window below {SNOOP_CWND_CAP:g}: the largest "
        f"sampled usable window min(cwnd, flow window) of the run < {SNOOP_CWND_CAP:g} in "
        f"more than {MOST:.0%} of the seeds"
    )
    rule = _most_rule(f"largest sampled usable window < {SNOOP_CWND_CAP:g}")
    src = fig_source(fig)
    d = cs[cs["scheme"] == "snoop"]
    if d.empty:
        return not_assessed(
            src, text, "snoop_cwnd_below_12", rule, "needs Snoop runs with a cwnd trace"
        )
    parts = _per_seed(d, "max_window", d["max_window"] < SNOOP_CWND_CAP)
    note = (
        f"Share of the time below {SNOOP_CWND_CAP:g}: {d['below_cap'].mean():.0%} (mean over "
        "seeds); the numbers are each seed's largest usable window (largest cwnd itself, "
        f"fast-recovery inflation included: {_span_of(d['max_cwnd'])})."
    )
    found = make_claim(
        src, text, "snoop_cwnd_below_12", rule, parts, combine=most_of, note=note, cause=CAP_CAUSE
    )
    return _over_seeds(found, parts)


def claim_snoop_timeouts(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"Snoop frequently reduces its window to one for timeouts: >= {FREQUENT_TIMEOUTS} "
        f"timeouts in the run and a trace that falls to cwnd 1, in more than {MOST:.0%} of "
        "the seeds"
    )
    rule = _most_rule(f">= {FREQUENT_TIMEOUTS} timeouts and a fall to cwnd 1")
    src = fig_source(fig)
    d = cs[cs["scheme"] == "snoop"]
    if d.empty:
        return not_assessed(src, text, "snoop_timeouts", rule, "needs Snoop runs with a cwnd trace")
    ok = (d["timeouts"] >= FREQUENT_TIMEOUTS) & (d["falls_to_one"] >= 1)
    parts = _per_seed(d, "timeouts", ok)
    falls = ", ".join(str(int(f)) for f in d["falls_to_one"])
    note = f"The numbers are timeouts per seed; falls to cwnd 1 per seed: {falls}."
    found = make_claim(src, text, "snoop_timeouts", rule, parts, combine=most_of, note=note)
    return _over_seeds(found, parts)


def claim_clrp_reach(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"CLRP usually increases its congestion window to {CLRP_CWND:g}: the largest sampled "
        f"usable window min(cwnd, flow window) of the run >= {CLRP_CWND:g} in more than "
        f"{MOST:.0%} of the seeds"
    )
    rule = _most_rule(f"largest sampled usable window >= {CLRP_CWND:g}")
    src = fig_source(fig)
    d = cs[cs["scheme"] == "clrp"]
    if d.empty:
        return not_assessed(
            src, text, "clrp_cwnd_reaches_16", rule, "needs CLRP runs with a cwnd trace"
        )
    parts = _per_seed(d, "max_window", d["max_window"] >= CLRP_CWND)
    found = make_claim(src, text, "clrp_cwnd_reaches_16", rule, parts, combine=most_of)
    return _over_seeds(found, parts)


def _paired(cs: pd.DataFrame, col: str, how: Callable[..., Interval]) -> Interval | None:
    c = cs.loc[cs["scheme"] == "clrp", ["seed", col]]
    s = cs.loc[cs["scheme"] == "snoop", ["seed", col]]
    both = c.merge(s, on="seed", suffixes=("_c", "_s")).dropna()
    if both.empty:
        return None
    return how(both[f"{col}_c"], both[f"{col}_s"])


def claim_clrp_bigger(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        "CLRP sends packets under a bigger window than Snoop: CLRP's time-average usable "
        "window min(cwnd, flow window) (mean over seeds) above Snoop's"
    )
    rule = "paired ratio CLRP/Snoop of the time-average usable window: 95% CI above 1"
    src = fig_source(fig)
    iv = _paired(cs, "mean_window", paired_ratio)
    if iv is None:
        return not_assessed(
            src, text, "clrp_bigger_window", rule, "needs CLRP and Snoop runs with a cwnd trace"
        )
    note = ""
    raw = _paired(cs, "mean_cwnd", paired_ratio)
    if raw is not None:
        note = f"Of cwnd itself: CLRP/Snoop {raw.text()}."
    part = judge("CLRP/Snoop usable window", iv, lambda i: above(i, 1.0))
    return make_claim(src, text, "clrp_bigger_window", rule, [part], note=note)


def claim_clrp_fewer_timeouts(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        "CLRP's timely retransmissions lower the probability of timeouts: CLRP's mean "
        "number of timeouts below Snoop's"
    )
    rule = "paired difference CLRP - Snoop of timeouts per run: 95% CI below 0"
    src = fig_source(fig)
    iv = _paired(cs, "timeouts", paired_difference)
    if iv is None:
        return not_assessed(src, text, "clrp_fewer_timeouts", rule, "needs CLRP and Snoop runs")
    part = judge("CLRP - Snoop timeouts", iv, lambda i: below(i, 0.0))
    return make_claim(src, text, "clrp_fewer_timeouts", rule, [part])


CWND_CLAIMS: dict[str, Callable[[pd.DataFrame, str], Claim]] = {
    "snoop_cap": claim_snoop_cap,
    "snoop_timeouts": claim_snoop_timeouts,
    "clrp_reach": claim_clrp_reach,
    "clrp_bigger": claim_clrp_bigger,
    "clrp_fewer_timeouts": claim_clrp_fewer_timeouts,
}


def trace_seed(cs: pd.DataFrame, scheme: str) -> int | None:
    """The seed whose trace is plotted: seed 1 if it ran, else the smallest."""
    seeds = sorted(int(s) for s in cs.loc[cs["scheme"] == scheme, "seed"])
    if not seeds:
        return None
    return 1 if 1 in seeds else seeds[0]


def _trace(runs: pd.DataFrame, ts: pd.DataFrame, scheme: str, seed: int) -> pd.DataFrame:
    keys = runs.loc[(runs["scheme"] == scheme) & (runs["seed"] == seed), "run_key"].unique()
    d = ts[ts["run_key"].isin(list(keys))]
    if "flow" in d.columns:
        d = d[d["flow"] == FLOW]
    return d.sort_values("time_s")


def plot_cwnd(
    runs: pd.DataFrame,
    ts: pd.DataFrame,
    cs: pd.DataFrame,
    spec: FigSpec,
    out: Path,
    window: float = WINDOW,
) -> list[Figure]:
    """The page's scheme's cwnd over time (one seed, as the paper), then all schemes.
    The y-axis stops at :data:`PLOT_TOP` windows: inflation spikes beyond it would
    flatten the rest (their sizes are in the table)."""
    top = PLOT_TOP * window
    cut = f" The y-axis stops at {top:g} segments; larger values are in the table."
    figures: list[Figure] = []
    main = spec.trace or "clrp"
    seed = trace_seed(cs, main)
    if seed is not None:
        d = _trace(runs, ts, main, seed)
        figures.append(_plot_one(d, main, seed, spec, out, window, top, cut))
    shown = [s for s in SCHEMES if trace_seed(cs, s) is not None]
    if shown:
        figures.append(_plot_every(runs, ts, cs, shown, spec, out, top, cut))
    return figures


def _plot_one(
    d: pd.DataFrame,
    main: str,
    seed: int,
    spec: FigSpec,
    out: Path,
    window: float,
    top: float,
    cut: str,
) -> Figure:
    """The cwnd trace ``d`` of scheme ``main`` (seed ``seed``), the paper's plot."""
    from matplotlib.figure import Figure as MplFigure

    line = SNOOP_CWND_CAP if main == "snoop" else CLRP_CWND
    fig = MplFigure(figsize=(7.5, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ax.step(d["time_s"], d["cwnd"], where="post", color=COLORS[main], lw=0.9)
    ax.axhline(line, color="#555", lw=0.8, ls="--", label=f"cwnd = {line:g}")
    ax.axhline(window, color="#999", lw=0.8, ls=":", label=f"flow window {window:g}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("congestion window (segments)")
    ax.set_ylim(0, min(top, max(float(d["cwnd"].max()) if len(d) else 1.0, line) * 1.05))
    title = f"Fig. {spec.figure}: " if spec.figure else ""
    ax.set_title(f"{title}{LABELS[main]} congestion window, seed {seed}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    png, svg = save(fig, out, f"clrp_fig{spec.figure or 'x'}_cwnd_{main}")
    return Figure(
        png,
        f"{LABELS[main]}'s cwnd sampled every 0.1 s over the run (seed {seed}), "
        f"Good-state PLR 10%; dashed: the paper's {line:g} segments, dotted: the "
        f"flow's window.{cut}",
        svg=svg,
    )


def _plot_every(
    runs: pd.DataFrame,
    ts: pd.DataFrame,
    cs: pd.DataFrame,
    shown: list[str],
    spec: FigSpec,
    out: Path,
    top: float,
    cut: str,
) -> Figure:
    """The cwnd traces of the ``shown`` schemes, one panel each, for comparison."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 2.0 + 1.6 * len(shown)), layout="constrained")
    axes = fig.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    for ax, scheme in zip(axes, shown, strict=True):
        s = trace_seed(cs, scheme)
        d = _trace(runs, ts, scheme, int(s)) if s is not None else ts.iloc[0:0]
        ax.step(d["time_s"], d["cwnd"], where="post", color=COLORS[scheme], lw=0.8)
        ax.axhline(SNOOP_CWND_CAP, color="#999", lw=0.6, ls=":")
        ax.axhline(CLRP_CWND, color="#555", lw=0.6, ls="--")
        ax.set_ylabel(f"{LABELS[scheme]}\ncwnd")
        ax.set_ylim(0, min(top, max(float(d["cwnd"].max()) if len(d) else 1.0, 16) * 1.05))
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    axes[0].set_title("cwnd of every scheme, same seed (dotted 12, dashed 16)")
    png, svg = save(fig, out, f"clrp_fig{spec.figure or 'x'}_cwnd_all")
    return Figure(
        png,
        "The cwnd traces of Reno, Snoop and CLRP for comparison (the plotted seed of "
        f"each); dotted: 12 segments (Fig. 8), dashed: 16 (Fig. 9).{cut}",
        svg=svg,
    )


__all__ = ["CWND_CLAIMS", "CWND_COLUMNS", "cwnd_stats", "plot_cwnd", "trace_seed"]
