"""``tcpair bench`` (speed, alone or against ns-2.35) and ``tcpair ns2-check``
(the cross-check of results against ns-2.35): docs/performance.md and
docs/validation.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from tcpair.bench.events import bench, guard
from tcpair.cli.common import FiniteFloatRange, _stderr, _stdout, os_error_line, probe_writable


@click.command("bench")
@click.option(
    "--duration",
    type=FiniteFloatRange(min=0, min_open=True),
    default=3000.0,
    show_default=True,
    help="Simulated seconds per repeat.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=None,
    help="Repeats of the one-flow bench (default 3); with --flows, passes over every "
    "scheme and N, one after another (default 1): each row is then the pass of median "
    "wall time, with the fastest and slowest beside it.",
)
@click.option(
    "--vs-ns2",
    is_flag=True,
    help="Time whole processes of tcpair and ns-2.35 on the same scenarios, in alternation.",
)
@click.option(
    "--pairs",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="With --vs-ns2: alternating pairs of runs per scenario.",
)
@click.option(
    "--core-binary",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="PATH",
    help="With --vs-ns2 or --flows: also run the core's own command on each scenario "
    "(tcpair-sim --summary: the same run, flows and summary as tcpair run --json, without "
    "Python; install it with cargo install --locked --path crates/tcpair-core --target-dir "
    "target): its time and, with --flows, its peak memory. --vs-ns2 runs the tcpair-sim on "
    "PATH when not given.",
)
@click.option(
    "--flows",
    "flow_counts",
    default=None,
    metavar="N[,N...]",
    help="Many flows through one base station (tcpair.bench.scale): the flow counts to run.",
)
@click.option(
    "--schemes",
    default="reno,snoop",
    show_default=True,
    help="With --flows: reno (no BS agent) and BS agents (snoop, snoop_ns2, eln_snoop, "
    "syndrome, clrp).",
)
@click.option(
    "--loss-model",
    type=click.Choice(["uniform", "bursty"]),
    default="uniform",
    show_default=True,
    help="With --flows: the wireless hop's loss, uniform or bursty (two-state markov2, "
    "Bad lasting 2 packets, half of them lost), at a mean rate of 1%.",
)
@click.option(
    "--save",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --flows: also write the rows as JSON (the compare-all report shows "
    "RESULTS/compare_all/scale.json as its scale table).",
)
@click.option(
    "--no-tables",
    is_flag=True,
    help="With --flows: keep neither the drops nor the recoveries table (a row per lost "
    "packet and per recovery; output.drops and output.recoveries false).",
)
@click.option(
    "--within",
    "within_s",
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="With --flows: also count the passes whose wall time is at most SECONDS "
    "(e.g. 60 for the minute a 60 s run of 10,000 flows is to take).",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    default=None,
    help="Compare the median events/s with this machine's entry in the file; warn when "
    "below half of it (never fails).",
)
@click.option("--record-baseline", is_flag=True, help="With --baseline: store this run as it.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_cmd(
    duration: float,
    repeat: int | None,
    vs_ns2: bool,
    pairs: int,
    core_binary: str | None,
    flow_counts: str | None,
    schemes: str,
    loss_model: str,
    save: str | None,
    no_tables: bool,
    within_s: float | None,
    baseline: str | None,
    record_baseline: bool,
    as_json: bool,
) -> None:
    """Speed on clrp_one_link, p = 0.01, Reno, in-process on one core (or --vs-ns2, --flows)."""
    if core_binary is not None and not vs_ns2 and flow_counts is None:
        raise click.BadParameter("runs the core's program beside ns-2 or the flows: give "
                                 "--vs-ns2 or --flows too", param_hint="--core-binary")
    if vs_ns2:
        _bench_vs_ns2(pairs, as_json, core_binary)
        return
    if within_s is not None and flow_counts is None:
        raise click.BadParameter("counts passes of --flows runs: give --flows too",
                                 param_hint="--within")
    if flow_counts is not None:
        _bench_flows(
            flow_counts, schemes, duration, as_json, tables=not no_tables, loss_model=loss_model,
            save=save, passes=repeat or 1, within_s=within_s, core_binary=core_binary,
        )
        return
    repeat = repeat or 3
    if record_baseline and baseline is None:
        raise click.BadParameter("needs --baseline FILE", param_hint="--record-baseline")
    report = bench(duration=duration, repeat=repeat)
    line = guard(report, baseline, record_baseline) if baseline else None
    if as_json:
        click.echo(json.dumps(report if line is None else {**report, "baseline": line}))
        return
    con = _stdout()
    con.print(
        f"bench: {report['scenario']}, {report['setting']}, {duration:g} s simulated, "
        f"{repeat} repeat(s), one core"
    )
    for key, label in (
        ("events_per_s", "events/s"),
        ("delivered_per_s", "delivered data packets/s"),
    ):
        con.print(
            f"  {label:>26}: best {report[key]['best']:,.0f}  median {report[key]['median']:,.0f}"
        )
    con.print(
        f"  {'wall s':>26}: best {report['wall_s']['best']:.3f}  "
        f"median {report['wall_s']['median']:.3f}"
    )
    _print_limit(con, report)
    if line:
        con.print(f"  {'baseline':>26}: {line}")


def _print_limit(con: Any, report: dict[str, Any]) -> None:
    """The core loop's events/s beside the bare-heap limit measured here, and the ratio."""
    loop, limit = report.get("loop_events_per_s"), report.get("bare_heap")
    if loop:
        con.print(
            f"  {'core loop events/s':>26}: best {loop['best']:,.0f}  "
            f"median {loop['median']:,.0f}"
        )
    if limit:
        con.print(
            f"  {'bare-heap limit':>26}: best {limit['events_per_s']:,.0f} events/s "
            f"({limit['pending']} pending {limit['event_bytes']}-byte events, "
            f"nothing else to do)"
        )
    ratio = report.get("loop_vs_bare_heap")
    if ratio is not None:
        con.print(f"  {'core loop / bare heap':>26}: {ratio:.0%} (best / best)")


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers",
                                 param_hint=option) from None
    if not values or min(values) < 1:
        raise click.BadParameter(f"{text!r}: every count must be at least 1", param_hint=option)
    return values


