"""The ``tcpair`` command line.

Every user-input problem (bad file, bad ``--set``, a scenario the core rejects,
an unknown option) ends as one line ``error: <message>`` on stderr and exit
code 2, with no traceback and no output files: the message from the validator
already names the field and the value, so anything more is noise.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from tcpair._errors import (
    CoreMissingError,
    PluginError,
    ScenarioError,
    SimulationError,
    StoreLocked,
)
from tcpair.cli.common import (
    EXIT_FAILED_RUNS,
    EXIT_RUNTIME,
    EXIT_USAGE,
    FailedRuns,
    Interrupted,
    _fmt,
    _stderr,
    _stdout,
    check_out_folder,
    may_be_terminal,
    os_error_line,
)

# Commands in modules of their own, imported when first named (or listed by
# --help): `tcpair run` does not pay for the sweep, store, plot and bench code.
LAZY_COMMANDS = {
    "bench": "tcpair.cli.bench:bench_cmd",
    "list": "tcpair.cli.info:list_cmd",
    "ns2-check": "tcpair.cli.ns2:ns2_check_cmd",
    "pcap-dissector": "tcpair.cli.info:pcap_dissector_cmd",
    "plot": "tcpair.cli.plot:plot_cmd",
    "report": "tcpair.cli.info:report_cmd",
    "reproduce": "tcpair.cli.sweep:reproduce_cmd",
    "results": "tcpair.cli.sweep:results_cmd",
    "store": "tcpair.cli.store:store_cmd",
    "sweep": "tcpair.cli.sweep:sweep_cmd",
}


class LazyGroup(click.Group):
    """A click group that imports the commands of :data:`LAZY_COMMANDS` on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return super().get_command(ctx, cmd_name)

set_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a scenario value, e.g. links.wireless.forward.loss.p=0.02 (repeatable).",
)
seed_option = click.option("--seed", type=int, default=None, help="Set run.seed.")


def _version() -> str:
    """Installed package version, else the core's, else a marker (source checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tcpair")
    except PackageNotFoundError:
        core = getattr(sys.modules.get("tcpair._core"), "__version__", None)
        return str(core) if core else "0+unknown"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # The version is looked up only when asked for (importlib.metadata is slow to import).
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"tcpair {_version()}")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """tcpair: deterministic packet-level simulation of TCP over wireless links."""


@cli.command("run")
@click.argument("file")
@set_option
@seed_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write summary.json and Parquet tables into this directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option(
    "--trace",
    "trace",
    is_flag=True,
    help="Write the event trace (Parquet): into --out, else NAME.trace.parquet here.",
)
@click.option(
    "--pcap",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write one pcap file per link direction into this directory.",
)
def run_cmd(
    file: str,
    overrides: tuple[str, ...],
    seed: int | None,
    out: Path | None,
    as_json: bool,
    trace: bool,
    pcap: Path | None,
) -> None:
    """Run the scenario FILE (a TOML path or a shipped scenario's name)."""
    # tcpair.simulate.binding, not tcpair.simulate.result: the Result class is needed only
    # to save (--out).
    from tcpair.simulate.binding import compact, prepare, run_json_traced, scenario_name, with_trace

    sc = with_trace(prepare(file, overrides=overrides, seed=seed), trace=trace, pcap=pcap)
    if out is not None:  # before the run, which may take long
        check_out_folder(out)
    name = scenario_name(file)
    trace_file = None if out is not None else Path(f"{name}.trace.parquet")
    with _spinner(name, sc):
        # Without --out only the summary and the flows are shown: no tables cross.
        raw, trace_path = run_json_traced(sc, trace_file, tables=out is not None)
    if out is not None:
        trace_path = _save(out, raw, sc, name, trace_path)
    if as_json:
        click.echo(json.dumps(compact(raw)))
        return
    _print_result(raw, sc)
    if out is not None:
        _stderr().print(f"wrote {out}")
    elif trace_path is not None:
        _stderr().print(f"wrote {trace_path}")
    if pcap is not None:
        _stderr().print(f"wrote pcap files into {pcap}")


def _save(out: Path, raw: dict[str, Any], sc: Any, name: str, trace: Path | None) -> Path | None:
    """Save the run into ``out``; the trace's path there (the temporary one is removed)."""
    from tcpair.simulate.result import Result

    Result(raw=raw, scenario=sc, name=name, trace_path=trace).save(out)
    if trace is None:
        return None
    trace.unlink(missing_ok=True)  # a temporary file: the saved copy stays
    trace.parent.rmdir()
    return out / "trace.parquet"


def _spinner(name: str, sc: Any) -> contextlib.AbstractContextManager[None]:
    """The spinner while the core runs; none (and no rich) when stderr is surely no terminal."""
    if not may_be_terminal():
        return contextlib.nullcontext()
    from tcpair.cli.runview import running

    return running(_stderr(), name, sc.get("run", {}).get("duration"))


def _print_result(raw: dict[str, Any], scenario: Any) -> None:
    from rich.table import Table

    from tcpair.cli.runview import flow_columns, mac_line

    summary, flows = raw.get("summary", {}), raw.get("flows", [])
    cols = flow_columns(scenario, flows)
    table = Table(title="flows")
    for _, label in cols:
        left = label in ("flow", "variant", "detector")
        table.add_column(label, justify="left" if left else "right")
    for f in flows:
        table.add_row(*(_fmt(f.get(k)) for k, _ in cols))
    con = _stdout()
    con.print(table)
    pk = summary.get("packets", {})
    con.print(
        f"seed {summary.get('seed')} · simulated {_fmt(summary.get('sim_time_s'))} s · "
        f"{summary.get('events')} events in {_fmt(summary.get('wall_s'))} s · "
        f"Jain fairness {_fmt(summary.get('jain_fairness'))} · packets sent {pk.get('sent')}, "
        f"delivered {pk.get('delivered')}, dropped {pk.get('dropped')}"
    )
    if mac := mac_line(summary):
        con.print(mac)


@cli.command("validate")
@click.argument("file")
@set_option
@seed_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the normalised scenario: every default filled in, base units.",
)
def validate_cmd(file: str, overrides: tuple[str, ...], seed: int | None, as_json: bool) -> None:
    """Check FILE against the schema without running it."""
    from tcpair.simulate.binding import validate

    sc = validate(file, overrides=overrides, seed=seed)
    if as_json:
        click.echo(json.dumps(sc, indent=2))
        return
    run_t = sc.get("run", {})
    click.echo(
        f"ok: {file}: {len(sc.get('nodes', []))} nodes, {len(sc.get('links', []))} links, "
        f"{len(sc.get('flows', []))} flows, duration {run_t.get('duration')} s, "
        f"seed {run_t.get('seed')}"
    )


