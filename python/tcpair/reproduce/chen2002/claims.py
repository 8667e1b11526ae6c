"""The claims of Chen et al. 2002 (Syndrome), Figs. 10-13, each with its rule.

Every verdict is decided from 95% confidence intervals by the rule of
:mod:`tcpair.evidence.verdict`; ratios of goodputs are paired by seed (and S1/S2 by run).
A claim that compares with Snoop is judged against **ns-2's Snoop** (the
``snoop_ns2`` agent), the comparator the paper ran; the same rule applied to
tcpair's own Snoop (``snoop``, Amir et al. 1995 as written) and to ELN-Snoop is
shown beside it in the claim's detail. Runs without ``snoop_ns2`` (an older
sweep) are judged against ``snoop`` and say so.

- RTT bias (Fig. 10's first observation): S1/S2 above 1 for every scheme and
  loss rate.
- "very close ... over a wide range of p" (Fig. 10): Syndrome/Snoop inside
  1 +- 10% for both flows at every p of some run of consecutive swept p
  spanning at least a factor of 10 (a decade).
- "comparable" (Figs. 11, 13): Syndrome/Snoop inside 1 +- 10% for both flows
  at every point.
- "30-80 per cent more than TCP senders in the case of high packet loss rates"
  (Fig. 10): at every p >= 0.05, Snoop/Reno and Syndrome/Reno inside
  [1.30, 1.80] for both flows.
- Fig. 12, "notable discrepancy only when duplication exceeds 0.05 (S1) and
  0.1 (S2)": for each flow Syndrome/Snoop inside 1 +- 10% at every duplication
  probability up to the flow's onset and outside it at some probability above.
- Fig. 12, "in the worst case ... 20 per cent more aggressively than SNOOP":
  the largest Syndrome/Snoop ratio (the point with the largest estimate) inside
  [1.10, 1.30], "about 20%" read two-sided as 20% +- 10 points.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from tcpair.evidence.verdict import Interval, above, all_of, any_of, outside, within
from tcpair.reporting.page import FAILS, HOLDS, NA, Claim
from tcpair.reproduce.claims import Part, interval_of, judge, make_claim
from tcpair.reproduce.common import paired_ratios

FLOWS: tuple[str, ...] = ("s1", "s2")
SOURCE = "Chen et al. 2002 (Syndrome)"
COMPARATOR = "snoop_ns2"  # ns-2's Snoop: what the paper compared with
OTHER_SNOOPS: tuple[str, ...] = ("snoop", "eln_snoop")
LABELS = {
    "reno": "TCP-Reno",
    "snoop": "SNOOP (tcpair)",
    "snoop_ns2": "SNOOP (ns-2)",
    "eln_snoop": "ELN-SNOOP",
    "syndrome": "Syndrome",
}
_DOC = 'docs/syndrome.md, section "What the reproduction shows"'
RTT_CAUSE = (
    "S1 alone crosses the wired link with loss p/50, which a base station cannot hide, so "
    f"at high loss its advantage of the shorter RTT is lost; {_DOC}."
)
CLOSE_CAUSE = (
    "Syndrome repairs losses end to end with a sender held to its window: a second "
    "wireless loss in one window often waits for the timer, while a Snoop repairs "
    f"losses locally; {_DOC}."
)
REORDER_CAUSE = (
    "At low p the reordering upstream of the BS makes DUPACKs that ns-2's Snoop mostly "
    "suppresses while Syndrome's senders take them as congestion (compare the window "
    "cuts). At high p: " + CLOSE_CAUSE
)
GAIN_CAUSE = f"The gain over Reno grows with p past the paper's range; {_DOC}."
ONSET_CAUSE = f"No gap beyond 10% appears at any duplication probability; {_DOC}."
WORST_CAUSE = f"The largest Syndrome/Snoop ratio lies outside 20% +- 10 points; {_DOC}."
CLOSE = 0.10  # "comparable": within 10% of Snoop
WIDE = 10.0  # "a wide range of p": at least a decade
HIGH_LOSS_P = 0.05  # "high packet loss rates"
GAIN_MIN, GAIN_MAX = 0.30, 0.80  # "30-80 per cent more than TCP"
DUP_GAP = 0.10  # a "notable" gap
DUP_ONSET = {"s1": 0.05, "s2": 0.1}
WORST, WORST_TOL = 1.20, 0.10  # "about 20 per cent more aggressively"

Test = Callable[[Interval], str]


def vs(runs: pd.DataFrame, x_axis: str, num: str, den: str) -> pd.DataFrame:
    """Goodput ratio ``num``/``den`` per (x, flow), paired by seed, with a 95% CI."""
    return paired_ratios(runs, "scheme", num, den, [x_axis, "flow"])


def comparator(runs: pd.DataFrame) -> str:
    """The Snoop a claim is judged against: ns-2's if it ran, else tcpair's."""
    present = set(runs["scheme"]) if "scheme" in runs.columns else set()
    return COMPARATOR if COMPARATOR in present else "snoop"


def _parts(r: pd.DataFrame, x_axis: str, test: Test, prefix: str = "") -> list[Part]:
    return [
        judge(f"{prefix}{row['flow']} {x_axis}={row[x_axis]:g}", interval_of(row), test)
        for _, row in r.iterrows()
    ]


def _band(iv: Interval) -> str:
    return within(iv, 1 - CLOSE, 1 + CLOSE)


def _against(snoop: str) -> str:
    if snoop == COMPARATOR:
        return "ns-2's Snoop, the comparator the paper used"
    return "tcpair's Snoop (no run of ns-2's Snoop)"


def _beside(runs: pd.DataFrame, judged: str, verdict_of: Callable[[str], Claim]) -> str:
    """The same rule against the other Snoops that ran, as one sentence each."""
    out = []
    for s in (COMPARATOR, *OTHER_SNOOPS):
        if s == judged or s not in set(runs["scheme"]):
            continue
        c = verdict_of(s)
        out.append(f"Against {LABELS[s]}: {c.verdict} ({_short(c.detail)}).")
    return " ".join(out)


def _judged(runs: pd.DataFrame, verdict_of: Callable[[str], Claim]) -> Claim:
    """The claim judged against the paper's comparator (ns-2's Snoop when it ran), with
    the same rule against the other Snoops told beside it."""
    snoop = comparator(runs)
    claim = verdict_of(snoop)
    beside = _beside(runs, snoop, verdict_of)
    if beside and claim.verdict != NA:
        claim.detail += f" {beside}"
    return claim


def _short(detail: str, n: int = 160) -> str:
    d = detail.rstrip(".")
    return d if len(d) <= n else d[: n - 3] + "..."


def claim_rtt_bias(runs: pd.DataFrame, x_axis: str) -> Claim:
    text = (
        "TCP favours the short-RTT connection: mean goodput of S1 <-> MH > S2 <-> MH for "
        "every scheme and loss rate"
    )
    rule = "paired ratio S1/S2 (same runs): 95% CI above 1 for every scheme and point"
    r = paired_ratios(runs, "flow", "s1", "s2", ["scheme", x_axis])
    parts = [
        judge(f"{row['scheme']} {x_axis}={row[x_axis]:g}", interval_of(row), _above_one)
        for _, row in r.iterrows()
    ]
    return make_claim(
        f"{SOURCE}, Fig. 10", text, "rtt_bias", rule, parts, cause=RTT_CAUSE,
        empty="needs runs of both flows",
    )


def _above_one(iv: Interval) -> str:
    return above(iv, 1.0)


def _decade_windows(xs: list[float]) -> list[list[float]]:
    """The shortest runs of consecutive values spanning at least a factor WIDE."""
    out = []
    for i, lo in enumerate(xs):
        for j in range(i, len(xs)):
            if xs[j] >= WIDE * lo * (1 - 1e-9):
                out.append(xs[i : j + 1])
                break
    return out


def _over_a_decade(xs: list[float], parts: list[Part]) -> str:
    """Holds if every part holds at every x of some decade window (``xs[i]`` is
    the x of ``parts[i]``); not assessed if the grid spans less than a decade."""
    windows = _decade_windows(sorted(set(xs)))
    if not windows:
        return NA
    return any_of(
        all_of(p.outcome for x, p in zip(xs, parts, strict=True) if x in w) for w in windows
    )


def _close(runs: pd.DataFrame, x_axis: str, fig: str, snoop: str) -> Claim:
    wide = fig == "10"
    where = "over a wide range of p" if wide else f"at every {x_axis}"
    text = (
        f"Syndrome comparable to Snoop {where}: goodput ratio Syndrome/Snoop within "
        f"1 ± {CLOSE:.0%} for both flows; judged against {_against(snoop)}"
    )
    if fig == "11":
        text += " (the paper: 'comparable, and sometimes slightly better')"
    rule = f"paired ratio Syndrome/Snoop: 95% CI inside [{1 - CLOSE:g}, {1 + CLOSE:g}]"
    rule += " for each flow"
    rule += (
        f" at every p of some run of consecutive swept p spanning a factor >= {WIDE:g}"
        if wide
        else " at every point"
    )
    r = vs(runs, x_axis, "syndrome", snoop).dropna(subset=["ratio"])
    parts = _parts(r, x_axis, _band)
    above_n = sum(p.iv.low > 1 for p in parts if p.iv.defined)
    note = f"Syndrome above Snoop (CI above 1) at {above_n} of {len(parts)} points."
    combine = all_of
    if wide and parts:
        outcome = _over_a_decade(r[x_axis].tolist(), parts)
        combine = lambda _: outcome  # noqa: E731
    src = f"{SOURCE}, Fig. {fig}" if fig else SOURCE
    cause = REORDER_CAUSE if fig in ("11", "13") else CLOSE_CAUSE
    return make_claim(
        src, text, "comparable", rule, parts, combine=combine, note=note, cause=cause,
        empty="needs both Snoop and Syndrome runs",
    )


def claim_close(runs: pd.DataFrame, x_axis: str, fig: str) -> Claim:
    return _judged(runs, lambda s: _close(runs, x_axis, fig, s))


def _gain(runs: pd.DataFrame, x_axis: str, snoop: str) -> Claim:
    text = (
        f"at high loss (p >= {HIGH_LOSS_P:g}) Snoop and Syndrome get {GAIN_MIN:.0%}-"
        f"{GAIN_MAX:.0%} more goodput than Reno, both flows; Snoop is {_against(snoop)}"
    )
    rule = (
        f"paired ratios Snoop/Reno and Syndrome/Reno: 95% CI inside [{1 + GAIN_MIN:g}, "
        f"{1 + GAIN_MAX:g}] for each flow at every p >= {HIGH_LOSS_P:g}"
    )
    parts: list[Part] = []
    missing = []
    for scheme in (snoop, "syndrome"):
        r = vs(runs, x_axis, scheme, "reno").dropna(subset=["ratio"])
        r = r[r[x_axis] >= HIGH_LOSS_P * (1 - 1e-9)]
        if r.empty:
            missing.append(scheme)
        parts += _parts(r, x_axis, _in_gain_range, f"{LABELS[scheme]} ")
    gains = [p.iv.estimate - 1 for p in parts]
    note = f"Gain from {min(gains):+.0%} to {max(gains):+.0%}." if gains else ""
    if missing and parts:
        note += f" Not assessed for: {', '.join(missing)} (no runs)."
    claim = make_claim(
        f"{SOURCE}, Fig. 10", text, "gain_over_reno", rule, parts, note=note, cause=GAIN_CAUSE,
        empty=f"needs Reno and Snoop/Syndrome runs at p >= {HIGH_LOSS_P:g}",
    )
    if missing and claim.verdict == HOLDS:
        claim.verdict = NA
    return claim


def _in_gain_range(iv: Interval) -> str:
    return within(iv, 1 + GAIN_MIN, 1 + GAIN_MAX)


def claim_gain(runs: pd.DataFrame, x_axis: str) -> Claim:
    return _judged(runs, lambda s: _gain(runs, x_axis, s))


def _onset(runs: pd.DataFrame, x_axis: str, snoop: str) -> Claim:
    text = (
        f"a notable gap (|Syndrome/Snoop - 1| > {DUP_GAP:.0%}) appears only once the "
        f"duplication probability exceeds {DUP_ONSET['s1']:g} for S1 and {DUP_ONSET['s2']:g} "
        f"for S2: no such gap at or below the onset, and one at some probability above it; "
        f"Snoop is {_against(snoop)}"
    )
    lo, hi = 1 - DUP_GAP, 1 + DUP_GAP
    rule = (
        f"per flow, paired ratio Syndrome/Snoop: 95% CI inside [{lo:g}, {hi:g}] at every "
        "probability up to the onset, and outside it at some probability above"
    )
    r = vs(runs, x_axis, "syndrome", snoop).dropna(subset=["ratio"])
    parts, per_flow = [], []
    for flow in FLOWS:
        d = r[r["flow"] == flow]
        if d.empty:
            continue
        onset = DUP_ONSET[flow] * (1 + 1e-9)
        early = _parts(d[d[x_axis] <= onset], x_axis, _band)
        late = _parts(d[d[x_axis] > onset], x_axis, lambda iv: outside(iv, lo, hi))
        parts += early + late
        per_flow.append(all_of([all_of(p.outcome for p in early), any_of(p.outcome for p in late)]))
        if not late:
            per_flow[-1] = FAILS  # nothing swept above the onset: no gap can appear
    outcome = all_of(per_flow)
    return make_claim(
        f"{SOURCE}, Fig. 12", text, "duplication_onset", rule, parts,
        combine=lambda _: outcome, cause=ONSET_CAUSE, empty="needs both Snoop and Syndrome runs",
    )


def claim_dup_onset(runs: pd.DataFrame, x_axis: str) -> Claim:
    return _judged(runs, lambda s: _onset(runs, x_axis, s))


def _worst(runs: pd.DataFrame, x_axis: str, snoop: str) -> Claim:
    lo, hi = WORST - WORST_TOL, WORST + WORST_TOL
    text = (
        f"in the worst case Syndrome is about {WORST - 1:.0%} more aggressive than Snoop: the "
        f"largest goodput ratio Syndrome/Snoop is about {WORST:g} (the paper's worst case: S2 at "
        f"duplication 0.1); Snoop is {_against(snoop)}"
    )
    rule = (
        f"paired ratio Syndrome/Snoop at the point with the largest estimate: 95% CI inside "
        f"[{lo:g}, {hi:g}] ('about 20%' as 20% ± 10 points, both sides)"
    )
    r = vs(runs, x_axis, "syndrome", snoop).dropna(subset=["ratio"])
    if r.empty:
        return make_claim(f"{SOURCE}, Fig. 12", text, "worst_case", rule, [],
                          empty="needs both Snoop and Syndrome runs")
    top = r.loc[[r["ratio"].idxmax()]]
    parts = _parts(top, x_axis, lambda iv: within(iv, lo, hi))
    return make_claim(
        f"{SOURCE}, Fig. 12", text, "worst_case", rule, parts, cause=WORST_CAUSE,
        note=f"Ratios over all {len(r)} points: {r['ratio'].min():.3g} to {r['ratio'].max():.3g}.",
    )


def claim_dup_worst(runs: pd.DataFrame, x_axis: str) -> Claim:
    return _judged(runs, lambda s: _worst(runs, x_axis, s))


__all__ = [
    "COMPARATOR",
    "DUP_ONSET",
    "FLOWS",
    "LABELS",
    "claim_close",
    "claim_dup_onset",
    "claim_dup_worst",
    "claim_gain",
    "claim_rtt_bias",
    "comparator",
    "vs",
]
