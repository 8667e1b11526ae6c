"""Targets ``detector_matrix_mixed``, ``detector_matrix_w``, ``detector_matrix_c``: every
loss detector x every responder, one scenario family per target (docs/compare.md,
"Detectors x responders").

Each run is one combination (axes ``detector`` and ``responder``) on one scenario (every
other axis). A run's value is the goodput of its **measured flows**: the flows the sweep
gives the combination to (the flow named in the ``detector`` axis's parameter, or every flow
when it says ``flows.*``), summed. Everything below is computed from those runs:

- per scenario and combination, goodput over plain TCP's (detector ``none``, responder
  ``0``), paired by seed (common random numbers), with its 95% interval
  (:func:`tcpair.reproduce.common.paired_ratios`); the combination *wins* (as compare-all
  judges, :func:`tcpair.reproduce.studies.compare_all.outcome`) where the
  interval lies above 1 and *loses* where it lies below;
- per scenario and detector, its accuracy A_w and A_c against the ground truth (Park et al.
  2010, §3): per seed the fast-retransmit counts of the measured flows pooled over every
  responder, then the mean over seeds with its Student-t interval
  (:func:`tcpair.reproduce.park2010.accuracy.per_seed_accuracy`);
- dominance (:func:`dominance`): in one scenario, combination A is better than B when A's
  interval lies wholly above B's; A dominates B when B is better than A in no scenario of
  the family and A is better than B in at least one. Overlapping intervals decide nothing,
  so the non-dominated set is what the runs cannot rank below another combination.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import Interval, mean_ci
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reproduce.common import paired_ratios
from tcpair.reproduce.park2010.accuracy import per_seed_accuracy
from tcpair.reproduce.studies.compare_all import LOSES, SAME, WINS, outcome
from tcpair.reproduce.studies.detector_matrix_plot import heat_map

VALUE = "goodput_kbps"
PLAIN = ("none", "0")  # detector, responder: plain TCP
BOUNDS = ("oracle",)  # the ground truth: a bound, not a deployable detector
COUNTS = (
    "frs_wireless_said_wireless",
    "frs_wireless_true",
    "frs_congestion_said_congestion",
    "frs_congestion_true",
)


def combo(detector: object, responder: object) -> str:
    """``lda_eq+21``: a combination's label."""
    return f"{detector}+{responder}"


PLAIN_COMBO = combo(*PLAIN)


def axis_labels(ctx: Context, name: str) -> list[str]:
    """The labels of axis ``name`` in the sweep's order (empty if it has none)."""
    for a in ctx.spec.axes:
        if a.name == name:
            return [str(x) for x in a.labels]
    return []


def measured_flow(ctx: Context) -> str | None:
    """The flow the ``detector`` axis sets (``flows.tcp1.tcp.detector``), or ``None`` when
    it sets every flow (``flows.*.tcp.detector``)."""
    for a in ctx.spec.axes:
        if a.name == "detector":
            parts = a.params[0].split(".")
            return None if len(parts) < 2 or parts[1] == "*" else parts[1]
    return None


def scenario_keys(axes: Sequence[str], runs: pd.DataFrame) -> list[str]:
    """Every axis but the combination's: what makes a scenario."""
    return [a for a in axes if a not in ("detector", "responder") and a in runs.columns]


def scenario_label(row: Mapping[str, object] | pd.Series, keys: Sequence[str]) -> str:
    return ", ".join(
        f"{k}={row[k]:g}" if isinstance(row[k], float) else f"{k}={row[k]}" for k in keys
    )


def per_run(runs: pd.DataFrame, keys: Sequence[str], flow: str | None) -> pd.DataFrame:
    """One row per run: scenario keys, ``scenario`` (its label), detector, responder,
    ``combo``, seed, and goodput and the accuracy counts summed over the measured flows."""
    m = runs[runs["flow"] == flow] if flow is not None and "flow" in runs.columns else runs
    cols = [VALUE, *(c for c in COUNTS if c in m.columns)]
    by = [*keys, "detector", "responder", "seed"]
    if m.empty:
        return pd.DataFrame(columns=[*by, "scenario", "combo", *cols])
    g = m.groupby(by, sort=True)[cols].sum().reset_index()
    g["detector"] = g["detector"].astype(str)
    g["responder"] = g["responder"].astype(str)
    g["combo"] = [combo(d, r) for d, r in zip(g["detector"], g["responder"], strict=True)]
    g["scenario"] = [scenario_label(r, keys) for _, r in g.iterrows()] if keys else "all"
    return g


