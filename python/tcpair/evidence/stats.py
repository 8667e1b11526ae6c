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
    if n > 1 and float(arr.max()) == float(arr.min()):
        # Identical values: the spread is exactly 0 (arithmetic would leave
        # rounding noise such as 1e-13 in the std and the CI).
        return Summary(mean, 0.0, n, 0.0)
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


def ratio_ci(
    mean_a: float,
    std_a: float,
    n_a: int,
    mean_b: float,
    std_b: float,
    n_b: int,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Ratio of two independent means a/b and its CI half-width (delta method).

    First-order error propagation of the two standard errors,
    se(a/b)^2 = se_a^2 / b^2 + a^2 se_b^2 / b^4 with se = s / sqrt(n),
    scaled by Student's t with min(n_a, n_b) - 1 degrees of freedom (conservative
    beside Welch-Satterthwaite). NaN half-width when either side has n < 2; NaN
    ratio when b is 0 or missing.
    """
    if not (math.isfinite(mean_a) and math.isfinite(mean_b)) or mean_b == 0:
        return math.nan, math.nan
    ratio = mean_a / mean_b
    n = min(int(n_a), int(n_b))
    if n < 2 or not (math.isfinite(std_a) and math.isfinite(std_b)):
        return ratio, math.nan
    var_a = std_a**2 / n_a
    var_b = std_b**2 / n_b
    se = math.sqrt(var_a / mean_b**2 + mean_a**2 * var_b / mean_b**4)
    return ratio, float(_st.t.ppf((1 + confidence) / 2, n - 1) * se)


__all__ = ["Summary", "aggregate", "ratio_ci", "summarize", "t_halfwidth"]
