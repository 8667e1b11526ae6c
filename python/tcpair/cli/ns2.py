"""ns-2.35 from the command line: ``tcpair ns2-check`` (results against ns-2.35's, or
the targets' verdicts under ns-2's conventions: docs/validation.md) and
``tcpair bench --vs-ns2`` (whole-process speed against ns-2.35: docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from tcpair.cli.common import FiniteFloatRange, _stderr, _stdout, writable_parent


def bench_vs_ns2_cmd(pairs: int, as_json: bool, core_binary: str | None) -> None:
    from tcpair.ns2 import missing_message, ns_binary
    from tcpair.ns2.speed import bench_vs_ns2
    from tcpair.simulate.core_program import INSTALL, CoreBinaryFailed, installed_core_program

    if ns_binary() is None:
        _stderr().print(f"bench --vs-ns2 skipped: {missing_message()}")
        return
    err = _stderr()
    if core_binary is None:
        core_binary = installed_core_program()
        if core_binary is None:
            err.print(f"note: no tcpair-sim on PATH, so only `tcpair run` is timed; install "
                      f"the core's own command with: {INSTALL}")
    try:
        rows = bench_vs_ns2(pairs, progress=lambda name: err.print(f"  timing {name} ..."),
                            core_binary=core_binary)
    except CoreBinaryFailed as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(rows))
        return
    table = Table(title=f"tcpair vs ns-2.35, whole processes, {pairs} alternating pairs")
    cols = ["case", "tcpair run s", "(core loop s)", "(python start s)", "ns-2 s",
            "ns-2 / tcpair run [min, max]"]
    if core_binary is not None:
        cols += ["tcpair-sim s", "ns-2 / tcpair-sim [min, max]"]
    for col in cols:
        table.add_column(col, justify="left" if col == "case" else "right")
    for r in rows:
        cells = [
            f"{r['case']}: {r['what']}",
            f"{r['tcpair_s']:.3f}",
            f"{r['tcpair_core_s']:.3f}",
            f"{r['python_start_s']:.3f}",
            f"{r['ns2_s']:.3f}",
            _ratio_cell(r, "ratio"),
        ]
        if core_binary is not None:
            cells += [f"{r['core_alone_s']:.3f}", _ratio_cell(r, "core_ratio")]
        table.add_row(*cells)
    _stdout().print(table)
    if not all(r["bytecode_cached"] for r in rows):
        _stdout().print(
            "note: tcpair's modules have no cached bytecode here (an editable install "
            "with PYTHONDONTWRITEBYTECODE set), so each tcpair process compiled them "
            "first; an installed package (pip install .) does not."
        )


def _ratio_cell(row: dict[str, Any], prefix: str) -> str:
    return f"{row[prefix + '_median']:.2f} [{row[prefix + '_min']:.2f}, {row[prefix + '_max']:.2f}]"


@click.command("ns2-check")
@click.option("--seeds", type=click.IntRange(min=2), default=10, show_default=True)
@click.option(
    "--duration",
    type=FiniteFloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    help="Simulated seconds per run.",
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Parallel ns-2 processes.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the table as CSV.")
@click.option("--markdown", is_flag=True, help="Print the table as Markdown.")
@click.option(
    "--congestion",
    type=click.Choice(["reno", "reno_ns2"]),
    default="reno",
    show_default=True,
    help="tcpair's congestion op: RFC 5681's arithmetic (reno) or ns-2.35's (reno_ns2).",
)
@click.option(
    "--rto-estimator",
    type=click.Choice(["rfc6298", "ns2"]),
    default="rfc6298",
    show_default=True,
    help="tcpair's RTO arithmetic: RFC 6298's or ns-2.35's ticks and backoff.",
)
@click.option("--snoop", is_flag=True,
              help="Compare ns-2's Snoop (LL/LLSnoop) with tcpair's snoop_ns2 instead.")
@click.option("--two-links", is_flag=True,
              help="Compare the MH -> MH path of two wireless hops, plain and with ns-2's Snoop "
                   "at both base stations, instead.")
@click.option("--targets", default=None, metavar="NAMES",
              help="Instead: run these reproduce targets (comma-separated, or all) as shipped "
                   "and with ns-2's queue counting and backoff, and set their verdicts side "
                   "by side (needs no ns-2).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("results/ns2-conventions"), show_default=True,
              help="With --targets: where both sets of runs go.")
@click.option("--quick", is_flag=True, help="With --targets: the targets' quick grids.")
def ns2_check_cmd(
    seeds: int,
    duration: float,
    jobs: int | None,
    csv_path: str | None,
    markdown: bool,
    congestion: str,
    rto_estimator: str,
    snoop: bool,
    two_links: bool,
    targets: str | None,
    out_dir: Path,
    quick: bool,
) -> None:
    """Reno and NewReno over a lossy last hop in tcpair and in ns-2.35, many seeds each."""
    from dataclasses import replace

    if targets is not None:
        _conventions(targets, out_dir, quick, jobs, csv_path, markdown)
        return

    from tcpair.ns2 import (
        DEFAULT_POINTS,
        SNOOP_POINTS,
        TWO_LINK_POINTS,
        crosscheck,
        crosscheck_markdown,
        missing_message,
        ns_binary,
    )

    if ns_binary() is None:
        _stderr().print(f"ns2-check skipped: {missing_message()}")
        return
    if csv_path:  # before the runs, which take minutes
        writable_parent(csv_path, "--csv")
    err = _stderr()
    points = TWO_LINK_POINTS if two_links else SNOOP_POINTS if snoop else DEFAULT_POINTS
    df = crosscheck(
        [replace(pt, congestion=congestion, rto_estimator=rto_estimator) for pt in points],
        seeds=seeds,
        duration=duration,
        jobs=jobs,
        progress=lambda d, n: err.print(f"  {d}/{n} ns-2 runs") if d % 20 == 0 or d == n else None,
    )
    if csv_path:
        df.to_csv(csv_path, index=False)
    if markdown:
        click.echo(crosscheck_markdown(df))
        return
    _print_crosscheck(df, seeds, duration)


def _print_crosscheck(df: Any, seeds: int, duration: float) -> None:
    """The cross-check's rows as a table: one per variant, window and loss rate."""
    table = Table(title=f"tcpair vs ns-2.35, one-link path, {seeds} seeds x {duration:g} s")
    for col in ("variant", "window", "p", "goodput ns-2", "goodput tcpair", "tcpair / ns-2",
                "timeouts ns-2 / tcpair", "outcome"):
        table.add_column(col, justify="right")
    for r in df.itertuples(index=False):
        table.add_row(
            r.variant + (f" + {r.bs}" if r.bs else ""), str(r.window), f"{r.p:g}",
            f"{r.goodput_kbps_ns2:.1f}",
            f"{r.goodput_kbps_tcpair:.1f}",
            f"{r.ratio:.3f} [{r.ratio_low:.3f}, {r.ratio_high:.3f}]",
            f"{r.timeouts_ns2:.1f} / {r.timeouts_tcpair:.1f}",
            f"{r.outcome} ({r.tolerance:.0%})",
        )
    _stdout().print(table)


