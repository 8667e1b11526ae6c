"""``tcpair store check DIR`` and ``tcpair store repair DIR``."""

from __future__ import annotations

import sys

import click

from tcpair.cli.common import EXIT_RUNTIME, jobs_option


@click.group("store")
def store_cmd() -> None:
    """Check a results store against its checksums, or repair it."""


@store_cmd.command("check")
@click.argument("directory", type=click.Path(file_okay=False))
def check_cmd(directory: str) -> None:
    """Verify every file of the store DIRECTORY; exit 1 if any is damaged or stray."""
    from tcpair.sweeper.repair import check_store

    problems = check_store(directory)
    for p in problems:
        click.echo(str(p))
    if problems:
        click.echo(
            f"{len(problems)} damaged or stray file(s); `tcpair store repair {directory}` "
            "sets them aside and runs again what they held",
            err=True,
        )
        sys.exit(EXIT_RUNTIME)
    click.echo(f"{directory}: every file matches its checksum")


@store_cmd.command("repair")
@click.argument("directory", type=click.Path(file_okay=False))
@jobs_option
def repair_cmd(directory: str, jobs: int | None) -> None:
    """Quarantine damaged files of DIRECTORY and run again the runs they held."""
    from tcpair.sweeper.repair import repair_store

    rep = repair_store(directory, jobs=jobs, progress=False)
    for p in rep.problems:
        click.echo(f"set aside: {p}")
    again = rep.stats.executed if rep.stats is not None else 0
    failed = rep.stats.failed if rep.stats is not None else 0
    click.echo(
        f"{directory}: {len(rep.moved)} file(s) moved to quarantine/, "
        f"{again} run(s) run again ({failed} failed)"
    )
