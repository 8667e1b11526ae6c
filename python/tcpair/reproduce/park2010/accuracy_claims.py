"""Target ``lda_accuracy``'s verdicts (Park et al. 2010, Fig. 1): LDA_EQ's accuracy
against the paper's, LDA_EQ's A_t against every other detector's, and the goodput
enhancement over plain TCP with responder 1 (never always an improvement; 0% on
average), each decided from the measures of
:mod:`tcpair.reproduce.park2010.accuracy_measures` by its 95% interval
(:mod:`tcpair.evidence.verdict`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from tcpair.evidence.verdict import (
    FAILS,
    HOLDS,
    Interval,
    above,
    all_of,
    any_of,
    below,
    paired_difference,
    within,
)
from tcpair.reporting.page import Claim
from tcpair.reproduce.claims import Part, interval_of, judge, make_claim
from tcpair.reproduce.park2010.accuracy_measures import (
    ACC_NAMES,
    COUNTS,
    LABELS,
    PAPER_ENHANCEMENT,
    PAPER_LDA_EQ,
    average_enhancement,
    detector_order,
    enhancement,
    measured,
    per_seed_accuracy,
)

SOURCE = "Park et al. 2010"
DOC = 'docs/lda.md, section "Reproductions"'
NEAR = 0.10  # "about the paper's accuracy": within 10 percentage points
AVERAGE_BAND = 0.05  # "0% on average": the average enhancement within +-5%


def decisions(runs: pd.DataFrame, det: str) -> str:
    """What the detector decided, from the recorded counts: windows kept on each kind of
    fast retransmit, and timeouts per run beside plain TCP's."""
    m = measured(runs)
    d, n = m[m["detector"] == det], m[m["detector"] == "none"]
    if d.empty:
        return ""
    w_said, w_true = (int(d[c].sum()) for c in COUNTS["acc_w"])
    c_said, c_true = (int(d[c].sum()) for c in COUNTS["acc_c"])
    text = (
        f"{LABELS.get(det, det)} kept the window on {w_said} of {w_true} wireless and "
        f"{c_true - c_said} of {c_true} congestion fast retransmits"
    )
    if not n.empty:
        text += (
            f", {d['timeouts'].mean():.1f} timeouts per run (plain TCP {n['timeouts'].mean():.1f})"
        )
    return text


def claim_lda_eq_paper(runs: pd.DataFrame, acc: dict[str, dict[str, Interval]]) -> Claim:
    parts = [
        judge(
            f"LDA_EQ {ACC_NAMES[k]} (paper {v:.0%})",
            acc["lda_eq"][k],
            lambda iv, v=v: within(iv, v - NEAR, v + NEAR),
        )
        for k, v in PAPER_LDA_EQ.items()
        if "lda_eq" in acc and acc["lda_eq"][k].n > 0
    ]
    cause = ""
    if "lda_eq" in acc:
        got = ", ".join(f"{ACC_NAMES[k]} {acc['lda_eq'][k].estimate:.0%}" for k in PAPER_LDA_EQ)
        cause = (
            f"LDA_EQ on our paths: {got}; {decisions(runs, 'lda_eq')}. The paper measured on "
            f"a 5-hop 802.11 chain, we on point-to-point paths; {DOC}."
        )
    return make_claim(
        f"{SOURCE}, Fig. 1(a)",
        f"LDA_EQ's accuracy is the paper's: A_w 67%, A_c 93%, A_t 80% (each within "
        f"{NEAR:.0%} points)",
        "lda_eq_accuracy",
        f"A_w, A_c, A_t of LDA_EQ (counts pooled over the scenarios per seed, mean over "
        f"seeds): 95% CI inside the paper's value ± {NEAR:g}",
        parts,
        cause=cause,
        fmt=".3f",
        empty="needs LDA_EQ runs",
    )


