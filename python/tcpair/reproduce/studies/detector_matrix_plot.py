"""The heat map of the detectors x responders targets
(:mod:`tcpair.reproduce.studies.detector_matrix`):
one scenario, a row per detector, a column per responder, the colour the goodput over plain
TCP's, each detector's A_w and A_c beside its row."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.reporting.page import Figure
from tcpair.reproduce.common import save

# Cell marks: the 95% interval of the ratio lies above 1, below 1, or straddles it.
MARKS = {"wins": "+", "loses": "\u2212", "no difference": ""}


def _grid(cells: pd.DataFrame, detectors: Sequence[str], responders: Sequence[str]):
    ratio = np.full((len(detectors), len(responders)), np.nan)
    marks = np.full(ratio.shape, "", dtype=object)
    di = {d: i for i, d in enumerate(detectors)}
    ri = {r: j for j, r in enumerate(responders)}
    for r in cells.itertuples():
        if r.detector in di and r.responder in ri:
            ratio[di[r.detector], ri[r.responder]] = r.ratio
            marks[di[r.detector], ri[r.responder]] = MARKS.get(r.outcome, "")
    return ratio, marks


def _share(est: float, half: float) -> str:
    if not math.isfinite(est):
        return "n/a"
    return f"{est:.2f}" + (f"\u00b1{half:.2f}" if math.isfinite(half) else "")


def accuracy_text(acc: pd.DataFrame, detectors: Sequence[str]) -> list[str]:
    """``A_w 0.75±0.04  A_c 0.98±0.01`` per detector row (n/a: no such fast retransmit)."""
    a = acc.set_index("detector") if not acc.empty else pd.DataFrame()
    out = []
    for d in detectors:
        if d not in a.index:
            out.append("")
            continue
        r = a.loc[d]
        out.append(f"A_w {_share(r['A_w'], r['A_w_half'])}  A_c {_share(r['A_c'], r['A_c_half'])}")
    return out


def heat_map(
    cells: pd.DataFrame,
    acc: pd.DataFrame,
    detectors: Sequence[str],
    responders: Sequence[str],
    title: str,
    out: Path,
    stem: str,
) -> Figure:
    """Goodput over plain TCP per detector (row) and responder (column) in one scenario."""
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure as MplFigure

    ratio, marks = _grid(cells, detectors, responders)
    finite = ratio[np.isfinite(ratio)]
    lo = min(float(finite.min()), 0.99) if finite.size else 0.5
    hi = max(float(finite.max()), 1.01) if finite.size else 1.5
    fig = MplFigure(figsize=(13, 0.45 * len(detectors) + 1.8), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(ratio, cmap="RdBu", norm=TwoSlopeNorm(1.0, lo, hi), aspect="auto")
    for (i, j), v in np.ndenumerate(ratio):
        if np.isfinite(v):
            dark = abs(im.norm(v) - 0.5) > 0.35
            ax.text(
                j,
                i,
                f"{v:.2f}{marks[i, j]}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if dark else "black",
            )
    ax.set_xticks(range(len(responders)), [str(r) for r in responders], fontsize=8)
    ax.set_yticks(range(len(detectors)), list(detectors), fontsize=8)
    ax.set_xlabel("responder (Park et al. 2010, Table 1; adaptive: ours)")
    ax.set_ylabel("detector")
    side = ax.secondary_yaxis("right")
    side.set_yticks(range(len(detectors)), accuracy_text(acc, detectors), fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.colorbar(
        im,
        ax=ax,
        location="bottom",
        shrink=0.5,
        pad=0.02,
        label="goodput / plain TCP's (detector none, responder 0)",
    )
    png, svg = save(fig, out, stem)
    caption = (
        f"{title}: each combination's goodput over plain TCP's on the same seeds (ratio of "
        "means, paired by seed); + marks a 95% interval above 1, \u2212 one below 1. Beside "
        "each row, the detector's accuracy on wireless (A_w) and congestion (A_c) fast "
        "retransmits against the ground truth, pooled over the responders (mean over seeds "
        "\u00b1 95% half-width; n/a: no fast retransmit of that kind)."
    )
    table = cells[["detector", "responder", "ratio", "ratio_low", "ratio_high", "seeds", "outcome"]]
    return Figure(png, caption, svg=svg, table=table.reset_index(drop=True))


__all__ = ["accuracy_text", "heat_map"]
