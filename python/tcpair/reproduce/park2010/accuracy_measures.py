"""Target ``lda_accuracy``'s measures (Park et al. 2010, Fig. 1): the detectors, the
measured flow, each detector's accuracy A_w, A_c, A_t (:func:`per_seed_accuracy`,
:func:`accuracy`), the counts per scenario (:func:`point_table`) and the goodput
enhancement over plain TCP (:func:`enhancement`, :func:`enhancement_summary`). How
they are computed: :mod:`tcpair.reproduce.park2010.accuracy`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import Interval, mean_ci
from tcpair.reproduce.common import paired_ratios

FLOW = "tcp1"
DETECTORS: tuple[str, ...] = ("none", "pr", "ncpld", "veno", "spike", "jtcp", "relds", "lda_eq")
LABELS = {
    "none": "TCP",
    "pr": "PR",
    "ncpld": "NCPLD",
    "veno": "Veno",
    "spike": "Spike",
    "jtcp": "JTCP",
    "relds": "RELDS",
    "lda_eq": "LDA_EQ",
}
# Park et al. 2010, Fig. 1(a), LDA_EQ; Fig. 1(b): lowest, highest, average enhancement.
PAPER_LDA_EQ = {"acc_w": 0.67, "acc_c": 0.93, "acc_t": 0.80}
PAPER_ENHANCEMENT = {"veno": (-0.06, 0.06, 0.0), "lda_eq": (-0.08, 0.07, 0.0)}
COUNTS = {
    "acc_w": ("frs_wireless_said_wireless", "frs_wireless_true"),
    "acc_c": ("frs_congestion_said_congestion", "frs_congestion_true"),
}
ACC_NAMES = {"acc_w": "A_w", "acc_c": "A_c", "acc_t": "A_t"}
EXTRA = ("frs_spurious", "frs_mixed", "timeouts")


def measured(runs: pd.DataFrame, flow: str | None = FLOW) -> pd.DataFrame:
    """The measured flow's rows (every flow's with ``flow=None``); counts a run does not
    report are NaN (no accuracy)."""
    m = runs[runs["flow"] == flow] if flow is not None and "flow" in runs.columns else runs
    missing = [c for c in (*COUNTS["acc_w"], *COUNTS["acc_c"], *EXTRA) if c not in m.columns]
    return m.assign(**{c: np.nan for c in missing}) if missing else m


def scenario_keys(runs: pd.DataFrame, axes: Sequence[str]) -> list[str]:
    """Every axis except the detector: what makes a scenario."""
    return [a for a in axes if a != "detector" and a in runs.columns]


def _shares(g: pd.DataFrame, detector: str) -> dict[str, float]:
    if detector == "none":
        return {"acc_w": 0.0, "acc_c": 1.0, "acc_t": 0.5}
    out = {}
    for acc, (said, true) in COUNTS.items():
        n = float(g[true].sum())
        out[acc] = float(g[said].sum()) / n if n > 0 else np.nan
    out["acc_t"] = (out["acc_w"] + out["acc_c"]) / 2
    return out


def per_seed_accuracy(
    runs: pd.DataFrame, keys: Sequence[str] = (), flow: str | None = FLOW
) -> pd.DataFrame:
    """A_w, A_c, A_t per detector and seed (and per ``keys`` group), counts pooled over
    every scenario of the group and every measured flow (``flow``; ``None``: all)."""
    by = [*keys, "detector", "seed"]
    rows = []
    for key, g in measured(runs, flow).groupby(by, sort=True):
        row = dict(zip(by, key, strict=True))
        rows.append({**row, **_shares(g, str(row["detector"]))})
    return pd.DataFrame(rows, columns=[*by, "acc_w", "acc_c", "acc_t"])


def accuracy(runs: pd.DataFrame) -> dict[str, dict[str, Interval]]:
    """Per detector: {acc: mean over seeds with its 95% interval}."""
    ps = per_seed_accuracy(runs)
    return {
        str(det): {acc: mean_ci(g[acc].to_numpy(float)) for acc in ACC_NAMES}
        for det, g in ps.groupby("detector", sort=False)
    }


def accuracy_table(runs: pd.DataFrame) -> pd.DataFrame:
    acc = accuracy(runs)
    rows = []
    for det in detector_order(acc):
        row: dict[str, object] = {"detector": LABELS.get(det, det)}
        for key, name in ACC_NAMES.items():
            iv = acc[det][key]
            row[name] = iv.estimate
            row[f"{name} ±95%"] = iv.half
        row["seeds"] = acc[det]["acc_t"].n
        rows.append(row)
    return pd.DataFrame(rows)


def detector_order(keys: object) -> list[str]:
    have = list(keys)  # type: ignore[call-overload]
    return [d for d in DETECTORS if d in have] + [d for d in have if d not in DETECTORS]


def point_table(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per scenario and detector: fast retransmits per run by true kind, pooled shares."""
    m = measured(runs)
    rows = []
    for key, g in m.groupby([*keys, "detector"], sort=True):
        k = key if isinstance(key, tuple) else (key,)
        n = len(g)
        shares = _shares(g, str(k[-1]))
        rows.append(
            [
                *k[:-1],
                LABELS.get(str(k[-1]), k[-1]),
                g["frs_wireless_true"].sum() / n,
                g["frs_congestion_true"].sum() / n,
                g["frs_spurious"].sum() / n,
                g["frs_mixed"].sum() / n,
                *(shares[a] for a in ACC_NAMES),
                g["goodput_kbps"].mean(),
                n,
            ]
        )
    cols = [*keys, "detector", "wireless FRs", "congestion FRs", "spurious", "mixed"]
    cols += ["A_w", "A_c", "A_t", "goodput kb/s", "seeds"]
    return pd.DataFrame(rows, columns=cols)


