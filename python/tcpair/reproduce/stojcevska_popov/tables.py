"""Target ``pr_table1_2``: Stojcevska and Popov (Prompt Recovery), Fig. 3 and Tables 1-2.

One TCP flow over the chain of ``scenarios/pr_chain.toml``, 1% random loss from
10 s, 30 s; PR against Reno and PR* against NewReno (the ``variant`` axis), with
the loss on r3-r4 (default) or on r2-r3 and r3-r4 (the ``loss_at`` axis).

The paper's printed counts are kept here as its data (:data:`PAPER`), and the
page checks that its throughputs follow from its formula (7),
``(Np - Nx) * P * 8 / t`` with Np the acknowledged packets, Nx the
retransmitted ones, P = 1000 bytes and t = 29.9 s: the arithmetic is done here,
never copied. Our improvement is the paired ratio (by seed) of formula (7)
throughputs, judged by the rule of :mod:`tcpair.evidence.verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.evidence.stats import aggregate
from tcpair.evidence.verdict import above, within
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import FAILS, HOLDS, Claim, Figure
from tcpair.reproduce.claims import interval_of, judge, make_claim
from tcpair.reproduce.common import paired_ratios, save

SOURCE = "Stojcevska and Popov (Prompt Recovery)"
DOC = 'docs/pr.md, section "Reproductions"'
FORMULA = "formula_throughput_mbps"
DEFAULT_LOSS_AT = "r3-r4"
# The paper's formula (7) as it computes its Table 2: packet size and duration.
P_BYTES = 1000
T_SECONDS = 29.9
# "follows from (7)": the printed throughput is reproduced to its printed precision.
PRINT_TOLERANCE = 0.005
# "about the paper's 19.2%": our improvement within +- 10 points of Reno's throughput.
MATCH_BAND = 0.10
PAIRS: tuple[tuple[str, str], ...] = (("pr", "reno"), ("pr_star", "newreno"))
LABELS = {"reno": "Reno", "pr": "PR", "newreno": "NewReno", "pr_star": "PR*"}
COLORS = {"reno": "#1f77b4", "pr": "#d62728", "newreno": "#2ca02c", "pr_star": "#ff7f0e"}


@dataclass(frozen=True)
class PaperRow:
    """One protocol's row of the paper's Tables 1 and 2, as printed."""

    bytes_sent: int
    acked: int
    retransmitted: int
    throughput_bps: float


PAPER: dict[str, PaperRow] = {
    "pr": PaperRow(3187000, 3121, 75, 814983.28),
    "reno": PaperRow(2669000, 2620, 65, 683612.04),
}
PAPER_IMPROVEMENT_BPS = 131370.24
PAPER_IMPROVEMENT_PCT = 19.2


def formula7(acked: float, retransmitted: float, p_bytes: float, t: float) -> float:
    """Stojcevska and Popov's formula (7) in b/s: (Np - Nx) * P * 8 / t."""
    return (acked - retransmitted) * p_bytes * 8 / t


def paper_check() -> pd.DataFrame:
    """The paper's printed rows beside formula (7) computed from its printed counts."""
    rows = []
    for proto, r in PAPER.items():
        got = formula7(r.acked, r.retransmitted, P_BYTES, T_SECONDS)
        rows.append([LABELS[proto], r.bytes_sent, r.acked, r.retransmitted, r.throughput_bps, got])
    pr, reno = (formula7(r.acked, r.retransmitted, P_BYTES, T_SECONDS) for r in PAPER.values())
    rows.append(["PR - Reno", np.nan, np.nan, np.nan, PAPER_IMPROVEMENT_BPS, pr - reno])
    cols = ["protocol", "bytes sent", "acked", "retransmitted", "printed b/s", "formula (7) b/s"]
    return pd.DataFrame(rows, columns=cols)


