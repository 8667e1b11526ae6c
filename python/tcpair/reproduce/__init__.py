"""``tcpair reproduce``: the experiments that reproduce published results.

A target is a shipped sweep file (``sweeps/NAME.toml``) with a ``[target]``
table: its title, the paper's claim in words, and optionally the module whose
``analyse(ctx)`` draws the target's plots and computes verdicts. Nothing else
registers it: dropping the file into ``sweeps/`` adds the target. Every target
runs through the sweep machinery (results store, resume, backends) and ends
in the HTML report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from tcpair._errors import ScenarioError
from tcpair.reporting.analysis import undecided_claims
from tcpair.reporting.index_page import check_index
from tcpair.reporting.site import Reports, build_index
from tcpair.sweeper.backends import Backend, default_jobs, make_backend
from tcpair.sweeper.definition import SweepSpec
from tcpair.sweeper.definition import shipped_targets as targets  # every target, in report order
from tcpair.sweeper.runner import DEFAULT_MAX_SEEDS, run_sweep


def canonical_name(name: str, known: dict[str, SweepSpec]) -> str:
    """A target's name as its file stem: ``snoop-fig3`` (the spelling the docs use) is
    ``snoop_fig3`` (the sweep file ``sweeps/snoop_fig3.toml``)."""
    if name in known:
        return name
    alt = name.replace("-", "_")
    return alt if alt in known else name


def family(name: str, known: dict[str, SweepSpec]) -> list[str]:
    """The targets a name stands for: ``all``, the target itself, or, for a name that is
    no target, every target whose name starts with it and an underscore
    (``detector-matrix`` is ``detector_matrix_mixed``, ``_w`` and ``_c``)."""
    if name == "all":
        return list(known)
    if name in known:
        return [name]
    stem = name.replace("-", "_") + "_"
    return [t for t in known if t.startswith(stem)]


def resolve_targets(names: Sequence[str], known: dict[str, SweepSpec] | None = None) -> list[str]:
    """Expand ``all`` and families (:func:`family`) and check names, keeping report order
    without repeats.

    Names are file stems; a dash stands for an underscore (``snoop-fig3``)."""
    known = targets() if known is None else known
    if not names:
        raise ScenarioError("name a reproduce target or `all`")
    wanted: list[str] = []
    for n in (canonical_name(x, known) for x in names):
        members = family(n, known)
        if not members:
            listed = ", ".join(known) or "none found: is the sweeps/ directory missing?"
            raise ScenarioError(f"unknown reproduce target {n!r} (known: {listed}, all)")
        for t in members:
            if t not in wanted:
                wanted.append(t)
    return wanted


class Reproduced(dict[str, list[str]]):
    """Verdict lines per target; ``incomplete`` names the targets whose
    ``until_ci``/``until_decided`` stopped at ``max_seeds`` short of its aim."""

    def __init__(self) -> None:
        super().__init__()
        self.incomplete: list[str] = []


def reproduce(
    names: Sequence[str],
    out: Path,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
    quick: bool = False,
    until_ci: float | None = None,
    until_decided: bool = False,
    max_seeds: int = DEFAULT_MAX_SEEDS,
    retry_failed: bool = False,
    console: Console | None = None,
    progress: bool = True,
) -> Reproduced:
    """Run the named targets into ``out/<target>/``, build their pages and ``out/index.html``.

    One backend serves every target, so a Dask cluster or process pool starts once.
    ``until_decided`` adds seeds (rounds as ``until_ci``, up to ``max_seeds``) until
    no claim of a target is inconclusive; the returned mapping's ``incomplete`` lists
    the targets left short at the cap (their reports are written all the same).
    """
    console = console or Console(stderr=True)
    out = Path(out)
    known = targets()
    chosen = resolve_targets(names, known)
    check_index(out)  # before the runs: the index is written after them
    done = Reproduced()
    backend: Backend = make_backend(jobs=jobs, scheduler=scheduler, dask_local=dask_local)
    # Several targets: each one's report is drawn in a worker while the next one runs.
    report_workers = min(len(chosen), default_jobs() if jobs is None else jobs)
    with backend, Reports(report_workers) as reports:
        for name in chosen:
            spec = known[name]
            res = run_sweep(
                spec,
                out / name,
                backend=backend,
                quick=quick,
                until_ci=until_ci,
                until_decided=until_decided and bool(spec.target and spec.target.analysis),
                judge=undecided_claims,
                max_seeds=max_seeds,
                retry_failed=retry_failed,
                progress=progress,
                console=console,
                # A page that failed stops the command now, not after this sweep.
                watch=reports.raise_failed,
            )
            if progress:
                console.print(f"{name}: {res.counts_line()}")
            reports.submit(name, out / name, index_href="../../index.html")
            if res.incomplete:
                done.incomplete.append(name)
        done.update(reports.collect())
    expected = [(n, s.target.title) for n, s in known.items() if s.target is not None]
    build_index(out, expected)
    return done


__all__ = ["Reproduced", "canonical_name", "family", "reproduce", "resolve_targets", "targets"]