def ratios(g: pd.DataFrame, combos: Sequence[str]) -> pd.DataFrame:
    """Per scenario and combination: goodput over plain TCP's, paired by seed."""
    cols = ["scenario", "combo", "detector", "responder", "combo_kbps", "plain_kbps"]
    cols += ["ratio", "ratio_low", "ratio_high"]
    parts = []
    for c in combos:
        r = paired_ratios(g, "combo", c, PLAIN_COMBO, ["scenario"], value=VALUE)
        if r.empty:
            continue
        # the two means' columns are named after the combinations: name them by role
        r.columns = ["scenario", "combo_kbps", "plain_kbps", *r.columns[3:]]
        det, _, resp = c.partition("+")
        parts.append(r.assign(combo=c, detector=det, responder=resp))
    if not parts:
        return pd.DataFrame(columns=[*cols, "seeds", "outcome"])
    out = pd.concat(parts, ignore_index=True)
    # scenarios in the order of the runs' axes (numeric), not of their labels
    pos = {s: i for i, s in enumerate(dict.fromkeys(g["scenario"]))}
    out = out.sort_values("scenario", key=lambda v: v.map(pos), kind="stable")
    out = out.reset_index(drop=True)
    out["outcome"] = [
        outcome(Interval(r.ratio, r.ratio_low, r.ratio_high, int(r.seeds)))
        for r in out.itertuples()
    ]
    return out[[*cols, "seeds", "outcome"]]


def accuracy(runs: pd.DataFrame, keys: Sequence[str], flow: str | None) -> pd.DataFrame:
    """Per scenario and detector: A_w and A_c (counts of the measured flows pooled over
    every responder per seed; mean over seeds with its 95% interval)."""
    cols = ["scenario", "detector", "A_w", "A_w_half", "A_c", "A_c_half", "seeds"]
    if runs.empty or "frs_wireless_true" not in runs.columns:
        return pd.DataFrame(columns=cols)
    ps = per_seed_accuracy(runs, keys, flow)
    rows = []
    for key, part in ps.groupby([*keys, "detector"], sort=True):
        k = dict(zip([*keys, "detector"], key, strict=True))
        w, c = mean_ci(part["acc_w"].to_numpy(float)), mean_ci(part["acc_c"].to_numpy(float))
        label = scenario_label(k, keys) if keys else "all"
        rows.append([label, str(k["detector"]), w.estimate, w.half, c.estimate, c.half, w.n])
    return pd.DataFrame(rows, columns=cols)


@dataclass(frozen=True)
class Dominance:
    """The dominance relation over a family's combinations."""

    combos: tuple[str, ...]
    scenarios: tuple[str, ...]
    # dominated_by[c]: the combinations that dominate c
    dominated_by: Mapping[str, tuple[str, ...]]

    @property
    def non_dominated(self) -> list[str]:
        return [c for c in self.combos if not self.dominated_by[c]]

    def dominates(self, c: str) -> list[str]:
        return [o for o in self.combos if c in self.dominated_by[o]]


def dominance(cells: pd.DataFrame, combos: Sequence[str] | None = None) -> Dominance:
    """Dominance from per-scenario intervals (columns ``scenario``, ``combo``,
    ``ratio_low``, ``ratio_high``).

    In a scenario, A is better than B when A's low end lies above B's high end (an
    undefined interval is never better nor worse). A dominates B when B is better than A in
    no scenario both have and A is better than B in at least one."""
    order = list(combos) if combos is not None else list(dict.fromkeys(cells["combo"]))
    scen = list(dict.fromkeys(cells["scenario"])) if not cells.empty else []
    lo = np.full((len(order), len(scen)), np.nan)
    hi = np.full((len(order), len(scen)), np.nan)
    ci, si = {c: i for i, c in enumerate(order)}, {s: j for j, s in enumerate(scen)}
    for r in cells.itertuples():
        if r.combo in ci:
            lo[ci[r.combo], si[r.scenario]] = r.ratio_low
            hi[ci[r.combo], si[r.scenario]] = r.ratio_high
    with np.errstate(invalid="ignore"):
        # better[a, b, s]: a's interval wholly above b's in scenario s (NaN compares False)
        better = lo[:, None, :] > hi[None, :, :]
    some = better.any(axis=2)  # a better than b somewhere
    dom = some & ~some.T  # ... and b never better than a
    by = {c: tuple(order[a] for a in np.flatnonzero(dom[:, b])) for b, c in enumerate(order)}
    return Dominance(tuple(order), tuple(scen), by)