def claim_paper_formula() -> Claim:
    """The paper's Table 2 throughputs and percentage follow from its Table 1 counts by (7)."""
    check = paper_check()
    rows = check[check["protocol"] != "PR - Reno"]
    diff = (rows["printed b/s"] - rows["formula (7) b/s"]).abs()
    pr, reno = (formula7(r.acked, r.retransmitted, P_BYTES, T_SECONDS) for r in PAPER.values())
    pct = 100 * (pr - reno) / reno
    ok = bool((diff < PRINT_TOLERANCE).all()) and round(pct, 1) == PAPER_IMPROVEMENT_PCT
    detail = "; ".join(
        f"{r['protocol']}: printed {r['printed b/s']:.2f}, (7) gives {r['formula (7) b/s']:.2f}"
        for _, r in rows.iterrows()
    )
    slip = PAPER_IMPROVEMENT_BPS - (pr - reno)
    detail += (
        f"; improvement {pct:.2f}% (printed {PAPER_IMPROVEMENT_PCT}%). The printed "
        f"difference {PAPER_IMPROVEMENT_BPS:.2f} b/s is {slip:+.2f} b/s off the difference "
        f"of the printed throughputs ({pr - reno:.2f}), a slip in the paper's subtraction."
    )
    return Claim(
        f"{SOURCE}, Tables 1-2",
        f"the printed throughputs and the 19.2% follow from formula (7) with Np = acknowledged "
        f"packets, Nx = retransmitted packets, P = {P_BYTES} bytes and t = {T_SECONDS} s",
        HOLDS if ok else FAILS,
        detail,
        claim_id="paper_formula7",
        rule=f"arithmetic on the paper's printed counts: equal within {PRINT_TOLERANCE} b/s, "
        "percentage equal to one decimal",
        cause="" if ok else "the printed counts do not give the printed throughputs",
    )


def table(runs: pd.DataFrame) -> pd.DataFrame:
    """Tables 1-2 columns per variant and loss reading: mean and 95% CI over seeds."""
    if runs.empty:
        return pd.DataFrame()
    df = runs.assign(
        bytes_sent=runs["sent"] * runs.get("packet_size", P_BYTES),
        throughput_bps=runs[FORMULA] * 1e6,
    )
    values = ["bytes_sent", "delivered", "retransmits", "throughput_bps", "timeouts"]
    values += [c for c in ("fast_retransmits", "wireless_frs", "acc_w", "acc_c") if c in df]
    return aggregate(df, ["loss_at", "variant"], values)


def _bytes_per_packet(runs: pd.DataFrame) -> pd.DataFrame:
    return runs if "packet_size" in runs else runs.assign(packet_size=P_BYTES)


