"""Target ``respond_c``: Park et al. 2010, Fig. 4 (the C group, congestion losses only,
every fast retransmit taken as wireless).

A bar of the paper's figure is one hop with N flows (panel (a)) or h hops pooled over the
flow counts and buffers (panel (b)). Every rule is a relative goodput (aggregate of the
N flows) of :mod:`tcpair.reproduce.park2010.respond`, judged by its 95% interval:

- "21 degrades least": in every bar, goodput(21) / goodput(X) above 1 for every other
  method X of the fifteen;
- "21 hardly degrades": in every bar, 21 relative to method 0 above 0.9 (less than 10%
  lost: our threshold for "hardly");
- "1, 22, 24 degrade similarly": in every bar, each pair's ratio within [0.9, 1.1] (our
  threshold for "similar");
- "the others degrade severely": every bar of the methods other than 1, 21, 22, 24 below
  0.8 of method 0 (our threshold for "severely", as in the W group);
- "adaptive beats 1 and 21" (ours): pooled over every scenario, above 1.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from tcpair.evidence.verdict import above, below, within
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim
from tcpair.reproduce.claims import FAILS, Part, judge, make_claim
from tcpair.reproduce.park2010.respond import (
    ADAPTIVE,
    BASE,
    DOC,
    FIFTEEN,
    SOURCE,
    behaviour,
    counts_text,
    panels,
    per_run,
    plot_panel,
    relative,
    select,
)

SIMILAR = ("1", "22", "24")
HARDLY = 0.9
SEVERE = 0.8
BAND = (0.9, 1.1)


def bar_groups(g: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """The bars' runs: (a) one hop per flow count, (b) per hop count pooled."""
    if "hops" not in g.columns:
        return
    one = select(g, {"hops": 1})
    if "flows" in one.columns:
        for n, part in one.groupby("flows", sort=True):
            yield f"1 hop, {n} flows", part
    for h, part in g.groupby("hops", sort=True):
        yield f"{h} hops", part


def _failing(parts: list[Part]) -> list[str]:
    return [p.label for p in parts if p.outcome == FAILS]


def claim_least(g: pd.DataFrame) -> Claim:
    parts = []
    for where, part in bar_groups(g):
        have = set(part["method"])
        parts += [
            judge(f"21/{x} {where}", relative(part, "21", x), lambda iv: above(iv, 1.0))
            for x in FIFTEEN
            if x != "21" and {x, "21"} <= have
        ]
    lost = _failing(parts)
    cause = (
        f"another method keeps more goodput than 21 somewhere ({'; '.join(lost[:4])}) "
        f"({DOC}, 'The C group')."
    )
    return make_claim(
        SOURCE,
        "method 21 degrades TCP's goodput least of the fifteen methods",
        "least_21",
        "in every bar, goodput(21) / goodput(X) for every other method X: 95% CI above 1",
        parts,
        cause=cause if lost else "",
    )


def claim_hardly(g: pd.DataFrame) -> Claim:
    parts = [
        judge(f"21 {where}", relative(part, "21", BASE), lambda iv: above(iv, HARDLY))
        for where, part in bar_groups(g)
        if {"21", BASE} <= set(part["method"])
    ]
    lost = _failing(parts)
    cause = (
        f"method 21 loses more than 10% of method 0's goodput ({'; '.join(lost[:4])}); "
        f"timeouts per run: {counts_text(g, [BASE, '21'])} ({DOC}, 'The C group')."
    )
    return make_claim(
        SOURCE,
        "method 21 hardly degrades TCP's goodput",
        "hardly_21",
        f"in every bar, 21 / method 0: 95% CI above {HARDLY} (our threshold for 'hardly')",
        parts,
        cause=cause if lost else "",
    )


