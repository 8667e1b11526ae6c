"""Synthetic sweep runs for the target analyses' tests: a Context around hand-built
runs, a grid of runs with seeds sharing a common factor, a claim picked by its text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.reporting.analysis import Context
from tcpair.reporting.page import Claim
from tcpair.sweeper.definition import load_sweep
from tcpair.sweeper.runner import SweepResult


def context(tmp_path: Path, name: str, runs: pd.DataFrame) -> Context:
    runs = runs.copy()
    runs["status"] = "ok"
    spec = load_sweep(name)
    keys = [a for a in spec.axis_names]
    runs["point"] = runs.groupby(keys, sort=False).ngroup()
    result = SweepResult(spec, tmp_path, [], False)
    result._runs = runs
    out = tmp_path / "out"
    out.mkdir(parents=True, exist_ok=True)
    return Context(result, out)


def rows(
    axes: dict[str, tuple], flows: tuple[str, ...], goodput: Callable[..., float]
) -> pd.DataFrame:
    """Three seeds per point around ``goodput(**labels, flow=...)`` KB/s: a 2% factor
    per seed shared by every point (common random numbers, as the simulator's seeds)
    and 0.2% independent noise per run."""
    rng = np.random.default_rng(1)
    common = {seed: 1 + 0.02 * rng.standard_normal() for seed in (1, 2, 3)}
    names = list(axes)
    grid = pd.MultiIndex.from_product(list(axes.values()), names=names).to_frame(index=False)
    rows = []
    for labels in grid.to_dict("records"):
        for flow in flows:
            for seed in (1, 2, 3):
                noise = common[seed] * (1 + 0.002 * rng.standard_normal())
                g = goodput(**labels, flow=flow) * noise
                rows.append(
                    {**labels, "flow": flow, "seed": seed, "goodput_kbps": 8 * g, "timeouts": 1}
                )
    return pd.DataFrame(rows)


def by_text(claims: list[Claim], word: str) -> Claim:
    return next(c for c in claims if word in c.text)
