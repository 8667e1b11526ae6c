"""Target ``syndrome_fig14``: Chen et al. 2002 (Syndrome), Figure 14, hand-offs.

S1 and S2 send to a mobile host handed off between its home agent and a foreign
agent at 8, 13, 18 and 23 s (1.2 s each); Reno, Snoop and Syndrome, the scheme at
both base stations (``scenarios/syndrome_fig14.toml``). The paper's four panels:
instantaneous throughput (1 s moving window) in (a) and (c), the sequence number in
(b) and (d); we read the pairs as S1 and S2 and draw, per scheme, the median trace
over the seeds with the band between the 25th and 75th percentiles.

What each claim is measured on (per run and flow; every verdict from 95% intervals
paired by seed, :mod:`tcpair.evidence.verdict`):

- "outperforms ... in instantaneous throughput": goodput over the run (the mean of
  the instantaneous throughput), Syndrome/Snoop and Syndrome/Reno above 1.
- "... and advance in TCP sequence number": the highest sequence number sent at
  the end of the run, the same two ratios above 1.
- "suffers least during hand-off": the *retained fraction* of each hand-off, the
  sequence advance from its start to 2 s after its end divided by what the rate of
  the 2 s before it would have sent in that time, averaged over the four hand-offs;
  Syndrome minus each other scheme above 0.
- "resumes ... immediately": the time from each hand-off's end to the flow's first
  new in-order delivery (the ``handoffs`` table's ``resumed_at``) and to the first
  sample whose moving-window throughput is back to half its value at the hand-off's
  start, averaged over the hand-offs; Syndrome minus each other scheme below 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.stats import aggregate
from tcpair.evidence.verdict import above, below, paired_difference, paired_ratio
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim, Figure
from tcpair.reproduce.claims import Part, judge, make_claim, not_assessed
from tcpair.reproduce.common import save

SOURCE = "Chen et al. 2002 (Syndrome)"
FLOWS: tuple[str, ...] = ("s1", "s2")
SCHEMES: tuple[str, ...] = ("reno", "snoop", "syndrome")
EXTRA: tuple[str, ...] = ("freeze", "syndrome_freeze", "snoop_moved")  # beyond the paper
OTHERS: tuple[str, ...] = ("snoop", "reno")
LABELS = {
    "reno": "TCP-Reno",
    "snoop": "SNOOP",
    "syndrome": "Syndrome",
    "freeze": "Freeze-TCP",
    "syndrome_freeze": "Syndrome + Freeze-TCP",
    "snoop_moved": "SNOOP, cache moved",
}
COLORS = {
    "reno": "#1f77b4",
    "snoop": "#d62728",
    "syndrome": "#2ca02c",
    "freeze": "#9467bd",
    "syndrome_freeze": "#ff7f0e",
    "snoop_moved": "#8c564b",
}
FLOW_LABELS = {"s1": "S1 -> MH", "s2": "S2 -> MH"}
AFTER = 2.0  # seconds after a hand-off's end counted in its retained fraction
BEFORE = 2.0  # seconds before its start giving the reference rate
HALF = 0.5  # "recovered": moving-window throughput back to half its value at the start
KEYS = ["scheme", "seed", "flow"]
_DOC = 'docs/mobility.md, section "The Fig. 14 reproduction"'
CAUSE = (
    "Syndrome explains wireless corruption, not hand-off losses: the packets lost while "
    "the MH is between base stations earn no credit (the new BS's counter only "
    "re-references), so every scheme waits for its retransmission timer, and Syndrome's, "
    "whose window and queues stay larger, has the longer RTT and RTO, so its backed-off "
    f"timer fires later after the hand-off's end; {_DOC}."
)

FREEZE_CAUSE = (
    "Freeze-TCP removes the timer wait after a hand-off for Reno and Syndrome alike, so "
    f"what is left between the two is the wireless corruption; {_DOC}."
)
THROUGHPUT_CAUSE = (
    "Four 1.2 s hand-offs in 30 s stall every scheme for the hand-off plus its timer, "
    "while the burst model loses about 0.5% of the packets: what Syndrome gains on "
    "corruption is smaller than what its later resumption after each hand-off costs; "
    f"{_DOC}."
)


def _load(ctx: Context, name: str, keys: Sequence[str]) -> pd.DataFrame:
    from tcpair.results.store import Store

    if not keys:
        return pd.DataFrame()
    return Store(ctx.result.directory).load_table(name, list(keys))


def with_labels(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``table`` (a kept table with ``run_key``) with each run's scheme and seed."""
    if table.empty or "run_key" not in table.columns:
        return pd.DataFrame(columns=["scheme", "seed", *table.columns])
    labels = runs[["run_key", "scheme", "seed"]].drop_duplicates("run_key")
    return table.merge(labels, on="run_key")