def claim_similar(g: pd.DataFrame) -> Claim:
    pairs = [(a, b) for i, a in enumerate(SIMILAR) for b in SIMILAR[i + 1 :]]
    parts = []
    for where, part in bar_groups(g):
        have = set(part["method"])
        parts += [
            judge(f"{a}/{b} {where}", relative(part, a, b), lambda iv: within(iv, *BAND))
            for a, b in pairs
            if {a, b} <= have
        ]
    lost = _failing(parts)
    cause = (
        f"the three do not degrade alike ({'; '.join(lost[:4])}); window cuts per run: "
        f"{counts_text(g, [BASE, *SIMILAR], 'window_cuts')}: method 22 (cwnd = ssthresh = "
        f"TCP's halving, once per episode) is TCP's own response, so it does not degrade at "
        f"all ({DOC}, 'The C group')."
    )
    return make_claim(
        SOURCE,
        "methods 1, 22 and 24 degrade TCP's goodput similarly",
        "similar_1_22_24",
        f"in every bar, each pair's goodput ratio: 95% CI within [{BAND[0]}, {BAND[1]}] (our "
        "threshold for 'similar')",
        parts,
        cause=cause if lost else "",
    )


def claim_others(g: pd.DataFrame) -> Claim:
    others = [m for m in FIFTEEN if m not in (*SIMILAR, "21")]
    parts = []
    for where, part in bar_groups(g):
        have = set(part["method"])
        parts += [
            judge(f"{m} {where}", relative(part, m, BASE), lambda iv: below(iv, SEVERE))
            for m in others
            if {m, BASE} <= have
        ]
    lost = _failing(parts)
    cause = f"not every other method loses 20% ({'; '.join(lost[:4])}) ({DOC}, 'The C group')."
    return make_claim(
        SOURCE,
        "the methods other than 1, 21, 22 and 24 degrade TCP's goodput severely",
        "others_severe",
        f"in every bar, method / method 0: 95% CI below {SEVERE} (our threshold for 'severely')",
        parts,
        cause=cause if lost else "",
    )


def claim_adaptive(g: pd.DataFrame, opponent: str) -> Claim:
    parts = []
    if {ADAPTIVE, opponent} <= set(g["method"]):
        parts.append(
            judge(
                f"adaptive/{opponent}", relative(g, ADAPTIVE, opponent), lambda iv: above(iv, 1.0)
            )
        )
    lost = _failing(parts)
    cause = (
        f"adaptive does not beat method {opponent}: window cuts per run "
        f"{counts_text(g, [BASE, opponent, ADAPTIVE], 'window_cuts')} ({DOC}, "
        "'The adaptive responder on the chain')."
    )
    return make_claim(
        "ours; Park et al. 2010, §5 (future work)",
        f"the adaptive responder gives more goodput than method {opponent} (C group)",
        f"adaptive_beats_{opponent}",
        f"goodput(adaptive) / goodput({opponent}) pooled over every scenario: 95% CI above 1",
        parts,
        cause=cause if lost else "",
        empty=f"needs runs of adaptive and {opponent}",
    )


def analyse(ctx: Context) -> Analysis:
    g = per_run(ctx.ok_runs, ctx.spec.axis_names)
    figures = []
    p = panels(g, "flows", {"hops": 1}) if not g.empty else {}
    if "a" in p:
        figures.append(
            plot_panel(p["a"], "flows", "(a) one hop, by number of flows", ctx.out, "c_a")
        )
    if "b" in p:
        figures.append(plot_panel(p["b"], "hops", "(b) by hop count", ctx.out, "c_b"))
    intro = (
        "Park et al. 2010's C group on our 802.11b chain (scenarios/respond_chain.toml): N "
        "flows from the first station, no wireless loss, every fast retransmit of every flow "
        "answered by the method under test (detector always_wireless). Aggregate goodput "
        "relative to method 0 on the same scenarios and seeds. The paper ran QualNet 4.5; "
        f"what differs and why the claims fare as they do is in {DOC}."
    )
    claims = []
    if not g.empty:
        claims = [
            claim_least(g),
            claim_hardly(g),
            claim_similar(g),
            claim_others(g),
            *(claim_adaptive(g, o) for o in ("1", "21")),
        ]
    return Analysis(
        figures=figures,
        claims=claims,
        tables=[
            (
                "Per hop count, flow count and method: the N flows per run (sums, means over runs)",
                behaviour(g, ["hops", "flows"]),
            )
        ],
        intro=intro,
    )


__all__ = ["analyse"]
