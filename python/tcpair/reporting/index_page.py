"""The folder index (``results/index.html``): one row per results store.

Each row links the store's page and counts its claims by outcome ("2 of 3
claims hold, 1 inconclusive"), in the outcome colours of the pages. The
verdicts come from each report's ``verdicts.json``, which holds either plain
lines ``"claim: outcome"`` (older reports) or :meth:`Claim.record` dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcpair.evidence.verdict import FAILS, HOLDS, INCONCLUSIVE, NA, OUTCOMES
from tcpair.reporting.page import OURS_MARK, QUICK_BANNER, _e, _footer, _head

MIXED_BANNER = (
    "Some of these results come from quick runs (--quick, marked quick): fewer seeds and "
    "points and shorter runs. Their verdicts are provisional; rerun them without --quick "
    "to decide."
)
_CSS_CLASS = {HOLDS: "n-holds", FAILS: "n-fails", INCONCLUSIVE: "n-inconclusive", NA: "n-na"}


@dataclass(frozen=True)
class Verdict:
    """One claim's outcome as the index shows it."""

    text: str
    outcome: str
    provisional: bool = False
    cause: str = ""


def parse_verdicts(raw: Any) -> list[Verdict]:
    """``verdicts.json`` in either form: lines ``"claim: outcome"`` or record dicts."""
    out: list[Verdict] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping):
            outcome = str(item.get("outcome", NA))
            out.append(
                Verdict(
                    text=str(item.get("claim", "")),
                    outcome=outcome if outcome in OUTCOMES else NA,
                    provisional=bool(item.get("provisional", False)),
                    cause=str(item.get("cause") or ""),
                )
            )
        elif isinstance(item, str):
            text, _, outcome = item.rpartition(": ")
            if outcome in OUTCOMES:
                out.append(Verdict(text, outcome))
            else:
                out.append(Verdict(item, NA))
    return out


def count_text(verdicts: Sequence[Verdict]) -> list[tuple[str, str]]:
    """``[(css class, phrase), ...]`` such as "2 of 3 claims hold", "1 inconclusive"."""
    if not verdicts:
        return []
    n = len(verdicts)
    counts = {o: sum(v.outcome == o for v in verdicts) for o in OUTCOMES}
    noun = "claim" if n == 1 else "claims"
    verb = "holds" if n == 1 else "hold"
    parts = [(_CSS_CLASS[HOLDS], f"{counts[HOLDS]} of {n} {noun} {verb}")]
    parts += [(_CSS_CLASS[o], f"{counts[o]} {o}") for o in (FAILS, INCONCLUSIVE, NA) if counts[o]]
    return parts


@dataclass
class IndexEntry:
    """One store (or expected target) in the folder index."""

    name: str
    title: str
    href: str | None
    verdicts: Sequence[Any] = ()  # verdicts.json content, either form
    runs: str = ""  # e.g. "120 runs, 2 failed"
    quick: bool = False
    is_target: bool = True

    @property
    def parsed(self) -> list[Verdict]:
        return parse_verdicts(list(self.verdicts))


def _status_cell(e: IndexEntry) -> str:
    if not e.href:
        return '<span class="n-na">not run yet</span>'
    found = e.parsed
    if not found:
        return '<span class="n-na">no claims checked</span>' if e.is_target else "–"
    provisional = e.quick or any(v.provisional for v in found)
    counts = ", ".join(f'<span class="{c}">{_e(t)}</span>' for c, t in count_text(found))
    if provisional:
        counts += ' <span class="tag">provisional</span>'
    items = "".join(
        f'<li><span class="{_CSS_CLASS[v.outcome]}">{_e(v.outcome)}</span>: {_e(v.text)}'
        + (f"<br><i>Why:</i> {_e(v.cause)}" if v.cause and v.outcome == FAILS else "")
        + "</li>"
        for v in found
    )
    cls = ' class="prov"' if provisional else ""
    return f"<div{cls}>{counts}</div><details><summary>claims</summary><ul>{items}</ul></details>"


def _intro(entries: Sequence[IndexEntry]) -> tuple[str, str]:
    """(intro sentence, first column's heading), worded for what the folder holds."""
    if entries and all(e.is_target for e in entries):
        return (
            "Each target reproduces one published experiment; its page sets our numbers "
            "beside the claim they test.",
            "target",
        )
    return (
        "Each entry is one results store (a sweep); its page shows the plots and the "
        "per-point numbers, and for a reproduction target the claims beside their verdicts.",
        "store",
    )


def check_index(results_dir: Path) -> None:
    """Raise ``FileExistsError`` naming ``results_dir/index.html`` if it exists and
    tcpair did not write it (``--out`` given a folder with a page of the user's own),
    so that it is never overwritten; called before the runs too."""
    import errno

    path = Path(results_dir) / "index.html"
    if not path.exists():
        return
    try:
        ours = path.is_file() and OURS_MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        ours = False
    if not ours:
        raise FileExistsError(
            errno.EEXIST,
            "was not written by tcpair and would be replaced by the results' index; "
            "give the results a folder of their own",
            str(path),
        )


def write_index(results_dir: Path, entries: Sequence[IndexEntry]) -> Path:
    """Write ``results_dir/index.html`` linking every store (missing ones marked)."""
    check_index(results_dir)
    rows = []
    for e in entries:
        link = f'<a href="{_e(e.href)}">{_e(e.name)}</a>' if e.href else _e(e.name)
        mode = ' <span class="tag">quick</span>' if e.quick else ""
        rows.append(
            f"<tr><td>{link}{mode}</td><td>{_e(e.title)}</td>"
            f'<td class="nowrap">{_e(e.runs)}</td><td>{_status_cell(e)}</td></tr>'
        )
    intro, first = _intro(entries)
    run = [e for e in entries if e.href]
    banner = ""
    if run and all(e.quick for e in run):
        banner = f'<div class="banner quick">{_e(QUICK_BANNER)}</div>\n'
    elif any(e.quick for e in run):
        banner = f'<div class="banner quick">{_e(MIXED_BANNER)}</div>\n'

    text = (
        _head("tcpair results")
        + "\n<h1>tcpair results</h1>\n"
        + banner
        + f"<p>{_e(intro)}</p>\n"
        + f"<table><thead><tr><th>{first}</th><th>what</th><th>runs</th><th>claims</th></tr>"
        + "</thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table>\n"
        + _footer()
        + "\n"
    )
    path = Path(results_dir) / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


__all__ = ["MIXED_BANNER", "IndexEntry", "Verdict", "count_text", "parse_verdicts", "write_index"]
