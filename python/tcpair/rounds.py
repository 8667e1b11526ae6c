"""Rounds of more seeds (``--until-ci``, ``--until-decided``): which claims are
still undecided, and the warning when ``--max-seeds`` stops a sweep short.

Kept apart from :mod:`tcpair.runner`, which runs the rounds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from tcpair.sweepdef import Task

if TYPE_CHECKING:
    from tcpair.sweepview import SweepResult

EXIT_INCOMPLETE = 3  # --until-ci / --until-decided stopped at --max-seeds short of its aim
SHOWN = 5  # points or claims named in the warning


def point_names(tasks: Sequence[Task], points: Sequence[int]) -> list[str]:
    labels = {t.point: t.labels for t in tasks}
    return [
        ", ".join(f"{k}={v}" for k, v in labels.get(p, {}).items()) or f"point {p}" for p in points
    ]


def undecided_claims(result: SweepResult) -> list[str]:
    """The claims of the sweep's target that are still inconclusive on its runs."""
    from tcpair.analysis import claims_of
    from tcpair.verdict import INCONCLUSIVE

    return [c.claim_id or c.text for c in claims_of(result) if c.verdict == INCONCLUSIVE]


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


__all__ = ["EXIT_INCOMPLETE", "point_names", "undecided_claims", "warn_incomplete"]