def _at(times: np.ndarray, values: np.ndarray, t: float) -> float:
    """The last sample at or before ``t`` (the first one if none)."""
    i = int(np.searchsorted(times, t + 1e-9, side="right")) - 1
    return float(values[max(i, 0)])


def handoff_metrics(ts: pd.DataFrame, ho: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, seed, flow, handoff): ``t_first``, ``t_half`` (s) and ``retained``."""
    cols = [*KEYS, "handoff", "start", "end", "t_first", "t_half", "retained"]
    if ts.empty or ho.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    series = {k: g.sort_values("time_s") for k, g in ts.groupby(KEYS)}
    for _, h in ho.iterrows():
        g = series.get((h["scheme"], h["seed"], h["flow"]))
        if g is None:
            continue
        t = g["time_s"].to_numpy(float)
        seq = g["seq_sent"].to_numpy(float)
        thr = g["throughput_kbps"].to_numpy(float)
        start, end = float(h["start"]), float(h["end"])
        rate = (_at(t, seq, start) - _at(t, seq, start - BEFORE)) / BEFORE
        span = end + AFTER - start
        advance = _at(t, seq, end + AFTER) - _at(t, seq, start)
        retained = advance / (rate * span) if rate > 0 else np.nan
        target = HALF * _at(t, thr, start)
        back = t[(t >= end) & (thr >= target)]
        t_half = float(back[0] - end) if back.size and target > 0 else np.nan
        resumed = h.get("resumed_at")
        t_first = float(resumed) - end if pd.notna(resumed) else np.nan
        rows.append(
            [
                h["scheme"],
                h["seed"],
                h["flow"],
                int(h["handoff"]),
                start,
                end,
                t_first,
                t_half,
                retained,
            ]
        )
    return pd.DataFrame(rows, columns=cols)


def run_metrics(runs: pd.DataFrame, ts: pd.DataFrame, per_ho: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, seed, flow): goodput, final sequence number and the hand-off means."""
    base = runs[[*KEYS, "goodput_kbps"]].copy()
    if not ts.empty:
        last = ts.sort_values("time_s").groupby(KEYS)["seq_sent"].last().rename("final_seq")
        base = base.merge(last.reset_index(), on=KEYS, how="left")
    else:
        base["final_seq"] = np.nan
    if not per_ho.empty:
        means = per_ho.groupby(KEYS)[["t_first", "t_half", "retained"]].mean().reset_index()
        base = base.merge(means, on=KEYS, how="left")
    else:
        for c in ("t_first", "t_half", "retained"):
            base[c] = np.nan
    return base


def _paired(
    m: pd.DataFrame, flow: str, other: str, col: str, best: str = "syndrome"
) -> tuple[np.ndarray, np.ndarray]:
    f = m[m["flow"] == flow]
    a = f[f["scheme"] == best].set_index("seed")[col]
    b = f[f["scheme"] == other].set_index("seed")[col]
    both = pd.concat([a, b], axis=1, keys=["a", "b"], join="inner")
    return both["a"].to_numpy(float), both["b"].to_numpy(float)


def _parts(
    m: pd.DataFrame,
    col: str,
    how: str,
    best: str = "syndrome",
    others: Sequence[str] = OTHERS,
) -> list[Part]:
    """``best`` against each of ``others`` on ``col`` for each flow: a ratio above 1
    (``how="ratio"``), a difference above 0 (``"more"``) or below 0 (``"less"``)."""
    parts = []
    present = set(m["scheme"])
    for other in others:
        if other not in present or best not in present:
            continue
        for flow in FLOWS:
            a, b = _paired(m, flow, other, col, best)
            label = f"{flow} {LABELS[best]}"
            if how == "ratio":
                iv = paired_ratio(a, b)
                parts.append(judge(f"{label}/{LABELS[other]}", iv, lambda iv: above(iv, 1.0)))
            else:
                iv = paired_difference(a, b)
                test = (lambda iv: above(iv, 0.0)) if how == "more" else (lambda iv: below(iv, 0.0))
                parts.append(judge(f"{label} - {LABELS[other]}", iv, test))
    return parts


