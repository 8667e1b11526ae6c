"""Target ``snoop_fig3``'s verdicts (Amir et al. 1995, Fig. 3): Snoop's tolerance of
a tenfold BER, its speedup of up to 25x, the peak near BER 1e-4 and the taper at low
error rates, each decided from goodputs paired by seed and judged by its 95%
interval (:mod:`tcpair.evidence.verdict`). How each claim is read:
:mod:`tcpair.reproduce.amir1995.fig3`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import (
    INCONCLUSIVE,
    Interval,
    above,
    all_of,
    any_of,
    below,
    difference,
    implies,
    paired_ratio,
    within,
)
from tcpair.reporting.page import FAILS, HOLDS, Claim
from tcpair.reproduce.claims import Part, interval_of, judge, make_claim, not_assessed
from tcpair.reproduce.common import GOODPUT

SOURCE = "Amir et al. 1995 (Snoop), Fig. 3"
SPEEDUP_CAUSE = (
    "At the edge of collapse the speedup is the ratio of two small goodputs and depends "
    "on the TCP's timer details the paper leaves open (our 4.3BSD-Reno timer: 500 ms "
    'ticks, 1 s minimum RTO); docs/snoop.md, section "Reproduction of Amir '
    'et al. 1995 (Snoop), Fig. 3".'
)
UNDEGRADED = 0.90  # a scheme is undegraded at >= 90% of Reno's lowest-BER goodput
BER_FACTOR = 10.0
PAPER_SPEEDUP = 25.0
SPEEDUP_FACTOR = 2.0  # "up to ~25x" holds for a maximum in [25/2, 25*2]
PEAK_BAND = (3e-5, 3e-4)  # "maximum around an error rate of 1e-4"
PAPER_BERS = (1e-7, 1e-4)  # "for error rates between 10^-4 and 10^-7"
TAPER_BER = 1e-6  # "tapers off for error rates [beyond] 10^-6", the low-BER side
TAPER_MAX = PAPER_SPEEDUP / 10  # "tapers off": below a tenth of the peak speedup


def _at(runs: pd.DataFrame, scheme: str, ber: float) -> pd.DataFrame:
    """The runs of ``scheme`` at the swept BER equal to ``ber`` (to rounding)."""
    d = runs[runs["scheme"] == scheme] if "scheme" in runs.columns else runs.iloc[0:0]
    return d[np.isclose(d["ber"].astype(float), ber, rtol=1e-6, atol=0.0)]


def relative(runs: pd.DataFrame, scheme: str, ber: float, ref: pd.DataFrame) -> Interval:
    """Goodput of ``scheme`` at ``ber`` over the reference runs, paired by seed."""
    a = _at(runs, scheme, ber)[["seed", GOODPUT]]
    both = a.merge(ref[["seed", GOODPUT]], on="seed", suffixes=("_a", "_b"))
    return paired_ratio(both[f"{GOODPUT}_a"], both[f"{GOODPUT}_b"])


def largest_undegraded(series: pd.Series, reference: float) -> float | None:
    """Largest BER b such that the scheme's mean is undegraded at every swept BER <= b."""
    best = None
    for b, g in series.sort_index().items():
        if g >= UNDEGRADED * reference:
            best = float(b)
        else:
            break
    return best


def _mean_at(pts: pd.DataFrame, scheme: str) -> pd.Series:
    d = pts[pts["scheme"] == scheme]
    return pd.Series(d[f"{GOODPUT}_mean"].to_numpy(float), index=d["ber"].to_numpy(float))


def claim_tolerance(runs: pd.DataFrame, pts: pd.DataFrame) -> Claim:
    text = (
        f"Snoop tolerates >= {BER_FACTOR:g}x the BER of Reno without degradation: for every "
        f"swept BER b at which Reno is undegraded (goodput >= {UNDEGRADED:.0%} of Reno's "
        f"at the lowest BER) and {BER_FACTOR:g}b is swept, Snoop at {BER_FACTOR:g}b is also "
        f">= {UNDEGRADED:.0%} of that reference, over the paper's BER range "
        f"{PAPER_BERS[0]:g}..{PAPER_BERS[1]:g}"
    )
    rule = (
        f"for every b with b and 10b swept inside [{PAPER_BERS[0]:g}, {PAPER_BERS[1]:g}]: "
        f"if Reno(b)/Reno(lowest BER) has its 95% CI above "
        f"{UNDEGRADED:g} then Snoop(10b)/Reno(lowest BER) must too (ratios paired by seed; "
        "a b where Reno's ratio is surely below is not tested)"
    )
    bers = sorted(float(b) for b in runs["ber"].unique()) if len(runs) else []
    reno_b = [b for b in bers if len(_at(runs, "reno", b))]
    if not reno_b or not len(runs[runs["scheme"] == "snoop"]):
        return not_assessed(SOURCE, text, "ber_tolerance", rule, "needs both Reno and Snoop runs")
    ref = _at(runs, "reno", reno_b[0])
    parts, implied = [], []
    lo_b, hi_b = PAPER_BERS
    for b in reno_b:
        inside = lo_b * (1 - 1e-9) <= b and b * BER_FACTOR <= hi_b * (1 + 1e-9)
        if not inside or not len(_at(runs, "snoop", b * BER_FACTOR)):
            continue
        premise = judge(f"Reno@{b:g}", relative(runs, "reno", b, ref), _undegraded)
        snoop = relative(runs, "snoop", b * BER_FACTOR, ref)
        implied.append(implies(premise.outcome, _undegraded(snoop)))
        parts += [premise, Part(f"Snoop@{b * BER_FACTOR:g}", snoop, implied[-1])]
    reno, snoop_m = _mean_at(pts, "reno"), _mean_at(pts, "snoop")
    ref_mean = float(reno.sort_index().iloc[0])
    lr, ls = largest_undegraded(reno, ref_mean), largest_undegraded(snoop_m, ref_mean)
    note = (
        f"Reference: Reno at BER {reno_b[0]:g}, {ref_mean:.1f} KB/s. Largest BER with the mean "
        f"undegraded at every lower BER: Reno {lr:g}, Snoop "
        + (f"{ls:g}" if ls is not None else "none")
        + (f" ({ls / lr:g}x)." if ls is not None and lr else ".")
    )
    return make_claim(
        SOURCE,
        text,
        "ber_tolerance",
        rule,
        parts,
        combine=lambda _: all_of(implied),
        note=note,
        empty="no swept BER b with 10b swept",
    )


