"""The sweep commands of the CLI: ``sweep``, ``results`` and ``reproduce``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.markup import escape
from rich.table import Table

from tcpair._errors import ScenarioError, require_core
from tcpair.cli.common import (
    EXIT_INCOMPLETE,
    FailedRuns,
    _fmt,
    _resume_hint,
    _stderr,
    _stdout,
    dask_local_option,
    jobs_option,
    max_seeds_option,
    quick_option,
    retry_option,
    scheduler_option,
    until_ci_option,
    until_decided_option,
)

T = TypeVar("T")


@click.command("sweep")
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
@until_decided_option
@max_seeds_option
@click.option("--ci-metric", default=None, help="Metric --until-ci watches [default: the sweep's].")
@retry_option
@click.option("--dry-run", is_flag=True, help="Show the grid and run counts; run nothing.")
@click.option("--report", "with_report", is_flag=True, help="Build the HTML report afterwards.")
def sweep_cmd(
    file: str,
    out: Path | None,
    ci_metric: str | None,
    dry_run: bool,
    with_report: bool,
    **runner: Any,
) -> int:
    """Run the sweep FILE (a TOML path or a shipped sweep's name) into a results store.

    Runs already stored are skipped, so rerunning after an interruption, or
    after adding points or seeds, runs only what is missing.
    """
    from tcpair.sweeper.definition import load_sweep
    from tcpair.sweeper.runner import run_sweep

    spec = load_sweep(file)
    if dry_run:
        _dry_run(spec, out, runner["quick"], ci_metric)
        return 0
    judge = None
    if runner["until_decided"]:  # the report's judge of the target's claims, if asked for
        from tcpair.reporting.analysis import undecided_claims as judge
    res = _run_in_core(run_sweep, spec, out, ci_metric=ci_metric, judge=judge, **runner)
    _print_points(res.points(ci_metric or spec.metric), ci_metric or spec.metric)
    _stdout().print(f"{res.directory}: {res.counts_line()}")
    if with_report:
        from tcpair.reporting.site import build_report

        build_report(res.directory)
        _stdout().print(f"report: {res.directory / 'report' / 'index.html'}")
    fail_if_failed([res.directory])
    return EXIT_INCOMPLETE if res.incomplete else 0


def _run_in_core(run: Callable[..., T], what: Any, out: Path | None, **options: Any) -> T:
    """``run(what, out, **options)`` (the runner of ``tcpair sweep`` or ``tcpair
    reproduce``) with the options the two commands share as click hands them over
    (--jobs, --scheduler, --dask-local, --quick, --until-ci, --until-decided,
    --max-seeds, --retry-failed), progress on stderr, and on an interrupt the hint
    that running again resumes."""
    require_core()
    with _resume_hint():
        return run(what, out, console=_stderr(), **options)


def _dry_run(spec: Any, out: Path | None, quick: bool, metric: str | None) -> None:
    """Check every grid point in the core and the metric against a run's columns,
    then show the grid and the store's state."""
    from tcpair.sweeper.runner import check_metric
    from tcpair.sweeper.runner import dry_run as plan_only
    from tcpair.sweeper.view import invalid_grid_message, invalid_points

    info = plan_only(spec, out, quick)
    bad = invalid_points(spec, quick)
    if bad:
        raise ScenarioError(invalid_grid_message(spec, bad, info["points"]))
    check_metric(spec, quick, metric)
    con = _stdout()
    # parts may have their own seeds: then the count is the most of any part
    upto = "up to " if info["points"] * info["seeds_per_point"] != info["runs"] else ""
    con.print(
        f"[bold]{info['name']}[/bold]: {info['points']} points x {upto}"
        f"{info['seeds_per_point']} seeds = {info['runs']} runs" + (" (quick)" if quick else "")
    )
    for name, labels in info["axes"].items():
        con.print(f"  {name}: {', '.join(map(str, labels))}")
    con.print(
        f"every point is valid; store {info['directory']}: {info['stored']} stored, "
        f"{info['stored_failed']} stored as failed, {info['to_run']} to run"
    )


def fail_if_failed(directories: list[Path]) -> None:
    """Raise :class:`FailedRuns` (exit 4) when the stores hold failed runs of their plan."""
    from tcpair.sweeper.runner import open_sweep

    counts = {}
    for d in directories:
        n = len(open_sweep(d).failures)
        if n:
            counts[d] = n
    if not counts:
        return
    total = sum(counts.values())
    where = " ".join(str(d) for d in counts)
    raise FailedRuns(
        f"{total} run{'s' if total != 1 else ''} failed; see them with "
        f"`tcpair results {where}` (and retry with --retry-failed)"
    )


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


@click.command("results")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--metric", default=None, help="Metric to summarise [default: the sweep's].")
@click.option("--json", "as_json", is_flag=True, help="Print the per-point table as JSON.")
def results_cmd(directory: Path, metric: str | None, as_json: bool) -> None:
    """Summarise the results store DIRECTORY (or every store in a folder such as results/):
    per point mean, CI and seeds; failures."""
    from tcpair.reporting.site import is_store, stores_under

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
    from tcpair.sweeper.runner import open_sweep
    from tcpair.sweeper.view import failure_groups

    res = open_sweep(directory)
    metric = metric or res.spec.metric
    pts = res.points(metric)
    fails = res.failures
    groups = failure_groups(fails, list(res.spec.axis_names))
    summary = {
        "sweep": res.spec.name,
        "directory": str(directory),
        "metric": metric,
        "points": json.loads(pts.to_json(orient="records")),
        "failures": json.loads(fails.to_json(orient="records")),
        "failure_groups": groups,
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
    for g in groups:
        example = ", ".join(f"{k}={v}" for k, v in g["example"].items())
        _stdout().print(
            f"  [red]failed[/red] x{g['count']}: {escape(g['error'])} (e.g. {escape(example)})"
        )
    return summary


@click.command("reproduce")
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
@until_decided_option
@max_seeds_option
@retry_option
def reproduce_cmd(targets: tuple[str, ...], out: Path, **runner: Any) -> int:
    """Reproduce a published experiment: TARGET is a name from `tcpair list`, `all`, or
    the start of several names (`detector-matrix`: every detector_matrix_* target).

    Exit code 3 when --until-ci or --until-decided stopped at --max-seeds short of its
    aim, 4 when runs failed (the reports are still written)."""
    from tcpair.reproduce import reproduce, resolve_targets

    resolve_targets(targets)  # fail on a bad name before any work
    done = _run_in_core(reproduce, targets, out, **runner)
    con = _stdout()
    for name, verdicts in done.items():
        con.print(f"[bold]{name}[/bold] -> {out / name / 'report' / 'index.html'}")
        for v in verdicts:
            con.print(f"  {escape(v)}")
    con.print(f"report: {out / 'index.html'}")
    fail_if_failed([out / name for name in done if (out / name / "sweep.json").is_file()])
    if done.incomplete:
        con.print(f"short of the aim at --max-seeds: {', '.join(done.incomplete)}")
        return EXIT_INCOMPLETE
    return 0
