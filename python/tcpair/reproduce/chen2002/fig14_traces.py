"""Target ``syndrome_fig14``'s measures, read from the stored traces: the series it
compares, each run's time series and hand-offs labelled with its scheme and seed,
the recovery of each hand-off (:func:`handoff_metrics`: time to the first new
in-order delivery, time back to half the throughput, retained fraction), their
means per run (:func:`run_metrics`) and the quartile traces the panels draw
(:func:`traces`). What each measure means: :mod:`tcpair.reproduce.chen2002.fig14`."""

from __future__ import annotations

import numpy as np
import pandas as pd

FLOWS: tuple[str, ...] = ("s1", "s2")
SCHEMES: tuple[str, ...] = ("reno", "snoop", "syndrome")
EXTRA: tuple[str, ...] = ("freeze", "syndrome_freeze", "snoop_moved")  # beyond the paper
LABELS = {
    "reno": "TCP-Reno",
    "snoop": "SNOOP",
    "syndrome": "Syndrome",
    "freeze": "Freeze-TCP",
    "syndrome_freeze": "Syndrome + Freeze-TCP",
    "snoop_moved": "SNOOP, cache moved",
}
AFTER = 2.0  # seconds after a hand-off's end counted in its retained fraction
BEFORE = 2.0  # seconds before its start giving the reference rate
HALF = 0.5  # "recovered": moving-window throughput back to half its value at the start
KEYS = ["scheme", "seed", "flow"]


def with_labels(table: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``table`` (a kept table with ``run_key``) with each run's scheme and seed."""
    if table.empty or "run_key" not in table.columns:
        return pd.DataFrame(columns=["scheme", "seed", *table.columns])
    labels = runs[["run_key", "scheme", "seed"]].drop_duplicates("run_key")
    return table.merge(labels, on="run_key")


def _at(times: np.ndarray, values: np.ndarray, t: float) -> float:
    """The last sample at or before ``t`` (the first one if none)."""
    i = int(np.searchsorted(times, t + 1e-9, side="right")) - 1
    return float(values[max(i, 0)])


def handoff_metrics(ts: pd.DataFrame, ho: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, seed, flow, handoff): ``t_first``, ``t_half`` (s) and ``retained``."""
    cols = [*KEYS, "handoff", "start", "end", "t_first", "t_half", "retained"]
    if ts.empty or ho.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    series = {k: g.sort_values("time_s") for k, g in ts.groupby(KEYS)}
    for _, h in ho.iterrows():
        g = series.get((h["scheme"], h["seed"], h["flow"]))
        if g is None:
            continue
        t = g["time_s"].to_numpy(float)
        seq = g["seq_sent"].to_numpy(float)
        thr = g["throughput_kbps"].to_numpy(float)
        start, end = float(h["start"]), float(h["end"])
        rate = (_at(t, seq, start) - _at(t, seq, start - BEFORE)) / BEFORE
        span = end + AFTER - start
        advance = _at(t, seq, end + AFTER) - _at(t, seq, start)
        retained = advance / (rate * span) if rate > 0 else np.nan
        target = HALF * _at(t, thr, start)
        back = t[(t >= end) & (thr >= target)]
        t_half = float(back[0] - end) if back.size and target > 0 else np.nan
        resumed = h.get("resumed_at")
        t_first = float(resumed) - end if pd.notna(resumed) else np.nan
        rows.append(
            [
                h["scheme"],
                h["seed"],
                h["flow"],
                int(h["handoff"]),
                start,
                end,
                t_first,
                t_half,
                retained,
            ]
        )
    return pd.DataFrame(rows, columns=cols)


def run_metrics(runs: pd.DataFrame, ts: pd.DataFrame, per_ho: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, seed, flow): goodput, final sequence number and the hand-off means."""
    base = runs[[*KEYS, "goodput_kbps"]].copy()
    if not ts.empty:
        last = ts.sort_values("time_s").groupby(KEYS)["seq_sent"].last().rename("final_seq")
        base = base.merge(last.reset_index(), on=KEYS, how="left")
    else:
        base["final_seq"] = np.nan
    if not per_ho.empty:
        means = per_ho.groupby(KEYS)[["t_first", "t_half", "retained"]].mean().reset_index()
        base = base.merge(means, on=KEYS, how="left")
    else:
        for c in ("t_first", "t_half", "retained"):
            base[c] = np.nan
    return base


def traces(ts: pd.DataFrame) -> pd.DataFrame:
    """Per (scheme, flow, time): median and quartiles of throughput and sequence number."""
    cols = ["scheme", "flow", "time_s"]
    if ts.empty:
        return pd.DataFrame(columns=cols)
    g = ts.assign(time_s=ts["time_s"].round(6)).groupby(cols)
    out = {}
    for col in ("throughput_kbps", "seq_sent"):
        q = g[col].quantile([0.25, 0.5, 0.75]).unstack()
        out[f"{col}_q25"], out[f"{col}_median"], out[f"{col}_q75"] = q[0.25], q[0.5], q[0.75]
    return pd.DataFrame(out).reset_index()


__all__ = ["handoff_metrics", "run_metrics", "traces", "with_labels"]
