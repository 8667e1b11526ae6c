"""Targets ``clrp_fig5`` .. ``clrp_fig13``: paper 001's Figures 5-13.

One module for the nine targets: they share the schemes (Reno, Snoop, CLRP),
the flow ``tcp1`` and the plots; they differ in the path (MH -> FH and FH -> MH
over one wireless link, MH -> MH over two), the error model (Expo, or the
two-state Markov model with the PLR of its Good state on the x-axis), what is
measured (throughput, mean end-to-end delay in Fig. 7, the congestion window
over time in Figs. 8-9) and the claims set beside our numbers. :data:`FIGS`
maps each sweep's name to that choice. The paper's figures are missing from
our copy: every claim is the text's.

Every verdict is computed from the means over seeds (the tables give 95% CIs;
ratios of goodputs carry a delta-method CI). "Throughput" is our goodput. Most
claims compare two schemes' goodputs at every swept PLR p of a range
(:class:`RatioClaim`); each check of a claim is one of

- *above*: ratio > 1 ("improves on", "performs better");
- *distinct*: ratio > 1 + :data:`DISTINCT` ("much", "distinct" improvement:
  beyond the band we call close);
- *close*: |ratio - 1| <= :data:`CLOSE` ("close", "comparable").

The detail of a check gives the range of the ratio seen over the range of p
beside the paper's numbers. The other claims:

- Fig. 5, "close below 0.2%": every pair of schemes close at every p < 0.2%.
- Fig. 7, CLRP's delay "constant, between 0.14 s and 0.16 s": the largest over
  the smallest of CLRP's mean delays over p is <= 1 + :data:`DELAY_FLAT`, and
  CLRP's delay is below Snoop's at every p > 1%. Snoop's "rises from 0.14 s to
  0.30 s": Snoop's delay at the largest swept p is >= :data:`DELAY_RISE` times
  its delay at the smallest. The paper does not define its delay, so both
  claims are judged twice: on ``e2e_delay_mean_s`` (first transmission to first
  arrival) and on ``app_delay_mean_s`` (first transmission to in-order delivery
  to the application, head-of-line wait included).
- Fig. 8, "Snoop keeps cwnd below 12": Snoop's largest sampled cwnd over the
  run is < :data:`SNOOP_CWND_CAP` in more than :data:`MOST` of the seeds;
  "frequently reduces it to one for timeouts": in more than :data:`MOST` of the
  seeds Snoop has >= :data:`FREQUENT_TIMEOUTS` timeouts and its trace falls to 1.
- Fig. 9, "CLRP usually grows cwnd to 16": CLRP's largest cwnd is >=
  :data:`CLRP_CWND` in more than :data:`MOST` of the seeds; "under a bigger
  window": CLRP's time-average usable window min(cwnd, flow window) (mean over
  seeds) > Snoop's; "lower the probability of timeouts": CLRP's mean timeouts <
  Snoop's.
- Fig. 10, "more pronounced above 1%": for Snoop and CLRP, the gain over Reno
  at every p > 1% exceeds the largest gain at p <= 1%.
- Fig. 13, "all three lower than with the Expo model (Fig. 12)": each scheme's
  mean goodput is below its Fig. 12 mean at every PLR both targets swept. Read
  from ``clrp_fig12``'s store beside this one (same output directory, same
  mode, same simulator build); otherwise not assessed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpair.analysis import Analysis, Context
from tcpair.report import FAILS, HOLDS, NA, Claim, Figure
from tcpair.reproduce._common import (
    GOODPUT,
    fmt_values,
    pm,
    ratios,
    runs_with_goodput,
    save,
    scheme_points,
    with_goodput,
)
from tcpair.stats import aggregate

FLOW = "tcp1"
SCHEMES: tuple[str, ...] = ("reno", "snoop", "clrp")
SOURCE = "Sun, Li and Liew (paper 001)"
DELAY = "e2e_delay_mean_s"  # first transmission -> first arrival at the receiver
APP_DELAY = "app_delay_mean_s"  # first transmission -> in-order delivery to the application
# Paper 001 does not define its "end-to-end delay"; both readings are measured and judged.
DELAY_WHAT = {
    DELAY: "first transmission to first arrival at the receiver",
    APP_DELAY: "first transmission to in-order delivery to the receiving application",
}

CLOSE = 0.10  # "close", "comparable": means within 10% of each other
DISTINCT = 0.10  # "much", "distinct" improvement: more than the 10% we call close
# Fig. 7. The paper's CLRP delay spans 0.14-0.16 s (max/min 1.14): "constant" allows 15%.
DELAY_FLAT = 0.15
# Fig. 7. The paper's Snoop delay goes from 0.14 to 0.30 s (2.1x): "sharply" is >= 1.5x.
DELAY_RISE = 1.5
SNOOP_CWND_CAP = 12.0  # Fig. 8: "always keeps the congestion window size less than 12"
CLRP_CWND = 16.0  # Fig. 9: "usually increases the congestion window size to 16"
# Fig. 8, "frequently reduces it to one for timeouts": at least 5 timeouts in the run
# (the paper's 100 s trace; one every 20 s on average).
FREQUENT_TIMEOUTS = 5
MOST = 0.5  # "usually", "always" in one plotted run: in more than half of our seeds
# The flows' window (paper 001: 30 segments). cwnd can grow past it (Reno's fast-recovery
# inflation, TCP-MH's inflation by listed DUPACKs) without letting more packets out, so
# "sends under a bigger window" compares time averages of min(cwnd, window); the flow's
# own window is read from the scenario when it gives one.
WINDOW = 30.0
PLOT_TOP = 1.5  # cwnd plots stop at 1.5 windows
REL = 1e-9  # tolerance when placing a swept p against a range's bounds

COLORS = {"reno": "#1f77b4", "snoop": "#d62728", "clrp": "#2ca02c"}
LABELS = {"reno": "TCP Reno", "snoop": "Snoop", "clrp": "CLRP"}
SHORT = {"reno": "Reno", "snoop": "Snoop", "clrp": "CLRP"}


@dataclass(frozen=True)
class Band:
    """A range of PLR, bounds included unless open."""

    lo: float = 0.0
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False

    def contains(self, p: float) -> bool:
        above = p > self.lo * (1 + REL) if self.lo_open else p >= self.lo * (1 - REL)
        below = p < self.hi * (1 - REL) if self.hi_open else p <= self.hi * (1 + REL)
        return above and below

    @property
    def text(self) -> str:
        def pc(x: float) -> str:
            return f"{x * 100:g}%"

        if self.lo == self.hi:
            return f"p = {pc(self.lo)}"
        lo = f"p {'>' if self.lo_open else '>='} {pc(self.lo)}" if self.lo > 0 else ""
        hi = f"p {'<' if self.hi_open else '<='} {pc(self.hi)}" if math.isfinite(self.hi) else ""
        if lo and hi:
            return f"{pc(self.lo)} {'<' if self.lo_open else '<='} {hi}"
        return lo or hi or "every p"


EVERY = Band()
BELOW_02 = Band(hi=0.002, hi_open=True)  # Fig. 5: "less than 0.2%"
FROM_02_TO_1 = Band(0.002, 0.01)  # Fig. 5: "from 0.2% to 1%"
FROM_001_TO_1 = Band(0.0001, 0.01)  # Fig. 6: "from 0.01% to 1%"
UP_TO_1 = Band(hi=0.01)  # Fig. 10: "even if PLR is low" (and not yet "above 1%")
ABOVE_1 = Band(0.01, lo_open=True)  # "above 1%", "further increased"
ABOVE_6 = Band(0.06, lo_open=True)  # Fig. 12: "higher than 6%"
AT_10 = Band(0.1, 0.1)  # "around 10%", "at a PLR of 10%"
LOWEST = Band(hi=0.0001)  # Fig. 11: "even when the PLR is 0.01%"


@dataclass(frozen=True)
class Check:
    """One comparison num/den at every p of a claim's range.

    ``test``: "above" (ratio > 1), "distinct" (> 1 + DISTINCT) or "close"
    (|ratio - 1| <= CLOSE). ``paper``: the paper's gain (ratio - 1) range, or
    one number when both ends are equal, printed beside ours."""

    num: str
    den: str
    test: str
    paper: tuple[float, float] | None = None


@dataclass(frozen=True)
class RatioClaim:
    """A claim made of checks of goodput ratios over a range of PLR."""

    text: str
    band: Band
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class FigSpec:
    """What distinguishes one of the nine targets."""

    figure: str
    kind: str  # "goodput", "delay" or "cwnd"
    path: str  # "MH -> FH", "FH -> MH", "MH -> MH"
    model: str  # "expo" or "markov"
    claims: tuple[RatioClaim | str, ...]
    trace: str = ""  # the scheme whose cwnd trace the page plots (kind "cwnd")


def _gain(lo: float, hi: float | None = None) -> tuple[float, float]:
    return (lo, lo if hi is None else hi)


FIGS: dict[str, FigSpec] = {
    "clrp_fig5": FigSpec(
        "5",
        "goodput",
        "MH -> FH",
        "expo",
        (
            RatioClaim(
                "below 0.2% PLR the three protocols perform close to each other: every pair "
                f"within {CLOSE:.0%} at every p < 0.2%",
                BELOW_02,
                (
                    Check("snoop", "reno", "close"),
                    Check("clrp", "reno", "close"),
                    Check("clrp", "snoop", "close"),
                ),
            ),
            RatioClaim(
                f"from 0.2% to 1% Snoop stays close to Reno (within {CLOSE:.0%}) while CLRP "
                "performs better than both, at every p in [0.2%, 1%]",
                FROM_02_TO_1,
                (
                    Check("snoop", "reno", "close"),
                    Check("clrp", "snoop", "above"),
                    Check("clrp", "reno", "above"),
                ),
            ),
            RatioClaim(
                "above 1% CLRP improves on Snoop (the paper: by 6.2% to 48.1%) and on Reno "
                "(by 39.0% to 147.1%): CLRP above both at every p > 1%",
                ABOVE_1,
                (
                    Check("clrp", "snoop", "above", _gain(0.062, 0.481)),
                    Check("clrp", "reno", "above", _gain(0.390, 1.471)),
                ),
            ),
        ),
    ),
    "clrp_fig6": FigSpec(
        "6",
        "goodput",
        "MH -> FH",
        "markov",
        (
            RatioClaim(
                f"from 0.01% to 1% Good-state PLR CLRP is comparable with Snoop (within "
                f"{CLOSE:.0%}) and both improve on Reno, at every p in [0.01%, 1%]",
                FROM_001_TO_1,
                (
                    Check("clrp", "snoop", "close"),
                    Check("snoop", "reno", "above"),
                    Check("clrp", "reno", "above"),
                ),
            ),
            RatioClaim(
                "above 1% CLRP improves distinctly on Snoop (the paper: by 14.8% to 77.5%) "
                "and on Reno (by 49.5% to 286.9%): CLRP above both at every p > 1%",
                ABOVE_1,
                (
                    Check("clrp", "snoop", "above", _gain(0.148, 0.775)),
                    Check("clrp", "reno", "above", _gain(0.495, 2.869)),
                ),
            ),
        ),
    ),
    "clrp_fig7": FigSpec(
        "7",
        "delay",
        "MH -> FH",
        "markov",
        ("delay_flat", "delay_rise", "app_delay_flat", "app_delay_rise"),
    ),
    "clrp_fig8": FigSpec(
        "8", "cwnd", "MH -> FH", "markov", ("snoop_cap", "snoop_timeouts"), trace="snoop"
    ),
    "clrp_fig9": FigSpec(
        "9",
        "cwnd",
        "MH -> FH",
        "markov",
        ("clrp_reach", "clrp_bigger", "clrp_fewer_timeouts"),
        trace="clrp",
    ),
    "clrp_fig10": FigSpec(
        "10",
        "goodput",
        "FH -> MH",
        "expo",
        (
            RatioClaim(
                f"CLRP and Snoop improve much on Reno even at low PLR: both more than "
                f"{DISTINCT:.0%} above Reno at every p <= 1%",
                UP_TO_1,
                (Check("snoop", "reno", "distinct"), Check("clrp", "reno", "distinct")),
            ),
            "pronounced",
            RatioClaim(
                "at a PLR around 10% CLRP improves on Snoop (the paper: by 27.5%) and on "
                "Reno (by about 705.2%): CLRP above both at p = 10%",
                AT_10,
                (
                    Check("clrp", "snoop", "above", _gain(0.275)),
                    Check("clrp", "reno", "above", _gain(7.052)),
                ),
            ),
        ),
    ),
    "clrp_fig11": FigSpec(
        "11",
        "goodput",
        "FH -> MH",
        "markov",
        (
            RatioClaim(
                "CLRP improves steadily on Snoop (the paper: by 6.3% already at 0.01% "
                "Good-state PLR): CLRP above Snoop at every p",
                EVERY,
                (Check("clrp", "snoop", "above"),),
            ),
            RatioClaim(
                "even at 0.01% Good-state PLR CLRP is above Snoop (the paper: +6.3%)",
                LOWEST,
                (Check("clrp", "snoop", "above", _gain(0.063)),),
            ),
            RatioClaim(
                "at 10% Good-state PLR CLRP improves on Snoop (the paper: by 41.3%) and on "
                "Reno (by 1334.2%): CLRP above both at p = 10%",
                AT_10,
                (
                    Check("clrp", "snoop", "above", _gain(0.413)),
                    Check("clrp", "reno", "above", _gain(13.342)),
                ),
            ),
        ),
    ),
    "clrp_fig12": FigSpec(
        "12",
        "goodput",
        "MH -> MH",
        "expo",
        (
            RatioClaim(
                "CLRP improves a little but steadily on Snoop at all PLRs: CLRP above Snoop "
                "at every p",
                EVERY,
                (Check("clrp", "snoop", "above"),),
            ),
            RatioClaim(
                f"above 6% Snoop is close to Reno (within {CLOSE:.0%}) while CLRP is "
                f"distinctly (more than {DISTINCT:.0%}) above both, at every p > 6%",
                ABOVE_6,
                (
                    Check("snoop", "reno", "close"),
                    Check("clrp", "snoop", "distinct"),
                    Check("clrp", "reno", "distinct"),
                ),
            ),
        ),
    ),
    "clrp_fig13": FigSpec(
        "13",
        "goodput",
        "MH -> MH",
        "markov",
        (
            RatioClaim(
                "CLRP improves prominently and steadily on Snoop (the paper: by 5.0% to "
                "169.2%): CLRP above Snoop at every p",
                EVERY,
                (Check("clrp", "snoop", "above", _gain(0.050, 1.692)),),
            ),
            "below_fig12",
        ),
    ),
}
EXPO_TWIN = "clrp_fig12"  # the store Fig. 13's "lower than with Expo" claim reads


def figspec(name: str, axes: Sequence[str]) -> FigSpec:
    """The target's FigSpec; a renamed copy of a sweep gets plots and no claims."""
    if name in FIGS:
        return FIGS[name]
    return FigSpec("", "goodput" if "p" in axes else "cwnd", "", "", (), trace="clrp")


