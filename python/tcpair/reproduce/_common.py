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

from tcpair.analysis import Context
from tcpair.stats import aggregate, ratio_ci

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


def ratios(
    pts: pd.DataFrame, scheme_col: str, num: str, den: str, keys: Sequence[str]
) -> pd.DataFrame:
    """Goodput ratio ``num``/``den`` at every ``keys`` point both schemes have, with a
    95% CI (delta method over the two sets of seeds, :func:`tcpair.stats.ratio_ci`)."""
    cols = [f"{GOODPUT}_{s}" for s in ("mean", "std", "n")]
    empty = pd.DataFrame(columns=[*keys, f"{num}_KBps", f"{den}_KBps", "ratio", "ratio_ci95"])
    if pts.empty or any(c not in pts.columns for c in [scheme_col, *keys, *cols]):
        return empty
    a = pts[pts[scheme_col] == num].set_index(list(keys))[cols]
    b = pts[pts[scheme_col] == den].set_index(list(keys))[cols]
    both = a.add_suffix("_a").join(b.add_suffix("_b"), how="inner")
    rows = []
    for key, r in both.iterrows():
        ratio, ci = ratio_ci(
            float(r[f"{cols[0]}_a"]),
            float(r[f"{cols[1]}_a"]),
            int(r[f"{cols[2]}_a"]),
            float(r[f"{cols[0]}_b"]),
            float(r[f"{cols[1]}_b"]),
            int(r[f"{cols[2]}_b"]),
        )
        k = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, k, strict=True)),
                f"{num}_KBps": float(r[f"{cols[0]}_a"]),
                f"{den}_KBps": float(r[f"{cols[0]}_b"]),
                "ratio": ratio,
                "ratio_ci95": ci,
            }
        )
    if not rows:
        return empty
    return pd.DataFrame(rows).sort_values(list(keys)).reset_index(drop=True)


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
    "pm",
    "ratios",
    "runs_with_goodput",
    "save",
    "scheme_points",
    "with_goodput",
]
