"""Rounds of more seeds (``--until-ci``, ``--until-decided``): the names of points
left short, and the warning when ``--max-seeds`` stops a sweep short.

Kept apart from :mod:`tcpair.sweeper.runner`, which runs the rounds. Which claims
are still undecided is the report's to say (a target's claims are computed by its
analysis): the caller hands the runner that judge
(:func:`tcpair.reporting.analysis.undecided_claims`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from tcpair.sweeper.definition import Task

if TYPE_CHECKING:
    from tcpair.sweeper.view import SweepResult

#: Says which claims of a sweep's target are still inconclusive on its runs.
Judge = Callable[["SweepResult"], list[str]]

EXIT_INCOMPLETE = 3  # --until-ci / --until-decided stopped at --max-seeds short of its aim
SHOWN = 5  # points or claims named in the warning


def point_names(tasks: Sequence[Task], points: Sequence[int]) -> list[str]:
    labels = {t.point: t.labels for t in tasks}
    return [
        ", ".join(f"{k}={v}" for k, v in labels.get(p, {}).items()) or f"point {p}" for p in points
    ]


def warn_incomplete(
    console: Console, result: SweepResult, max_seeds: int, frac: float | None
) -> None:
    """One warning naming the points and claims left short at the cap."""
    parts = []
    if result.unconverged:
        shown = "; ".join(result.unconverged[:SHOWN])
        more = ", ..." if len(result.unconverged) > SHOWN else ""
        parts.append(
            f"{len(result.unconverged)} of {len({t.point for t in result.tasks})} points above "
            f"the requested half-width {frac:g} of the mean ({shown}{more})"
        )
    if result.undecided:
        shown = ", ".join(result.undecided[:SHOWN])
        more = ", ..." if len(result.undecided) > SHOWN else ""
        parts.append(f"{len(result.undecided)} claims still inconclusive ({shown}{more})")
    console.print(
        f"[yellow]warning[/yellow]: {result.spec.name}: --max-seeds {max_seeds} reached with "
        + escape(" and ".join(parts))
        + f"; exit code {EXIT_INCOMPLETE}"
    )


__all__ = ["EXIT_INCOMPLETE", "Judge", "point_names", "warn_incomplete"]