def claims(m: pd.DataFrame) -> list[Claim]:
    """The four claims of Fig. 14, each judged for both flows against Snoop and Reno."""
    specs = [
        (
            "throughput",
            "Syndrome outperforms SNOOP and TCP-Reno in instantaneous throughput",
            "goodput",
            "goodput_kbps",
            "ratio",
            "paired goodput ratio CI > 1",
        ),
        (
            "sequence",
            "Syndrome outperforms SNOOP and TCP-Reno in advance of the TCP sequence number",
            "final sequence number",
            "final_seq",
            "ratio",
            "paired ratio of the final sequence number CI > 1",
        ),
        (
            "suffers_least",
            "Syndrome suffers least during hand-off",
            "retained fraction",
            "retained",
            "more",
            "paired difference of the retained fraction CI > 0",
        ),
        (
            "first_delivery",
            "Syndrome resumes at once after a hand-off: its first new in-order "
            "delivery after the hand-off's end comes sooner than SNOOP's and TCP-Reno's",
            "time to first delivery",
            "t_first",
            "less",
            "paired difference of the time CI < 0",
        ),
        (
            "half_throughput",
            "Syndrome resumes at once after a hand-off: its throughput is back to "
            "half its pre-hand-off value sooner than SNOOP's and TCP-Reno's",
            "time to half throughput",
            "t_half",
            "less",
            "paired difference of the time CI < 0",
        ),
    ]
    out = []
    for cid, text, what, col, how, rule in specs:
        if m.empty or col not in m.columns or m[col].isna().all():
            out.append(not_assessed(SOURCE, text, cid, rule, f"the runs have no {what}"))
            continue
        parts = _parts(m, col, how)
        cause = (
            CAUSE
            if cid in ("suffers_least", "first_delivery", "half_throughput")
            else THROUGHPUT_CAUSE
        )
        out.append(
            make_claim(
                SOURCE,
                text,
                cid,
                rule,
                parts,
                cause=cause,
                empty="Syndrome and a scheme to compare with are both needed",
            )
        )
    return out


def extra_claims(m: pd.DataFrame) -> list[Claim]:
    """Beyond the paper: Syndrome + Freeze-TCP against every other series."""
    others = [x for x in (*SCHEMES, "freeze", "snoop_moved") if x in set(m.get("scheme", []))]
    source = "Chen et al. 2002 §7 (future work), with Goff et al. 2000"
    specs = [
        (
            "freeze_suffers_least",
            "Syndrome + Freeze-TCP suffers least of all during hand-off",
            "retained",
            "more",
            "paired difference of the retained fraction CI > 0 against each",
        ),
        (
            "freeze_recovers_first",
            "Syndrome + Freeze-TCP resumes first of all after a hand-off",
            "t_first",
            "less",
            "paired difference of the time to first delivery CI < 0 against each",
        ),
    ]
    out = []
    for cid, text, col, how, rule in specs:
        if m.empty or col not in m.columns or m[col].isna().all():
            out.append(not_assessed(source, text, cid, rule, f"the runs have no {col}"))
            continue
        parts = _parts(m, col, how, best="syndrome_freeze", others=others)
        out.append(
            make_claim(
                source,
                text,
                cid,
                rule,
                parts,
                cause=FREEZE_CAUSE,
                empty="the Syndrome + Freeze-TCP series and another are both needed",
            )
        )
    return out


def plot_extra(m: pd.DataFrame, per_ho: pd.DataFrame, out: Path, stem: str) -> Figure:
    """Goodput over the run and time to first delivery per hand-off, every series."""
    import matplotlib.pyplot as plt

    order = [s for s in (*SCHEMES, *EXTRA) if s in set(m["scheme"])]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    g = aggregate(m, ["scheme", "flow"], ["goodput_kbps"])
    width = 0.8 / max(len(order), 1)
    for k, s in enumerate(order):
        d = g[g["scheme"] == s].set_index("flow").reindex(list(FLOWS))
        x = np.arange(len(FLOWS)) + k * width
        axes[0].bar(
            x,
            d["goodput_kbps_mean"] / 8,
            width,
            yerr=d["goodput_kbps_ci95"] / 8,
            color=COLORS[s],
            label=LABELS[s],
        )
        if not per_ho.empty:
            h = aggregate(per_ho[per_ho["scheme"] == s], ["handoff"], ["t_first"])
            axes[1].errorbar(
                h["handoff"] + 1 + (k - len(order) / 2) * 0.06,
                h["t_first_mean"],
                yerr=h["t_first_ci95"],
                color=COLORS[s],
                marker="o",
                label=LABELS[s],
            )
    axes[0].set_xticks(np.arange(len(FLOWS)) + 0.4 - width / 2, [FLOW_LABELS[f] for f in FLOWS])
    axes[0].set_ylabel("goodput over the run (KB/s)")
    axes[1].set_xlabel("hand-off")
    axes[1].set_ylabel("time to first new in-order delivery (s)")
    axes[1].set_xticks([1, 2, 3, 4])
    axes[0].legend(fontsize=7, loc="lower center")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    png, svg = save(fig, out, f"{stem}_extra")
    plt.close(fig)
    return Figure(
        png,
        "Every series, beyond the paper's three: goodput with its 95% CI (S1 and "
        "S2), and the time from each hand-off's end to the first new in-order "
        "delivery (both flows pooled, 95% CI).",
        svg,
        g,
    )