def points(runs: pd.DataFrame, by: Sequence[str] = ("scheme", "p")) -> pd.DataFrame:
    """Per (scheme, p): goodput in KB/s, delay and counters, mean/std/n/95% CI."""
    return scheme_points(runs, list(by))


def vs(pts: pd.DataFrame, num: str, den: str) -> pd.DataFrame:
    """Goodput ratio ``num``/``den`` per p with a 95% CI."""
    return ratios(pts, "scheme", num, den, ["p"])


def _pct(x: float) -> str:
    return f"{x:+.1%}"


def _paper(gain: tuple[float, float]) -> str:
    lo, hi = gain
    return _pct(lo) if lo == hi else f"{_pct(lo)} to {_pct(hi)}"


def _span(values: pd.Series, fmt: str = ".2f") -> str:
    """``a to b``, or ``a`` when every value prints the same."""
    lo, hi = f"{values.min():{fmt}}", f"{values.max():{fmt}}"
    return lo if lo == hi else f"from {lo} to {hi}"


def _passes(test: str, ratio: float) -> bool:
    if test == "above":
        return ratio > 1
    if test == "distinct":
        return ratio > 1 + DISTINCT
    if test == "close":
        return abs(ratio - 1) <= CLOSE
    raise ValueError(f"unknown test {test!r}")


