"""Figures of a results store: one metric against one field, faceted and coloured.

:func:`plot` (``tcpair.plot`` / ``tcpair plot``) and the generic report page
draw the same figures. A point is the mean over seeds with its 95% Student-t
interval. The x field is numeric (a line through the points, with a band) or
categorical (points with error bars, no line). The other fields of the grid
either colour the series (``hue``, a distinct colour each, legend outside the
panels) or split them into panels (``facet``, one per combination, shared y
axis). Kept time series are drawn as the median over seeds with the band
between the 25th and 75th percentiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair._errors import ScenarioError
from tcpair.reporting.metrics import label

MAX_SERIES = 4  # more series than this in one panel: facet by the other fields
MAX_COLS = 3  # panels per row
SAVE_SUFFIXES = (".png", ".svg", ".pdf")


@dataclass(frozen=True)
class Layout:
    """Which field is on x, which colour the series, which split the panels."""

    x: str | None
    hue: tuple[str, ...] = ()
    facet: tuple[str, ...] = ()


def _as_list(v: str | Sequence[str] | None) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [s.strip() for s in v.split(",") if s.strip()]
    return list(v)


def is_numeric(values: Sequence[Any]) -> bool:
    vals = [v for v in values if v is not None]
    return bool(vals) and all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in vals
    )


def choose_layout(
    pts: pd.DataFrame,
    fields: Sequence[str],
    *,
    x: str | None = None,
    hue: str | Sequence[str] | None = None,
    facet: str | Sequence[str] | None = None,
) -> Layout:
    """Fill in what the caller left open. By default x is the first numeric
    field; the rest colour the series, unless that makes more than
    :data:`MAX_SERIES`, when the last one colours and the others facet."""
    if x is None:
        x = next((f for f in fields if is_numeric(pts[f].unique())), fields[0] if fields else None)
    hues, facets = _as_list(hue), _as_list(facet)
    rest = [f for f in fields if f != x and f not in hues and f not in facets]
    if hue is None and facet is None:
        n_series = math.prod(max(1, pts[f].nunique()) for f in rest) if rest else 1
        if len(rest) > 1 and n_series > MAX_SERIES:
            return Layout(x, (rest[-1],), tuple(rest[:-1]))
        return Layout(x, tuple(rest))
    return Layout(x, tuple(hues + rest), tuple(facets))


def check_fields(
    wanted: dict[str, str | Sequence[str] | None], known: Sequence[str], what: str = "field"
) -> None:
    """Raise a one-line ScenarioError for a name that is not a known field."""
    for option, value in wanted.items():
        for name in _as_list(value):
            if name not in known:
                raise ScenarioError(
                    f"{option}: unknown {what} {name!r} (known: {', '.join(known) or 'none'})"
                )


def _colours(n: int) -> list[Any]:
    from matplotlib import colormaps

    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [colormaps["tab20"](i) for i in range(n)]
    return [colormaps["viridis"](v) for v in np.linspace(0, 0.95, n)]


def _key_text(keys: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in zip(keys, values, strict=True))


def _levels(df: pd.DataFrame, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    if not keys:
        return [()]
    return [tuple(r) for r in df[list(keys)].drop_duplicates().itertuples(index=False)]


def _select(df: pd.DataFrame, keys: Sequence[str], values: Sequence[Any]) -> pd.DataFrame:
    mask = np.ones(len(df), dtype=bool)
    for k, v in zip(keys, values, strict=True):
        mask &= (df[k] == v).to_numpy()
    return df[mask]


Drawer = Callable[[Any, pd.DataFrame, Any, float], None]


def facet_figure(
    df: pd.DataFrame,
    layout: Layout,
    draw: Drawer,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    sharey: bool = True,
) -> Any:
    """One panel per facet combination, one colour per hue combination;
    ``draw(ax, rows, colour, offset)`` draws one series into one panel."""
    from matplotlib.figure import Figure as MplFigure

    panels = _levels(df, layout.facet)
    hues = _levels(df, layout.hue)
    colours = _colours(len(hues))
    ncols = min(MAX_COLS, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    legend = len(hues) > 1
    fig = MplFigure(
        figsize=(
            4.2 * ncols + (2.4 if legend else 0) + (3.3 if ncols == 1 else 0),
            3.2 * nrows + 0.6,
        ),
        layout="constrained",
    )
    axs = fig.subplots(nrows, ncols, sharex=True, sharey=sharey, squeeze=False).ravel()
    width = 0.6 / len(hues)
    for ax, panel in zip(axs, panels, strict=False):
        rows = _select(df, layout.facet, panel)
        for i, (hv, colour) in enumerate(zip(hues, colours, strict=True)):
            series = _select(rows, layout.hue, hv)
            if len(series):
                offset = (i - (len(hues) - 1) / 2) * width
                draw(ax, series, colour, offset)
        if layout.facet:
            ax.set_title(_key_text(layout.facet, panel), fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axs[len(panels) :]:
        ax.set_visible(False)
    _labels(fig, axs[0], len(panels), xlabel, ylabel)
    if legend:
        _legend(fig, hues, colours, layout.hue)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def _labels(fig: Any, ax: Any, n_panels: int, xlabel: str, ylabel: str) -> None:
    if n_panels == 1:
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    else:
        fig.supxlabel(xlabel, fontsize=10)
        fig.supylabel(ylabel, fontsize=10)


def _legend(fig: Any, hues: list[tuple[Any, ...]], colours: list[Any], keys: Sequence[str]) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, marker="o", ms=5) for c in colours]
    labels = [", ".join(str(v) for v in hv) for hv in hues]
    fig.legend(
        handles,
        labels,
        loc="outside right upper",
        title=", ".join(keys),
        fontsize=8,
        title_fontsize=8,
        frameon=False,
    )


def _log_x(values: Sequence[float]) -> bool:
    vals = np.asarray([v for v in values if v is not None], dtype=float)
    return bool(vals.size) and bool((vals > 0).all()) and vals.max() / vals.min() >= 100


def points_figure(pts: pd.DataFrame, y: str, layout: Layout, *, title: str = "") -> Any:
    """Mean and 95% CI of ``y`` per point (``pts`` from ``SweepResult.points``)."""
    x = layout.x
    mean, ci = f"{y}_mean", f"{y}_ci95"
    numeric = x is not None and is_numeric(pts[x].unique())
    cats = [] if numeric or x is None else list(dict.fromkeys(pts[x].tolist()))

    def draw(ax: Any, s: pd.DataFrame, colour: Any, offset: float) -> None:
        yv = s[mean].to_numpy(float)
        err = s[ci].fillna(0).to_numpy(float)
        if numeric:
            xs = s[x].to_numpy(float)
            order = np.argsort(xs)
            xs, yv, err = xs[order], yv[order], err[order]
            ax.errorbar(xs, yv, yerr=err, color=colour, marker="o", ms=4, capsize=3, lw=1.4)
            if len(xs) > 1:
                ax.fill_between(xs, yv - err, yv + err, color=colour, alpha=0.13, lw=0)
        else:
            pos = (
                np.array([cats.index(v) for v in s[x]], float) if x else np.zeros(len(s))
            ) + offset
            ax.errorbar(pos, yv, yerr=err, color=colour, fmt="o", ms=5, capsize=3, ls="none")

    fig = facet_figure(
        pts, layout, draw, xlabel=label(x) if x else "", ylabel=label(y), title=title
    )
    for ax in fig.axes:
        if numeric and _log_x(pts[x].tolist()):
            ax.set_xscale("log")
        if cats:
            ax.set_xticks(range(len(cats)), [str(c) for c in cats])
    return fig


def series_figure(ts: pd.DataFrame, y: str, layout: Layout, *, title: str = "") -> Any:
    """Median over seeds of a kept time series, with the 25-75% band."""
    keys = [*layout.facet, *layout.hue]
    grouped = ts.groupby([*keys, "time_s"], sort=True)[y]
    stats = grouped.quantile([0.25, 0.5, 0.75]).unstack().reset_index()

    def draw(ax: Any, s: pd.DataFrame, colour: Any, offset: float) -> None:
        t = s["time_s"].to_numpy(float)
        ax.plot(t, s[0.5].to_numpy(float), color=colour, lw=1.2)
        ax.fill_between(
            t, s[0.25].to_numpy(float), s[0.75].to_numpy(float), color=colour, alpha=0.18, lw=0
        )

    return facet_figure(
        stats,
        Layout("time_s", layout.hue, layout.facet),
        draw,
        xlabel=label("time_s"),
        ylabel=label(y),
        title=title,
        sharey=False,  # a window that grows without loss would flatten the other panels
    )


def fields_of(result: Any, frame: pd.DataFrame) -> list[str]:
    """The grid's fields: its axes, and ``flow`` when runs have several flows."""
    fields = list(result.spec.axis_names)
    if "flow" in frame.columns and frame["flow"].nunique() > 1:
        fields.append("flow")
    return fields