def _conventions(
    names: str, out: Path, quick: bool, jobs: int | None, csv_path: str | None, markdown: bool
) -> None:
    """``ns2-check --targets``: verdicts as shipped beside ns-2's conventions."""
    from tcpair.ns2.conventions import compare_conventions, conventions_markdown

    err = _stderr()
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    if not wanted:
        raise click.BadParameter("name at least one target (or all)", param_hint="--targets")
    if csv_path:  # before the runs, which take minutes; a bad name first makes nothing
        from tcpair.reproduce import resolve_targets

        resolve_targets(wanted)
        writable_parent(csv_path, "--csv")
    df = compare_conventions(wanted, out, quick=quick, jobs=jobs, say=err.print)
    if csv_path:
        df.to_csv(csv_path, index=False)
    if markdown:
        click.echo(conventions_markdown(df))
        return
    table = Table(title="Verdicts as shipped and with ns-2's queue counting and backoff")
    for col in ("target", "claim", "as shipped", "ns-2's conventions"):
        table.add_column(col)
    for r in df.itertuples(index=False):
        style = "bold" if r.changed else ""
        table.add_row(r.target, r.claim, r.shipped, r.ns2_conventions, style=style)
    _stdout().print(table)
    err.print(f"{int(df['changed'].sum())} of {len(df)} verdicts change")


__all__ = ["bench_vs_ns2_cmd", "ns2_check_cmd"]
