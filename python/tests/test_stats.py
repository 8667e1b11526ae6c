"""Confidence intervals against hand-computed values."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tcpair.evidence.stats import aggregate, summarize, t_halfwidth


def test_ci_hand_value() -> None:
    # values 1..5: mean 3, s = sqrt(2.5) = 1.5811388, t_{0.975,4} = 2.7764451
    # half-width = 2.7764451 * 1.5811388 / sqrt(5) = 1.9632432
    s = summarize([1, 2, 3, 4, 5])
    assert (s.mean, s.n) == (3.0, 5)
    assert s.std == pytest.approx(1.5811388, rel=1e-7)
    assert s.ci95 == pytest.approx(1.9632432, rel=1e-6)


def test_ci_two_samples() -> None:
    # [10, 12]: s = sqrt(2), t_{0.975,1} = 12.7062047; hw = 12.7062047*sqrt(2)/sqrt(2) = 12.7062
    assert summarize([10, 12]).ci95 == pytest.approx(12.7062047, rel=1e-6)


def test_degenerate_samples() -> None:
    one = summarize([4.0])
    assert (one.mean, one.std, one.n) == (4.0, 0.0, 1)
    assert math.isnan(one.ci95)
    empty = summarize([])
    assert empty.n == 0 and math.isnan(empty.mean)
    assert summarize([1.0, float("nan"), 3.0]).n == 2
    assert math.isnan(t_halfwidth(1.0, 1))


def test_identical_values_have_exactly_zero_spread() -> None:
    # Seven copies of 1234.567: numpy's std is 2.46e-13 (rounding in the mean).
    s = summarize([1234.567] * 7)
    assert (s.std, s.ci95) == (0.0, 0.0)
    assert summarize([2.5, 2.5, 2.5]).ci95 == 0.0


def test_aggregate_sorted_by_keys() -> None:
    df = pd.DataFrame(
        {"v": ["b", "a", "a", "b"], "p": [0.1, 0.1, 0.1, 0.1], "x": [1.0, 2.0, 4.0, 3.0]}
    )
    out = aggregate(df, ["v", "p"], ["x"])
    assert out["v"].tolist() == ["a", "b"]
    assert out["x_mean"].tolist() == [3.0, 2.0]
    assert out["x_n"].tolist() == [2, 2]
    assert out.loc[0, "x_ci95"] == pytest.approx(12.7062047 * math.sqrt(2) / math.sqrt(2))
