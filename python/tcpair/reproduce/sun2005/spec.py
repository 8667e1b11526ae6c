"""What each CLRP target (Sun et al. 2005, Figs. 5-13) runs and claims: constants,
PLR ranges, the ratio checks and :data:`FIGS`, one :class:`FigSpec` per target."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

FLOW = "tcp1"
# What the claims speak of: Reno, "Snoop" and "CLRP". Each has readings (:mod:`.readings`):
# Snoop as ns-2.35 builds it (the comparator of the paper's ns-2 runs) or tcpair's
# paper-faithful Snoop; CLRP as the paper describes it or with a BS local timer.
ROLES: tuple[str, ...] = ("reno", "snoop", "clrp")
# Every scheme label a CLRP sweep may run (the figures' and tables' order).
SCHEMES: tuple[str, ...] = ("reno", "snoop", "snoop_ns2", "clrp", "clrp_timer")
SOURCE = "Sun et al. 2005 (CLRP)"
DELAY = "e2e_delay_mean_s"  # first transmission -> first arrival at the receiver
APP_DELAY = "app_delay_mean_s"  # first transmission -> in-order delivery to the application
# Sun et al. 2005 do not define their "end-to-end delay"; both readings are measured and judged.
DELAY_WHAT = {
    DELAY: "first transmission to first arrival at the receiver",
    APP_DELAY: "first transmission to in-order delivery to the receiving application",
}

CLOSE = 0.10  # "close", "comparable": ratio CI inside 1 +- 10%
DISTINCT = 0.10  # "much", "distinct" improvement: ratio CI above 1 + 10%
# Fig. 7. The paper's CLRP delay spans 0.14-0.16 s (max/min 1.14): "constant" allows 15%.
DELAY_FLAT = 0.15
# Fig. 7. The paper's Snoop delay goes from 0.14 to 0.30 s (2.1x): "sharply" is >= 1.5x.
DELAY_RISE = 1.5
SNOOP_CWND_CAP = 12.0  # Fig. 8: "always keeps the congestion window size less than 12"
CLRP_CWND = 16.0  # Fig. 9: "usually increases the congestion window size to 16"
# Fig. 8, "frequently reduces it to one for timeouts": at least 5 timeouts in the run
# (the paper's 100 s trace; one every 20 s on average).
FREQUENT_TIMEOUTS = 5
MOST = 0.5  # "usually", "always" in one plotted run: in more than half of our seeds (most_of)
# The flows' window (Sun et al. 2005: 30 segments). cwnd can grow past it (Reno's fast-recovery
# inflation, TCP-MH's inflation by listed DUPACKs) without letting more packets out, so
# "sends under a bigger window" compares time averages of min(cwnd, window); the flow's
# own window is read from the scenario when it gives one.
WINDOW = 30.0
PLOT_TOP = 1.5  # cwnd plots stop at 1.5 windows
REL = 1e-9  # tolerance when placing a swept p against a range's bounds

COLORS = {
    "reno": "#1f77b4",
    "snoop": "#d62728",
    "snoop_ns2": "#ff7f0e",
    "clrp": "#2ca02c",
    "clrp_timer": "#9467bd",
}
LABELS = {
    "reno": "TCP Reno",
    "snoop": "Snoop",
    "snoop_ns2": "Snoop (ns-2.35)",
    "clrp": "CLRP",
    "clrp_timer": "CLRP + BS timer",
}
SHORT = {
    "reno": "Reno",
    "snoop": "Snoop",
    "snoop_ns2": "Snoop-ns2",
    "clrp": "CLRP",
    "clrp_timer": "CLRP-timer",
}


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

    @property
    def slug(self) -> str:
        """The range in an identifier: ``p_gt_1pct``, ``p_0.2_to_1pct``, ``every_p``."""

        def pc(x: float) -> str:
            return f"{x * 100:g}"

        if self.lo == self.hi:
            return f"p_eq_{pc(self.lo)}pct"
        if self.lo > 0 and math.isfinite(self.hi):
            return f"p_{pc(self.lo)}_to_{pc(self.hi)}pct"
        if self.lo > 0:
            return f"p_{'gt' if self.lo_open else 'ge'}_{pc(self.lo)}pct"
        if math.isfinite(self.hi):
            return f"p_{'lt' if self.hi_open else 'le'}_{pc(self.hi)}pct"
        return "every_p"


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

    ``test``: "above" (ratio > 1), "distinct" (> 1 + DISTINCT), "close"
    (|ratio - 1| <= CLOSE) or "paper_range" (inside 1 + the paper's gain range).
    ``paper``: the paper's gain (ratio - 1) range, or one number when both ends are
    equal, printed beside ours."""

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

    @property
    def claim_id(self) -> str:
        """Stable within a target: the range and the checks."""
        return "-".join([self.band.slug, *(f"{c.num}_{c.den}_{c.test}" for c in self.checks)])


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
            RatioClaim(
                "above 1% the gains are the paper's: CLRP over Snoop by 6.2% to 48.1% and "
                "over Reno by 39.0% to 147.1%, each ratio's CI inside that range at every "
                "p > 1%",
                ABOVE_1,
                (
                    Check("clrp", "snoop", "paper_range", _gain(0.062, 0.481)),
                    Check("clrp", "reno", "paper_range", _gain(0.390, 1.471)),
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
                f"and on Reno (by 49.5% to 286.9%): CLRP more than {DISTINCT:.0%} above both "
                "at every p > 1%",
                ABOVE_1,
                (
                    Check("clrp", "snoop", "distinct", _gain(0.148, 0.775)),
                    Check("clrp", "reno", "distinct", _gain(0.495, 2.869)),
                ),
            ),
            RatioClaim(
                "above 1% the gains are the paper's: CLRP over Snoop by 14.8% to 77.5% and "
                "over Reno by 49.5% to 286.9%, each ratio's CI inside that range at every "
                "p > 1%",
                ABOVE_1,
                (
                    Check("clrp", "snoop", "paper_range", _gain(0.148, 0.775)),
                    Check("clrp", "reno", "paper_range", _gain(0.495, 2.869)),
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


def fig_source(fig: str) -> str:
    """A claim's source: the paper and the figure (the paper alone without one)."""
    return f"{SOURCE}, Fig. {fig}" if fig else SOURCE


PAPER_CLRP_DELAY = (0.14, 0.16)  # Fig. 7, seconds
PAPER_SNOOP_DELAY = (0.14, 0.30)  # Fig. 7, seconds
