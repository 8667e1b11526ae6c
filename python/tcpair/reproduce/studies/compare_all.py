"""Target ``compare_all``: every scheme on identical scenarios and seeds.

The sweep is made of parts, one per topology (:mod:`tcpair.reproduce.studies.compare_plan`);
its ``scheme`` labels are ``DIRECTION:SCHEME`` (``fh_mh:snoop``); ``loss`` names the
wireless error model and its rate. A **scenario** is a part's direction with one loss
setting; a **family** is a part's direction with one loss model (its scenarios are the
loss rates). Everything below is computed from the runs of the measured flow ``tcp1``:

- per scenario, goodput(scheme) / goodput(Reno), paired by seed, with its 95% interval
  (:func:`tcpair.reproduce.common.paired_ratios`); a scheme *wins* where the interval
  lies above 1 and *loses* where it lies below 1;
- per family and scheme, per seed the mean over the family's scenarios of
  goodput(scheme) / goodput(Reno), then the mean over seeds with its Student-t
  interval; a scheme's rank is 1 + the number of schemes whose interval lies wholly
  above its own, so schemes whose intervals overlap share a rank unless a third
  separates them;
- the BS state and the deployment table (:mod:`tcpair.reproduce.studies.compare_deploy`);
- the summary the page opens with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair.bench.scale import SAVED, scale_table
from tcpair.evidence.verdict import HOLDS, Interval, above, below, mean_ci
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reproduce.common import paired_ratios
from tcpair.reproduce.studies import compare_deploy, compare_plan, compare_plots

FLOW = "tcp1"
BASE = "reno"
VALUE = "goodput_kbps"
DIRECTIONS: Mapping[str, str] = {
    "fh_mh": "FH -> MH",
    "mh_fh": "MH -> FH",
    "mh_mh": "MH -> MH",
    "chain": "n0 -> n5",
}
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
    """Model and mean rate of the loss on the wireless hop's data direction (or of a
    shared medium's packet-level loss)."""
    flow = compare_deploy.the_flow(sc)
    size = float(flow.get("packet_size", 1000))
    for medium in sc.get("media", []):
        loss = medium.get("loss")
        if loss:
            return str(loss.get("model")), mean_loss(loss, size)
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
    ``family`` and ``rate`` (mean loss rate) columns, ``part`` (empty for a sweep of one
    grid) and ``sc``, the run's scenario (``scenarios`` maps each ``run_key`` to it)."""
    df = runs[runs["flow"] == FLOW] if "flow" in runs.columns else runs
    if df.empty or "scheme" not in df.columns:
        cols = ["direction", "name", "model", "family", "rate", "sc", "part"]
        return pd.DataFrame(columns=[*df.columns, *cols])
    df = df.copy()
    df["part"] = df["part"].fillna("").astype(str) if "part" in df.columns else ""
    parts = df["scheme"].map(split_label)
    df["direction"] = [p[0] for p in parts]
    df["name"] = [p[1] for p in parts]
    df["sc"] = df["run_key"].map(lambda k: scenarios.get(k, {}))
    losses = df["sc"].map(data_loss)
    df["model"] = [MODELS.get(m, m) for m, _ in losses]
    df["rate"] = [r for _, r in losses]
    df["family"] = df["direction"] + ", " + df["model"]
    named = df["part"] != ""
    df.loc[named, "family"] = df.loc[named, "part"] + ": " + df.loc[named, "family"]
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
    keys = ["part", "direction", "family", "loss", "rate"]
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


KEY_OF = {v: k for k, v in DIRECTIONS.items()}


def _place(part: str, direction: str) -> str:
    return f"{part}, {direction}" if part else direction


def sections(t: pd.DataFrame) -> list[tuple[str, str]]:
    """(part, direction) pairs in the sweep's order: one results table each."""
    if t.empty:
        return []
    return list(dict.fromkeys(zip(t["part"], t["direction"], strict=True)))


def why_not(scheme: str, part: str, direction: str) -> str:
    """``not applicable: REASON`` for a scheme a part's direction leaves out."""
    why = compare_plan.reason(scheme, part, KEY_OF.get(direction, direction))
    return f"{NOT_APPLICABLE}: {why}"


def ratio_table(
    rat: pd.DataFrame,
    direction: str,
    losses: Sequence[str],
    order: Sequence[str],
    part: str = "",
) -> pd.DataFrame:
    """Schemes x loss settings of one part's direction: ``ratio [low, high]``, or
    ``not applicable: why`` for a scheme the part's direction does not run."""
    d = rat[(rat["direction"] == direction) & (rat["part"] == part)]
    table = pd.DataFrame(index=[s for s in order if s != BASE], columns=list(losses), dtype=object)
    for s in table.index:
        table.loc[s, :] = why_not(s, part, direction)
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
    for (direction, family), g in t.groupby(["direction", "family"], sort=False):
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
    seen = {f: i for i, f in enumerate(dict.fromkeys(out["family"]))}
    out["_f"] = out["family"].map(seen)
    out = out.sort_values(["_f", "rank", "estimate"], ascending=[1, 1, 0], kind="stable")
    return out.drop(columns="_f")