def enhancement(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per scenario and detector: goodput with the detector / plain TCP's, paired by seed."""
    m = measured(runs)
    parts = [
        paired_ratios(m, "detector", det, "none", list(keys), value="goodput_kbps").assign(
            detector=det
        )
        for det in detector_order(set(m["detector"]) - {"none"})
        if "detector" in m
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def average_enhancement(runs: pd.DataFrame, keys: Sequence[str], det: str) -> Interval:
    """Per seed, the mean over scenarios of goodput(det)/goodput(none) - 1; mean over seeds."""
    m = measured(runs)
    on = [*keys, "seed"]
    a = m.loc[m["detector"] == det, [*on, "goodput_kbps"]]
    b = m.loc[m["detector"] == "none", [*on, "goodput_kbps"]]
    both = a.merge(b, on=on, suffixes=("_d", "_n"))
    both = both[both["goodput_kbps_n"] > 0]
    per_seed = (both["goodput_kbps_d"] / both["goodput_kbps_n"] - 1).groupby(both["seed"]).mean()
    return mean_ci(per_seed.to_numpy(float))


def enhancement_summary(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per detector: lowest, highest (over scenarios) and average enhancement."""
    e = enhancement(runs, keys)
    rows = []
    for det, g in e.groupby("detector", sort=False):
        avg = average_enhancement(runs, keys, str(det))
        paper = PAPER_ENHANCEMENT.get(str(det))
        rows.append(
            {
                "detector": LABELS.get(str(det), det),
                "lowest": g["ratio"].min() - 1,
                "highest": g["ratio"].max() - 1,
                "average": avg.estimate,
                "average ±95%": avg.half,
                "paper (lowest, highest, average)": (
                    ", ".join(f"{v:+.0%}" for v in paper) if paper else ""
                ),
                "scenarios": len(g),
            }
        )
    return pd.DataFrame(rows)


__all__ = [
    "accuracy",
    "accuracy_table",
    "average_enhancement",
    "detector_order",
    "enhancement",
    "enhancement_summary",
    "measured",
    "per_seed_accuracy",
    "point_table",
    "scenario_keys",
]
