"""The CLRP targets' goodput and delay claims, decided from 95% confidence
intervals (:mod:`tcpair.evidence.verdict`); ratios of two schemes are paired by seed.
Fig. 13's claim against Fig. 12's runs is in :mod:`.reference`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from tcpair.evidence.verdict import (
    FAILS,
    HOLDS,
    NA,
    Interval,
    above,
    all_of,
    below,
    difference,
    paired_ratio,
    within,
)
from tcpair.reporting.page import Claim
from tcpair.reproduce.claims import Part, interval_of, judge, make_claim, not_assessed
from tcpair.reproduce.common import GOODPUT, paired_ratios, scheme_points
from tcpair.reproduce.sun2005.reference import claim_below_reference, reference_runs
from tcpair.reproduce.sun2005.spec import (
    ABOVE_1,
    APP_DELAY,
    CLOSE,
    DELAY,
    DELAY_FLAT,
    DELAY_RISE,
    DELAY_WHAT,
    DISTINCT,
    EVERY,
    PAPER_CLRP_DELAY,
    PAPER_SNOOP_DELAY,
    SHORT,
    UP_TO_1,
    Check,
    FigSpec,
    RatioClaim,
    fig_source,
)

TESTS: dict[str, Callable[[Interval], str]] = {
    "above": lambda iv: above(iv, 1.0),
    "distinct": lambda iv: above(iv, 1 + DISTINCT),
    "close": lambda iv: within(iv, 1 - CLOSE, 1 + CLOSE),
}
RULE_WORDS = {
    "above": "95% CI above 1",
    "distinct": f"95% CI above {1 + DISTINCT:g}",
    "close": f"95% CI inside [{1 - CLOSE:g}, {1 + CLOSE:g}]",
    "paper_range": "95% CI inside 1 + the paper's gain range",
}


def _test(ck: Check) -> Callable[[Interval], str]:
    """The check's test; ``paper_range``: inside [1 + lo, 1 + hi] of the paper's gains
    (a single number: within +-CLOSE of 1 + it)."""
    if ck.test != "paper_range":
        return TESTS[ck.test]
    lo, hi = ck.paper or (0.0, 0.0)
    if lo == hi:
        return lambda iv: within(iv, (1 + lo) * (1 - CLOSE), (1 + lo) * (1 + CLOSE))
    return lambda iv: within(iv, 1 + lo, 1 + hi)
_RESULTS = 'docs/clrp.md, section "What they gave (full mode, 5 seeds, 2026-11-21)"'
# Why CLRP falls behind Snoop where the data reach the MH over a wireless hop.
FH_MH_CAUSE = (
    "CLRP's BS suppresses the DUPACKs of a wireless loss but has no local timer: a loss "
    "TCP-MH cannot report (fewer than 3 + 2 packets follow it, frequent at small windows) "
    "or a lost local retransmission waits for the FH's timeout; docs/clrp.md, section "
    '"Where we differ from the paper: FH -> MH".'
)
DELAY_CAUSE = (
    "Most of the delay is queueing in the MH's own interface queue, and CLRP keeps its "
    "window (and that queue) fuller than Snoop; docs/clrp.md, section \"The paper's "
    'end-to-end expectation".'
)
RISE_CAUSE = (
    "Most of the delay is queueing in the MH's own interface queue, which Snoop's smaller "
    "windows keep short, and recovery adds only a few ms per segment, so Snoop's delay "
    "rises little with the PLR; docs/clrp.md, section \"The paper's end-to-end "
    'expectation".'
)
TIE_CAUSE = f"At low PLR every scheme fills the link, so the ratios are 1; {_RESULTS}."


def points(runs: pd.DataFrame, by: Sequence[str] = ("scheme", "p")) -> pd.DataFrame:
    """Per (scheme, p): goodput in KB/s, delay and counters, mean/std/n/95% CI."""
    return scheme_points(runs, list(by))


def vs(runs: pd.DataFrame, num: str, den: str, value: str = GOODPUT) -> pd.DataFrame:
    """Ratio ``num``/``den`` of ``value`` per p, paired by seed, with a 95% CI."""
    return paired_ratios(runs, "scheme", num, den, ["p"], value=value)


def _pct(x: float) -> str:
    return f"{x:+.1%}"


def _paper(gain: tuple[float, float]) -> str:
    lo, hi = gain
    return _pct(lo) if lo == hi else f"{_pct(lo)} to {_pct(hi)}"


def _span(values: pd.Series, fmt: str = ".2f") -> str:
    """``a to b``, or ``a`` when every value prints the same."""
    lo, hi = f"{values.min():{fmt}}", f"{values.max():{fmt}}"
    return lo if lo == hi else f"from {lo} to {hi}"


def _in_band(r: pd.DataFrame, band: object) -> pd.DataFrame:
    return r[[band.contains(float(p)) for p in r["p"]]] if len(r) else r  # type: ignore[attr-defined]


def _ratio_cause(spec: FigSpec, rc: RatioClaim) -> str:
    clrp_vs = any(c.num == "clrp" and c.den == "snoop" for c in rc.checks)
    if spec.path in ("FH -> MH", "MH -> MH") and clrp_vs:
        return FH_MH_CAUSE
    if rc.band.hi <= 0.01 and any(c.den == "reno" and c.test != "close" for c in rc.checks):
        return TIE_CAUSE
    return ""


def claim_ratios(runs: pd.DataFrame, rc: RatioClaim, spec: FigSpec) -> Claim:
    """Every check of a :class:`RatioClaim` at every p of its range, on paired ratios."""
    src = fig_source(spec.figure)
    parts: list[Part] = []
    notes, missing, rules = [], [], []
    for ck in rc.checks:
        name = f"{SHORT[ck.num]}/{SHORT[ck.den]}"
        rules.append(f"{name}: {RULE_WORDS[ck.test]}")
        r = _in_band(vs(runs, ck.num, ck.den).dropna(subset=["ratio"]), rc.band)
        if r.empty:
            missing.append(name)
            continue
        parts += [
            judge(f"{name} p={row['p']:g}", interval_of(row), _test(ck))
            for _, row in r.iterrows()
        ]
        seen = f"{name} {_span(r['ratio'], '.3f')}"
        if ck.paper is not None:
            seen += f" (paper {_paper(ck.paper)} gain)"
        notes.append(seen)
    rule = "paired ratios " + "; ".join(rules) + f"; at every {rc.band.text}"
    where = "" if rc.band == EVERY else f" at {rc.band.text}"
    note = ("Ratios " + "; ".join(notes) + ".") if notes else ""
    outcome = all_of(p.outcome for p in parts)
    if missing and parts:
        note += f" Not assessed (no runs of both schemes): {', '.join(missing)}."
        outcome = FAILS if outcome == FAILS else NA
    return make_claim(
        src,
        rc.text,
        rc.claim_id,
        rule,
        parts,
        combine=lambda _: outcome,
        note=note,
        cause=_ratio_cause(spec, rc),
        empty=f"no swept PLR{where} with both schemes' runs",
    )


def _no_delay(runs: pd.DataFrame, col: str = DELAY) -> bool:
    return col not in runs.columns or runs[col].isna().all()


def _no_delay_msg(col: str) -> str:
    return f"the runs have no {col} column (a core without this delay)"


def _scheme_at(runs: pd.DataFrame, scheme: str, p: float) -> pd.DataFrame:
    return runs[(runs["scheme"] == scheme) & (runs["p"] == p)]


def between_points(runs: pd.DataFrame, scheme: str, col: str, pa: float, pb: float) -> Interval:
    """``col`` of ``scheme`` at p = ``pa`` over p = ``pb``, paired by seed."""
    a = _scheme_at(runs, scheme, pa)[["seed", col]]
    both = a.merge(_scheme_at(runs, scheme, pb)[["seed", col]], on="seed", suffixes=("_a", "_b"))
    return paired_ratio(both[f"{col}_a"], both[f"{col}_b"])


def _delay_means(runs: pd.DataFrame, scheme: str, col: str) -> pd.Series:
    d = runs[runs["scheme"] == scheme] if "scheme" in runs.columns else runs.iloc[0:0]
    return d.groupby("p")[col].mean().dropna().sort_index()


def claim_delay_flat(runs: pd.DataFrame, fig: str, col: str = DELAY) -> Claim:
    lo, hi = PAPER_CLRP_DELAY
    text = (
        f"CLRP's mean end-to-end delay stays at a constant level (the paper: between {lo:g} s "
        f"and {hi:g} s from 0.01% to 10% Good-state PLR), delay read as "
        f"{DELAY_WHAT[col]} ({col}): its largest over its smallest mean "
        f"over p <= {1 + DELAY_FLAT:g}"
    )
    rule = (
        f"paired ratio of CLRP's delay at any two PLRs (larger over smaller): 95% CI below "
        f"{1 + DELAY_FLAT:g}"
    )
    cid = f"{'app_' if col == APP_DELAY else ''}delay_flat"
    src = fig_source(fig)
    if _no_delay(runs, col):
        return not_assessed(src, text, cid, rule, _no_delay_msg(col))
    clrp = _delay_means(runs, "clrp", col)
    if clrp.empty:
        return not_assessed(src, text, cid, rule, "needs CLRP runs")
    parts = [
        judge(f"CLRP p={a:g}/p={b:g}", between_points(runs, "clrp", col, a, b), _flat)
        for a in clrp.index
        for b in clrp.index
        if a != b and clrp[a] >= clrp[b]
    ]
    note = (
        f"CLRP's mean delay {_span(clrp, '.3f')} s over {len(clrp)} PLRs (max/min "
        f"{clrp.max() / clrp.min():.2f}; paper {lo:g}-{hi:g} s, {hi / lo:.2f})."
    )
    high = _in_band(vs(runs, "clrp", "snoop", value=col).dropna(subset=["ratio"]), ABOVE_1)
    if len(high):
        note += (
            " Not part of the claim (the paper's text does not compare the two here): "
            f"CLRP/Snoop delay {_span(high['ratio'], '.2f')} at p > 1%."
        )
    return make_claim(src, text, cid, rule, parts, note=note, cause=DELAY_CAUSE)


def _flat(iv: Interval) -> str:
    return below(iv, 1 + DELAY_FLAT)


def _below_one(iv: Interval) -> str:
    return below(iv, 1.0)


def claim_delay_rise(runs: pd.DataFrame, fig: str, col: str = DELAY) -> Claim:
    lo, hi = PAPER_SNOOP_DELAY
    text = (
        f"Snoop's mean end-to-end delay increases sharply with the Good-state PLR (the paper: "
        f"from {lo:g} s to {hi:g} s, {hi / lo:.1f}x), delay read as {DELAY_WHAT[col]} "
        f"({col}): at the largest swept p it is >= {DELAY_RISE:g}x its value at the smallest"
    )
    rule = (
        f"paired ratio of Snoop's delay at the largest over the smallest p: 95% CI above "
        f"{DELAY_RISE:g}"
    )
    cid = f"{'app_' if col == APP_DELAY else ''}delay_rise"
    src = fig_source(fig)
    if _no_delay(runs, col):
        return not_assessed(src, text, cid, rule, _no_delay_msg(col))
    snoop = _delay_means(runs, "snoop", col)
    if len(snoop) < 2:
        return not_assessed(src, text, cid, rule, "needs Snoop runs at two PLRs or more")
    first, last = float(snoop.index[0]), float(snoop.index[-1])
    iv = between_points(runs, "snoop", col, last, first)
    part = judge(f"Snoop p={last:g}/p={first:g}", iv, lambda i: above(i, DELAY_RISE))
    note = (
        f"Snoop {snoop.iloc[0]:.3f} s at p={first:g} -> {snoop.iloc[-1]:.3f} s at p={last:g} "
        f"(paper {lo:g} -> {hi:g} s at 0.01% -> 10%); largest {snoop.max():.3f} s."
    )
    return make_claim(src, text, cid, rule, [part], note=note, cause=RISE_CAUSE)


def claim_pronounced(runs: pd.DataFrame, fig: str) -> Claim:
    text = (
        "the improvement of Snoop and CLRP over Reno is more pronounced above 1%: for each, "
        "the goodput ratio over Reno at every p > 1% exceeds its largest ratio at p <= 1%"
    )
    rule = (
        "for Snoop/Reno and CLRP/Reno (paired ratios): each ratio at p > 1% minus the "
        "largest at p <= 1%, 95% CIs combined in quadrature, above 0"
    )
    src = fig_source(fig)
    parts, missing = [], []
    for scheme in ("snoop", "clrp"):
        r = vs(runs, scheme, "reno").dropna(subset=["ratio"])
        low, high = _in_band(r, UP_TO_1), _in_band(r, ABOVE_1)
        name = f"{SHORT[scheme]}/Reno"
        if low.empty or high.empty:
            missing.append(name)
            continue
        top = low.loc[low["ratio"].idxmax()]
        ref = interval_of(top)
        parts += [
            judge(
                f"{name} p={row['p']:g} minus p={top['p']:g}",
                difference(interval_of(row), ref),
                lambda iv: above(iv, 0.0),
            )
            for _, row in high.iterrows()
        ]
    outcome = all_of(p.outcome for p in parts)
    note = ""
    if missing and parts:
        note = f"Not assessed: {', '.join(missing)}."
        outcome = FAILS if outcome == FAILS else NA
    return make_claim(
        src,
        text,
        "more_pronounced_above_1pct",
        rule,
        parts,
        combine=lambda _: outcome,
        note=note,
        empty="needs Reno, Snoop and CLRP runs on both sides of 1%",
    )


def goodput_claims(
    runs: pd.DataFrame, spec: FigSpec, ref: tuple[pd.DataFrame | None, str] = (None, "")
) -> dict[str, Callable[[], Claim]]:
    """The named (non-ratio) claims of the goodput and delay targets."""
    fig = spec.figure
    return {
        "delay_flat": lambda: claim_delay_flat(runs, fig),
        "delay_rise": lambda: claim_delay_rise(runs, fig),
        "app_delay_flat": lambda: claim_delay_flat(runs, fig, APP_DELAY),
        "app_delay_rise": lambda: claim_delay_rise(runs, fig, APP_DELAY),
        "pronounced": lambda: claim_pronounced(runs, fig),
        "below_fig12": lambda: claim_below_reference(runs, ref[0], ref[1], fig, "12"),
    }


__all__ = [
    "HOLDS",
    "claim_below_reference",
    "claim_delay_flat",
    "claim_delay_rise",
    "claim_pronounced",
    "claim_ratios",
    "goodput_claims",
    "points",
    "reference_runs",
    "vs",
]