def not_applicable(t: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(part and direction, scheme, reason) for every scheme a part's direction leaves
    out (docs/compare.md)."""
    names = list(dict.fromkeys(t["name"]))
    out = []
    for part, direction in sections(t):
        g = t[(t["part"] == part) & (t["direction"] == direction)]
        where = _place(part, direction)
        for s in [n for n in names if n not in set(g["name"])]:
            out.append((where, s, why_not(s, part, direction).split(": ", 1)[1]))
    return out


def _na_text(na: Sequence[tuple[str, str, str]]) -> str:
    """Not-applicable schemes grouped by reason, then by the places they share."""
    by_place: dict[tuple[str, str], list[str]] = {}
    for where, s, why in na:
        by_place.setdefault((where, why), []).append(s)
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for (where, why), ss in by_place.items():
        groups.setdefault((tuple(ss), why), []).append(where)
    return "; ".join(
        f"{', '.join(ss)} in {', '.join(ws)} ({why})" for (ss, why), ws in groups.items()
    )


def _names(g: pd.DataFrame, most: int = 4) -> str:
    """Schemes of a ranking slice with their mean ratio, at most ``most`` named."""
    shown = [f"{r.scheme} ({r.estimate:.2f})" for r in g.head(most).itertuples()]
    more = len(g) - most
    return ", ".join(shown) + (f" and {more} more tied" if more > 0 else "")


def family_matrix(ranks: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Schemes x families: the mean goodput ratio over Reno and the rank, ``1.63 (1)``."""
    if ranks.empty:
        return pd.DataFrame(columns=["scheme"])
    fams = list(dict.fromkeys(ranks["family"]))
    table = pd.DataFrame(index=list(order), columns=fams, dtype=object)
    table[:] = "n/a"
    for r in ranks.itertuples():
        table.loc[r.scheme, r.family] = f"{r.estimate:.2f} ({r.rank})"
    return table.rename_axis("scheme").reset_index()


def summary(rat: pd.DataFrame, ranks: pd.DataFrame, na: Sequence[tuple[str, str, str]]) -> str:
    """The computed summary the page opens with."""
    if rat.empty:
        return "No paired runs of the schemes and Reno yet."
    best = []
    for family, g in ranks.groupby("family", sort=False):
        first = _names(g[g["rank"] == 1])
        last = _names(g[g["rank"] == g["rank"].max()].sort_values("estimate"))
        best.append(f"{family}: first {first}; last {last}")
    per_scheme = []
    for s, g in rat.groupby("scheme", sort=False):
        wins, loses = (g["outcome"] == WINS).sum(), (g["outcome"] == LOSES).sum()
        text = (
            f"{s} beats Reno in {wins} of {len(g)} scenarios (ratio "
            f"{g['ratio'].min():.2f} to {g['ratio'].max():.2f})"
        )
        if loses:
            lost = g[g["outcome"] == LOSES]
            where = [_place(r.part, r.direction) + f" {r.loss}" for r in lost.itertuples()]
            more = "; ..." if len(where) > 3 else ""
            text += f", loses in {loses} ({'; '.join(where[:3])}{more})"
        per_scheme.append(text)
    out = (
        "Summary, computed from the runs below. Ranking per family (rank 1 = best; ties "
        "where 95% intervals overlap): " + "; ".join(best) + ". Against Reno, paired by "
        "seed (wins: 95% interval of the goodput ratio above 1): " + "; ".join(per_scheme) + "."
    )
    if na:
        out += " Not applicable: " + _na_text(na) + "."
    return out


def _losses(ctx: Context, t: pd.DataFrame) -> list[str]:
    """Loss labels in the sweep's order, those the runs have."""
    if "loss" not in ctx.spec.axis_names:
        return []
    labels = ctx.spec.axes[ctx.spec.axis_names.index("loss")].labels
    have = set(t.get("loss", []))
    return [lab for lab in labels if lab in have]


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
    losses = _losses(ctx, t)
    tables = []
    for part, d in sections(t):
        here = set(t.loc[(t["part"] == part) & (t["direction"] == d), "loss"])
        mine = [x for x in losses if x in here]
        title = f"Goodput ratio over Reno, {_place(part, d)} (95% interval, paired by seed)"
        tables.append((title, ratio_table(rat, d, mine, order, part)))
    kept = ctx.result.table("bs_state") if "bs_state" in ctx.spec.keep else pd.DataFrame()
    tables += [
        (
            "Mean goodput over Reno per scenario family (rank in parentheses; n/a: not "
            "applicable, the reasons are in the tables above)",
            family_matrix(ranks, order),
        ),
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
    figs = [
        compare_plots.plot_families(ranks, order, ctx.out),
        compare_plots.plot_loss_sweep(rat, order, ctx.out),
    ]
    return Analysis(
        figures=[f for f in figs if f is not None],
        tables=tables,
        files=[("compare_all_ratios.csv", "goodput ratio over Reno per scenario (CSV)")],
        intro=summary(rat, ranks, not_applicable(t)),
    )


__all__ = [
    "analyse",
    "data_loss",
    "family_matrix",
    "mean_loss",
    "not_applicable",
    "ranking",
    "ratio_table",
    "ratios",
    "sections",
    "split_label",
    "summary",
    "tidy",
]