def _metrics(result: Any) -> list[str]:
    runs = result.runs
    ok = runs[runs["status"] == "ok"] if "status" in runs.columns else runs
    skip = {"point", "seed", *result.spec.axis_names}
    return [c for c in ok.columns if c not in skip and ok[c].dtype.kind in "fiu"]


def kept_series(result: Any) -> pd.DataFrame:
    """The kept ``timeseries`` table of the plan's runs, with each run's labels."""
    from tcpair.results.store import Store

    runs = result.runs
    if "timeseries" not in result.spec.keep or runs.empty:
        return pd.DataFrame()
    keys = runs.loc[runs["status"] == "ok", "run_key"].unique().tolist()
    ts = Store(result.directory).load_table("timeseries", keys)
    if ts.empty:
        return ts
    labels = runs[["run_key", *result.spec.axis_names, "seed"]].drop_duplicates("run_key")
    return ts.merge(labels, on="run_key", how="inner")


def _open(store: Any) -> Any:
    from tcpair.sweeper.view import SweepResult, open_sweep

    if isinstance(store, SweepResult):
        return store
    path = Path(store)
    if not path.is_dir():
        raise ScenarioError(f"{store}: no such results store")
    return open_sweep(path)


def _check_roles(x: str | None, hue: list[str], facet: list[str]) -> None:
    seen: dict[str, str] = {x: "x"} if x else {}
    for option, names in (("hue", hue), ("facet", facet)):
        for name in names:
            if name in seen:
                raise ScenarioError(f"{option}: {name!r} is already the {seen[name]} field")
            seen[name] = option


