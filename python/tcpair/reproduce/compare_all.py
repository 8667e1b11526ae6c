"""Target ``compare_all``: every scheme on identical scenarios and seeds.

The sweep's ``scheme`` labels are ``DIRECTION:SCHEME`` (``fh_mh:snoop``); ``loss`` names
the wireless error model and its rate. A **scenario** is a direction with one loss
setting; a **family** is a direction with one loss model (its scenarios are the loss
rates). Everything below is computed from the runs of the measured flow ``tcp1``:

- per scenario, goodput(scheme) / goodput(Reno), paired by seed, with its 95% interval
  (:func:`tcpair.reproduce._common.paired_ratios`); a scheme *wins* where the interval
  lies above 1 and *loses* where it lies below 1;
- per family and scheme, per seed the mean over the family's scenarios of
  goodput(scheme) / goodput(Reno), then the mean over seeds with its Student-t
  interval; a scheme's rank is 1 + the number of schemes whose interval lies wholly
  above its own, so schemes whose intervals overlap share a rank unless a third
  separates them;
- the BS state and the deployment table (:mod:`tcpair.reproduce.compare_deploy`);
- the summary the page opens with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair.analysis import Analysis, Context
from tcpair.page import Figure
from tcpair.reproduce import compare_deploy
from tcpair.reproduce._common import paired_ratios, save
from tcpair.scale import SAVED, scale_table
from tcpair.verdict import HOLDS, Interval, above, below, mean_ci

FLOW = "tcp1"
BASE = "reno"
VALUE = "goodput_kbps"
DIRECTIONS: Mapping[str, str] = {"fh_mh": "FH -> MH", "mh_fh": "MH -> FH"}
MODELS: Mapping[str, str] = {"markov2": "bursty", "markov2_time": "bursty (timed)"}
WINS, LOSES, SAME = "wins", "loses", "no difference"
NOT_APPLICABLE = "not applicable"


def split_label(label: str) -> tuple[str, str]:
    """``fh_mh:snoop`` -> (``FH -> MH``, ``snoop``)."""
    direction, _, name = str(label).partition(":")
    if not name:
        return "", direction
    return DIRECTIONS.get(direction, direction), name


def mean_loss(loss: Mapping[str, Any], packet_size: float) -> float:
    """The long-run packet loss rate of an error model (docs/impairments.md)."""
    model = loss.get("model")
    if model in ("uniform", "expo"):
        return float(loss.get("p", 0.0))
    if model == "ber":
        return 1.0 - (1.0 - float(loss.get("b", 0.0))) ** (8 * packet_size)
    if model == "markov2":
        gb, bg = float(loss["p_good_to_bad"]), float(loss["p_bad_to_good"])
        lg, lb = float(loss.get("loss_good", 0.0)), float(loss.get("loss_bad", 1.0))
        return (bg * lg + gb * lb) / (gb + bg) if gb + bg > 0 else lg
    if model == "markov2_time":
        mg, mb = float(loss["mean_good"]), float(loss["mean_bad"])
        lg, lb = float(loss.get("loss_good", 0.0)), float(loss.get("loss_bad", 1.0))
        return (mg * lg + mb * lb) / (mg + mb)
    return math.nan


def data_loss(sc: Mapping[str, Any]) -> tuple[str, float]:
    """Model and mean rate of the loss on the wireless hop's data direction."""
    flow = compare_deploy.the_flow(sc)
    size = float(flow.get("packet_size", 1000))
    for link in sc.get("links", []):
        if link.get("kind") != "wireless":
            continue
        data_dir = (
            "forward"
            if link.get("from") == flow.get("src") or (link.get("to") == flow.get("dst"))
            else "reverse"
        )
        loss = (link.get(data_dir) or {}).get("loss")
        if loss:
            return str(loss.get("model")), mean_loss(loss, size)
    return "none", 0.0


