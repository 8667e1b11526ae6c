"""The reproduce targets under ns-2.35's buffer and backoff conventions.

The ns-2.35 cross-check (docs/validation.md) found two conventions in which
ns-2 differs from tcpair's defaults while both are right by their own
definitions:

- **DropTail's limit.** ns-2's ``queue-limit N`` counts the packet being
  transmitted: N - 1 wait. tcpair's ``queue = N`` holds N waiting. A paper that
  ran ns-2 with "a buffer of N" had ``queue = N - 1`` in tcpair's terms.
- **RTO backoff.** ns-2.35 (``rfc2988_ true``) keeps doubling while the RTO is
  below ``maxrto_`` (60 s); tcpair stops at ``tcp.max_backoff`` (64).
  ``max_backoff = 1024`` gives ns-2's RTOs.

The targets keep the papers' stated buffers and tcpair's defaults.
:func:`compare_conventions` runs each named target twice, as shipped and with
both of ns-2's conventions, and sets each claim's verdict side by side, so that
a reader sees which verdicts hang on them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from tcpair.sweeper.definition import SweepSpec, parse_sweep

#: ns-2.35's backoff in tcpair's terms: doubling up to 1024x reaches the 60 s
#: cap from any base RTO of 200 ms or more before the cap does.
NS2_MAX_BACKOFF = 1024


def _axis_keys(spec: SweepSpec) -> set[str]:
    return {p for a in spec.axes for p in a.params}


def ns2_conventions(spec: SweepSpec) -> tuple[SweepSpec, list[str]]:
    """``spec`` with each link's queue one packet shorter (where the target
    fixes it) and every flow's ``tcp.max_backoff`` at 1024; with notes on the
    queues left alone (an axis of the target moves them)."""
    raw: dict[str, Any] = copy.deepcopy(dict(spec.raw))
    sets: dict[str, Any] = dict(raw.get("set", {}))
    moved = _axis_keys(spec)
    notes = []
    for link in spec.scenario.get("links", []):
        name = link.get("name")
        for d in ("forward", "reverse"):
            key = f"links.{name}.{d}.queue"
            if key in moved or f"links.{name}.queue" in moved or "links.*.queue" in moved:
                notes.append(f"{name} {d}: queue set by an axis of the target, kept")
                continue
            here = link.get(d) if isinstance(link.get(d), dict) else {}
            whole = sets.get(f"links.{name}.queue", link.get("queue"))
            queue = sets.get(key, here.get("queue", whole))
            if isinstance(queue, int) and queue >= 2:
                sets[key] = queue - 1
    sets["flows.*.tcp.max_backoff"] = NS2_MAX_BACKOFF
    raw["set"] = sets
    base = spec.source.parent if spec.source is not None else None
    return parse_sweep(raw, base_dir=base), notes


def _claims(report: Path, lines: list[str]) -> dict[str, tuple[str, str, str]]:
    """Claim id -> (claim, outcome, outcome with its numbers), from the report's
    ``verdicts.json`` and its verdict lines (``claim: outcome (numbers)``, same order)."""
    from tcpair.reporting.site import VERDICTS

    records = json.loads((report / "report" / VERDICTS).read_text())
    return {
        r["claim_id"]: (r["claim"], r["outcome"], line[len(r["claim"]) + 2 :])
        for r, line in zip(records, lines, strict=True)
    }


def compare_conventions(
    names: Sequence[str],
    out: Path,
    *,
    quick: bool = False,
    jobs: int | None = None,
    say: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Run each target as shipped (``out/shipped/NAME``) and under ns-2's
    conventions (``out/ns2/NAME``); one row per claim with both verdicts."""
    from tcpair.reporting.site import build_report
    from tcpair.reproduce import resolve_targets, targets
    from tcpair.sweeper.backends import make_backend
    from tcpair.sweeper.runner import run_sweep

    known = targets()
    rows = []
    with make_backend(jobs=jobs) as backend:
        for name in resolve_targets(names, known):
            spec = known[name]
            ns2_spec, notes = ns2_conventions(spec)
            found = {}
            for label, s in (("shipped", spec), ("ns2", ns2_spec)):
                where = out / label / name
                run_sweep(s, where, backend=backend, quick=quick, progress=False)
                found[label] = _claims(where, build_report(where))
                if say:
                    say(f"{name} ({label}): {len(found[label])} claims")
            for cid, (claim, ours, shown) in found["shipped"].items():
                _, theirs, other = found["ns2"].get(cid, (claim, "", ""))
                rows.append({
                    "target": name,
                    "claim": claim,
                    "shipped": shown,
                    "ns2_conventions": other,
                    "changed": ours != theirs,
                    "notes": "; ".join(notes),
                })
    return pd.DataFrame(rows)


def conventions_markdown(df: pd.DataFrame) -> str:
    """The comparison as a Markdown table (changed verdicts in bold)."""
    out = ["| target | claim | as shipped | ns-2's queue counting and backoff |",
           "|---|---|---|---|"]
    for r in df.itertuples(index=False):
        mark = "**" if r.changed else ""
        out.append(f"| {r.target} | {r.claim} | {mark}{r.shipped}{mark} "
                   f"| {mark}{r.ns2_conventions}{mark} |")
    return "\n".join(out) + "\n"


__all__ = ["NS2_MAX_BACKOFF", "compare_conventions", "conventions_markdown", "ns2_conventions"]
