"""Turning a sweep's runs into a report page: the generic analysis and the hook
through which a reproduce target adds its own plots and computed verdicts.

A target's analysis module defines ``analyse(ctx: Context) -> Analysis``; it
reads ``ctx.runs`` / ``ctx.points()`` and writes its figures into ``ctx.out``.
The report adds what every page has (failures, the scenario, the data files),
so an analysis only says what is specific to its experiment.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair._errors import ScenarioError
from tcpair.report import Claim, Figure
from tcpair.runner import SweepResult


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


def _numeric(labels: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels)


def generic_figure(ctx: Context, metric: str | None = None) -> Figure | None:
    """The sweep's metric against its first numeric axis, one line per other
    combination (and per flow), with 95% CI error bars and bands."""
    from matplotlib.figure import Figure as MplFigure

    spec = ctx.spec
    metric = metric or spec.metric
    pts = ctx.points(metric)
    if pts.empty or f"{metric}_mean" not in pts.columns:
        return None
    axes = spec.axis_names
    x_axis = next((a.name for a in spec.axes if _numeric(a.labels)), None)
    x_numeric = x_axis is not None
    if x_axis is None and axes:
        x_axis = axes[0]
    series_keys = [a for a in axes if a != x_axis]
    if "flow" in pts.columns and pts["flow"].nunique() > 1:
        series_keys.append("flow")
    fig = MplFigure(figsize=(7.5, 4.6), layout="constrained")
    ax = fig.add_subplot()
    groups = pts.groupby(series_keys, sort=False) if series_keys else [((), pts)]
    for key, grp in groups:
        keys = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{k}={v}" for k, v in zip(series_keys, keys, strict=True)) or metric
        if x_axis is None:
            xs: Any = np.arange(len(grp))
        elif x_numeric:
            xs = grp[x_axis].to_numpy(float)
        else:
            xs = [str(v) for v in grp[x_axis]]
        y = grp[f"{metric}_mean"].to_numpy(float)
        ci = grp[f"{metric}_ci95"].fillna(0).to_numpy(float)
        line = ax.errorbar(xs, y, yerr=ci, marker="o", ms=4, capsize=3, label=label)
        if x_numeric and len(xs) > 1:
            ax.fill_between(xs, y - ci, y + ci, alpha=0.15, lw=0, color=line[0].get_color())
    ax.set_xlabel(x_axis or "")
    ax.set_ylabel(metric)
    ax.set_title(f"{metric}: mean and 95% CI over seeds")
    ax.grid(alpha=0.3)
    if len(ax.get_legend_handles_labels()[0]) > 1:
        ax.legend(fontsize=8)
    fig.savefig(ctx.out / f"{metric}.png", dpi=110)
    fig.savefig(ctx.out / f"{metric}.svg")
    return Figure(
        f"{metric}.png",
        f"{metric} per grid point: mean over seeds with 95% Student-t confidence intervals"
        + (f" against {x_axis}." if x_axis else "."),
        svg=f"{metric}.svg",
    )


def points_table(ctx: Context, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The per-point table shown on the page (point index dropped)."""
    metrics = list(metrics or [ctx.spec.metric])
    pts = ctx.points(metrics)
    return pts.drop(columns=["point"], errors="ignore")


def generic(ctx: Context) -> Analysis:
    """What a sweep without its own analysis shows: its metric, plotted and tabled."""
    fig = generic_figure(ctx)
    return Analysis(
        figures=[fig] if fig else [],
        tables=[("Per point", points_table(ctx))],
    )


__all__ = ["Analysis", "Context", "analysis_module", "generic", "generic_figure"]
