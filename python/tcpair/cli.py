"""The ``tcpair`` command line.

Every user-input problem (bad file, bad ``--set``, a scenario the core rejects,
an unknown option) ends as one line ``error: <message>`` on stderr and exit
code 2, with no traceback and no output files: the message from the validator
already names the field and the value, so anything more is noise.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tcpair._errors import (
    CoreMissingError,
    ScenarioError,
    SimulationError,
    StoreLocked,
    require_core,
)
from tcpair.bench import bench

EXIT_USAGE = 2
EXIT_RUNTIME = 1


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


def _stdout() -> Console:
    # Piped output gets a wide fixed width so tables are not truncated to 80 columns.
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def _stderr() -> Console:
    return Console(stderr=True, soft_wrap=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=_version(), prog_name="tcpair", message="%(prog)s %(version)s")
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
def run_cmd(
    file: str, overrides: tuple[str, ...], seed: int | None, out: Path | None, as_json: bool
) -> None:
    """Run the scenario FILE (a TOML path or a shipped scenario's name)."""
    from tcpair.api import run

    result = run(file, overrides=overrides, seed=seed)
    if out is not None:
        result.save(out)
    if as_json:
        click.echo(json.dumps(result.compact()))
        return
    _print_result(result.summary, result.raw.get("flows", []))
    if out is not None:
        _stderr().print(f"wrote {out}")


def _print_result(summary: dict[str, Any], flows: list[dict[str, Any]]) -> None:
    table = Table(title="flows")
    cols = [
        ("name", "flow"),
        ("variant", "variant"),
        ("goodput_kbps", "goodput kb/s"),
        ("throughput_kbps", "throughput kb/s"),
        ("sent", "sent"),
        ("retransmits", "rexmits"),
        ("timeouts", "timeouts"),
        ("fast_retransmits", "fast rexmits"),
        ("window_cuts", "cuts"),
        ("delay_mean_s", "delay s"),
        ("mean_rtt_s", "RTT s"),
    ]
    if any(f.get("detector", "none") != "none" for f in flows):
        # Park et al. 2010, §3: the detector's accuracy against the ground truth.
        cols += [("detector", "detector"), ("acc_w", "A_w"), ("acc_c", "A_c"), ("acc_t", "A_t")]
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


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "–" if v is None else str(v)


@cli.command("validate")
@click.argument("file")
@set_option
@seed_option
def validate_cmd(file: str, overrides: tuple[str, ...], seed: int | None) -> None:
    """Check FILE against the schema without running it."""
    from tcpair.api import validate

    sc = validate(file, overrides=overrides, seed=seed)
    run_t = sc.get("run", {})
    click.echo(
        f"ok: {file}: {len(sc.get('nodes', []))} nodes, {len(sc.get('links', []))} links, "
        f"{len(sc.get('flows', []))} flows, duration {run_t.get('duration')} s, "
        f"seed {run_t.get('seed')}"
    )


# What `tcpair list` shows, in order: (catalog key, heading). Every entry
# comes from the core's registries (name, summary and source).
CATALOG_SECTIONS = (
    ("variants", "TCP variants (flows.X.variant)"),
    ("congestion_ops", "congestion ops (flows.X.tcp.congestion)"),
    ("detectors", "loss detectors (flows.X.tcp.detector)"),
    ("responders", "responders (flows.X.tcp.responder)"),
    ("error_models", "error models (links.X.forward.loss.model)"),
    ("impairments", "impairments"),
    ("bs_agents", "BS agents (nodes.X.bs)"),
)


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_cmd(as_json: bool) -> None:
    """Name every TCP variant, congestion op, detector, responder, error model, BS agent,
    impairment, sweep and target."""
    from tcpair.paths import shipped_sweeps
    from tcpair.sweepdef import load_sweep

    try:
        cat: dict[str, Any] = json.loads(require_core().catalog())
    except CoreMissingError as exc:
        cat = {name: [] for name, _ in CATALOG_SECTIONS} | {"note": str(exc)}
    sweeps: dict[str, dict[str, Any]] = {}
    for name, path in shipped_sweeps().items():
        try:
            spec = load_sweep(path)
        except ScenarioError as exc:  # one broken file must not hide the others
            sweeps[name] = {"path": str(path), "error": str(exc)}
            continue
        points, seeds, runs = spec.count()
        qr = spec.count(quick=True)[2]
        sweeps[name] = {
            "path": str(path),
            "title": spec.target.title if spec.target else spec.title,
            "target": spec.target is not None,
            "points": points,
            "seeds": seeds,
            "runs": runs,
            "quick_runs": qr,
        }
    if as_json:
        click.echo(
            json.dumps(
                {
                    **cat,
                    "sweeps": sweeps,
                    "reproduce_targets": [n for n, v in sweeps.items() if v.get("target")],
                }
            )
        )
        return
    con = _stdout()
    if "note" in cat:
        con.print(f"[yellow]note:[/yellow] {cat['note']}")
    for key, title in CATALOG_SECTIONS:
        entries = cat.get(key, [])
        if entries and isinstance(entries[0], str):  # plain names
            con.print(f"[bold]{title}[/bold]: " + ", ".join(entries))
            continue
        con.print(f"[bold]{title}[/bold]:")
        for e in entries:
            source = f" [dim]({escape(e['source'])})[/dim]" if e.get("source") else ""
            con.print(f"  {escape(str(e.get('name')))}: {escape(e.get('summary', ''))}{source}")
    table = Table(title="sweeps (sweeps/*.toml); targets run with `tcpair reproduce NAME`")
    for col in ("sweep", "target", "points", "seeds", "runs", "quick runs", "what"):
        table.add_column(col, justify="right" if col in ("points", "seeds", "runs") else "left")
    for name, v in sweeps.items():
        if "error" in v:
            table.add_row(name, "", "", "", "", "", f"[red]{v['error']}")
            continue
        table.add_row(
            name,
            "yes" if v["target"] else "",
            str(v["points"]),
            str(v["seeds"]),
            str(v["runs"]),
            str(v["quick_runs"]),
            v["title"] or "",
        )
    con.print(table)


jobs_option = click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes [default: all cores; 1 runs in this process].",
)
scheduler_option = click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Run on an existing Dask cluster (e.g. tcp://10.0.0.5:8786).",
)
dask_local_option = click.option(
    "--dask-local",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Start a Dask LocalCluster with N worker processes and run on it.",
)
until_ci_option = click.option(
    "--until-ci",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    default=None,
    metavar="FRACTION",
    help="Add seeds until every point's 95% CI half-width is below FRACTION of its mean.",
)
max_seeds_option = click.option(
    "--max-seeds",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="Cap on seeds per point for --until-ci.",
)
quick_option = click.option(
    "--quick", is_flag=True, help="The sweep's quick variant: fewer seeds and points."
)
retry_option = click.option(
    "--retry-failed", is_flag=True, help="Run again the runs stored as failed."
)


