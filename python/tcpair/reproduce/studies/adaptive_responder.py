"""Target ``adaptive_responder``: the adaptive responder against responders 1 and 21.

Every responder (``responder`` axis: ``1``, ``21``, ``adaptive``) runs with every
detector (``detector`` axis: ``oracle``, ``lda_eq``, ``always_wireless``) on every
mixed-loss path of ``lda_accuracy`` (wireless loss ``p``, ``buffer``, ``competing``
flows, or any axis added later), with the same seeds. Only the measured flow ``tcp1``
carries the detector and the responder; competing flows are plain Reno.

A scenario family is a detector with a number of competing flows (the paths alone and
the paths shared behave differently); its scenarios are the other axes' points. Per
family and opponent (1 or 21), per seed the mean over the family's scenarios of
goodput(adaptive) / goodput(opponent) - 1, then the mean over seeds with its 95%
Student-t interval: "adaptive beats X" holds in a family when the interval lies above
0 and does not hold when it lies at or below 0 (``tcpair.evidence.verdict``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import FAILS, Interval, above, mean_ci
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.claims import judge, make_claim
from tcpair.reproduce.common import paired_ratios, save

SOURCE = "ours; Park et al. 2010, §5 (future work)"
DOC = "docs/responders.md"
FLOW = "tcp1"
ADAPTIVE = "adaptive"
OPPONENTS: tuple[str, ...] = ("1", "21")
FAMILY = ("detector", "competing")
COUNTS = ("goodput_kbps", "fast_retransmits", "wireless_frs", "window_cuts", "timeouts")


def measured(runs: pd.DataFrame) -> pd.DataFrame:
    """The measured flow's rows."""
    return runs[runs["flow"] == FLOW] if "flow" in runs.columns else runs


def scenario_keys(runs: pd.DataFrame, axes: Sequence[str]) -> list[str]:
    """Every axis except the family's and the responder: the scenarios of a family."""
    return [a for a in axes if a not in (*FAMILY, "responder") and a in runs.columns]


def family_gain(g: pd.DataFrame, keys: Sequence[str], opponent: str) -> Interval:
    """Per seed, the mean over scenarios of goodput(adaptive)/goodput(opponent) - 1;
    the mean over seeds with its 95% interval."""
    on = [*keys, "seed"]
    a = g.loc[g["responder"] == ADAPTIVE, [*on, "goodput_kbps"]]
    b = g.loc[g["responder"] == opponent, [*on, "goodput_kbps"]]
    both = a.merge(b, on=on, suffixes=("_a", "_o"))
    both = both[both["goodput_kbps_o"] > 0]
    gain = both["goodput_kbps_a"] / both["goodput_kbps_o"] - 1
    return mean_ci(gain.groupby(both["seed"]).mean().to_numpy(float))


def families(runs: pd.DataFrame) -> list[tuple[tuple[object, ...], pd.DataFrame]]:
    m = measured(runs)
    fam = [c for c in FAMILY if c in m.columns]
    if not fam:
        return [((), m)]
    return [(k if isinstance(k, tuple) else (k,), g) for k, g in m.groupby(fam, sort=True)]


def family_label(key: tuple[object, ...]) -> str:
    return ", ".join(f"{k}={v}" for k, v in zip(FAMILY, key, strict=False))


