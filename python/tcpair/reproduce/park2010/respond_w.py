"""Target ``respond_w``: Park et al. 2010, Fig. 3 (the W group, wireless losses only).

The paper's claims are judged on the runs with detector ``always_wireless`` (the
method answers every fast retransmit, as in the paper); the ``oracle`` runs (the method
answers only the fast retransmits whose loss was wireless by the ground truth) are our
addition and are shown beside them. Every rule is a relative goodput of
:mod:`tcpair.reproduce.park2010.respond` judged by its 95% interval (``tcpair.evidence.verdict``):

- "1, 21, 24, 27 improve at one hop": each method's goodput relative to method 0 at one
  hop, pooled over loss rates and buffers, above 1;
- "11-17 never improve": every bar of both panels at most 1;
- "15, 16, 25, 26 degrade severely": every bar of both panels below 0.8 (more than 20%
  lost: our threshold for "severely");
- "21 best at high loss": at one hop and the highest loss rate, 21 relative to each of
  1, 24 and 27 above 1 (the paper compares the four improving methods);
- "1 best as the hops grow": at the most hops, 1 relative to each of 21, 24, 27 above 1;
- "adaptive beats 1 and 21" (ours): over all scenarios, per detector, above 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from tcpair.evidence.verdict import above, below
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim
from tcpair.reproduce.claims import FAILS, judge, make_claim
from tcpair.reproduce.park2010.respond import (
    ADAPTIVE,
    BASE,
    DOC,
    SLOW_START,
    SOURCE,
    at_most,
    bar_parts,
    behaviour,
    counts_text,
    panels,
    per_run,
    plot_panel,
    relative,
    select,
)

PAPER = "always_wireless"
IMPROVING = ("1", "21", "24", "27")
LARGE = ("15", "16", "25", "26")
SEVERE = 0.8


def _paper(g: pd.DataFrame) -> pd.DataFrame:
    return select(g, {"detector": PAPER}) if "detector" in g.columns else g


def _failing(parts) -> list[str]:
    return [p.label for p in parts if p.outcome == FAILS]


def claim_improve(g: pd.DataFrame) -> Claim:
    one = select(g, {"hops": 1})
    parts = [
        judge(f"method {m} at 1 hop", relative(one, m, BASE), lambda iv: above(iv, 1.0))
        for m in IMPROVING
        if m in set(one["method"])
    ]
    lost = _failing(parts)
    cause = (
        f"not every one improves at one hop ({'; '.join(lost)}); timeouts per run at one "
        f"hop: {counts_text(one, [BASE, *IMPROVING])}: with loss on every hop in both "
        f"directions the retransmission timer, not the window, sets the pace ({DOC}, "
        "'The W group')."
    )
    return make_claim(
        SOURCE,
        "methods 1, 21, 24 and 27 improve TCP's goodput at one hop",
        "improve_one_hop",
        "per method, goodput / method 0's at one hop pooled over loss and buffer: 95% CI above 1",
        parts,
        cause=cause if lost else "",
    )


def claim_never(tables: dict[str, pd.DataFrame]) -> Claim:
    parts = [
        *bar_parts(
            tables.get("a", pd.DataFrame()),
            "loss",
            SLOW_START,
            lambda iv: at_most(iv, 1.0),
            "1 hop, ",
        ),
        *bar_parts(
            tables.get("b", pd.DataFrame()), "hops", SLOW_START, lambda iv: at_most(iv, 1.0)
        ),
    ]
    lost = _failing(parts)
    cause = (
        f"some slow-start methods improve on method 0 ({'; '.join(lost[:4])}): where the "
        f"timer dominates, entering slow start with ssthresh = 64 KB refills the pipe faster "
        f"than TCP's halving ({DOC}, 'The W group')."
    )
    return make_claim(
        SOURCE,
        "the slow-start methods 11-17 never improve TCP's goodput",
        "slow_start_never",
        "every bar of both panels (method 11-17 / method 0): 95% CI at or below 1",
        parts,
        cause=cause if lost else "",
    )


def claim_severe(tables: dict[str, pd.DataFrame]) -> Claim:
    parts = [
        *bar_parts(
            tables.get("a", pd.DataFrame()), "loss", LARGE, lambda iv: below(iv, SEVERE), "1 hop, "
        ),
        *bar_parts(tables.get("b", pd.DataFrame()), "hops", LARGE, lambda iv: below(iv, SEVERE)),
    ]
    lost = _failing(parts)
    cause = (
        f"not every bar of 15, 16, 25, 26 loses 20% ({'; '.join(lost[:4])}) ({DOC}, 'The W group')."
    )
    return make_claim(
        SOURCE,
        "methods 15, 16, 25 and 26 (large windows) degrade TCP's goodput severely",
        "large_windows_severe",
        f"every bar of both panels: 95% CI below {SEVERE} of method 0 (our threshold for "
        "'severely')",
        parts,
        cause=cause if lost else "",
    )


def claim_best(
    g: pd.DataFrame,
    where: dict,
    best: str,
    rivals: Sequence[str],
    cid: str,
    text: str,
    where_text: str,
) -> Claim:
    at = select(g, where)
    parts = [
        judge(f"{best}/{r} {where_text}", relative(at, best, r), lambda iv: above(iv, 1.0))
        for r in rivals
        if {best, r} <= set(at["method"])
    ]
    lost = _failing(parts)
    cause = (
        f"{best} is not above every rival {where_text} ({'; '.join(lost)}); timeouts per run "
        f"there: {counts_text(at, [BASE, best, *rivals])} ({DOC}, 'The W group')."
    )
    return make_claim(
        SOURCE,
        text,
        cid,
        f"{where_text}: goodput({best}) / goodput(rival) for each of "
        f"{', '.join(rivals)}: 95% CI above 1",
        parts,
        cause=cause if lost else "",
    )


def claim_adaptive(g: pd.DataFrame, opponent: str) -> Claim:
    parts = []
    dets = sorted(g["detector"].unique()) if "detector" in g.columns else [PAPER]
    for det in dets:
        d = select(g, {"detector": det}) if "detector" in g.columns else g
        if {ADAPTIVE, opponent} <= set(d["method"]):
            parts.append(
                judge(
                    f"adaptive/{opponent} with {det}",
                    relative(d, ADAPTIVE, opponent),
                    lambda iv: above(iv, 1.0),
                )
            )
    lost = _failing(parts)
    cause = (
        f"adaptive does not beat method {opponent} ({'; '.join(lost)}): on the chain the "
        f"flow's own backlog at the first station inflates its RTT, so the rule drains to TCP's "
        f"response (timeouts per run: {counts_text(g, [BASE, opponent, ADAPTIVE])}) ({DOC}, "
        "'The adaptive responder on the chain')."
    )
    return make_claim(
        "ours; Park et al. 2010, §5 (future work)",
        f"the adaptive responder gives more goodput than method {opponent} (W group)",
        f"adaptive_beats_{opponent}",
        f"per detector, goodput(adaptive) / goodput({opponent}) pooled over every scenario: "
        "95% CI above 1",
        parts,
        cause=cause if lost else "",
        empty=f"needs runs of methods adaptive and {opponent}",
    )


def claims(g: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> list[Claim]:
    out = [claim_improve(g), claim_never(tables), claim_severe(tables)]
    if not g.empty:
        hi_loss = max(g["loss"]) if "loss" in g.columns else None
        far = max(g["hops"]) if "hops" in g.columns else None
        out.append(
            claim_best(
                g,
                {"hops": 1, "loss": hi_loss},
                "21",
                ("1", "24", "27"),
                "best_high_loss",
                "method 21 is the best of the four improving methods at high loss",
                f"at 1 hop, loss {hi_loss}",
            )
        )
        out.append(
            claim_best(
                g,
                {"hops": far},
                "1",
                ("21", "24", "27"),
                "best_more_hops",
                "method 1 is the best as the number of hops grows",
                f"at {far} hops",
            )
        )
    return out


def analyse(ctx: Context) -> Analysis:
    g = per_run(ctx.ok_runs, ctx.spec.axis_names)
    figures, tables = [], []
    for det in sorted(g["detector"].unique()) if "detector" in g.columns else []:
        d = select(g, {"detector": det})
        whose = "the paper's setting" if det == PAPER else "ours: the ground truth decides"
        p = panels(d, "loss", {"hops": 1})
        if "a" in p:
            figures.append(
                plot_panel(
                    p["a"],
                    "loss",
                    f"(a) one hop, by loss rate; detector {det} ({whose})",
                    ctx.out,
                    f"w_a_{det}",
                )
            )
        if "b" in p:
            figures.append(
                plot_panel(
                    p["b"],
                    "hops",
                    f"(b) by hop count; detector {det} ({whose})",
                    ctx.out,
                    f"w_b_{det}",
                )
            )
    paper = _paper(g)
    p = panels(paper, "loss", {"hops": 1})
    tables.append(
        (
            "Per detector, hop count, loss and method: the flow per run (means)",
            behaviour(g, ["detector", "hops", "loss"]),
        )
    )
    intro = (
        "Park et al. 2010's W group on our 802.11b chain (scenarios/respond_chain.toml): one "
        "flow, wireless losses only, every fast retransmit answered by the method under test "
        "(detector always_wireless, the paper's setting; detector oracle is our addition). "
        "Goodput relative to method 0 on the same scenarios and seeds. The paper ran QualNet "
        f"4.5; what differs and why the claims fare as they do is in {DOC}."
    )
    return Analysis(
        figures=figures,
        claims=[*claims(paper, p), *(claim_adaptive(g, o) for o in ("1", "21"))],
        tables=tables,
        intro=intro,
    )


__all__ = ["analyse", "claims"]