FAIL_WORDS = {
    "above": "<= 1",
    "distinct": f"<= {1 + DISTINCT:g}",
    "close": f"outside 1 ± {CLOSE:g}",
}


def _fig_source(fig: str) -> str:
    return f"{SOURCE}, Fig. {fig}" if fig else SOURCE


def claim_ratios(pts: pd.DataFrame, rc: RatioClaim, fig: str) -> Claim:
    """Verdict of a :class:`RatioClaim`: every check passes at every p of its range."""
    src = _fig_source(fig)
    notes, problems, missing = [], [], []
    for ck in rc.checks:
        r = vs(pts, ck.num, ck.den).dropna(subset=["ratio"])
        r = r[[rc.band.contains(float(p)) for p in r["p"]]] if len(r) else r
        name = f"{SHORT[ck.num]}/{SHORT[ck.den]}"
        if r.empty:
            missing.append(name)
            continue
        gain = r["ratio"] - 1
        if len(r) == 1:
            seen = f"{_pct(float(gain.iloc[0]))} at p={float(r['p'].iloc[0]):g}"
        else:
            seen = f"{_pct(gain.min())} to {_pct(gain.max())} over {len(r)} PLRs"
        ci = r["ratio_ci95"].dropna()
        if len(ci):
            seen += f" (CI of the ratio up to ±{ci.max():.3f})"
        if ck.paper is not None:
            seen += f"; paper {_paper(ck.paper)}"
        notes.append(f"{name}: {seen}")
        bad = r[[not _passes(ck.test, float(x)) for x in r["ratio"]]]
        if len(bad):
            problems.append(
                f"{name} {FAIL_WORDS[ck.test]} at "
                + ", ".join(
                    f"p={float(p):g} ({float(x):.3f})"
                    for p, x in zip(bad["p"], bad["ratio"], strict=True)
                )
            )
    if not notes:
        where = "" if rc.band == EVERY else f" at {rc.band.text}"
        return Claim(src, rc.text, NA, f"no swept PLR{where} with both schemes' runs")
    detail = "; ".join(notes) + "."
    if problems:
        detail += " " + "; ".join(problems) + "."
    if missing:
        detail += f" Not assessed (no runs of both schemes): {', '.join(missing)}."
    verdict = FAILS if problems else (NA if missing else HOLDS)
    return Claim(src, rc.text, verdict, detail)