def tidy(runs: pd.DataFrame, scenarios: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The measured flow's runs with ``direction``, ``name`` (scheme), ``model``,
    ``family`` and ``rate`` (mean loss rate) columns, and ``sc``, the run's scenario
    (``scenarios`` maps each ``run_key`` to it)."""
    df = runs[runs["flow"] == FLOW] if "flow" in runs.columns else runs
    if df.empty or "scheme" not in df.columns:
        cols = ["direction", "name", "model", "family", "rate", "sc"]
        return pd.DataFrame(columns=[*df.columns, *cols])
    df = df.copy()
    parts = df["scheme"].map(split_label)
    df["direction"] = [p[0] for p in parts]
    df["name"] = [p[1] for p in parts]
    df["sc"] = df["run_key"].map(lambda k: scenarios.get(k, {}))
    losses = df["sc"].map(data_loss)
    df["model"] = [MODELS.get(m, m) for m, _ in losses]
    df["rate"] = [r for _, r in losses]
    df["family"] = df["direction"] + ", " + df["model"]
    return df


def scheme_order(t: pd.DataFrame) -> list[str]:
    """Schemes in the sweep's order, Reno first."""
    names = list(dict.fromkeys(t["name"])) if "name" in t.columns else []
    return [BASE, *(n for n in names if n != BASE)] if BASE in names else names


def outcome(iv: Interval) -> str:
    if above(iv, 1.0) == HOLDS:
        return WINS
    if below(iv, 1.0) == HOLDS:
        return LOSES
    return SAME


def ratios(t: pd.DataFrame) -> pd.DataFrame:
    """Per scenario and scheme: goodput over Reno's, paired by seed, 95% interval."""
    keys = ["direction", "family", "loss", "rate"]
    parts = []
    for name in scheme_order(t):
        if name == BASE:
            continue
        r = paired_ratios(t, "name", name, BASE, keys, value=VALUE)
        if r.empty:
            continue
        r = r.rename(columns={f"{name}_{VALUE}": "scheme_kbps", f"{BASE}_{VALUE}": "reno_kbps"})
        parts.append(r.assign(scheme=name))
    if not parts:
        return pd.DataFrame(columns=[*keys, "scheme", "ratio", "ratio_low", "ratio_high"])
    out = pd.concat(parts, ignore_index=True)
    out["outcome"] = [
        outcome(Interval(r.ratio, r.ratio_low, r.ratio_high, int(r.seeds)))
        for r in out.itertuples()
    ]
    return out


def cell(est: float, lo: float, hi: float) -> str:
    if not np.isfinite(lo):
        return f"{est:.3f}"
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"


def ratio_table(rat: pd.DataFrame, direction: str, losses: Sequence[str], order: Sequence[str]):
    """Schemes x loss settings of one direction: ``ratio [low, high]``."""
    d = rat[rat["direction"] == direction]
    table = pd.DataFrame(index=[s for s in order if s != BASE], columns=list(losses), dtype=object)
    table[:] = NOT_APPLICABLE
    for r in d.itertuples():
        table.loc[r.scheme, r.loss] = cell(r.ratio, r.ratio_low, r.ratio_high)
    return table.rename_axis("scheme").reset_index()


def family_interval(t: pd.DataFrame, name: str) -> Interval:
    """Per seed, the mean over the family's scenarios of goodput(name)/goodput(Reno);
    the mean over seeds with its 95% interval."""
    on = ["loss", "seed"]
    a = t.loc[t["name"] == name, [*on, VALUE]]
    b = t.loc[t["name"] == BASE, [*on, VALUE]]
    both = a.merge(b, on=on, suffixes=("_s", "_r"))
    both = both[both[f"{VALUE}_r"] > 0]
    gain = both[f"{VALUE}_s"] / both[f"{VALUE}_r"]
    return mean_ci(gain.groupby(both["seed"]).mean().to_numpy(float))


def ranking(t: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Per family, each scheme's interval and its rank from the intervals."""
    rows = []
    for (direction, family), g in t.groupby(["direction", "family"], sort=True):
        ivs = {s: family_interval(g, s) for s in order if s in set(g["name"])}
        for s, iv in ivs.items():
            top = sum(1 for o in ivs.values() if np.isfinite(o.low) and o.low > iv.high)
            rows.append(
                {
                    "direction": direction,
                    "family": family,
                    "rank": 1 + top,
                    "scheme": s,
                    "ratio over Reno": cell(iv.estimate, iv.low, iv.high),
                    "seeds": iv.n,
                    "estimate": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                }
            )
    if not rows:
        return pd.DataFrame(columns=["direction", "family", "rank", "scheme"])
    out = pd.DataFrame(rows)
    return out.sort_values(["direction", "family", "rank", "estimate"], ascending=[1, 1, 1, 0])


def not_applicable(t: pd.DataFrame) -> list[tuple[str, str]]:
    """(direction, scheme) pairs the sweep leaves out: a scheme run in one direction
    only does not fit the other (docs/compare.md)."""
    names = set(t["name"])
    out = []
    for direction, g in t.groupby("direction", sort=True):
        out += [(str(direction), s) for s in sorted(names - set(g["name"]))]
    return out


def summary(rat: pd.DataFrame, ranks: pd.DataFrame, na: Sequence[tuple[str, str]]) -> str:
    """The computed summary the page opens with."""
    if rat.empty:
        return "No paired runs of the schemes and Reno yet."
    best = []
    for (_, family), g in ranks.groupby(["direction", "family"], sort=True):
        first = g[g["rank"] == 1]["scheme"].tolist()
        last = g[g["rank"] == g["rank"].max()]["scheme"].tolist()
        best.append(f"{family}: first {', '.join(first)}; last {', '.join(last)}")
    per_scheme = []
    n = rat.groupby("scheme", sort=False)
    for s, g in n:
        wins, loses = (g["outcome"] == WINS).sum(), (g["outcome"] == LOSES).sum()
        text = (
            f"{s} beats Reno in {wins} of {len(g)} scenarios (ratio "
            f"{g['ratio'].min():.2f} to {g['ratio'].max():.2f})"
        )
        if loses:
            where = sorted(
                {f"{r.direction} {r.loss}" for r in g[g["outcome"] == LOSES].itertuples()}
            )
            text += (
                f", loses in {loses} ({', '.join(where[:3])}{', ...' if len(where) > 3 else ''})"
            )
        per_scheme.append(text)
    out = (
        "Summary, computed from the runs below. Ranking per family (rank 1 = best; ties "
        "where 95% intervals overlap): " + "; ".join(best) + ". Against Reno, paired by "
        "seed (wins: 95% interval of the goodput ratio above 1): " + "; ".join(per_scheme) + "."
    )
    if na:
        out += " Not applicable: " + ", ".join(f"{s} ({d})" for d, s in na) + "."
    return out


def plot_families(ranks: pd.DataFrame, order: Sequence[str], out: Path) -> Figure | None:
    """Each scheme's mean goodput ratio over Reno per family, with its 95% interval."""
    from matplotlib.figure import Figure as MplFigure

    fams = list(dict.fromkeys(ranks["family"]))
    if not fams:
        return None
    fig = MplFigure(figsize=(10, 4.8), layout="constrained")
    ax = fig.add_subplot()
    names = [s for s in order if s in set(ranks["scheme"])]
    x = np.arange(len(names))
    width = 0.8 / len(fams)
    for i, fam in enumerate(fams):
        g = ranks[ranks["family"] == fam].set_index("scheme").reindex(names)
        est = g["estimate"].to_numpy(float)
        err = np.vstack([est - g["low"].to_numpy(float), g["high"].to_numpy(float) - est])
        ax.errorbar(
            x + (i - (len(fams) - 1) / 2) * width,
            est,
            yerr=np.nan_to_num(err).clip(0),
            fmt="o",
            ms=3,
            capsize=2,
            label=fam,
        )
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("goodput / Reno's (mean over the family)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, ncol=2)
    png, svg = save(fig, out, "compare_all_families")
    return Figure(
        png,
        "Per scenario family (direction x loss model), each scheme's goodput "
        "over Reno's: per seed the mean over the family's loss rates, mean over "
        "seeds with its 95% interval.",
        svg=svg,
    )


def scale_tables(path: Path) -> list[tuple[str, pd.DataFrame]]:
    """The base station's cost at scale, when ``tcpair bench --flows ... --save`` wrote
    it beside the sweep (docs/compare.md); nothing otherwise."""
    if not path.is_file():
        return []
    import json

    rows = json.loads(path.read_text())
    return [("The base station's cost at scale (tcpair bench --flows)", scale_table(rows))]


def analyse(ctx: Context) -> Analysis:
    t = tidy(ctx.ok_runs, {task.key: task.scenario for task in ctx.result.tasks})
    order = scheme_order(t)
    rat = ratios(t)
    ranks = ranking(t, order)
    losses = (
        [
            lab
            for lab in ctx.spec.axes[[a.name for a in ctx.spec.axes].index("loss")].labels
            if lab in set(t.get("loss", []))
        ]
        if "loss" in ctx.spec.axis_names
        else []
    )
    tables = [
        (
            f"Goodput ratio over Reno, {d} (95% interval, paired by seed)",
            ratio_table(rat, d, losses, order),
        )
        for d in DIRECTIONS.values()
        if d in set(t.get("direction", []))
    ]
    kept = ctx.result.table("bs_state") if "bs_state" in ctx.spec.keep else pd.DataFrame()
    tables += [
        (
            "Ranking per scenario family",
            ranks.drop(columns=["direction", "estimate", "low", "high"]),
        ),
        ("BS state per connection", compare_deploy.bs_state(kept, t, order)),
        (
            "What each scheme needs deployed (Chen et al. 2002, §2, Table 1's criteria)",
            compare_deploy.deployment(t, order),
        ),
    ]
    tables += scale_tables(ctx.result.directory / SAVED)
    rat.to_csv(ctx.out / "compare_all_ratios.csv", index=False)
    fig = plot_families(ranks, order, ctx.out)
    return Analysis(
        figures=[fig] if fig else [],
        tables=tables,
        files=[("compare_all_ratios.csv", "goodput ratio over Reno per scenario (CSV)")],
        intro=summary(rat, ranks, not_applicable(t)),
    )


__all__ = [
    "analyse",
    "data_loss",
    "mean_loss",
    "not_applicable",
    "ranking",
    "ratio_table",
    "ratios",
    "split_label",
    "summary",
    "tidy",
]
