"""``tcpair bench``: the simulator's speed on one long run, against a stored baseline
(docs/performance.md); ``--flows`` (bench_flows.py) and ``--vs-ns2`` (ns2.py) are
its other two modes."""

from __future__ import annotations

import json
from typing import Any

import click

from tcpair.bench.events import bench, guard
from tcpair.cli.bench_flows import bench_flows
from tcpair.cli.common import FiniteFloatRange, _stdout
from tcpair.cli.ns2 import bench_vs_ns2_cmd


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
        bench_vs_ns2_cmd(pairs, as_json, core_binary)
        return
    if within_s is not None and flow_counts is None:
        raise click.BadParameter("counts passes of --flows runs: give --flows too",
                                 param_hint="--within")
    if flow_counts is not None:
        bench_flows(
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


__all__ = ["bench_cmd"]
