"""Helpers shared by the reproduce targets that compare BS schemes.

The papers plot goodput in KB/s; runs report ``goodput_kbps`` (kilobits per
second, k = 1000). We take 1 KB = 1000 bytes, so KB/s = kb/s / 8 (the papers do
not say which kilobyte they mean; ratios and verdicts do not depend on it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcpair.evidence.stats import aggregate
from tcpair.evidence.verdict import paired_ratio
from tcpair.reporting.analysis import Context

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure

GOODPUT = "goodput_KBps"
# Per-flow counters shown beside goodput when the runs have them.
COUNTERS: tuple[str, ...] = (
    "timeouts",
    "window_cuts",
    "retransmits",
    "bs_retransmits",
    "eln_retransmits",
    "syndrome_credits",
    "impossible_syndromes",
    "clrp_retransmits",
    "e2e_delay_mean_s",
    "app_delay_mean_s",
)


def with_goodput(runs: pd.DataFrame, flows: Iterable[str] | None = None) -> pd.DataFrame:
    """``runs`` (of ``flows`` if given) with goodput in KB/s."""
    df = runs.copy()
    if flows is not None and "flow" in df.columns:
        df = df[df["flow"].isin(list(flows))]
    if "goodput_kbps" in df.columns:
        df[GOODPUT] = df["goodput_kbps"] / 8.0
    else:
        df[GOODPUT] = pd.Series(dtype=float)
    return df


def runs_with_goodput(ctx: Context, flows: Iterable[str] | None = None) -> pd.DataFrame:
    """The successful runs (of ``flows`` if given) with goodput in KB/s."""
    return with_goodput(ctx.ok_runs, flows)


def scheme_points(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean, std, n and 95% CI of goodput (KB/s) and the counters, per ``by`` group."""
    if runs.empty:
        return pd.DataFrame(columns=[*by, f"{GOODPUT}_mean"])
    values = [GOODPUT, *(c for c in COUNTERS if c in runs.columns)]
    return aggregate(runs, list(by), values)


def ratio_columns(num: str, den: str, value: str = GOODPUT) -> list[str]:
    unit = "KBps" if value == GOODPUT else value
    return [f"{num}_{unit}", f"{den}_{unit}", "ratio", "ratio_low", "ratio_high", "ratio_ci95"]


def paired_ratios(
    runs: pd.DataFrame,
    col: str,
    num: str,
    den: str,
    keys: Sequence[str],
    value: str = GOODPUT,
) -> pd.DataFrame:
    """Ratio of means ``num``/``den`` (two values of column ``col``, e.g. two schemes)
    at every ``keys`` point both have, paired by seed
    (:func:`tcpair.evidence.verdict.paired_ratio`).

    Runs of the two sides are matched on ``keys`` and ``seed``; each point gives the
    two means over the pairs, the ratio with its 95% interval (``ratio_low``,
    ``ratio_high``, and the half-width ``ratio_ci95``) and ``seeds``, the pairs used.
    Include ``flow`` in ``keys`` (or filter the runs) when runs have several flows."""
    cols = [*keys, *ratio_columns(num, den, value), "seeds"]
    need = [col, "seed", value, *keys]
    if runs.empty or any(c not in runs.columns for c in need):
        return pd.DataFrame(columns=cols)
    on = [*keys, "seed"]
    a = runs.loc[runs[col] == num, [*on, value]]
    b = runs.loc[runs[col] == den, [*on, value]]
    both = a.merge(b, on=on, suffixes=("_a", "_b"))
    rows = []
    for key, g in both.groupby(list(keys), sort=True):
        x, y = g[f"{value}_a"].to_numpy(float), g[f"{value}_b"].to_numpy(float)
        iv = paired_ratio(x, y)
        k = key if isinstance(key, tuple) else (key,)
        means = [float(np.nanmean(x)), float(np.nanmean(y))]
        rows.append([*k, *means, iv.estimate, iv.low, iv.high, iv.half, iv.n])
    if not rows:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(rows, columns=cols).reset_index(drop=True)


def fmt_values(values: Iterable[float]) -> str:
    return "{" + ", ".join(f"{v:g}" for v in values) + "}"


def pm(mean: float, ci: float, fmt: str = ".2f") -> str:
    """``mean ± ci`` (just the mean when the CI is undefined)."""
    if np.isfinite(ci):
        return f"{mean:{fmt}} ± {ci:{fmt}}"
    return f"{mean:{fmt}}"


def save(fig: MplFigure, out: Path, stem: str) -> tuple[str, str]:
    """Write ``stem``.png and .svg; return their names."""
    fig.savefig(out / f"{stem}.png", dpi=120)
    fig.savefig(out / f"{stem}.svg")
    return f"{stem}.png", f"{stem}.svg"


__all__ = [
    "COUNTERS",
    "GOODPUT",
    "fmt_values",
    "paired_ratios",
    "pm",
    "ratio_columns",
    "runs_with_goodput",
    "save",
    "scheme_points",
    "with_goodput",
]
