"""Fig. 13 against Fig. 12 (Sun et al. 2005): the runs of the reference target stored
beside this one (:func:`reference_runs`) and the claim that every scheme's goodput
under the two-state model is well below its goodput under the Expo model
(:func:`claim_below_reference`), paired by seed and p and decided from 95%
confidence intervals (:mod:`tcpair.evidence.verdict`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tcpair.evidence.verdict import FAILS, NA, Interval, all_of, below
from tcpair.reporting.analysis import Context
from tcpair.reporting.page import Claim
from tcpair.reproduce.claims import interval_of, judge, make_claim, not_assessed
from tcpair.reproduce.common import paired_ratios, with_goodput
from tcpair.reproduce.sun2005.spec import DISTINCT, FLOW, ROLES, SHORT, fig_source


def _greatly_below(iv: Interval) -> str:
    return below(iv, 1 - DISTINCT)


def claim_below_reference(
    runs: pd.DataFrame, ref: pd.DataFrame | None, note: str, fig: str, ref_fig: str
) -> Claim:
    """Every scheme's goodput below the reference target's at every common p."""
    text = (
        f"compared with the Expo error model (Fig. {ref_fig}) the throughput of all three "
        f"protocols is greatly reduced: each scheme's mean goodput more than {DISTINCT:.0%} "
        f"below its Fig. {ref_fig} mean at every PLR both targets swept"
    )
    rule = (
        f"paired ratio (by seed) of each scheme's goodput here over Fig. {ref_fig}'s: 95% CI "
        f"below {1 - DISTINCT:g} at every common p ('greatly', the mirror of 'distinct')"
    )
    src, cid = fig_source(fig), f"below_fig{ref_fig}"
    if ref is None:
        return not_assessed(src, text, cid, rule, note)
    both = pd.concat([runs.assign(_store="here"), ref.assign(_store="ref")], ignore_index=True)
    r = paired_ratios(both, "_store", "here", "ref", ["scheme", "p"]).dropna(subset=["ratio"])
    parts = [
        judge(
            f"{SHORT.get(row['scheme'], row['scheme'])} p={row['p']:g}",
            interval_of(row),
            _greatly_below,
        )
        for _, row in r.iterrows()
        if row["scheme"] in ROLES
    ]
    found = set(r["scheme"]) if len(r) else set()
    missing = [SHORT[s] for s in ROLES if s not in found]
    outcome = all_of(p.outcome for p in parts)
    extra = note
    if missing and parts:
        extra = f"Not assessed (no runs in both): {', '.join(missing)}. {note}".strip()
        outcome = FAILS if outcome == FAILS else NA
    return make_claim(
        src,
        text,
        cid,
        rule,
        parts,
        combine=lambda _: outcome,
        note=extra,
        empty=f"no PLR with runs of the same scheme in both targets. {note}",
    )


def reference_runs(ctx: Context, name: str) -> tuple[pd.DataFrame | None, str]:
    """The successful runs (goodput in KB/s) of target ``name`` stored beside this one,
    else None and why."""
    from tcpair._errors import ScenarioError
    from tcpair.results.store import SWEEP
    from tcpair.sweeper.commit import OK
    from tcpair.sweeper.view import open_sweep

    here = Path(ctx.result.directory)
    there = here.parent / name
    how = (
        f"run both targets into one output directory (tcpair reproduce "
        f"{name.replace('_', '-')} {here.name.replace('_', '-')} --out DIR)"
    )
    if not (there / SWEEP).is_file():
        return None, f"no {name} results beside this target's: {how}"
    try:
        ref = open_sweep(there)
    except ScenarioError as exc:
        return None, f"{name}'s results cannot be read ({exc}): {how}"
    if ref.quick != ctx.quick:
        modes = {True: "quick", False: "full"}
        return None, (
            f"{name}'s results are {modes[ref.quick]}-mode and these {modes[ctx.quick]}-mode: "
            f"{how}, in one mode"
        )
    runs = ref.runs
    ok = runs[runs["status"] == OK] if "status" in runs.columns else runs
    mine = set(ctx.ok_runs.get("tcpair_version", pd.Series(dtype=object)).dropna())
    theirs = set(ok.get("tcpair_version", pd.Series(dtype=object)).dropna())
    if mine and theirs and mine != theirs:
        return None, f"{name}'s runs come from another simulator build: {how}"
    if ok.empty:
        return None, f"{name} has no successful runs: {how}"
    return with_goodput(ok, [FLOW]), f"Reference: the {name} store beside this one."


__all__ = ["claim_below_reference", "reference_runs"]
