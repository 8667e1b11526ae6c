"""``tcpair bench --flows``: many flows through one base station, one fresh process
per count and scheme (docs/performance.md, "Many flows")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from tcpair.cli.common import _stderr, _stdout, writable_parent


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of integers",
                                 param_hint=option) from None
    if not values or min(values) < 1:
        raise click.BadParameter(f"{text!r}: every count must be at least 1", param_hint=option)
    return values


def bench_flows(
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
        writable_parent(save, "--save")
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
    _stdout().print(_flows_table(rows, duration, loss_model, passes, within_s, core_binary))


def _flows_table(
    rows: list[dict[str, Any]],
    duration: float,
    loss_model: str,
    passes: int,
    within_s: float | None,
    core_binary: str | None,
) -> Table:
    """The rows of ``bench --flows``: one per scheme and count of flows."""
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
    return table


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


__all__ = ["bench_flows"]