def cell(r: pd.Series | object) -> str:
    """``1.234 [1.101, 1.367]`` (no interval: just the ratio)."""
    est, lo, hi = (float(getattr(r, k)) for k in ("ratio", "ratio_low", "ratio_high"))
    if not np.isfinite(lo):
        return f"{est:.3f}"
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"


def matrix_table(rat: pd.DataFrame, combos: Sequence[str], dom: Dominance) -> pd.DataFrame:
    """A row per combination: its interval per scenario, wins and losses against plain TCP,
    and how many combinations it dominates / is dominated by."""
    rows = []
    by = {(r.combo, r.scenario): r for r in rat.itertuples()}
    for c in combos:
        row: dict[str, object] = {"combination": c}
        for s in dom.scenarios:
            r = by.get((c, s))
            row[s] = cell(r) if r is not None else "not run"
        mine = rat[rat["combo"] == c]
        row["wins"] = int((mine["outcome"] == WINS).sum())
        row["loses"] = int((mine["outcome"] == LOSES).sum())
        row["dominates"] = len(dom.dominates(c)) if c in dom.dominated_by else 0
        row["dominated by"] = len(dom.dominated_by.get(c, ()))
        rows.append(row)
    return pd.DataFrame(rows)


def tally(
    rat: pd.DataFrame, acc: pd.DataFrame, detectors: Sequence[str], responders: Sequence[str]
) -> pd.DataFrame:
    """Detector x responder: ``wins/losses`` against plain TCP over the family's scenarios,
    and the detector's A_w and A_c pooled over the family (``acc``: scenario ``all``)."""
    count = rat.assign(w=rat["outcome"] == WINS, l=rat["outcome"] == LOSES)
    n = count.groupby(["detector", "responder"])[["w", "l"]].sum()
    a = acc.set_index("detector") if not acc.empty else pd.DataFrame()
    rows = []
    for d in detectors:
        row: dict[str, object] = {"detector": d}
        for r in responders:
            row[r] = f"{n.loc[(d, r), 'w']}/{n.loc[(d, r), 'l']}" if (d, r) in n.index else ""
        for k in ("A_w", "A_c"):
            v = a.loc[d, k] if d in a.index else np.nan
            row[k] = f"{v:.2f}" if np.isfinite(v) else "n/a"
        rows.append(row)
    return pd.DataFrame(rows)


def plain_check(rat: pd.DataFrame) -> tuple[int, int]:
    """(combinations that are plain TCP by construction whose goodput equals plain TCP's
    exactly in every scenario, such combinations): detector none or responder 0."""
    same = rat[(rat["detector"] == PLAIN[0]) | (rat["responder"] == PLAIN[1])]
    exact = same.groupby("combo")[["ratio", "ratio_low", "ratio_high"]].agg(
        lambda v: bool(np.all(v.to_numpy(float) == 1.0))
    )
    return int(exact.all(axis=1).sum()), len(exact)


def _listing(rat: pd.DataFrame, names: Sequence[str], limit: int = 12) -> str:
    """``lda_eq+1 (wins 3 of 4, 1.02-1.31)`` per name, at most ``limit`` of them."""
    parts = []
    for c in names[:limit]:
        mine = rat[rat["combo"] == c]
        wins = int((mine["outcome"] == WINS).sum())
        lo, hi = mine["ratio"].min(), mine["ratio"].max()
        span = f"ratio {lo:.2f}" if len(mine) == 1 else f"ratios {lo:.2f}-{hi:.2f}"
        parts.append(f"{c} (wins in {wins} of {len(mine)}, {span})")
    more = f", and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(parts) + more


def by_mean(rat: pd.DataFrame, names: Sequence[str]) -> list[str]:
    """``names`` by mean ratio over the scenarios, highest first (an order for reading only:
    nothing is decided on it)."""
    means = rat.groupby("combo")["ratio"].mean()
    return sorted(names, key=lambda c: -float(means.get(c, -np.inf)))


def top_group(rat: pd.DataFrame, scenario: str) -> list[str]:
    """In one scenario, the combinations no other beats (no interval wholly above theirs)."""
    s = rat[rat["scenario"] == scenario]
    best_low = np.nanmax(s["ratio_low"].to_numpy(float)) if len(s) else np.nan
    keep = s[~(s["ratio_high"] < best_low)]
    return by_mean(keep, list(keep["combo"]))