def claim_highest(runs: pd.DataFrame) -> Claim:
    ps = per_seed_accuracy(runs)
    wide = ps.pivot(index="seed", columns="detector", values="acc_t")
    parts: list[Part] = []
    if "lda_eq" in wide:
        for det in detector_order(wide.columns):
            if det in ("lda_eq", "none"):
                continue
            iv = paired_difference(wide["lda_eq"].to_numpy(float), wide[det].to_numpy(float))
            if iv.n == 0:
                continue
            parts.append(judge(f"LDA_EQ - {LABELS.get(det, det)}", iv, lambda i: above(i, 0.0)))
    beaten = [p.label.split(" - ")[1] for p in parts if p.outcome != HOLDS]
    ties = [p.label.split(" - ")[1] for p in parts if p.iv.defined and p.iv.half == 0]
    cause = ""
    if beaten:
        cause = f"LDA_EQ's A_t is not above that of {', '.join(beaten)}"
        if ties:
            cause += f" ({', '.join(ties)}: the same A_t in every seed"
            if "NCPLD" in ties:
                cause += "; our NCPLD reading is LDA_EQ's rule but for RTT_max = RTT_min"
            cause += ")"
        cause += f"; {DOC}."
    return make_claim(
        f"{SOURCE}, Fig. 1(a)",
        "LDA_EQ has the highest A_t of the LDAs",
        "lda_eq_highest",
        "paired difference (by seed) of A_t, LDA_EQ minus each other LDA: 95% CI above 0",
        parts,
        cause=cause,
        fmt=".3f",
        empty="needs LDA_EQ runs and another detector's",
    )


def claim_not_always(runs: pd.DataFrame, keys: Sequence[str]) -> Claim:
    """'TCP's performance is not always improved with any of the LDAs'."""
    e = enhancement(runs, keys).dropna(subset=["ratio"]) if keys else pd.DataFrame()
    parts: list[Part] = []
    per_det = []
    for det, g in e.groupby("detector", sort=False):
        mine = [
            judge(
                f"{LABELS.get(str(det), det)} {_where(row, keys)}",
                interval_of(row),
                lambda iv: below(iv, 1.0),
            )
            for _, row in g.iterrows()
        ]
        parts += mine
        per_det.append((str(det), any_of(p.outcome for p in mine)))
    outcome = all_of(o for _, o in per_det)
    never = [LABELS.get(d, d) for d, o in per_det if o == FAILS]
    facts = "; ".join(decisions(runs, d) for d, o in per_det if o == FAILS)
    cause = (
        f"{', '.join(never)} never gave less goodput than plain TCP (no scenario with the "
        f"ratio's CI below 1): {facts}; {DOC}."
    )
    return make_claim(
        f"{SOURCE}, Fig. 1(b)",
        "TCP's goodput is not always improved with any LDA: for every LDA there is a "
        "scenario where TCP with it and responder 1 gets less than plain TCP",
        "not_always_improved",
        "per LDA, paired ratio goodput(LDA)/goodput(TCP): 95% CI below 1 in some scenario; "
        "every LDA",
        parts,
        combine=lambda _: outcome,
        cause=cause if never else "",
        empty="needs runs of plain TCP and of an LDA",
    )


def _where(row: pd.Series, keys: Sequence[str]) -> str:
    return ",".join(
        f"{k}={row[k]:g}" if isinstance(row[k], float) else f"{k}={row[k]}" for k in keys
    )


def claim_average(runs: pd.DataFrame, keys: Sequence[str]) -> Claim:
    parts = [
        judge(
            f"{LABELS[det]} average enhancement",
            average_enhancement(runs, keys, det),
            lambda iv: within(iv, -AVERAGE_BAND, AVERAGE_BAND),
        )
        for det in PAPER_ENHANCEMENT
        if keys and det in set(measured(runs)["detector"])
    ]
    return make_claim(
        f"{SOURCE}, Fig. 1(b)",
        f"with responder 1, Veno and LDA_EQ improve TCP by 0% on average (within "
        f"±{AVERAGE_BAND:.0%})",
        "average_enhancement_zero",
        f"per seed, mean over scenarios of goodput(LDA)/goodput(TCP) - 1: 95% CI inside "
        f"[-{AVERAGE_BAND:g}, {AVERAGE_BAND:g}]",
        parts,
        cause="; ".join(decisions(runs, d) for d in PAPER_ENHANCEMENT) + f"; {DOC}.",
        fmt=".3f",
        empty="needs runs of plain TCP, Veno and LDA_EQ",
    )


__all__ = [
    "claim_average",
    "claim_highest",
    "claim_lda_eq_paper",
    "claim_not_always",
    "decisions",
]
