"""Building a :class:`~tcpair.reporting.page.Claim` from intervals judged by the rule of
:mod:`tcpair.evidence.verdict`.

A claim is decided on *parts*: one interval per grid point (and per pair of
schemes, per flow, ...), each judged by a test such as "95% CI above 1". The
parts' outcomes are combined (:func:`~tcpair.evidence.verdict.all_of` by default) into
the claim's outcome; the parts also give the claim's ``numbers`` (JSON-ready),
its ``seeds`` (the fewest seeds any part used) and the detail line a reader
sees ("CLRP/Snoop p=0.01: 1.001 [0.995, 1.007] inconclusive; ...").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from tcpair.evidence.verdict import FAILS, HOLDS, INCONCLUSIVE, NA, Interval, all_of
from tcpair.reporting.page import Claim

Combine = Callable[[Iterable[str]], str]
# Past this many parts a detail lists the parts that do not hold and sums up the rest.
DETAIL_PARTS = 8


@dataclass(frozen=True)
class Part:
    """One judged interval of a claim."""

    label: str  # where: "p=0.01", "CLRP/Snoop p=0.01", "s1 dup=0.1"
    iv: Interval
    outcome: str

    def text(self, fmt: str = ".3g") -> str:
        return f"{self.label}: {self.iv.text(fmt)} {self.outcome}"


def judge(label: str, iv: Interval, test: Callable[[Interval], str]) -> Part:
    return Part(label, iv, test(iv))


def interval_of(row: pd.Series, col: str = "ratio") -> Interval:
    """The interval of a :func:`tcpair.reproduce.common.paired_ratios` row."""
    return Interval(
        float(row[col]), float(row[f"{col}_low"]), float(row[f"{col}_high"]), int(row["seeds"])
    )


def numbers(parts: Sequence[Part]) -> dict[str, dict[str, object]]:
    """``{label: {estimate, low, high, n, outcome}}`` for ``verdicts.json``."""
    return {p.label: {**p.iv.as_dict(), "outcome": p.outcome} for p in parts}


def fewest_seeds(parts: Sequence[Part]) -> int | None:
    ns = [p.iv.n for p in parts if p.iv.n]
    return min(ns) if ns else None


def describe(parts: Sequence[Part], fmt: str = ".3g") -> str:
    """Every part, or (when there are many) those not holding and a summary of the rest."""
    if len(parts) <= DETAIL_PARTS:
        return "; ".join(p.text(fmt) for p in parts)
    odd = [p for p in parts if p.outcome != HOLDS]
    ok = [p for p in parts if p.outcome == HOLDS]
    text = "; ".join(p.text(fmt) for p in odd[:DETAIL_PARTS])
    if len(odd) > DETAIL_PARTS:
        text += f"; and {len(odd) - DETAIL_PARTS} more not holding"
    if ok:
        lo = min(p.iv.estimate for p in ok)
        hi = max(p.iv.estimate for p in ok)
        span = f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}} to {hi:{fmt}}"
        which = f"the other {len(ok)}" if odd else f"all {len(ok)}"
        text += ("; " if text else "") + f"holds at {which} (estimates {span})"
    return text


def make_claim(
    source: str,
    text: str,
    claim_id: str,
    rule: str,
    parts: Sequence[Part],
    *,
    combine: Combine = all_of,
    note: str = "",
    cause: str = "",
    fmt: str = ".3g",
    empty: str = "no points to judge",
) -> Claim:
    """The claim decided by ``combine`` over its parts' outcomes (NA without parts)."""
    if not parts:
        return Claim(source, text, NA, empty, claim_id=claim_id, rule=rule)
    outcome = combine(p.outcome for p in parts)
    detail = describe(parts, fmt) + "."
    if note:
        detail += f" {note}"
    return Claim(
        source,
        text,
        outcome,
        detail,
        claim_id=claim_id,
        rule=rule,
        numbers=numbers(parts),
        seeds=fewest_seeds(parts),
        cause=cause if outcome == FAILS else "",
    )


def not_assessed(source: str, text: str, claim_id: str, rule: str, why: str) -> Claim:
    return Claim(source, text, NA, why, claim_id=claim_id, rule=rule)


__all__ = [
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "NA",
    "Part",
    "describe",
    "fewest_seeds",
    "interval_of",
    "judge",
    "make_claim",
    "not_assessed",
    "numbers",
]
