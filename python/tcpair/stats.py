"""Per-point statistics over seeds: mean, std, n and a 95% confidence interval.

Sweeps use few seeds (3-10), so the interval uses Student's t rather than the
normal approximation, which would understate the uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as _st


@dataclass(frozen=True)
class Summary:
    """Mean, sample std (ddof=1), sample size and CI half-width."""

    mean: float
    std: float
    n: int
    ci95: float


def t_halfwidth(std: float, n: int, confidence: float = 0.95) -> float:
    """Half-width of the two-sided Student-t interval: t_{(1+c)/2, n-1} * s / sqrt(n).

    Undefined (NaN) for n < 2: one sample says nothing about the spread.
    """
    if n < 2 or not math.isfinite(std):
        return math.nan
    return float(_st.t.ppf((1 + confidence) / 2, n - 1) * std / math.sqrt(n))


def summarize(values: Iterable[float], confidence: float = 0.95) -> Summary:
    """Summarise one point's values (NaNs are dropped: a run may lack a metric)."""
    arr = np.asarray(list(values), dtype=float)
    arr = arr[~np.isnan(arr)]
    n = int(arr.size)
    if n == 0:
        return Summary(math.nan, math.nan, 0, math.nan)
    mean = float(arr.mean())
    std = float(arr.std(ddof=1)) if n > 1 else 0.0
    return Summary(mean, std, n, t_halfwidth(std, n, confidence) if n > 1 else math.nan)


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str],
    values: Sequence[str],
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Group ``df`` by ``by`` and summarise each column in ``values``.

    Output columns are ``<col>_mean``, ``<col>_std``, ``<col>_n``, ``<col>_ci95``;
    rows are sorted by the group keys so the table is the same however the
    runs were scheduled.
    """
    rows = []
    for key, grp in df.groupby(list(by), sort=True, dropna=False):
        keys = key if isinstance(key, tuple) else (key,)
        row: dict[str, object] = dict(zip(by, keys, strict=True))
        for col in values:
            s = summarize(grp[col], confidence)
            row[f"{col}_mean"] = s.mean
            row[f"{col}_std"] = s.std
            row[f"{col}_n"] = s.n
            row[f"{col}_ci95"] = s.ci95
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = ["Summary", "aggregate", "summarize", "t_halfwidth"]