def _error(message: str) -> None:
    first = " ".join(str(message).split())  # one line, whatever the source
    click.echo(f"error: {first}", err=True)


def _warning(message: Warning | str, *_: object) -> None:
    """A warning (``warnings.showwarning``) as one line ``warning: <message>``: what
    was skipped and why, not the Python source line that warned."""
    click.echo(f"warning: {' '.join(str(message).split())}", err=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI and turn known errors into one line and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # `tcpair` alone: show help rather than a usage error
        args = ["--help"]
    shown, warnings.showwarning = warnings.showwarning, _warning
    try:
        rv = cli.main(args=args, prog_name="tcpair", standalone_mode=False)
    except click.ClickException as exc:
        _error(exc.format_message())
        sys.exit(EXIT_USAGE)
    except StoreLocked as exc:
        _error(str(exc))
        sys.exit(EXIT_RUNTIME)
    except ScenarioError as exc:
        _error(str(exc))
        sys.exit(EXIT_USAGE)
    except PluginError as exc:  # the user's detector or responder: keep its traceback
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except SimulationError as exc:
        _error(str(exc))
        sys.exit(EXIT_USAGE)
    except CoreMissingError as exc:
        _error(str(exc))
        sys.exit(EXIT_RUNTIME)
    except Interrupted as exc:
        _error(str(exc))
        sys.exit(130)
    except FailedRuns as exc:
        _error(str(exc))
        sys.exit(EXIT_FAILED_RUNS)
    except click.exceptions.Abort:
        _error("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        _error("interrupted")
        sys.exit(130)
    except BrokenPipeError:  # e.g. `tcpair run ... --json | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except OSError as exc:  # read-only directory, full disk, --out under a file
        _error(os_error_line(exc))
        sys.exit(EXIT_USAGE)
    finally:
        warnings.showwarning = shown
    sys.exit(rv if isinstance(rv, int) else 0)


__all__ = ["cli", "main"]
