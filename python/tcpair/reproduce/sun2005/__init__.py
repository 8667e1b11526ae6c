"""Targets ``clrp_fig5`` .. ``clrp_fig13``: Sun et al. 2005 (CLRP), Figures 5-13.

One analysis for the nine targets: they share the schemes (Reno, Snoop, CLRP),
the flow ``tcp1`` and the plots; they differ in the path (MH -> FH and FH -> MH
over one wireless link, MH -> MH over two), the error model (Expo, or the
two-state Markov model with the PLR of its Good state on the x-axis), what is
measured (throughput, mean end-to-end delay in Fig. 7, the congestion window
over time in Figs. 8-9) and the claims set beside our numbers.
:data:`~tcpair.reproduce.sun2005.spec.FIGS` maps each sweep's name to that
choice. The paper's figures are missing from our copy: every claim is the
text's.

Every verdict is decided from 95% confidence intervals by the rule of
:mod:`tcpair.evidence.verdict`. "Throughput" is our goodput. Most claims compare two
schemes' goodputs at every swept PLR p of a range (:class:`RatioClaim`), on the
ratio paired by seed; each check is one of

- *above*: ratio CI above 1 ("improves on", "performs better");
- *distinct*: ratio CI above 1 + ``DISTINCT`` ("much", "distinct");
- *close*: ratio CI inside 1 +- ``CLOSE`` ("close", "comparable").

The other claims (their rules are in each claim's ``rule``):

- Fig. 7, CLRP's delay "constant": the paired ratio of its delays at any two
  PLRs below 1 + ``DELAY_FLAT``, and below Snoop's at every p > 1%; Snoop's
  "rises sharply": its delay at the largest p over the smallest above
  ``DELAY_RISE``. Judged on ``e2e_delay_mean_s`` and ``app_delay_mean_s``.
- Figs. 8-9 (:mod:`.cwnd`): per-seed observations combined by ``most_of``;
  CLRP against Snoop paired by seed.
- Fig. 10, "more pronounced above 1%": each gain over Reno at p > 1% minus the
  largest at p <= 1% above 0.
- Fig. 13, "lower than with the Expo model (Fig. 12)": each scheme's goodput
  over its Fig. 12 goodput (paired by seed and p) below 1; read from
  ``clrp_fig12``'s store beside this one, else not assessed.

Modules: :mod:`.spec` (what each target runs and claims), :mod:`.claims`
(goodput and delay claims), :mod:`.reference` (Fig. 13 against the runs of
``clrp_fig12``), :mod:`.cwnd` (Figs. 8-9), :mod:`.plots`, and this one (the page).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from tcpair.evidence.stats import aggregate
from tcpair.reporting.analysis import Analysis, Context
from tcpair.reporting.page import Claim
from tcpair.reproduce.common import GOODPUT, runs_with_goodput
from tcpair.reproduce.sun2005 import readings
from tcpair.reproduce.sun2005.claims import (
    claim_below_reference,
    claim_ratios,
    goodput_claims,
    points,
    reference_runs,
    vs,
)
from tcpair.reproduce.sun2005.cwnd import CWND_CLAIMS, CWND_COLUMNS, cwnd_stats, plot_cwnd
from tcpair.reproduce.sun2005.plots import plot_metric, plot_ratios, relative
from tcpair.reproduce.sun2005.spec import (
    ABOVE_1,
    APP_DELAY,
    AT_10,
    BELOW_02,
    DELAY,
    EXPO_TWIN,
    FIGS,
    FLOW,
    FROM_02_TO_1,
    ROLES,
    SCHEMES,
    WINDOW,
    Band,
    Check,
    FigSpec,
    RatioClaim,
    figspec,
)


def claims(
    runs: pd.DataFrame,
    spec: FigSpec,
    cs: pd.DataFrame | None = None,
    ref: tuple[pd.DataFrame | None, str] = (None, ""),
) -> list[Claim]:
    """Verdicts decided from 95% confidence intervals, never written by hand.
    ``runs``: the successful runs of flow ``tcp1`` with goodput in KB/s.

    Each claim is judged under the first available reading (:mod:`.readings`: ns-2's
    Snoop, the paper's CLRP), then again under each other reading that changes a scheme
    the claim speaks of."""
    cs = cs if cs is not None else pd.DataFrame(columns=CWND_COLUMNS)
    present = set(runs["scheme"]) if "scheme" in runs.columns else set()
    rs = readings.available(present)
    if not rs:
        return _claims_once(runs, spec, cs, ref)
    first, out = rs[0], []
    for r in rs:
        ref_r = (readings.relabel(ref[0], r), ref[1]) if ref[0] is not None else ref
        judged = _claims_once(readings.relabel(runs, r), spec, readings.relabel(cs, r), ref_r)
        changed = [
            role
            for role, a, b in (("snoop", r.snoop, first.snoop), ("clrp", r.clrp, first.clrp))
            if a != b
        ]
        out += [
            readings.mark(c, r, only=len(rs) == 1)
            for c in judged
            if all(readings.speaks_of(c, role) for role in changed)
        ]
    return out


def _claims_once(
    runs: pd.DataFrame,
    spec: FigSpec,
    cs: pd.DataFrame,
    ref: tuple[pd.DataFrame | None, str],
) -> list[Claim]:
    named = goodput_claims(runs, spec, ref)
    out = []
    for c in spec.claims:
        if isinstance(c, RatioClaim):
            out.append(claim_ratios(runs, c, spec))
        elif c in CWND_CLAIMS:
            out.append(CWND_CLAIMS[c](cs, spec.figure))
        else:
            out.append(named[c]())
    return out


PATHS = {
    "MH -> FH": (
        "Sun et al. 2005 (CLRP), Fig. 1 path, MH -> FH: MH -- BS over a 2 Mb/s "
        "64 us wireless hop, BS -- "
        "FH over a 10 Mb/s 10 ms wired link (scenarios/clrp_one_link_mh_fh.toml), loss on "
        "MH -> BS. Snoop at the BS marks ELN for an ELN-aware MH; CLRP: CLRP-BS and the "
        "TCP-MH sender."
    ),
    "FH -> MH": (
        "Sun et al. 2005 (CLRP), Fig. 1 path, FH -> MH: FH -- BS over a 10 "
        "Mb/s 10 ms wired link, BS -- MH "
        "over a 2 Mb/s 64 us wireless hop (scenarios/clrp_one_link.toml), loss on BS -> MH. "
        "Snoop caches and retransmits at the BS; CLRP: CLRP-BS and the TCP-MH receiver; the "
        "FH is plain Reno."
    ),
    "MH -> MH": (
        "Sun et al. 2005 (CLRP), Fig. 3 path, MH1 -> MH2: two 2 Mb/s 64 us "
        "wireless hops joined by a "
        "10 Mb/s 100 ms wired link (scenarios/clrp_two_links.toml), the same loss model "
        "(independent streams) on MH1 -> BS1 and BS2 -> MH2. Snoop at both BSs with an "
        "ELN-aware MH1; CLRP at both BSs with TCP-MH at both ends."
    ),
}
MODELS = {
    "expo": "Expo error model (packet units) with rate p.",
    "markov": (
        "Two-state Markov model: mean sojourn 6 s in Good and 0.2 s in Bad, geometric in "
        "4 ms slots, loss 50% in Bad and p in Good."
    ),
}


def _intro(ctx: Context, spec: FigSpec, missing: Sequence[str]) -> str:
    duration = ctx.spec.base(ctx.quick).get("run", {}).get("duration")
    parts = [
        PATHS.get(spec.path, ""),
        MODELS.get(spec.model, ""),
        "1000-byte packets, window 30, "
        + (f"{float(duration):g} s runs, " if duration is not None else "")
        + "no warm-up. Goodput in KB/s (1 KB = 1000 bytes; the paper's 'throughput'); "
        "means over seeds with 95% Student-t CIs. The paper's figures are missing from our "
        "copy: the claims are its text's.",
    ]
    if missing:
        parts.append(f"No successful runs for: {', '.join(missing)}.")
    return " ".join(p for p in parts if p)


REL_SHOWN = {"p": "PLR", "ratio_low": "CI low", "ratio_high": "CI high", "ratio_ci95": "±95% CI"}
POINT_COLUMNS = {
    "scheme": "scheme",
    "p": "PLR",
    f"{GOODPUT}_mean": "goodput KB/s",
    f"{GOODPUT}_ci95": "±95% CI",
    f"{GOODPUT}_n": "seeds",
    f"{DELAY}_mean": "e2e delay s",
    f"{DELAY}_ci95": "delay ±95% CI",
    f"{APP_DELAY}_mean": "app delay s",
    f"{APP_DELAY}_ci95": "app delay ±95% CI",
    "timeouts_mean": "timeouts",
    "window_cuts_mean": "window cuts",
    "bs_retransmits_mean": "BS rexmits",
    "eln_retransmits_mean": "ELN rexmits",
    "clrp_retransmits_mean": "CLRP rexmits",
}


def _shown(pts: pd.DataFrame) -> pd.DataFrame:
    return pts[[c for c in POINT_COLUMNS if c in pts.columns]].rename(columns=POINT_COLUMNS)


def _load_timeseries(ctx: Context, runs: pd.DataFrame) -> pd.DataFrame:
    from tcpair.results.store import Store

    if runs.empty or "run_key" not in runs.columns:
        return pd.DataFrame()
    return Store(ctx.result.directory).load_table("timeseries", list(runs["run_key"].unique()))


def analyse(ctx: Context) -> Analysis:
    """Figures, tables and verdicts for one of the nine targets."""
    spec = figspec(ctx.spec.name, ctx.spec.axis_names)
    runs = runs_with_goodput(ctx, [FLOW])
    stem = ctx.spec.name
    present = set(runs["scheme"]) if "scheme" in runs.columns else set()
    expected = {a.name: a.labels for a in ctx.spec.axes}.get("scheme", SCHEMES)
    missing = [s for s in expected if s not in present]
    intro = _intro(ctx, spec, missing)
    if spec.kind == "cwnd":
        pts = points(runs, ["scheme"])
        ts = _load_timeseries(ctx, runs)
        flow = next((f for f in ctx.spec.base(ctx.quick)["flows"] if f.get("name") == FLOW), {})
        window = float(flow.get("window", WINDOW))
        cs = cwnd_stats(runs, ts, window)
        cs.to_csv(ctx.out / f"{stem}_cwnd.csv", index=False)
        summary = (
            aggregate(cs, ["scheme"], ["max_cwnd", "mean_cwnd", "mean_window", "timeouts", GOODPUT])
            if len(cs)
            else pd.DataFrame(columns=["scheme"])
        )
        if ts.empty:
            intro += " No cwnd traces were stored (the timeseries table is empty)."
        return Analysis(
            figures=plot_cwnd(runs, ts, cs, spec, ctx.out, window),
            claims=claims(runs, spec, cs=cs),
            tables=[
                ("cwnd per run", cs.rename(columns={GOODPUT: "goodput KB/s"})),
                ("Per scheme (mean and 95% CI over seeds)", summary),
                ("Goodput and counters per scheme", _shown(pts)),
            ],
            files=[(f"{stem}_cwnd.csv", "cwnd statistics per run (CSV)")],
            intro=intro,
        )
    pts = points(runs)
    pts.to_csv(ctx.out / f"{stem}_points.csv", index=False)
    rel = relative(runs)
    ref: tuple[pd.DataFrame | None, str] = (None, "")
    if "below_fig12" in spec.claims:
        ref = reference_runs(ctx, EXPO_TWIN)
    figures = [plot_metric(pts, spec, ctx.out, GOODPUT), plot_ratios(rel, spec, ctx.out)]
    if spec.kind == "delay":
        for col in (APP_DELAY, DELAY):
            figures.insert(0, plot_metric(pts, spec, ctx.out, col))
            if col not in runs.columns or runs[col].isna().all():
                intro += f" The runs have no {col} column: its delay claims are not assessed."
    return Analysis(
        figures=figures,
        claims=claims(runs, spec, ref=ref),
        tables=[
            ("Per scheme and PLR", _shown(pts)),
            ("Goodput ratios", rel.rename(columns=REL_SHOWN)),
        ],
        files=[(f"{stem}_points.csv", "per-point statistics (CSV)")],
        intro=intro,
    )


__all__ = [
    "ABOVE_1",
    "AT_10",
    "BELOW_02",
    "FIGS",
    "FROM_02_TO_1",
    "ROLES",
    "SCHEMES",
    "Band",
    "Check",
    "FigSpec",
    "RatioClaim",
    "analyse",
    "claim_below_reference",
    "claim_ratios",
    "claims",
    "cwnd_stats",
    "figspec",
    "points",
    "reference_runs",
    "vs",
]