def _bench_flows(
    flow_counts: str,
    schemes: str,
    duration: float,
    as_json: bool,
    *,
    tables: bool,
    loss_model: str,
    save: str | None,
    passes: int,
    within_s: float | None,
    core_binary: str | None = None,
) -> None:
    from tcpair.bench.scale import SCHEMES, bench_flows
    from tcpair.simulate.core_program import CoreBinaryFailed

    ns = _ints(flow_counts, "--flows")
    names = [s.strip() for s in schemes.split(",") if s.strip()]
    bad = [s for s in names if s not in SCHEMES]
    if bad or not names:
        raise click.BadParameter(
            f"{schemes!r}: known schemes are {', '.join(SCHEMES)}", param_hint="--schemes"
        )
    if save:  # before the runs, which may take many minutes
        _writable_parent(save, "--save")
    err = _stderr()

    def progress(n: int, scheme: str, k: int) -> None:
        of = f" (pass {k} of {passes})" if passes > 1 else ""
        err.print(f"  {scheme}, {n} flows{of} ...")

    try:
        rows = bench_flows(
            ns, names, duration, progress=progress, tables=tables, loss_model=loss_model,
            passes=passes, within_s=within_s, core_binary=core_binary,
        )
    except CoreBinaryFailed as e:
        raise click.ClickException(str(e)) from None
    if save:
        Path(save).write_text(json.dumps(rows, indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(rows))
        return
    each = f", the median of {passes} passes [fastest, slowest]" if passes > 1 else ""
    table = Table(
        title=f"N flows through one base station, {duration:g} s simulated, {loss_model} loss, "
        f"one core{each}"
    )
    within = () if within_s is None else (f"passes within {within_s:g} s",)
    cols = ("scheme", "flows", "wall s", *within, "set-up s", "outside loop s", "peak RSS MiB",
            "run's KiB per flow", "beyond kept KiB per flow", "events/s", "delivered/s",
            "us per delivered", "BS pkts peak / mean", "BS KiB peak / mean",
            "per conn. pkts peak / mean", "per conn. bytes peak / mean")
    if core_binary is not None:
        cols = (*cols, "core's program s", "its peak RSS MiB")
    for col in cols:
        table.add_column(col, justify="right")
    for r in rows:
        wall = f"{r['wall_s']:.2f}"
        if passes > 1:
            wall += f" [{r['wall_s_min']:.2f}, {r['wall_s_max']:.2f}]"
        counted = () if within_s is None else (f"{r['passes_within']} of {r['passes']}",)
        table.add_row(
            r["scheme"], f"{r['flows']:,}", wall, *counted, f"{r['setup_s']:.2f}",
            f"{r['outside_loop_s']:.2f}",
            f"{r['peak_rss_mib']:.0f}", _kib(r.get("run_kib_per_flow")),
            _kib(r.get("beyond_kept_kib_per_flow")),
            f"{r['events_per_s'] / 1e6:.2f} M",
            f"{r['delivered_per_s'] / 1e6:.2f} M", f"{r['us_per_delivered']:.2f}",
            *_state_cells(r), *_core_cells(r),
        )
    _stdout().print(table)


def _writable_parent(path: str, option: str) -> None:
    """Make the folder ``path`` goes in and check that a file can be written there,
    or fail naming ``option``: the runs before the write may take hours
    (:func:`tcpair.cli.common.probe_writable`)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(os_error_line(exc), param_hint=option) from None
    if target.is_dir():
        raise click.BadParameter(f"{path}: is a folder; give a file's path", param_hint=option)
    try:
        probe_writable(target)
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise click.BadParameter(f"{path}: cannot be written ({why})", param_hint=option) from None


def _kib(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def _core_cells(r: dict) -> list[str]:
    """The core's own program's time and peak memory, when it ran (``--core-binary``)."""
    if "core_wall_s" not in r:
        return []
    return [f"{r['core_wall_s']:.2f}", f"{r['core_peak_rss_mib']:.0f}"]


def _state_cells(r: dict) -> list[str]:
    """The base station's state (``tcpair.bench.scale.bs_state_summary``); a dash without
    an agent."""
    if r["bs_pkts_peak"] is None:  # plain Reno: no agent
        return ["-"] * 4
    return [
        f"{r['bs_pkts_peak']:,.0f} / {r['bs_pkts_mean']:,.1f}",
        f"{r['bs_bytes_peak'] / 1024:,.0f} / {r['bs_bytes_mean'] / 1024:,.1f}",
        f"{r['conn_pkts_peak']:,.0f} / {r['conn_pkts_mean']:,.2f}",
        f"{r['conn_bytes_peak']:,.0f} / {r['conn_bytes_mean']:,.0f}",
    ]


def _bench_vs_ns2(pairs: int, as_json: bool, core_binary: str | None) -> None:
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
        _writable_parent(csv_path, "--csv")
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
        _writable_parent(csv_path, "--csv")
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


__all__ = ["bench_cmd", "ns2_check_cmd"]