def plot(
    store: Any,
    *,
    x: str | None = None,
    y: str | None = None,
    facet: str | Sequence[str] | None = None,
    hue: str | Sequence[str] | None = None,
    out: str | Path | None = None,
) -> Any:
    """A figure of a results store (a directory or a ``SweepResult``): ``y``
    (default: the sweep's metric) against the field ``x``, one colour per value
    of ``hue``, one panel per value of ``facet`` (each may be a list or a
    comma-separated string). ``x="time_s"`` plots a kept time series (``cwnd``,
    ``ssthresh``, ``seq_sent``, ``throughput_kbps``). Returns the matplotlib
    Figure and saves it when ``out`` (.png, .svg, .pdf) is given. A bad name
    raises :class:`ScenarioError` naming the option and the known names."""
    result = _open(store)
    y = y or result.spec.metric
    _check_roles(x, _as_list(hue), _as_list(facet))
    title = result.spec.display_title
    if x == "time_s":
        ts = kept_series(result)
        if ts.empty:
            raise ScenarioError("x: 'time_s' needs a kept time series (keep = [\"timeseries\"])")
        fields = fields_of(result, ts)
        known_y = [c for c in ts.columns if ts[c].dtype.kind in "fiu" and c not in fields]
        check_fields({"y": y}, [c for c in known_y if c not in ("time_s", "seed")], "metric")
        check_fields({"hue": hue, "facet": facet}, fields)
        layout = choose_layout(ts, fields, x="time_s", hue=hue, facet=facet)
        fig = series_figure(ts, y, layout, title=title)
    else:
        check_fields({"y": y}, _metrics(result), "metric")
        pts = result.points(y)
        fields = fields_of(result, pts)
        check_fields({"x": x, "hue": hue, "facet": facet}, fields)
        layout = choose_layout(pts, fields, x=x, hue=hue, facet=facet)
        fig = points_figure(pts, y, layout, title=title)
    if out is not None:
        save(fig, out)
    return fig


def save(fig: Any, out: str | Path) -> Path:
    """Write ``fig`` to ``out`` (PNG, SVG or PDF, by its suffix)."""
    out = Path(out)
    if out.suffix.lower() not in SAVE_SUFFIXES:
        raise ScenarioError(
            f"out: {out.name!r}: expected a file ending in {', '.join(SAVE_SUFFIXES)}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    return out


__all__ = [
    "Layout",
    "check_fields",
    "choose_layout",
    "facet_figure",
    "fields_of",
    "kept_series",
    "plot",
    "points_figure",
    "save",
    "series_figure",
]