@cli.command("sweep")
@click.argument("file")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Results store [default: results/<sweep name>].",
)
@jobs_option
@scheduler_option
@dask_local_option
@quick_option
@until_ci_option
@max_seeds_option
@click.option("--ci-metric", default=None, help="Metric --until-ci watches [default: the sweep's].")
@retry_option
@click.option("--dry-run", is_flag=True, help="Show the grid and run counts; run nothing.")
@click.option("--report", "with_report", is_flag=True, help="Build the HTML report afterwards.")
def sweep_cmd(
    file: str,
    out: Path | None,
    jobs: int | None,
    scheduler: str | None,
    dask_local: int | None,
    quick: bool,
    until_ci: float | None,
    max_seeds: int,
    ci_metric: str | None,
    retry_failed: bool,
    dry_run: bool,
    with_report: bool,
) -> None:
    """Run the sweep FILE (a TOML path or a shipped sweep's name) into a results store.

    Runs already stored are skipped, so rerunning after an interruption, or
    after adding points or seeds, runs only what is missing.
    """
    from tcpair.runner import dry_run as plan_only
    from tcpair.runner import run_sweep
    from tcpair.sweepdef import load_sweep

    spec = load_sweep(file)
    if dry_run:
        info = plan_only(spec, out, quick)
        con = _stdout()
        con.print(
            f"[bold]{info['name']}[/bold]: {info['points']} points x "
            f"{info['seeds_per_point']} seeds = {info['runs']} runs" + (" (quick)" if quick else "")
        )
        for name, labels in info["axes"].items():
            con.print(f"  {name}: {', '.join(map(str, labels))}")
        con.print(
            f"store {info['directory']}: {info['stored']} stored, "
            f"{info['stored_failed']} stored as failed, {info['to_run']} to run"
        )
        return
    require_core()
    with _resume_hint():
        res = run_sweep(
            spec,
            out,
            jobs=jobs,
            scheduler=scheduler,
            dask_local=dask_local,
            quick=quick,
            until_ci=until_ci,
            max_seeds=max_seeds,
            ci_metric=ci_metric,
            retry_failed=retry_failed,
            console=_stderr(),
        )
    executed = sum(s.executed for s in res.stats)
    failed = sum(s.failed for s in res.stats)
    skipped = res.stats[0].skipped if res.stats else 0
    _print_points(res.points(ci_metric or spec.metric), ci_metric or spec.metric)
    _stdout().print(
        f"{res.directory}: {executed} runs executed ({failed} failed), {skipped} already stored"
    )
    if with_report:
        from tcpair.site import build_report

        build_report(res.directory)
        _stdout().print(f"report: {res.directory / 'report' / 'index.html'}")