def _series(pts: pd.DataFrame, scheme: str, col: str) -> pd.Series:
    """Mean of ``col`` per p for one scheme, sorted by p."""
    d = pts[pts["scheme"] == scheme] if "scheme" in pts.columns else pts.iloc[0:0]
    if d.empty or f"{col}_mean" not in d.columns:
        return pd.Series(dtype=float)
    s = pd.Series(d[f"{col}_mean"].to_numpy(float), index=d["p"].to_numpy(float))
    return s.dropna().sort_index()


PAPER_CLRP_DELAY = (0.14, 0.16)  # Fig. 7, seconds
PAPER_SNOOP_DELAY = (0.14, 0.30)  # Fig. 7, seconds


def _no_delay(pts: pd.DataFrame, col: str = DELAY) -> bool:
    return f"{col}_mean" not in pts.columns or pts[f"{col}_mean"].isna().all()


def _no_delay_msg(col: str) -> str:
    return f"the runs have no {col} column (a core without this delay)"


def claim_delay_flat(pts: pd.DataFrame, fig: str, col: str = DELAY) -> Claim:
    lo, hi = PAPER_CLRP_DELAY
    text = (
        f"CLRP's mean end-to-end delay stays at a constant level (the paper: between {lo:g} s "
        f"and {hi:g} s from 0.01% to 10% Good-state PLR), delay read as "
        f"{DELAY_WHAT[col]} ({col}): its largest over its smallest mean "
        f"over p <= {1 + DELAY_FLAT:g}, and below Snoop's at every p > 1%"
    )
    src = _fig_source(fig)
    if _no_delay(pts, col):
        return Claim(src, text, NA, _no_delay_msg(col))
    clrp, snoop = _series(pts, "clrp", col), _series(pts, "snoop", col)
    if clrp.empty:
        return Claim(src, text, NA, "needs CLRP runs")
    spread = float(clrp.max() / clrp.min()) if clrp.min() > 0 else math.inf
    detail = (
        f"CLRP from {clrp.min():.3f} s to {clrp.max():.3f} s over {len(clrp)} PLRs (max/min "
        f"{spread:.2f}; paper {lo:g}-{hi:g} s, {hi / lo:.2f})"
    )
    problems = [f"max/min {spread:.2f} > {1 + DELAY_FLAT:g}"] if spread > 1 + DELAY_FLAT else []
    both = pd.concat([clrp.rename("clrp"), snoop.rename("snoop")], axis=1, join="inner")
    high = both[[ABOVE_1.contains(float(p)) for p in both.index]]
    if len(high):
        detail += "; CLRP / Snoop at p > 1%: " + ", ".join(
            f"p={p:g}: {c:.3f} / {s:.3f} s"
            for p, c, s in zip(high.index, high["clrp"], high["snoop"], strict=True)
        )
        worse = high[~(high["clrp"] < high["snoop"])]
        if len(worse):
            problems.append(f"CLRP not below Snoop at p = {fmt_values(worse.index)}")
    if problems:
        return Claim(src, text, FAILS, detail + ". " + "; ".join(problems) + ".")
    if high.empty:
        return Claim(src, text, NA, detail + "; no Snoop runs at p > 1% to compare with.")
    return Claim(src, text, HOLDS, detail + ".")


def claim_delay_rise(pts: pd.DataFrame, fig: str, col: str = DELAY) -> Claim:
    lo, hi = PAPER_SNOOP_DELAY
    text = (
        f"Snoop's mean end-to-end delay increases sharply with the Good-state PLR (the paper: "
        f"from {lo:g} s to {hi:g} s, {hi / lo:.1f}x), delay read as {DELAY_WHAT[col]} "
        f"({col}): at the largest swept p it is >= {DELAY_RISE:g}x its value at the smallest"
    )
    src = _fig_source(fig)
    if _no_delay(pts, col):
        return Claim(src, text, NA, _no_delay_msg(col))
    snoop = _series(pts, "snoop", col)
    if len(snoop) < 2:
        return Claim(src, text, NA, "needs Snoop runs at two PLRs or more")
    first, last = float(snoop.iloc[0]), float(snoop.iloc[-1])
    rise = last / first if first > 0 else math.inf
    detail = (
        f"Snoop {first:.3f} s at p={snoop.index[0]:g} -> {last:.3f} s at p={snoop.index[-1]:g} "
        f"({rise:.2f}x; paper {lo:g} -> {hi:g} s at 0.01% -> 10%); largest {snoop.max():.3f} s"
    )
    return Claim(src, text, HOLDS if rise >= DELAY_RISE else FAILS, detail)


