"""Target ``syndrome_fig14``'s verdicts: the paper's claims about the hand-offs
(:func:`claims`) and, beyond the paper, Syndrome + Freeze-TCP against every other
series (:func:`extra_claims`), each from the per-run measures of
:mod:`tcpair.reproduce.chen2002.fig14_traces`, paired by seed and judged by its 95%
interval (:mod:`tcpair.evidence.verdict`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import above, below, paired_difference, paired_ratio
from tcpair.reporting.page import Claim
from tcpair.reproduce.chen2002.fig14_traces import FLOWS, LABELS, SCHEMES
from tcpair.reproduce.claims import Part, judge, make_claim, not_assessed

SOURCE = "Chen et al. 2002 (Syndrome)"
OTHERS: tuple[str, ...] = ("snoop", "reno")
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

#: The paper's claims: id, text, what is measured (named when the runs lack it),
#: the column, how Syndrome is compared (:func:`_parts`) and the rule.
PAPER_CLAIMS: tuple[tuple[str, str, str, str, str, str], ...] = (
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
)


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
    out = []
    for cid, text, what, col, how, rule in PAPER_CLAIMS:
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


__all__ = ["PAPER_CLAIMS", "claims", "extra_claims"]