class Interrupted(Exception):
    """Ctrl-C during a sweep: finished runs are stored, the rest is not."""


@contextlib.contextmanager
def _resume_hint() -> Iterator[None]:
    try:
        yield
    except (KeyboardInterrupt, click.exceptions.Abort):
        raise Interrupted(
            "interrupted; every run that finished is stored: run the same command again to resume"
        ) from None


def _print_points(pts: Any, metric: str) -> None:
    """Per-point table: labels, mean ± CI, n."""
    table = Table(title=f"{metric}: mean ± 95% CI over seeds")
    label_cols = [c for c in pts.columns if c != "point" and not c.startswith(f"{metric}_")]
    for c in label_cols:
        table.add_column(c)
    for c in ("mean", "± CI", "std", "n"):
        table.add_column(c, justify="right")
    for _, row in pts.iterrows():
        table.add_row(
            *(_fmt(row[c]) for c in label_cols),
            _fmt(row[f"{metric}_mean"]),
            _fmt(row[f"{metric}_ci95"]),
            _fmt(row[f"{metric}_std"]),
            str(int(row[f"{metric}_n"])),
        )
    _stdout().print(table)


@cli.command("results")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--metric", default=None, help="Metric to summarise [default: the sweep's].")
@click.option("--json", "as_json", is_flag=True, help="Print the per-point table as JSON.")
def results_cmd(directory: Path, metric: str | None, as_json: bool) -> None:
    """Summarise the results store DIRECTORY (or every store in a folder such as results/):
    per point mean, CI and seeds; failures."""
    from tcpair.site import is_store, stores_under

    if not directory.is_dir():
        raise ScenarioError(f"{directory}: no such results directory")
    stores = [directory] if is_store(directory) else stores_under(directory)
    if not stores:
        raise ScenarioError(f"{directory}: not a tcpair sweep directory (no sweep.json here)")
    summaries = [_results_of(d, metric, print_table=not as_json) for d in stores]
    if as_json:
        click.echo(json.dumps(summaries[0] if is_store(directory) else summaries))


def _results_of(directory: Path, metric: str | None, *, print_table: bool) -> dict[str, Any]:
    """One store's per-point table and failures; printed unless JSON is wanted."""
    from tcpair.runner import open_sweep

    res = open_sweep(directory)
    metric = metric or res.spec.metric
    pts = res.points(metric)
    fails = res.failures
    summary = {
        "sweep": res.spec.name,
        "directory": str(directory),
        "metric": metric,
        "points": json.loads(pts.to_json(orient="records")),
        "failures": json.loads(fails.to_json(orient="records")),
    }
    if not print_table:
        return summary
    _print_points(pts, metric)
    runs = res.runs.drop_duplicates("run_key")
    counts = runs["status"].value_counts().to_dict()
    _stdout().print(
        f"{res.spec.name} ({directory}): {len(runs)} runs: "
        + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    )
    for _, f in fails.iterrows():
        labels = ", ".join(f"{a}={f[a]}" for a in res.spec.axis_names)
        _stdout().print(f"  [red]{f['status']}[/red] {labels} seed {f['seed']}: {f.get('error')}")
    return summary


@cli.command("report")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def report_cmd(directory: Path) -> None:
    """Build the HTML report of DIRECTORY (one results store, or a folder of them)."""
    from tcpair.site import build_site

    built = build_site(directory)
    con = _stdout()
    for name, verdicts in built.items():
        con.print(f"[bold]{name}[/bold]")
        for v in verdicts:
            con.print(f"  {v}")
    index = directory / "index.html"
    con.print(f"report: {index if index.is_file() else directory / 'report' / 'index.html'}")


@cli.command("reproduce")
@click.argument("targets", nargs=-1, required=True)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results directory (one store per target).",
)
@jobs_option
@scheduler_option
@dask_local_option
@click.option("--quick", is_flag=True, help="Fewer seeds and points (a first look).")
@until_ci_option
@max_seeds_option
@retry_option
def reproduce_cmd(
    targets: tuple[str, ...],
    out: Path,
    jobs: int | None,
    scheduler: str | None,
    dask_local: int | None,
    quick: bool,
    until_ci: float | None,
    max_seeds: int,
    retry_failed: bool,
) -> None:
    """Reproduce a published experiment: TARGET is a name from `tcpair list`, or `all`."""
    from tcpair.reproduce import reproduce, resolve_targets

    resolve_targets(targets)  # fail on a bad name before any work
    require_core()
    with _resume_hint():
        done = reproduce(
            targets,
            out,
            jobs=jobs,
            scheduler=scheduler,
            dask_local=dask_local,
            quick=quick,
            until_ci=until_ci,
            max_seeds=max_seeds,
            retry_failed=retry_failed,
            console=_stderr(),
        )
    con = _stdout()
    for name, verdicts in done.items():
        con.print(f"[bold]{name}[/bold] -> {out / name / 'report' / 'index.html'}")
        for v in verdicts:
            con.print(f"  {v}")
    con.print(f"report: {out / 'index.html'}")


@cli.command("bench")
@click.option(
    "--duration",
    type=click.FloatRange(min=0, min_open=True),
    default=3000.0,
    show_default=True,
    help="Simulated seconds per repeat.",
)
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_cmd(duration: float, repeat: int, as_json: bool) -> None:
    """Speed on clrp_one_link, p = 0.01, Reno, in-process on one core."""
    report = bench(duration=duration, repeat=repeat)
    if as_json:
        click.echo(json.dumps(report))
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


def _error(message: str) -> None:
    first = " ".join(str(message).split())  # one line, whatever the source
    click.echo(f"error: {first}", err=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI and turn known errors into one line and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # `tcpair` alone: show help rather than a usage error
        args = ["--help"]
    try:
        rv = cli.main(args=args, prog_name="tcpair", standalone_mode=False)
    except click.ClickException as exc:
        _error(exc.format_message())
        sys.exit(EXIT_USAGE)
    except StoreLocked as exc:
        _error(str(exc))
        sys.exit(EXIT_RUNTIME)
    except (ScenarioError, FileNotFoundError, NotADirectoryError, IsADirectoryError) as exc:
        _error(str(exc))
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
    sys.exit(rv if isinstance(rv, int) else 0)


__all__ = ["bench", "cli", "main"]