def summary(rat: pd.DataFrame, dom: Dominance, deployable: Dominance, family: str) -> str:
    """The computed summary the page opens with."""
    if rat.empty:
        return "No paired runs of the combinations and plain TCP yet."
    exact, n_plain = plain_check(rat)
    nd, nd_dep = by_mean(rat, dom.non_dominated), by_mean(rat, deployable.non_dominated)
    text = [
        f"Summary, computed from the runs below ({family}; {len(dom.combos)} combinations, "
        f"{len(dom.scenarios)} scenario{'' if len(dom.scenarios) == 1 else 's'}). Against "
        "plain TCP (detector none, responder 0), paired by seed: a combination wins where "
        "the 95% interval of its goodput ratio lies above 1 and loses where it lies below 1.",
        f"Non-dominated ({len(nd)} of {len(dom.combos)}; A dominates B when A's interval lies "
        "wholly above B's in some scenario and B's never wholly above A's): "
        + _listing(rat, nd)
        + ".",
        f"Without the oracle (deployable detectors only), non-dominated ({len(nd_dep)}): "
        + _listing(rat, nd_dep)
        + ".",
    ]
    for s in dom.scenarios:
        here = rat[rat["scenario"] == s]
        top = top_group(rat, s)
        wins, loses = int((here["outcome"] == WINS).sum()), int((here["outcome"] == LOSES).sum())
        text.append(
            f"{s}: {wins} combination{'' if wins == 1 else 's'} win{'s' if wins == 1 else ''}, "
            f"{loses} lose{'s' if loses == 1 else ''}; not beaten by any other "
            f"({len(top)}): {', '.join(top[:6])}{', ...' if len(top) > 6 else ''}."
        )
    text.append(
        f"Check: {exact} of the {n_plain} combinations that are plain TCP by construction "
        "(detector none, or responder 0) gave exactly plain TCP's goodput in every scenario."
    )
    return " ".join(text)


def family_name(ctx: Context) -> str:
    return ctx.spec.title or ctx.spec.name


def analyse(ctx: Context) -> Analysis:
    flow = measured_flow(ctx)
    runs = ctx.ok_runs
    keys = scenario_keys(ctx.spec.axis_names, runs)
    g = per_run(runs, keys, flow)
    detectors = [d for d in axis_labels(ctx, "detector") if d in set(g["detector"])]
    responders = [r for r in axis_labels(ctx, "responder") if r in set(g["responder"])]
    combos = [combo(d, r) for d in detectors for r in responders]
    rat = ratios(g, combos)
    acc = accuracy(runs, keys, flow)
    dom = dominance(rat, combos)
    deployable = dominance(rat, [c for c in combos if c.partition("+")[0] not in BOUNDS])
    figures = []
    for i, s in enumerate(dom.scenarios):
        figures.append(
            heat_map(
                rat[rat["scenario"] == s],
                acc[acc["scenario"] == s],
                detectors,
                responders,
                s,
                ctx.out,
                f"matrix_{i + 1}",
            )
        )
    nd = by_mean(rat, dom.non_dominated)
    table = matrix_table(rat, combos, dom)
    counts = tally(rat, accuracy(runs, [], flow), detectors, responders)
    rat.to_csv(ctx.out / "detector_matrix_ratios.csv", index=False)
    acc.to_csv(ctx.out / "detector_matrix_accuracy.csv", index=False)
    return Analysis(
        figures=figures,
        tables=[
            (
                "Non-dominated combinations (goodput over plain TCP, 95% interval)",
                table.set_index("combination").loc[nd].reset_index() if nd else table.head(0),
            ),
            (
                f"Wins/losses against plain TCP over the {len(dom.scenarios)} scenarios (95% "
                "interval of the goodput ratio above / below 1), with each detector's A_w and "
                "A_c over the family",
                counts,
            ),
            ("Goodput over plain TCP per combination and scenario (95% interval)", table),
            ("Accuracy per scenario and detector (mean over seeds, 95% half-width)", acc),
        ],
        files=[
            ("detector_matrix_ratios.csv", "goodput over plain TCP per scenario (CSV)"),
            ("detector_matrix_accuracy.csv", "A_w and A_c per scenario and detector (CSV)"),
        ],
        intro=summary(rat, dom, deployable, family_name(ctx)),
    )


__all__ = [
    "BOUNDS",
    "LOSES",
    "PLAIN",
    "PLAIN_COMBO",
    "SAME",
    "WINS",
    "Dominance",
    "accuracy",
    "analyse",
    "combo",
    "dominance",
    "matrix_table",
    "outcome",
    "per_run",
    "plain_check",
    "ratios",
    "summary",
    "tally",
    "top_group",
]