def claim_pronounced(pts: pd.DataFrame, fig: str) -> Claim:
    text = (
        "the improvement of Snoop and CLRP over Reno is more pronounced above 1%: for each, "
        "the goodput ratio over Reno at every p > 1% exceeds its largest ratio at p <= 1%"
    )
    src = _fig_source(fig)
    notes, problems, missing = [], [], []
    for scheme in ("snoop", "clrp"):
        r = vs(pts, scheme, "reno").dropna(subset=["ratio"])
        low = r[[UP_TO_1.contains(float(p)) for p in r["p"]]] if len(r) else r
        high = r[[ABOVE_1.contains(float(p)) for p in r["p"]]] if len(r) else r
        name = f"{SHORT[scheme]}/Reno"
        if low.empty or high.empty:
            missing.append(name)
            continue
        notes.append(
            f"{name} up to {low['ratio'].max():.2f} at p <= 1%, {_span(high['ratio'])} at p > 1%"
        )
        if not high["ratio"].min() > low["ratio"].max():
            problems.append(f"{name} at p > 1% not always above its p <= 1% values")
    if not notes:
        return Claim(src, text, NA, "needs Reno, Snoop and CLRP runs on both sides of 1%")
    detail = "; ".join(notes) + "."
    if problems:
        detail += " " + "; ".join(problems) + "."
    if missing:
        detail += f" Not assessed: {', '.join(missing)}."
    return Claim(src, text, FAILS if problems else (NA if missing else HOLDS), detail)


def claim_below_reference(
    pts: pd.DataFrame, ref: pd.DataFrame | None, note: str, fig: str, ref_fig: str
) -> Claim:
    """Every scheme's mean goodput below the reference target's at every common p."""
    text = (
        f"compared with the Expo error model (Fig. {ref_fig}) the throughput of all three "
        f"protocols is greatly reduced: each scheme's mean goodput below its Fig. {ref_fig} "
        "mean at every PLR both targets swept"
    )
    src = _fig_source(fig)
    if ref is None:
        return Claim(src, text, NA, note)
    notes, problems, missing = [], [], []
    for scheme in SCHEMES:
        a, b = _series(pts, scheme, GOODPUT), _series(ref, scheme, GOODPUT)
        both = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").dropna()
        if both.empty:
            missing.append(SHORT[scheme])
            continue
        r = both["a"] / both["b"]
        notes.append(f"{SHORT[scheme]}: Fig. {fig} / Fig. {ref_fig} {_span(r)} over {len(r)} PLRs")
        bad = r[~(r < 1)]
        if len(bad):
            problems.append(f"{SHORT[scheme]} not lower at p = {fmt_values(bad.index)}")
    if not notes:
        return Claim(src, text, NA, f"no PLR with runs of the same scheme in both targets. {note}")
    detail = "; ".join(notes) + "."
    if problems:
        detail += " " + "; ".join(problems) + "."
    if missing:
        detail += f" Not assessed (no runs in both): {', '.join(missing)}."
    if note:
        detail += f" {note}"
    return Claim(src, text, FAILS if problems else (NA if missing else HOLDS), detail)


def reference_points(ctx: Context, name: str) -> tuple[pd.DataFrame | None, str]:
    """Per-point goodput of target ``name`` stored beside this one, else None and why."""
    from tcpair._errors import ScenarioError
    from tcpair.runner import OK, open_sweep
    from tcpair.store import SWEEP

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
    return points(with_goodput(ok, [FLOW])), f"Reference: the {name} store beside this one."


# --- cwnd traces (Figs. 8-9) ------------------------------------------------------


CWND_COLUMNS = [
    "scheme",
    "seed",
    "max_cwnd",
    "mean_cwnd",
    "mean_window",
    "below_cap",
    "falls_to_one",
    "timeouts",
    GOODPUT,
]


def cwnd_stats(runs: pd.DataFrame, ts: pd.DataFrame, window: float = WINDOW) -> pd.DataFrame:
    """Per run: largest and time-average cwnd (samples are evenly spaced), the
    time-average of the usable window min(cwnd, ``window``), the share of samples
    below :data:`SNOOP_CWND_CAP`, how often the trace falls to 1, the run's
    timeouts and goodput (KB/s)."""
    need = {"run_key", "cwnd"}
    if ts.empty or runs.empty or not need <= set(ts.columns) or "run_key" not in runs.columns:
        return pd.DataFrame(columns=CWND_COLUMNS)
    if "flow" in ts.columns:
        ts = ts[ts["flow"] == FLOW]
    meta = runs.drop_duplicates("run_key").set_index("run_key")
    rows = []
    for key, g in ts.groupby("run_key", sort=False):
        if key not in meta.index or g.empty:
            continue
        c = g.sort_values("time_s")["cwnd"].to_numpy(float) if "time_s" in g else g["cwnd"]
        c = np.asarray(c, float)
        one = c <= 1
        m = meta.loc[key]
        rows.append(
            {
                "scheme": m["scheme"],
                "seed": int(m["seed"]),
                "max_cwnd": float(c.max()),
                "mean_cwnd": float(c.mean()),
                "mean_window": float(np.minimum(c, window).mean()),
                "below_cap": float((c < SNOOP_CWND_CAP).mean()),
                "falls_to_one": int(np.sum(one[1:] & ~one[:-1])),
                "timeouts": float(m["timeouts"]) if "timeouts" in m else math.nan,
                GOODPUT: float(m[GOODPUT]) if GOODPUT in m else math.nan,
            }
        )
    if not rows:
        return pd.DataFrame(columns=CWND_COLUMNS)
    return pd.DataFrame(rows).sort_values(["scheme", "seed"]).reset_index(drop=True)


def _most(flags: pd.Series) -> bool:
    return len(flags) > 0 and float(flags.mean()) > MOST


def _per_seed(d: pd.DataFrame, col: str, fmt: str = "g") -> str:
    return ", ".join(f"{int(s)}: {v:{fmt}}" for s, v in zip(d["seed"], d[col], strict=True))


