"""Turning a sweep's runs into a report page: the generic analysis and the hook
through which a reproduce target adds its own plots and computed verdicts.

A target's analysis module defines ``analyse(ctx: Context) -> Analysis``; it
reads ``ctx.runs`` / ``ctx.points()`` and writes its figures into ``ctx.out``.
The report adds what every page has (failures, the scenario, the data files),
so an analysis only says what is specific to its experiment.
"""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tcpair._errors import ScenarioError
from tcpair.evidence.verdict import INCONCLUSIVE
from tcpair.reporting.metrics import label
from tcpair.reporting.page import NA, Claim, Figure
from tcpair.reporting.plotting import (
    choose_layout,
    fields_of,
    kept_series,
    points_figure,
    series_figure,
)
from tcpair.sweeper.view import SweepResult


@dataclass
class Context:
    """What an analysis gets: the sweep's result and a directory for its files."""

    result: SweepResult
    out: Path

    @property
    def spec(self):  # type: ignore[no-untyped-def]
        return self.result.spec

    @property
    def runs(self) -> pd.DataFrame:
        return self.result.runs

    @property
    def ok_runs(self) -> pd.DataFrame:
        df = self.result.runs
        return df[df["status"] == "ok"]

    @property
    def quick(self) -> bool:
        return self.result.quick

    def points(self, metrics: Sequence[str] | str | None = None) -> pd.DataFrame:
        return self.result.points(metrics)


@dataclass
class Analysis:
    """A page's target-specific content."""

    figures: list[Figure] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)
    intro: str | None = None


def analysis_module(name: str) -> Any:
    """Import a target's analysis module, with a clear error if it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ScenarioError(f"target.analysis: cannot import {name!r}: {exc}") from None


def _save(fig: Any, out: Path, stem: str) -> tuple[str, str]:
    fig.savefig(out / f"{stem}.png", dpi=110)
    fig.savefig(out / f"{stem}.svg")
    return f"{stem}.png", f"{stem}.svg"


def generic_figure(ctx: Context, metric: str | None = None) -> Figure | None:
    """The sweep's metric against its first numeric axis: a colour per series,
    a panel per combination of the other fields when there are many series
    (:mod:`tcpair.reporting.plotting`), 95% CI bars; the per-point table folded under it."""
    metric = metric or ctx.spec.metric
    pts = ctx.points(metric)
    if pts.empty or f"{metric}_mean" not in pts.columns:
        return None
    layout = choose_layout(pts, fields_of(ctx.result, pts))
    fig = points_figure(pts, metric, layout)
    png, svg = _save(fig, ctx.out, metric)
    split = f"; one panel per {', '.join(layout.facet)}" if layout.facet else ""
    colour = f"; one colour per {', '.join(layout.hue)}" if layout.hue else ""
    return Figure(
        png,
        f"{label(metric)} per grid point: mean over seeds with 95% Student-t confidence "
        f"intervals" + (f", against {layout.x}" if layout.x else "") + f"{colour}{split}.",
        svg=svg,
        table=points_table(ctx, [metric]),
        table_caption="Per-point table (mean, std, seeds, 95% CI half-width)",
    )


def series_figures(ctx: Context) -> list[Figure]:
    """Kept time series (``keep = ["timeseries"]``): median over seeds and the
    25-75% band of the congestion window and of the moving-window throughput."""
    ts = kept_series(ctx.result)
    figures = []
    for y in ("cwnd", "throughput_kbps"):
        if ts.empty or y not in ts.columns:
            continue
        layout = choose_layout(ts, fields_of(ctx.result, ts), x="time_s")
        png, svg = _save(series_figure(ts, y, layout), ctx.out, f"series_{y}")
        figures.append(
            Figure(
                png,
                f"{label(y)} over time: median over seeds (line) and the band between the "
                "25th and 75th percentiles.",
                svg=svg,
            )
        )
    return figures


def points_table(ctx: Context, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The per-point table shown on the page (point index dropped)."""
    metrics = list(metrics or [ctx.spec.metric])
    pts = ctx.points(metrics)
    return pts.drop(columns=["point"], errors="ignore")


def generic(ctx: Context) -> Analysis:
    """What a sweep without its own analysis shows: its metric, plotted, with the
    per-point table under the figure, and any kept time series."""
    fig = generic_figure(ctx)
    return Analysis(figures=([fig] if fig else []) + series_figures(ctx))


def analyse_sweep(result: SweepResult, out: Path) -> Analysis:
    """The target's analysis (or the generic one) with its files written into ``out``.

    Every claim is marked ``provisional`` when the runs are a quick run, and a target
    whose analysis computes no verdict gets its claim as "not assessed"."""
    spec = result.spec
    ctx = Context(result, out)
    if spec.target is not None and spec.target.analysis:
        found = analysis_module(spec.target.analysis).analyse(ctx)
    else:
        found = generic(ctx)
    if spec.target is not None and spec.target.claim and not found.claims:
        found.claims.append(
            Claim("paper", spec.target.claim, NA, "no verdict is computed yet", claim_id="paper")
        )
    for c in found.claims:
        c.provisional = result.quick
    return found


def claims_of(result: SweepResult) -> list[Claim]:
    """The target's claims on the runs as they stand, without writing a page (the
    analysis draws into a temporary directory): what ``--until-decided`` checks
    between rounds."""
    with tempfile.TemporaryDirectory(prefix="tcpair-claims-") as tmp:
        result._runs = None
        return list(analyse_sweep(result, Path(tmp)).claims)


def undecided_claims(result: SweepResult) -> list[str]:
    """The claims of the sweep's target that are still inconclusive on its runs: the
    judge of ``--until-decided`` (:func:`tcpair.sweeper.runner.run_sweep`)."""
    return [c.claim_id or c.text for c in claims_of(result) if c.verdict == INCONCLUSIVE]


__all__ = [
    "Analysis",
    "Context",
    "analyse_sweep",
    "analysis_module",
    "claims_of",
    "generic",
    "generic_figure",
    "points_table",
    "series_figures",
    "undecided_claims",
]