def _undegraded(iv: Interval) -> str:
    return above(iv, UNDEGRADED)


def claim_speedup(sp: pd.DataFrame) -> Claim:
    lo, hi = PAPER_SPEEDUP / SPEEDUP_FACTOR, PAPER_SPEEDUP * SPEEDUP_FACTOR
    text = (
        f"speedups of up to ~{PAPER_SPEEDUP:g}x: the largest speedup Snoop/Reno over the "
        f"swept BERs lies in [{lo:g}, {hi:g}] (within a factor {SPEEDUP_FACTOR:g} of "
        f"{PAPER_SPEEDUP:g})"
    )
    rule = (
        f"paired ratio Snoop/Reno: some BER's 95% CI inside [{lo:g}, {hi:g}] and no BER's "
        f"CI above {hi:g}"
    )
    ok = sp.dropna(subset=["ratio"])
    if ok.empty:
        return not_assessed(SOURCE, text, "speedup_25x", rule, "needs both Reno and Snoop runs")
    parts, reach, cap = [], [], []
    for _, row in ok.sort_values("ratio", ascending=False).iterrows():
        iv = interval_of(row)
        reach.append(within(iv, lo, hi))
        cap.append(not_above(iv, hi))
        # Only the BERs that can reach the band are shown (the largest always).
        if not parts or not iv.defined or iv.high >= lo:
            parts.append(Part(f"BER {row['ber']:g}", iv, all_of([reach[-1], cap[-1]])))
    outcome = all_of([any_of(reach), all_of(cap)])
    claim = make_claim(SOURCE, text, "speedup_25x", rule, parts, combine=lambda _: outcome)
    claim.cause = SPEEDUP_CAUSE if outcome == FAILS else ""
    return claim


def claim_peak(sp: pd.DataFrame) -> Claim:
    lo, hi = PEAK_BAND
    text = (
        f"the gain is largest near BER 1e-4: the swept BER with the largest speedup lies "
        f"in [{lo:g}, {hi:g}]"
    )
    rule = (
        f"the largest speedup inside [{lo:g}, {hi:g}] minus each speedup outside it "
        "(95% CIs combined in quadrature): above 0 for all"
    )
    ok = sp.dropna(subset=["ratio"])
    inside = ok[[lo * (1 - 1e-9) <= b <= hi * (1 + 1e-9) for b in ok["ber"]]]
    outside_ = ok.drop(index=inside.index)
    if inside.empty or outside_.empty:
        why = "needs Reno and Snoop runs at BERs inside and outside the band"
        return not_assessed(SOURCE, text, "peak_near_1e-4", rule, why)
    best = inside.loc[inside["ratio"].idxmax()]
    top = interval_of(best)
    parts = [
        judge(f"BER {best['ber']:g} vs {row['ber']:g}", difference(top, interval_of(row)), _pos)
        for _, row in outside_.iterrows()
    ]
    note = f"Largest speedup inside the band: {top.text()} at BER {best['ber']:g}."
    return make_claim(SOURCE, text, "peak_near_1e-4", rule, parts, note=note)


def claim_taper(sp: pd.DataFrame) -> Claim:
    text = (
        f"the gain tapers off at low error rates, where multiple errors in one window are "
        f"rare: the speedup Snoop/Reno is below {TAPER_MAX:g} (a tenth of the paper's "
        f"{PAPER_SPEEDUP:g}x) at every swept BER <= {TAPER_BER:g}"
    )
    rule = (
        f"paired ratio Snoop/Reno: 95% CI below {TAPER_MAX:g} at every swept BER <= "
        f"{TAPER_BER:g}"
    )
    ok = sp.dropna(subset=["ratio"])
    low = ok[[b <= TAPER_BER * (1 + 1e-9) for b in ok["ber"]]]
    if low.empty:
        why = f"needs Reno and Snoop runs at a BER <= {TAPER_BER:g}"
        return not_assessed(SOURCE, text, "taper_low_ber", rule, why)
    parts = [
        judge(f"BER {row['ber']:g}", interval_of(row), _below_taper)
        for _, row in low.sort_values("ber").iterrows()
    ]
    return make_claim(SOURCE, text, "taper_low_ber", rule, parts)


def _below_taper(iv: Interval) -> str:
    return below(iv, TAPER_MAX)


def not_above(iv: Interval, hi: float) -> str:
    """Claim ``estimate <= hi``."""
    if not iv.defined:
        return INCONCLUSIVE
    if iv.high <= hi:
        return HOLDS
    return FAILS if iv.low > hi else INCONCLUSIVE


def _pos(iv: Interval) -> str:
    return above(iv, 0.0)


def claims(runs: pd.DataFrame, pts: pd.DataFrame, sp: pd.DataFrame) -> list[Claim]:
    """Verdicts decided from 95% confidence intervals (:mod:`tcpair.evidence.verdict`)."""
    return [claim_tolerance(runs, pts), claim_speedup(sp), claim_peak(sp), claim_taper(sp)]


__all__ = ["claim_speedup", "claims", "largest_undegraded", "not_above", "relative"]
