"""Verdicts decided from confidence intervals, never from means alone.

The rule (stated once here and in ``docs/experiments.md``): a claim compares an
estimate with a threshold or a band. With the estimate's 95% confidence interval
``[low, high]``:

- **holds** when the whole interval lies on the side the claim states
  (``low > threshold`` for "greater than");
- **does not hold** when the whole interval lies on the other side
  (``high <= threshold``);
- **inconclusive** when the interval straddles the threshold, or when it is
  undefined (fewer than two seeds): more seeds could decide it.

For a band ``[lo, hi]`` ("about 25x", "within 10%") the claim holds when the
interval lies inside the band, does not hold when it is disjoint from it, and is
inconclusive when it overlaps an edge.

A claim over several points (every swept loss rate, say) does not hold if any
point does not hold, is inconclusive if any point is inconclusive, and holds
otherwise (:func:`all_of`); "at most points" claims use :func:`most_of`.

Ratios of two schemes run on the same seeds use :func:`paired_ratio`: the seeds
are common random numbers, so the per-seed differences are much less variable
than the two schemes' spreads taken apart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
NA = "not assessed"

OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, NA)
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided confidence interval (NaN bounds when undefined)."""

    estimate: float
    low: float
    high: float
    n: int = 0

    @classmethod
    def from_halfwidth(cls, estimate: float, half: float, n: int = 0) -> Interval:
        if not math.isfinite(half):
            return cls(estimate, math.nan, math.nan, n)
        return cls(estimate, estimate - half, estimate + half, n)

    @property
    def defined(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def half(self) -> float:
        return (self.high - self.low) / 2 if self.defined else math.nan

    def text(self, fmt: str = ".3g") -> str:
        """``est [low, high]``, or ``est (no CI)`` when undefined."""
        if not self.defined:
            return f"{self.estimate:{fmt}} (no CI)"
        return f"{self.estimate:{fmt}} [{self.low:{fmt}}, {self.high:{fmt}}]"

    def as_dict(self) -> dict[str, float | int | None]:
        def num(v: float) -> float | None:
            return float(v) if math.isfinite(v) else None

        return {
            "estimate": num(self.estimate),
            "low": num(self.low),
            "high": num(self.high),
            "n": int(self.n),
        }


def above(iv: Interval, threshold: float) -> str:
    """Claim ``estimate > threshold``."""
    if not iv.defined:
        return INCONCLUSIVE
    if iv.low > threshold:
        return HOLDS
    if iv.high <= threshold:
        return FAILS
    return INCONCLUSIVE


def below(iv: Interval, threshold: float) -> str:
    """Claim ``estimate < threshold``."""
    if not iv.defined:
        return INCONCLUSIVE
    if iv.high < threshold:
        return HOLDS
    if iv.low >= threshold:
        return FAILS
    return INCONCLUSIVE


def within(iv: Interval, lo: float, hi: float) -> str:
    """Claim ``lo <= estimate <= hi``."""
    if not iv.defined:
        return INCONCLUSIVE
    if lo <= iv.low and iv.high <= hi:
        return HOLDS
    if iv.high < lo or iv.low > hi:
        return FAILS
    return INCONCLUSIVE


def outside(iv: Interval, lo: float, hi: float) -> str:
    """Claim ``estimate < lo or estimate > hi`` (a "notable gap" beyond a band)."""
    if not iv.defined:
        return INCONCLUSIVE
    if iv.high < lo or iv.low > hi:
        return HOLDS
    if lo <= iv.low and iv.high <= hi:
        return FAILS
    return INCONCLUSIVE


def implies(premise: str, conclusion: str) -> str:
    """ "If ``premise`` then ``conclusion``", each already decided: holds when the
    premise surely fails or the conclusion surely holds, does not hold when the
    premise surely holds and the conclusion surely fails, else inconclusive."""
    if premise == FAILS or conclusion == HOLDS:
        return HOLDS
    if NA in (premise, conclusion):
        return NA
    if premise == HOLDS and conclusion == FAILS:
        return FAILS
    return INCONCLUSIVE


def difference(a: Interval, b: Interval) -> Interval:
    """``a - b`` for two estimates with their intervals combined in quadrature
    (for estimates that cannot be paired seed by seed, such as two ratios)."""
    n = min(a.n, b.n)
    est = a.estimate - b.estimate
    if not (a.defined and b.defined):
        return Interval(est, math.nan, math.nan, n)
    return Interval.from_halfwidth(est, math.hypot(a.half, b.half), n)


def all_of(outcomes: Iterable[str]) -> str:
    """Every part must hold: any failure fails, else any doubt is inconclusive."""
    seen = [o for o in outcomes if o != NA]
    if not seen:
        return NA
    if FAILS in seen:
        return FAILS
    if INCONCLUSIVE in seen:
        return INCONCLUSIVE
    return HOLDS


def any_of(outcomes: Iterable[str]) -> str:
    """Some part must hold ("up to", "at some point")."""
    seen = [o for o in outcomes if o != NA]
    if not seen:
        return NA
    if HOLDS in seen:
        return HOLDS
    if INCONCLUSIVE in seen:
        return INCONCLUSIVE
    return FAILS


def most_of(outcomes: Iterable[str]) -> str:
    """More than half of the parts must hold; decided only when the undecided
    parts could not change the answer."""
    seen = [o for o in outcomes if o != NA]
    if not seen:
        return NA
    need = len(seen) // 2 + 1
    holds = seen.count(HOLDS)
    undecided = seen.count(INCONCLUSIVE)
    if holds >= need:
        return HOLDS
    if holds + undecided < need:
        return FAILS
    return INCONCLUSIVE


def mean_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean of independent values with its Student-t interval."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)]
    n = int(arr.size)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean = float(arr.mean())
    if n < 2:
        return Interval(mean, math.nan, math.nan, n)
    sd = float(arr.std(ddof=1))
    half = float(_st.t.ppf((1 + confidence) / 2, n - 1) * sd / math.sqrt(n))
    return Interval.from_halfwidth(mean, half, n)


def paired_ratio(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> Interval:
    """Ratio of means ``mean(a) / mean(b)`` for values paired by seed.

    Delta method on the paired residuals ``d_i = a_i - r * b_i``:
    ``se(r) = sd(d) / (sqrt(n) * |mean(b)|)``, scaled by Student's t with n - 1
    degrees of freedom. Pairs with a missing side are dropped.
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n == 0 or float(y.mean()) == 0.0:
        return Interval(math.nan, math.nan, math.nan, n)
    r = float(x.mean() / y.mean())
    if n < 2:
        return Interval(r, math.nan, math.nan, n)
    d = x - r * y
    se = float(d.std(ddof=1)) / (math.sqrt(n) * abs(float(y.mean())))
    half = float(_st.t.ppf((1 + confidence) / 2, n - 1) * se)
    return Interval.from_halfwidth(r, half, n)


def paired_difference(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> Interval:
    """Mean of the per-seed differences ``a_i - b_i`` with its t interval."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    return mean_ci(x[keep] - y[keep], confidence)


__all__ = [
    "CONFIDENCE",
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "NA",
    "OUTCOMES",
    "Interval",
    "above",
    "all_of",
    "any_of",
    "below",
    "difference",
    "implies",
    "mean_ci",
    "most_of",
    "outside",
    "paired_difference",
    "paired_ratio",
    "within",
]