def claim_snoop_cap(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"Snoop always keeps its congestion window below {SNOOP_CWND_CAP:g}: the largest "
        f"sampled cwnd of the run < {SNOOP_CWND_CAP:g} in more than {MOST:.0%} of the seeds"
    )
    src = _fig_source(fig)
    d = cs[cs["scheme"] == "snoop"]
    if d.empty:
        return Claim(src, text, NA, "needs Snoop runs with a cwnd trace")
    ok = d["max_cwnd"] < SNOOP_CWND_CAP
    detail = (
        f"largest cwnd per seed {_per_seed(d, 'max_cwnd', '.1f')}; below "
        f"{SNOOP_CWND_CAP:g} in {int(ok.sum())} of {len(d)} seeds; share of the time below "
        f"{SNOOP_CWND_CAP:g}: {d['below_cap'].mean():.0%} (mean over seeds)"
    )
    return Claim(src, text, HOLDS if _most(ok) else FAILS, detail)


def claim_snoop_timeouts(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"Snoop frequently reduces its window to one for timeouts: >= {FREQUENT_TIMEOUTS} "
        f"timeouts in the run and a trace that falls to cwnd 1, in more than {MOST:.0%} of "
        "the seeds"
    )
    src = _fig_source(fig)
    d = cs[cs["scheme"] == "snoop"]
    if d.empty:
        return Claim(src, text, NA, "needs Snoop runs with a cwnd trace")
    ok = (d["timeouts"] >= FREQUENT_TIMEOUTS) & (d["falls_to_one"] >= 1)
    detail = (
        f"timeouts per seed {_per_seed(d, 'timeouts', '.0f')}; falls to cwnd 1 in the "
        f"sampled trace {_per_seed(d, 'falls_to_one', 'd')}; both in {int(ok.sum())} of "
        f"{len(d)} seeds"
    )
    c = cs[cs["scheme"] == "clrp"]
    if len(c):
        detail += f" (CLRP: timeouts {_per_seed(c, 'timeouts', '.0f')})"
    return Claim(src, text, HOLDS if _most(ok) else FAILS, detail)


def claim_clrp_reach(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        f"CLRP usually increases its congestion window to {CLRP_CWND:g}: the largest sampled "
        f"cwnd of the run >= {CLRP_CWND:g} in more than {MOST:.0%} of the seeds"
    )
    src = _fig_source(fig)
    d = cs[cs["scheme"] == "clrp"]
    if d.empty:
        return Claim(src, text, NA, "needs CLRP runs with a cwnd trace")
    ok = d["max_cwnd"] >= CLRP_CWND
    detail = (
        f"largest cwnd per seed {_per_seed(d, 'max_cwnd', '.1f')}; >= {CLRP_CWND:g} in "
        f"{int(ok.sum())} of {len(d)} seeds"
    )
    return Claim(src, text, HOLDS if _most(ok) else FAILS, detail)


