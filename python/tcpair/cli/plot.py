"""``tcpair plot``: one figure of a results store (see :func:`tcpair.reporting.plotting.plot`)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("plot")
@click.argument("store", type=click.Path(file_okay=False, path_type=Path))
@click.option("--x", "x", default=None, help="Field on the x axis (default: first numeric axis).")
@click.option("--y", "y", default=None, help="Metric (default: the sweep's metric).")
@click.option("--facet", default=None, help="Field(s), comma-separated: one panel per value.")
@click.option("--hue", default=None, help="Field(s), comma-separated: one colour per value.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Output file (.png, .svg or .pdf); default: NAME[_Y].png in the current directory.",
)
def plot_cmd(
    store: Path, x: str | None, y: str | None, facet: str | None, hue: str | None, out: Path | None
) -> None:
    """Plot a results store: mean and 95% CI of a metric, faceted and coloured by fields."""
    from tcpair.reporting.plotting import plot

    name = store.resolve().name
    target = out or Path(f"{name}_{y}.png" if y else f"{name}.png")
    plot(store, x=x, y=y, facet=facet, hue=hue, out=target)
    click.echo(f"plot: {target}")
