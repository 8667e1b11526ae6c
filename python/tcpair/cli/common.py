"""Helpers shared by the ``tcpair`` commands: consoles, number format, options."""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # rich is imported when a command first prints with it
    from rich.console import Console

EXIT_USAGE = 2
EXIT_RUNTIME = 1
EXIT_INCOMPLETE = 3  # --until-ci / --until-decided stopped at --max-seeds
EXIT_FAILED_RUNS = 4


def _stdout() -> Console:
    from rich.console import Console

    # Piped output gets a wide fixed width so tables are not truncated to 80 columns.
    return Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def may_be_terminal() -> bool:
    """False when stderr is surely not a terminal for rich (not a tty, and no
    TTY_COMPATIBLE or FORCE_COLOR saying otherwise): no console need be built."""
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that also refuses ``nan`` and ``inf``: Python's
    ``float`` reads both, and no comparison with a bound rejects ``nan``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{rv} is not a finite number.", param, ctx)
        return rv


def os_error_line(exc: OSError) -> str:
    """A filesystem error in the user's terms: the path, then what the OS said."""
    path = exc.filename
    what = exc.strerror or str(exc)
    if path is None:
        return what
    if isinstance(exc, FileExistsError) and not os.path.isdir(path) and what == "File exists":
        what = "exists and is not a directory"
    return f"{path}: {what}"


def probe_writable(path: Path) -> None:
    """Raise the OSError, naming ``path``, that writing at ``path`` would meet (its
    folder exists): an entry is made and removed beside it, or an existing file
    opened for appending, which leaves it as it was. For checks before runs that
    write only at their end."""
    import tempfile

    try:
        if path.is_file():
            with path.open("ab"):
                pass
        else:
            os.rmdir(tempfile.mkdtemp(prefix=".tcpair-probe-", dir=path.resolve().parent))
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def writable_parent(path: str, option: str) -> None:
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


def check_out_folder(path: Path) -> None:
    """Raise the OSError writing the results at ``path`` would meet, naming ``path``,
    before a run that may take long (they are written at its end,
    `tcpair.simulate.result.write_atomically`): a folder holding what a saved result would
    replace is refused, the folder ``path`` goes in is made, and a probe made and
    removed beside it."""
    from tcpair.simulate.result import RESULT_FILES, check_replaceable

    check_replaceable(path, RESULT_FILES)
    path.resolve().parent.mkdir(parents=True, exist_ok=True)  # names a file in the way itself
    probe_writable(path)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "–" if v is None else str(v)


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
    type=FiniteFloatRange(min=0, max=1, min_open=True, max_open=True),
    default=None,
    metavar="FRACTION",
    help="Add seeds until every point's 95% CI half-width is below FRACTION of its mean.",
)
max_seeds_option = click.option(
    "--max-seeds",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="Cap on seeds per point for --until-ci and --until-decided.",
)
until_decided_option = click.option(
    "--until-decided",
    is_flag=True,
    help="Add seeds until no claim of the target is inconclusive (exit code 3 if "
    "--max-seeds stops it first).",
)
quick_option = click.option(
    "--quick", is_flag=True, help="The sweep's quick variant: fewer seeds and points."
)
retry_option = click.option(
    "--retry-failed", is_flag=True, help="Run again the runs stored as failed."
)


class FailedRuns(Exception):
    """The sweep finished but stored failed runs (exit code 4)."""


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