def traces(ts: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, flow, time): median and quartiles of throughput and sequence number."""
    cols = ["scheme", "flow", "time_s"]
    if ts.empty:
        return pd.DataFrame(columns=cols)
    g = ts.assign(time_s=ts["time_s"].round(6)).groupby(cols)
    out = {}
    for col in ("throughput_kbps", "seq_sent"):
        q = g[col].quantile([0.25, 0.5, 0.75]).unstack()
        out[f"{col}_q25"], out[f"{col}_median"], out[f"{col}_q75"] = q[0.25], q[0.5], q[0.75]
    return pd.DataFrame(out).reset_index()


def plot_panels(
    tr: pd.DataFrame, handoffs: list[tuple[float, float]], out: Path, stem: str
) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    panels = [
        ("s1", "throughput_kbps"),
        ("s1", "seq_sent"),
        ("s2", "throughput_kbps"),
        ("s2", "seq_sent"),
    ]
    for ax, letter, (flow, col) in zip(axes.flat, "abcd", panels, strict=True):
        for s in SCHEMES:
            d = tr[(tr["scheme"] == s) & (tr["flow"] == flow)]
            if d.empty:
                continue
            scale = 1 / 8 if col == "throughput_kbps" else 1  # KB/s as the paper
            ax.plot(d["time_s"], d[f"{col}_median"] * scale, color=COLORS[s], label=LABELS[s])
            ax.fill_between(
                d["time_s"],
                d[f"{col}_q25"] * scale,
                d[f"{col}_q75"] * scale,
                color=COLORS[s],
                alpha=0.2,
                linewidth=0,
            )
        for a, b in handoffs:
            ax.axvspan(a, b, color="0.85", zorder=0)
        what = "throughput (KB/s, 1 s window)" if col == "throughput_kbps" else "sequence number"
        ax.set_title(f"({letter}) {FLOW_LABELS[flow]}: {what}", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    png, svg = save(fig, out, stem)
    plt.close(fig)
    return Figure(
        png,
        "Median over seeds per scheme, band from the 25th to the 75th percentile; "
        "grey: the hand-offs (MH between base stations).",
        svg,
        tr,
    )


def recovery_table(per_ho: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% CI of both recovery times per hand-off, scheme and flow."""
    if per_ho.empty:
        return pd.DataFrame()
    return aggregate(
        per_ho, ["handoff", "start", "flow", "scheme"], ["t_first", "t_half", "retained"]
    )


def _handoff_spans(ho: pd.DataFrame) -> list[tuple[float, float]]:
    if ho.empty:
        return []
    spans = ho[["start", "end"]].drop_duplicates().sort_values("start")
    return [(float(a), float(b)) for a, b in spans.itertuples(index=False)]


def analyse(ctx: Context) -> Analysis:
    """The four panels, the recovery times per hand-off and the verdicts."""
    runs = ctx.ok_runs
    keys = list(runs["run_key"].unique()) if "run_key" in runs.columns else []
    ts = with_labels(_load(ctx, "timeseries", keys), runs)
    ho = with_labels(_load(ctx, "handoffs", keys), runs)
    per_ho = handoff_metrics(ts, ho)
    m = run_metrics(runs, ts, per_ho)
    stem = ctx.spec.name
    per_ho.to_csv(ctx.out / f"{stem}_handoffs.csv", index=False)
    paper = ts[ts["scheme"].isin(SCHEMES)] if not ts.empty else ts
    figures = (
        [plot_panels(traces(paper), _handoff_spans(ho), ctx.out, stem)] if not ts.empty else []
    )
    if set(EXTRA) & set(m["scheme"]):
        figures.append(plot_extra(m, per_ho, ctx.out, stem))
    intro = (
        "Hand-offs at 8, 13, 18 and 23 s, 1.2 s each (grey); recovery is measured from each "
        "hand-off's end. The moving-window throughput lags by construction: with a 1 s window "
        "it reaches half its earlier value about 0.5 s after full-rate delivery resumes, for "
        "every scheme alike."
    )
    if ts.empty:
        intro += " No time series were stored: the panels and the hand-off claims are missing."
    summary = aggregate(
        m, ["scheme", "flow"], ["goodput_kbps", "final_seq", "retained", "t_first", "t_half"]
    )
    return Analysis(
        figures=figures,
        claims=[*claims(m[m["scheme"].isin(SCHEMES)]), *extra_claims(m)],
        tables=[
            ("Per scheme and flow (mean and 95% CI over seeds)", summary),
            ("Recovery per hand-off (s; mean and 95% CI over seeds)", recovery_table(per_ho)),
        ],
        files=[
            (
                f"{stem}_handoffs.csv",
                "per run, flow and hand-off: recovery times, retained fraction (CSV)",
            )
        ],
        intro=intro,
    )


__all__ = [
    "analyse",
    "claims",
    "extra_claims",
    "handoff_metrics",
    "run_metrics",
    "traces",
    "with_labels",
]