def gain_table(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per family and opponent: the mean gain of adaptive with its 95% interval."""
    rows = []
    for key, g in families(runs):
        for opp in OPPONENTS:
            iv = family_gain(g, keys, opp)
            rows.append(
                {
                    **dict(zip(FAMILY, key, strict=False)),
                    "against": opp,
                    "gain": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "verdict": above(iv, 0.0),
                    "seeds": iv.n,
                }
            )
    return pd.DataFrame(rows)


def scenario_ratios(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per scenario: goodput(adaptive)/goodput(opponent), paired by seed."""
    m = measured(runs)
    at = [c for c in (*FAMILY, *keys) if c in m.columns]
    parts = []
    for opp in OPPONENTS:
        r = paired_ratios(m, "responder", ADAPTIVE, opp, at, value="goodput_kbps")
        r = r.rename(
            columns=lambda c, o=opp: f"opponent{c[len(o) :]}" if c.startswith(f"{o}_") else c
        )
        parts.append(r.assign(against=opp))
    return pd.concat(parts, ignore_index=True)


def behaviour(runs: pd.DataFrame) -> pd.DataFrame:
    """Per family and responder: the measured flow's means per run, and the competing
    flows' goodput (what the measured flow's share costs them)."""
    m = measured(runs)
    fam = [c for c in FAMILY if c in m.columns]
    if m.empty or "responder" not in m.columns:
        return pd.DataFrame()
    cols = [c for c in COUNTS if c in m.columns]  # a run may not report every counter
    table = m.groupby([*fam, "responder"], sort=True)[cols].mean()
    others = runs[runs["flow"] != FLOW] if "flow" in runs.columns else runs.iloc[0:0]
    if not others.empty:
        table["competing goodput_kbps"] = others.groupby([*fam, "responder"])["goodput_kbps"].mean()
    return table.reset_index()


def claim_beats(runs: pd.DataFrame, keys: Sequence[str], opponent: str) -> Claim:
    parts = [
        judge(f"{family_label(key)}", family_gain(g, keys, opponent), lambda iv: above(iv, 0.0))
        for key, g in families(runs)
        if {ADAPTIVE, opponent} <= set(g["responder"])
    ]
    lost = [p.label for p in parts if p.outcome == FAILS]
    cause = (
        f"adaptive does not beat responder {opponent} with {'; '.join(lost)}: where a queue "
        f"inflates the RTT it drains its own backlog where responder {opponent} "
        + ("keeps its window" if opponent == "1" else "restarts from one segment")
        + f"; the per-family table has the window cuts, timeouts and the competing flows' "
        f"goodput; {DOC}."
    )
    return make_claim(
        SOURCE,
        f"adaptive beats responder {opponent}: more goodput for the measured flow in every "
        "scenario family (detector x competing flows)",
        f"adaptive_beats_{opponent}",
        f"per family, per seed the mean over scenarios of goodput(adaptive)/goodput("
        f"{opponent}) - 1, mean over seeds: 95% CI above 0; every family",
        parts,
        cause=cause if lost else "",
        fmt=".3f",
        empty=f"needs runs of responders adaptive and {opponent}",
    )


def _tick(label: str) -> str:
    """'detector=oracle, competing=2' -> 'oracle\n2 competing'."""
    values = [part.split("=", 1)[-1] for part in label.split(", ")]
    return "\n".join([values[0], *(f"{v} competing" for v in values[1:])])


def plot_gains(table: pd.DataFrame, out: Path) -> Figure:
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(8, 4.2), layout="constrained")
    ax = fig.add_subplot()
    labels = sorted({family_label(tuple(r[c] for c in FAMILY)) for _, r in table.iterrows()})
    x = np.arange(len(labels))
    for i, (opp, color) in enumerate(zip(OPPONENTS, ("#1f77b4", "#d62728"), strict=False)):
        t = table[table["against"] == opp]
        t = t.assign(label=[family_label(tuple(r[c] for c in FAMILY)) for _, r in t.iterrows()])
        t = t.set_index("label").reindex(labels)
        err = np.vstack([t["gain"] - t["low"], t["high"] - t["gain"]]).clip(min=0)
        ax.errorbar(
            x + (i - 0.5) * 0.2,
            100 * t["gain"],
            yerr=100 * np.nan_to_num(err),
            fmt="o",
            color=color,
            capsize=3,
            label=f"against responder {opp}",
        )
    ax.axhline(0, color="#888", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([_tick(lab) for lab in labels], fontsize=8)
    ax.set_ylabel("goodput gain of adaptive (%)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, "adaptive_gain")
    return Figure(
        png,
        "Per scenario family, the mean over its scenarios of the paired goodput gain of the "
        "adaptive responder over responders 1 and 21 (mean over seeds, 95% CI).",
        svg=svg,
    )


def analyse(ctx: Context) -> Analysis:
    runs = ctx.ok_runs
    keys = scenario_keys(runs, ctx.spec.axis_names)
    gains = gain_table(runs, keys)
    figures = [plot_gains(gains, ctx.out)] if not gains.empty else []
    intro = (
        "The adaptive responder (docs/responders.md) against responder 1 (restore the window) "
        "and 21 (one segment, congestion avoidance) on the point-to-point mixed-loss paths of "
        "lda_accuracy (scenarios/lda_mixed.toml), with the oracle, lda_eq and always_wireless "
        "detectors. Paired by seed; a family is a detector with a number of competing flows."
    )
    return Analysis(
        figures=figures,
        claims=[claim_beats(runs, keys, opp) for opp in OPPONENTS],
        tables=[
            ("Gain of adaptive per scenario family", gains),
            ("Per family and responder: the measured flow per run", behaviour(runs)),
            ("Goodput ratio adaptive / opponent per scenario", scenario_ratios(runs, keys)),
        ],
        intro=intro,
    )


__all__ = ["analyse", "behaviour", "family_gain", "gain_table", "scenario_ratios"]
