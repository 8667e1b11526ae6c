"""The confidence-interval rule (tcpair.evidence.verdict) and claims decided by it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcpair.evidence.stats import ratio_ci
from tcpair.evidence.verdict import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    NA,
    Interval,
    above,
    all_of,
    any_of,
    below,
    difference,
    implies,
    mean_ci,
    most_of,
    outside,
    paired_difference,
    paired_ratio,
    within,
)
from tcpair.reproduce.amir1995 import fig3 as snoop_fig3
from tcpair.reproduce.amir1995.fig3_claims import claim_speedup
from tcpair.reproduce.chen2002 import figs10_13 as syndrome
from tcpair.reproduce.common import paired_ratios

IV = Interval(1.05, 1.02, 1.08, 5)
NO_CI = Interval(1.05, math.nan, math.nan, 1)


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(1.0, HOLDS), (1.02, INCONCLUSIVE), (1.05, INCONCLUSIVE), (1.08, FAILS), (1.1, FAILS)],
)
def test_above(threshold: float, expected: str) -> None:
    assert above(IV, threshold) == expected


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(1.1, HOLDS), (1.08, INCONCLUSIVE), (1.05, INCONCLUSIVE), (1.02, FAILS), (1.0, FAILS)],
)
def test_below(threshold: float, expected: str) -> None:
    assert below(IV, threshold) == expected


@pytest.mark.parametrize(
    ("band", "expected"),
    [
        ((0.9, 1.1), HOLDS),
        ((1.02, 1.08), HOLDS),  # the band's edges are inside
        ((0.9, 1.05), INCONCLUSIVE),
        ((1.06, 1.2), INCONCLUSIVE),
        ((0.9, 1.0), FAILS),
        ((1.09, 1.2), FAILS),
    ],
)
def test_within_and_outside(band: tuple[float, float], expected: str) -> None:
    assert within(IV, *band) == expected
    flipped = {HOLDS: FAILS, FAILS: HOLDS, INCONCLUSIVE: INCONCLUSIVE}[expected]
    if band != (1.02, 1.08):
        assert outside(IV, *band) == flipped


def test_undefined_interval_is_inconclusive() -> None:
    for rule in (lambda iv: above(iv, 0), lambda iv: below(iv, 9), lambda iv: within(iv, 0, 9)):
        assert rule(NO_CI) == INCONCLUSIVE
    assert outside(NO_CI, 0, 9) == INCONCLUSIVE
    assert mean_ci([3.0]).defined is False and mean_ci([3.0]).estimate == 3.0
    assert not paired_ratio([1.0, 2.0], [0.0, 0.0]).defined
    assert NO_CI.as_dict() == {"estimate": 1.05, "low": None, "high": None, "n": 1}
    # Identical seeds (a deterministic run): a zero-width interval decides.
    assert mean_ci([2.0, 2.0, 2.0]) == Interval(2.0, 2.0, 2.0, 3)
    assert within(mean_ci([2.0, 2.0]), 1.98, 2.02) == HOLDS


def test_combinations() -> None:
    assert all_of([HOLDS, HOLDS]) == HOLDS
    assert all_of([HOLDS, INCONCLUSIVE]) == INCONCLUSIVE
    assert all_of([INCONCLUSIVE, FAILS, HOLDS]) == FAILS
    assert all_of([NA, HOLDS]) == HOLDS and all_of([NA]) == NA and all_of([]) == NA
    assert any_of([FAILS, HOLDS]) == HOLDS
    assert any_of([FAILS, INCONCLUSIVE]) == INCONCLUSIVE
    assert any_of([FAILS, FAILS]) == FAILS
    assert most_of([HOLDS, HOLDS, FAILS]) == HOLDS
    assert most_of([HOLDS, FAILS, FAILS]) == FAILS
    assert most_of([HOLDS, INCONCLUSIVE, FAILS]) == INCONCLUSIVE
    assert most_of([HOLDS, HOLDS, INCONCLUSIVE, FAILS]) == INCONCLUSIVE  # 3 of 4 needed
    assert most_of([HOLDS, HOLDS, HOLDS, INCONCLUSIVE, FAILS]) == HOLDS


@pytest.mark.parametrize(
    ("premise", "conclusion", "expected"),
    [
        (FAILS, FAILS, HOLDS),
        (INCONCLUSIVE, HOLDS, HOLDS),
        (HOLDS, HOLDS, HOLDS),
        (HOLDS, FAILS, FAILS),
        (HOLDS, INCONCLUSIVE, INCONCLUSIVE),
        (INCONCLUSIVE, FAILS, INCONCLUSIVE),
        (NA, FAILS, NA),
    ],
)
def test_implies(premise: str, conclusion: str, expected: str) -> None:
    assert implies(premise, conclusion) == expected


def test_paired_ratio_by_hand() -> None:
    # r = 36/19; d = a - r b = (10/19, 12/19, -22/19); sd(d) = 1.00415;
    # se = sd / (sqrt(3) * 19/3) = 0.091541; t(0.975, 2) = 4.302653; half = 0.393859.
    iv = paired_ratio([10.0, 12.0, 14.0], [5.0, 6.0, 8.0])
    assert iv.estimate == pytest.approx(36 / 19)
    assert iv.half == pytest.approx(0.393859, rel=1e-5)
    assert iv.n == 3
    # A pair with a missing side is dropped.
    assert paired_ratio([10.0, 12.0, math.nan], [5.0, 6.0, 8.0]).n == 2
    diff = paired_difference([3.0, 5.0, 4.0], [1.0, 2.0, 2.0])
    assert diff.estimate == pytest.approx(7 / 3) and diff.n == 3
    both = difference(Interval(2.0, 1.0, 3.0, 4), Interval(1.0, 0.0, 2.0, 5))
    assert both.estimate == 1.0 and both.half == pytest.approx(math.sqrt(2)) and both.n == 4


def test_paired_is_much_tighter_than_unpaired_on_correlated_data() -> None:
    """Common random numbers: each seed moves both schemes alike (+-20%), the schemes
    differ by 10% with 0.5% noise of their own."""
    rng = np.random.default_rng(7)
    seed_effect = 100 * (1 + 0.2 * rng.standard_normal(8))
    a = 1.1 * seed_effect * (1 + 0.005 * rng.standard_normal(8))
    b = seed_effect * (1 + 0.005 * rng.standard_normal(8))
    paired = paired_ratio(a, b)
    _, unpaired_half = ratio_ci(a.mean(), a.std(ddof=1), 8, b.mean(), b.std(ddof=1), 8)
    assert paired.estimate == pytest.approx(1.1, rel=0.01)
    assert paired.half < unpaired_half / 10
    assert above(paired, 1.05) == HOLDS
    assert above(Interval.from_halfwidth(paired.estimate, unpaired_half, 8), 1.05) == INCONCLUSIVE


def _runs(values: dict[str, list[float]], **labels: object) -> pd.DataFrame:
    rows = [
        {"scheme": s, **labels, "seed": i + 1, "goodput_KBps": v}
        for s, vs in values.items()
        for i, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def test_paired_ratios_pairs_by_seed_and_axes() -> None:
    runs = pd.concat(
        [
            _runs({"a": [2.0, 4.0, 6.0], "b": [1.0, 2.0, 3.0]}, p=0.1),
            _runs({"a": [3.0, 3.0], "b": [1.0, 1.0, 1.0]}, p=0.2),  # b's seed 3 unpaired
        ]
    )
    r = paired_ratios(runs, "scheme", "a", "b", ["p"]).set_index("p")
    assert r.loc[0.1, "ratio"] == pytest.approx(2.0) and r.loc[0.1, "ratio_ci95"] == 0
    assert r.loc[0.2, "seeds"] == 2 and r.loc[0.2, "b_KBps"] == 1.0
    assert {"ratio_low", "ratio_high"} <= set(r.columns)


def test_a_claim_whose_interval_straddles_its_band_edge_is_inconclusive() -> None:
    """Syndrome/Snoop about 1.10 with seed-to-seed spread: the band 1 +- 10% edge lies
    inside the interval, so "comparable" is neither held nor refuted."""
    runs = _runs({"snoop": [100.0, 100.0, 100.0], "syndrome": [107.0, 110.5, 113.0]}, p=0.1)
    runs["flow"] = "s1"
    claim = syndrome.claim_close(runs, "p", "11")
    assert claim.verdict == INCONCLUSIVE, claim.detail
    part = claim.numbers["s1 p=0.1"]
    assert part["low"] < 1.1 < part["high"] and part["outcome"] == INCONCLUSIVE
    assert "1.1 [" in claim.detail and "inconclusive" in claim.detail
    assert claim.seeds == 3 and claim.cause == ""  # a cause only for "does not hold"
    # The same mean with no spread is decided.
    runs.loc[runs["scheme"] == "syndrome", "goodput_KBps"] = 111.0
    assert syndrome.claim_close(runs, "p", "11").verdict == FAILS


def test_speedup_interval_containing_the_paper_number_is_not_a_failure() -> None:
    """The old rule judged "up to ~25x" false on 56 +- 46 (a mean outside [12.5, 50]);
    an interval reaching into the band and past 50 is inconclusive."""
    runs = _runs({"reno": [2.0, 1.0, 3.0, 2.0], "snoop": [60.0, 90.0, 120.0, 40.0]}, ber=1e-4)
    sp = snoop_fig3.speedups(runs)
    iv = Interval(float(sp["ratio"][0]), float(sp["ratio_low"][0]), float(sp["ratio_high"][0]))
    assert iv.low < 50 < iv.high
    assert claim_speedup(sp).verdict == INCONCLUSIVE
    runs.loc[runs["scheme"] == "snoop", "goodput_KBps"] = [150.0, 75.0, 225.0, 150.0]  # 75x
    assert claim_speedup(snoop_fig3.speedups(runs)).verdict == FAILS