def ratios(runs: pd.DataFrame) -> pd.DataFrame:
    """Formula (7) throughput of PR/Reno and PR*/NewReno per loss reading, paired by seed."""
    parts = [
        paired_ratios(runs, "variant", new, old, ["loss_at"], value=FORMULA).assign(
            pair=f"{LABELS[new]}/{LABELS[old]}"
        )
        for new, old in PAIRS
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def after_recovery(rec: pd.DataFrame, variant: str, kept: bool) -> tuple[int, int]:
    """Of ``variant``'s fast retransmits of random losses (those it kept the window on
    when ``kept``), how many were followed, as the flow's next recovery, by a timeout or
    a fast retransmit of a queue overflow. ``rec``: the kept recoveries table."""
    need = {"variant", "run_key", "time_s", "event", "verdict", "true_category"}
    if rec.empty or not need <= set(rec.columns):
        return 0, 0
    d = rec[rec["variant"] == variant].sort_values(["run_key", "time_s"])
    nxt_event = d.groupby("run_key")["event"].shift(-1)
    nxt_cat = d.groupby("run_key")["true_category"].shift(-1)
    fr = (d["event"] == "fast_retransmit") & (d["true_category"] == "wireless")
    if kept:
        fr &= d["verdict"] == "wireless"
    bad = (nxt_event == "timeout") | ((nxt_event == "fast_retransmit") & (nxt_cat == "congestion"))
    return int((fr & bad).sum()), int(fr.sum())


def _cause(runs: pd.DataFrame, rec: pd.DataFrame, new: str, old: str) -> str:
    """Why the improvement is small: the recorded decisions of the new variant."""
    d = runs[(runs["variant"] == new) & (runs["loss_at"] == DEFAULT_LOSS_AT)]
    o = runs[(runs["variant"] == old) & (runs["loss_at"] == DEFAULT_LOSS_AT)]
    if d.empty or o.empty or "frs_wireless_true" not in d:
        return ""
    w_true, w_said = d["frs_wireless_true"].sum(), d["frs_wireless_said_wireless"].sum()
    text = (
        f"{LABELS[new]} kept the window on {w_said} of {w_true} fast retransmits of random "
        f"losses ({w_said / max(w_true, 1):.0%}); per run it had "
        f"{d['frs_congestion_true'].mean():.2f} fast retransmits of queue overflows and "
        f"{d['timeouts'].mean():.1f} timeouts against {o['frs_congestion_true'].mean():.2f} "
        f"and {o['timeouts'].mean():.1f} for {LABELS[old]}"
    )
    rec = rec[rec["loss_at"] == DEFAULT_LOSS_AT] if "loss_at" in rec else rec
    bad_new, n_new = after_recovery(rec, new, kept=True)
    bad_old, n_old = after_recovery(rec, old, kept=False)
    if n_new and n_old:
        text += (
            f"; the next recovery was a timeout or a queue overflow after {bad_new} of "
            f"{n_new} kept windows ({bad_new / n_new:.0%}), after {bad_old} of {n_old} "
            f"halvings of {LABELS[old]} ({bad_old / n_old:.0%}): a kept window ends Reno's "
            "fast recovery with a burst that the 10-packet FIFO drops"
        )
    return f"{text}; {DOC}."


def claims(runs: pd.DataFrame, rec: pd.DataFrame | None = None) -> list[Claim]:
    """PR > Reno and PR* > NewReno; the improvement beside the paper's 19.2%."""
    rec = pd.DataFrame() if rec is None else rec
    r = ratios(runs)
    default = r[r["loss_at"] == DEFAULT_LOSS_AT] if not r.empty else r
    other = r[r["loss_at"] != DEFAULT_LOSS_AT] if not r.empty else r
    out = [claim_paper_formula()]
    for new, old in PAIRS:
        pair = f"{LABELS[new]}/{LABELS[old]}"
        rows = default[default["pair"] == pair] if not default.empty else default
        parts = [
            judge(f"{pair} loss on {row['loss_at']}", interval_of(row), lambda iv: above(iv, 1.0))
            for _, row in rows.iterrows()
        ]
        note = _other_reading(other, pair)
        out.append(
            make_claim(
                f"{SOURCE}, Tables 1-2",
                f"{LABELS[new]}'s throughput by formula (7) is above {LABELS[old]}'s",
                f"{new}_above_{old}",
                f"paired ratio {pair} of formula (7) throughput: 95% CI above 1 "
                f"(loss on {DEFAULT_LOSS_AT})",
                parts,
                note=note,
                cause=_cause(runs, rec, new, old),
                fmt=".4g",
                empty=f"needs {LABELS[new]} and {LABELS[old]} runs",
            )
        )
    out.append(_claim_match(default, runs, rec))
    out.append(claim_table1(runs))
    return out


def claim_table1(runs: pd.DataFrame) -> Claim:
    """Table 1: PR sends more and has more packets acknowledged than Reno."""
    d = runs[runs["loss_at"] == DEFAULT_LOSS_AT] if "loss_at" in runs else runs
    parts = []
    for value, name in (("sent", "packets sent"), ("delivered", "acked packets")):
        r = paired_ratios(d, "variant", "pr", "reno", ["loss_at"], value=value)
        parts += [
            judge(f"PR/Reno {name}", interval_of(row), lambda iv: above(iv, 1.0))
            for _, row in r.iterrows()
        ]
    paper = (
        PAPER["pr"].bytes_sent / PAPER["reno"].bytes_sent,
        PAPER["pr"].acked / PAPER["reno"].acked,
    )
    return make_claim(
        f"{SOURCE}, Table 1",
        "PR sends more and has more packets acknowledged than Reno (the paper's ratios "
        f"{paper[0]:.3f} and {paper[1]:.3f})",
        "table1_more_sent_and_acked",
        f"paired ratios PR/Reno of packets sent and delivered: 95% CI above 1 (loss on "
        f"{DEFAULT_LOSS_AT})",
        parts,
        fmt=".4g",
        empty="needs PR and Reno runs",
    )


def _other_reading(other: pd.DataFrame, pair: str) -> str:
    if other.empty:
        return ""
    rows = other[other["pair"] == pair]
    return " ".join(
        f"With the loss on {row['loss_at']} (1% on each of r2-r3 and r3-r4): "
        f"{interval_of(row).text('.4g')}."
        for _, row in rows.iterrows()
    )


def _claim_match(default: pd.DataFrame, runs: pd.DataFrame, rec: pd.DataFrame) -> Claim:
    target = 1 + PAPER_IMPROVEMENT_PCT / 100
    lo, hi = target - MATCH_BAND, target + MATCH_BAND
    rows = default[default["pair"] == "PR/Reno"] if not default.empty else default
    parts = [
        judge(f"PR/Reno loss on {row['loss_at']}", interval_of(row), lambda iv: within(iv, lo, hi))
        for _, row in rows.iterrows()
    ]
    return make_claim(
        f"{SOURCE}, Table 2",
        f"PR's improvement over Reno is the paper's {PAPER_IMPROVEMENT_PCT}% "
        f"(within ±{MATCH_BAND:.0%} of Reno's throughput)",
        "pr_improvement_19pct",
        f"paired ratio PR/Reno: 95% CI inside [{lo:.3f}, {hi:.3f}]",
        parts,
        cause=_cause(runs, rec, "pr", "reno"),
        fmt=".4g",
        empty="needs PR and Reno runs",
    )


def plot_bars(tab: pd.DataFrame, out: Path) -> Figure:
    """Formula (7) throughput per variant and loss reading, with the paper's two bars."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    readings = sorted(set(tab["loss_at"]), key=lambda at: at != DEFAULT_LOSS_AT)
    width = 0.8 / max(len(readings), 1)
    variants = list(LABELS)
    for i, at in enumerate(readings):
        d = tab[tab["loss_at"] == at].set_index("variant").reindex(variants)
        x = np.arange(len(variants)) + i * width
        ax.bar(
            x,
            d["throughput_bps_mean"] / 1e3,
            width,
            yerr=d["throughput_bps_ci95"].fillna(0) / 1e3,
            capsize=3,
            label=f"ours, loss on {at}",
            color=[COLORS[v] for v in variants],
            alpha=1.0 if i == 0 else 0.55,
        )
    for proto, row in PAPER.items():
        xi = variants.index(proto)
        ax.plot(xi, row.throughput_bps / 1e3, "k*", ms=11, label=None)
    ax.plot([], [], "k*", ms=11, label="the paper (one run)")
    ax.set_xticks(np.arange(len(variants)) + width * (len(readings) - 1) / 2)
    ax.set_xticklabels([LABELS[v] for v in variants])
    ax.set_ylabel("throughput by formula (7) (kb/s)")
    ax.set_title("Fig. 3 chain, 1% random loss from 10 s (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, "pr_table1_2_throughput")
    return Figure(
        png,
        "Throughput by the paper's formula (7) per variant (bars: mean over seeds with 95% "
        "Student-t intervals; faded: the loss on r2-r3 and r3-r4); stars: the paper's Table 2.",
        svg=svg,
    )


def shown_table(tab: pd.DataFrame) -> pd.DataFrame:
    cols = {
        "loss_at": "loss on",
        "variant": "variant",
        "bytes_sent_mean": "bytes sent",
        "delivered_mean": "acked packets",
        "retransmits_mean": "retransmitted",
        "throughput_bps_mean": "throughput (7) b/s",
        "throughput_bps_ci95": "±95% CI",
        "timeouts_mean": "timeouts",
        "wireless_frs_mean": "window kept (FRs)",
        "acc_w_mean": "A_w",
        "throughput_bps_n": "seeds",
    }
    return tab[[c for c in cols if c in tab.columns]].rename(columns=cols)


def _recoveries(ctx: Context) -> pd.DataFrame:
    """The kept recoveries table of the successful runs (empty when not kept)."""
    if "recoveries" not in ctx.spec.keep:
        return pd.DataFrame()
    rec = ctx.result.table("recoveries")
    if "run_key" in rec.columns and "run_key" in ctx.ok_runs.columns:
        rec = rec[rec["run_key"].isin(set(ctx.ok_runs["run_key"]))]
    return rec


def analyse(ctx: Context) -> Analysis:
    runs = _bytes_per_packet(ctx.ok_runs)
    tab = table(runs)
    r = ratios(runs)
    figures = [plot_bars(tab, ctx.out)] if not tab.empty else []
    intro = (
        "Stojcevska and Popov's Fig. 3 chain n0-r0-r1-r2-r3-r4 as we set it up "
        "(scenarios/pr_chain.toml): every link 10 Mb/s 10 ms except the bottleneck r1-r2, "
        "1 Mb/s (ten times slower than r0-r1) with a 10-packet FIFO at r1; 1000-byte "
        "packets, window 20; 1% uniform loss on data packets from 10 s, on r3-r4 (default) "
        'or on r2-r3 and r3-r4 (the text\'s "line r2-r4"); one flow from 0 to 30 s. Rates '
        "and delays are ours (the paper gives none). 'Acked packets' are the packets "
        "delivered in order; formula (7) uses the packets that arrived and t = 30 s (the "
        "paper: t = 29.9 s). The paper's numbers are from one run; ours are means over seeds."
    )
    return Analysis(
        figures=figures,
        claims=claims(runs, _recoveries(ctx)),
        tables=[
            ("The paper's Tables 1-2 and formula (7) from its printed counts", paper_check()),
            ("Tables 1-2 columns, ours (mean over seeds)", shown_table(tab)),
            ("Improvement: paired ratios of formula (7) throughput", r),
        ],
        intro=intro,
    )


__all__ = ["PAPER", "analyse", "claims", "formula7", "paper_check", "ratios", "table"]