def _compare(cs: pd.DataFrame, col: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    c, s = cs[cs["scheme"] == "clrp"], cs[cs["scheme"] == "snoop"]
    if c.empty or s.empty or c[col].isna().all() or s[col].isna().all():
        return None
    return aggregate(c.assign(_k=0), ["_k"], [col]), aggregate(s.assign(_k=0), ["_k"], [col])


def claim_clrp_bigger(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        "CLRP sends packets under a bigger window than Snoop: CLRP's time-average usable "
        "window min(cwnd, flow window) (mean over seeds) above Snoop's"
    )
    src = _fig_source(fig)
    both = _compare(cs, "mean_window")
    if both is None:
        return Claim(src, text, NA, "needs CLRP and Snoop runs with a cwnd trace")
    c, s = (float(x["mean_window_mean"].iloc[0]) for x in both)
    cc, sc = (float(x["mean_window_ci95"].iloc[0]) for x in both)
    raw = _compare(cs, "mean_cwnd")
    detail = f"time-average usable window: CLRP {pm(c, cc)}, Snoop {pm(s, sc)} segments"
    if raw is not None:
        rc, rs = (float(x["mean_cwnd_mean"].iloc[0]) for x in raw)
        detail += f" (of cwnd itself: CLRP {rc:.2f}, Snoop {rs:.2f})"
    return Claim(src, text, HOLDS if c > s else FAILS, detail)


def claim_clrp_fewer_timeouts(cs: pd.DataFrame, fig: str) -> Claim:
    text = (
        "CLRP's timely retransmissions lower the probability of timeouts: CLRP's mean "
        "number of timeouts below Snoop's"
    )
    src = _fig_source(fig)
    both = _compare(cs, "timeouts")
    if both is None:
        return Claim(src, text, NA, "needs CLRP and Snoop runs")
    c, s = (float(x["timeouts_mean"].iloc[0]) for x in both)
    cc, sc = (float(x["timeouts_ci95"].iloc[0]) for x in both)
    detail = f"timeouts per run: CLRP {pm(c, cc, '.1f')}, Snoop {pm(s, sc, '.1f')}"
    return Claim(src, text, HOLDS if c < s else FAILS, detail)


def claims(
    pts: pd.DataFrame,
    spec: FigSpec,
    cs: pd.DataFrame | None = None,
    ref: tuple[pd.DataFrame | None, str] = (None, ""),
) -> list[Claim]:
    """Verdicts computed from the numbers, never written by hand."""
    fig = spec.figure
    cs = cs if cs is not None else pd.DataFrame(columns=CWND_COLUMNS)
    make: dict[str, Callable[[], Claim]] = {
        "delay_flat": lambda: claim_delay_flat(pts, fig),
        "delay_rise": lambda: claim_delay_rise(pts, fig),
        "app_delay_flat": lambda: claim_delay_flat(pts, fig, APP_DELAY),
        "app_delay_rise": lambda: claim_delay_rise(pts, fig, APP_DELAY),
        "pronounced": lambda: claim_pronounced(pts, fig),
        "below_fig12": lambda: claim_below_reference(pts, ref[0], ref[1], fig, "12"),
        "snoop_cap": lambda: claim_snoop_cap(cs, fig),
        "snoop_timeouts": lambda: claim_snoop_timeouts(cs, fig),
        "clrp_reach": lambda: claim_clrp_reach(cs, fig),
        "clrp_bigger": lambda: claim_clrp_bigger(cs, fig),
        "clrp_fewer_timeouts": lambda: claim_clrp_fewer_timeouts(cs, fig),
    }
    return [
        claim_ratios(pts, c, fig) if isinstance(c, RatioClaim) else make[c]() for c in spec.claims
    ]


# --- plots ----------------------------------------------------------------------


def _xlabel(spec: FigSpec) -> str:
    if spec.model == "markov":
        return "packet loss rate in the Good state (two-state Markov model)"
    return "packet loss rate (Expo error model)"


def _stem(spec: FigSpec) -> str:
    return f"clrp_fig{spec.figure or 'x'}"


def plot_metric(pts: pd.DataFrame, spec: FigSpec, out: Path, col: str) -> Figure:
    """Goodput (KB/s) or mean delay (s) per scheme vs p (log x), 95% CI bars."""
    from matplotlib.figure import Figure as MplFigure

    delay = col in DELAY_WHAT
    fig = MplFigure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for scheme in SCHEMES:
        d = pts[pts["scheme"] == scheme].sort_values("p") if "scheme" in pts.columns else pts
        if d.empty or f"{col}_mean" not in d.columns:
            continue
        ax.errorbar(
            d["p"],
            d[f"{col}_mean"],
            yerr=d[f"{col}_ci95"].fillna(0),
            marker="o",
            ms=4,
            capsize=3,
            color=COLORS[scheme],
            label=LABELS[scheme],
        )
    if delay:
        lo, hi = PAPER_CLRP_DELAY
        ax.axhspan(lo, hi, color=COLORS["clrp"], alpha=0.12, lw=0, label="paper: CLRP")
        ax.axhline(PAPER_SNOOP_DELAY[1], color=COLORS["snoop"], lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel(_xlabel(spec))
    ax.set_ylabel("mean end-to-end delay (s)" if delay else "goodput (KB/s)")
    what = "mean end-to-end delay" if delay else "throughput (goodput)"
    title = f"Fig. {spec.figure}: " if spec.figure else ""
    ax.set_title(f"{title}{what}, {spec.path} (mean, 95% CI over seeds)")
    ax.grid(alpha=0.3, which="both")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    png, svg = save(fig, out, f"{_stem(spec)}_{col if delay else 'goodput'}")
    caption = (
        f"{what.capitalize()} of Reno, Snoop and CLRP against the {_xlabel(spec)}; bars are "
        "95% Student-t confidence intervals."
    )
    if delay:
        caption += (
            f" Delay of a segment: from its {DELAY_WHAT[col]}. Shaded: the paper's CLRP "
            "range (0.14-0.16 s); dotted: Snoop's 0.30 s at 10%."
        )
    return Figure(png, caption, svg=svg)


RATIO_PAIRS = (("clrp", "snoop"), ("clrp", "reno"), ("snoop", "reno"))
LOG_RATIOS = 4.0  # ratios beyond this (the paper's up to 14x over Reno) get a log y-axis


def relative(pts: pd.DataFrame) -> pd.DataFrame:
    """Goodput ratios CLRP/Snoop, CLRP/Reno, Snoop/Reno per p, with 95% CIs."""
    parts = [vs(pts, a, b).assign(pair=f"{LABELS[a]} / {LABELS[b]}") for a, b in RATIO_PAIRS]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=["pair", "p", "ratio", "ratio_ci95"])
    return pd.concat(parts, ignore_index=True)[["pair", "p", "ratio", "ratio_ci95"]]


def plot_ratios(rel: pd.DataFrame, spec: FigSpec, out: Path) -> Figure:
    """Goodput ratios per pair of schemes vs p, with the ±10% band."""
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(7.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    colors = {"CLRP / Snoop": COLORS["snoop"], "CLRP / TCP Reno": COLORS["reno"]}
    for pair, d in rel.groupby("pair", sort=False):
        d = d.sort_values("p")
        ax.errorbar(
            d["p"],
            d["ratio"],
            yerr=d["ratio_ci95"].fillna(0),
            marker="o",
            ms=4,
            capsize=3,
            color=colors.get(str(pair), "#7f7f7f"),
            ls="-" if str(pair).startswith("CLRP") else "--",
            label=str(pair),
        )
    ax.axhspan(1 - CLOSE, 1 + CLOSE, color="#999", alpha=0.15, lw=0, label=f"±{CLOSE:.0%}")
    ax.axhline(1.0, color="#888", lw=0.8)
    ax.set_xscale("log")
    if len(rel) and rel["ratio"].max() > LOG_RATIOS:
        ax.set_yscale("log")
    ax.set_xlabel(_xlabel(spec))
    ax.set_ylabel("goodput ratio")
    ax.set_title("Goodput ratios between schemes (95% CI of the ratio)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    png, svg = save(fig, out, f"{_stem(spec)}_ratios")
    return Figure(
        png,
        "Ratios of mean goodputs at the same PLR; bars are 95% confidence intervals of the "
        f"ratio (delta method); the grey band is ±{CLOSE:.0%} (what the verdicts call close).",
        svg=svg,
    )


def trace_seed(cs: pd.DataFrame, scheme: str) -> int | None:
    """The seed whose trace is plotted: seed 1 if it ran, else the smallest."""
    seeds = sorted(int(s) for s in cs.loc[cs["scheme"] == scheme, "seed"])
    if not seeds:
        return None
    return 1 if 1 in seeds else seeds[0]


def _trace(runs: pd.DataFrame, ts: pd.DataFrame, scheme: str, seed: int) -> pd.DataFrame:
    keys = runs.loc[(runs["scheme"] == scheme) & (runs["seed"] == seed), "run_key"].unique()
    d = ts[ts["run_key"].isin(list(keys))]
    if "flow" in d.columns:
        d = d[d["flow"] == FLOW]
    return d.sort_values("time_s")


def plot_cwnd(
    runs: pd.DataFrame,
    ts: pd.DataFrame,
    cs: pd.DataFrame,
    spec: FigSpec,
    out: Path,
    window: float = WINDOW,
) -> list[Figure]:
    """The page's scheme's cwnd over time (one seed, as the paper), then all schemes.
    The y-axis stops at :data:`PLOT_TOP` windows: inflation spikes beyond it would
    flatten the rest (their sizes are in the table)."""
    from matplotlib.figure import Figure as MplFigure

    top = PLOT_TOP * window
    cut = f" The y-axis stops at {top:g} segments; larger values are in the table."
    figures: list[Figure] = []
    main = spec.trace or "clrp"
    seed = trace_seed(cs, main)
    line = SNOOP_CWND_CAP if main == "snoop" else CLRP_CWND
    if seed is not None:
        d = _trace(runs, ts, main, seed)
        fig = MplFigure(figsize=(7.5, 3.8), layout="constrained")
        ax = fig.add_subplot()
        ax.step(d["time_s"], d["cwnd"], where="post", color=COLORS[main], lw=0.9)
        ax.axhline(line, color="#555", lw=0.8, ls="--", label=f"cwnd = {line:g}")
        ax.axhline(window, color="#999", lw=0.8, ls=":", label=f"flow window {window:g}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("congestion window (segments)")
        ax.set_ylim(0, min(top, max(float(d["cwnd"].max()) if len(d) else 1.0, line) * 1.05))
        title = f"Fig. {spec.figure}: " if spec.figure else ""
        ax.set_title(f"{title}{LABELS[main]} congestion window, seed {seed}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        png, svg = save(fig, out, f"{_stem(spec)}_cwnd_{main}")
        figures.append(
            Figure(
                png,
                f"{LABELS[main]}'s cwnd sampled every 0.1 s over the run (seed {seed}), "
                f"Good-state PLR 10%; dashed: the paper's {line:g} segments, dotted: the "
                f"flow's window.{cut}",
                svg=svg,
            )
        )
    shown = [s for s in SCHEMES if trace_seed(cs, s) is not None]
    if shown:
        fig = MplFigure(figsize=(7.5, 2.0 + 1.6 * len(shown)), layout="constrained")
        axes = fig.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
        for ax, scheme in zip(axes, shown, strict=True):
            s = trace_seed(cs, scheme)
            d = _trace(runs, ts, scheme, int(s)) if s is not None else ts.iloc[0:0]
            ax.step(d["time_s"], d["cwnd"], where="post", color=COLORS[scheme], lw=0.8)
            ax.axhline(SNOOP_CWND_CAP, color="#999", lw=0.6, ls=":")
            ax.axhline(CLRP_CWND, color="#555", lw=0.6, ls="--")
            ax.set_ylabel(f"{LABELS[scheme]}\ncwnd")
            ax.set_ylim(0, min(top, max(float(d["cwnd"].max()) if len(d) else 1.0, 16) * 1.05))
            ax.grid(alpha=0.3)
        axes[-1].set_xlabel("time (s)")
        axes[0].set_title("cwnd of every scheme, same seed (dotted 12, dashed 16)")
        png, svg = save(fig, out, f"{_stem(spec)}_cwnd_all")
        figures.append(
            Figure(
                png,
                "The cwnd traces of Reno, Snoop and CLRP for comparison (the plotted seed of "
                f"each); dotted: 12 segments (Fig. 8), dashed: 16 (Fig. 9).{cut}",
                svg=svg,
            )
        )
    return figures


# --- the page -------------------------------------------------------------------


PATHS = {
    "MH -> FH": (
        "Paper 001 Fig. 1 path, MH -> FH: MH -- BS over a 2 Mb/s 64 us wireless hop, BS -- "
        "FH over a 10 Mb/s 10 ms wired link (scenarios/clrp_one_link_mh_fh.toml), loss on "
        "MH -> BS. Snoop at the BS marks ELN for an ELN-aware MH; CLRP: CLRP-BS and the "
        "TCP-MH sender."
    ),
    "FH -> MH": (
        "Paper 001 Fig. 1 path, FH -> MH: FH -- BS over a 10 Mb/s 10 ms wired link, BS -- MH "
        "over a 2 Mb/s 64 us wireless hop (scenarios/clrp_one_link.toml), loss on BS -> MH. "
        "Snoop caches and retransmits at the BS; CLRP: CLRP-BS and the TCP-MH receiver; the "
        "FH is plain Reno."
    ),
    "MH -> MH": (
        "Paper 001 Fig. 3 path, MH1 -> MH2: two 2 Mb/s 64 us wireless hops joined by a "
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
    from tcpair.store import Store

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
            claims=claims(pts, spec, cs=cs),
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
    rel = relative(pts)
    ref: tuple[pd.DataFrame | None, str] = (None, "")
    if "below_fig12" in spec.claims:
        ref = reference_points(ctx, EXPO_TWIN)
    figures = [plot_metric(pts, spec, ctx.out, GOODPUT), plot_ratios(rel, spec, ctx.out)]
    if spec.kind == "delay":
        for col in (APP_DELAY, DELAY):
            figures.insert(0, plot_metric(pts, spec, ctx.out, col))
            if _no_delay(pts, col):
                intro += f" The runs have no {col} column: its delay claims are not assessed."
    return Analysis(
        figures=figures,
        claims=claims(pts, spec, ref=ref),
        tables=[
            ("Per scheme and PLR", _shown(pts)),
            ("Goodput ratios", rel.rename(columns={"ratio_ci95": "±95% CI", "p": "PLR"})),
        ],
        files=[(f"{stem}_points.csv", "per-point statistics (CSV)")],
        intro=intro,
    )


__all__ = [
    "FIGS",
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
    "reference_points",
]
