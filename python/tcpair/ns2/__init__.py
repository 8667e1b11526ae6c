"""tcpair beside ns-2.35 (Debian package ``ns2``): the same scenarios in both.

Two uses (docs/validation.md, docs/performance.md):

- :func:`crosscheck`: goodput, retransmissions and timeouts of plain Reno and
  NewReno over a lossy last hop, many seeds in each simulator, each point's
  ratio tcpair / ns-2 with its confidence interval judged against a tolerance;
- :func:`tcpair.ns2.speed.bench_vs_ns2`: whole-process wall time of both on the same scenario,
  run in alternation (A B A B ...), with the paired ratio.

The ns-2 scripts ship beside this module (``one_link.tcl``, ``snoop_lan.tcl``,
``two_links.tcl`` with their shared ``flow.tcl``, and ``dumbbell.tcl``); each states
how its values map onto the tcpair scenario it is compared with.
ns-2 and tcpair draw their losses from different generators, so the two
sides' seeds are independent samples: ratios are unpaired.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tcpair._errors import ScenarioError
from tcpair.evidence.stats import ratio_ci, summarize
from tcpair.evidence.verdict import Interval, within

SCRIPTS = Path(__file__).resolve().parent
NS_TIMEOUT_S = 600.0
METRICS = ("goodput_kbps", "retransmits", "timeouts")


class Ns2Missing(RuntimeError):
    """ns-2's ``ns`` binary is not installed (or not where ``TCPAIR_NS`` says)."""


def ns_binary() -> str | None:
    """Path of ns-2's ``ns`` (``TCPAIR_NS`` overrides the name), or None."""
    return shutil.which(os.environ.get("TCPAIR_NS", "ns"))


def missing_message() -> str:
    return (
        "ns-2 not found: install Debian's ns2 (apt-get install ns2) or set TCPAIR_NS "
        "to the ns binary"
    )


def ns_command(script: str, args: Sequence[Any]) -> list[str]:
    ns = ns_binary()
    if ns is None:
        raise Ns2Missing(missing_message())
    return [ns, str(SCRIPTS / script), *(_arg(a) for a in args)]


def _arg(a: Any) -> str:
    return repr(a) if isinstance(a, float) else str(a)


def parse_output(text: str) -> dict[str, float]:
    """The scripts' last line of ``key value`` pairs as a dict."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise RuntimeError("ns-2 printed nothing")
    words = lines[-1].split()
    if len(words) % 2:
        raise RuntimeError(f"ns-2 printed an odd line: {lines[-1]!r}")
    return {k: float(v) for k, v in zip(words[::2], words[1::2], strict=True)}


def run_ns2(script: str, args: Sequence[Any]) -> dict[str, float]:
    """Run one ns-2 script and return its ``key value`` results."""
    cmd = ns_command(script, args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NS_TIMEOUT_S, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed ({' '.join(cmd)}): {proc.stderr.strip()[:300]}")
    return parse_output(proc.stdout)


# --- the one-link path -----------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One cross-check point: a TCP variant, a loss rate, a window and whether
    limited transmit is on (ns-2.35's ``singledup_``, tcpair's
    ``tcp.limited_transmit``; on is ns-2.35's default, off is tcpair's)."""

    variant: str
    p: float
    window: int
    limited_transmit: bool = True
    queue: int = 50
    #: tcpair's congestion op: ``reno`` (RFC 5681's arithmetic, the default) or
    #: ``reno_ns2`` (ns-2.35's: docs/tcp.md). ns-2 always runs its own.
    congestion: str = "reno"
    #: tcpair's RTO arithmetic: ``rfc6298`` (the default) or ``ns2`` (ns-2.35's
    #: ticks, backoff and srtt clobber: docs/tcp.md).
    rto_estimator: str = "rfc6298"
    #: The BS agent: "" (none, one_link.tcl) or "snoop_ns2" (ns-2's Snoop on
    #: a two-node LAN, snoop_lan.tcl).
    bs: str = ""
    #: ``one_link`` (FH -> MH, scenarios/clrp_one_link.toml) or ``two_links``
    #: (MH -> MH over two wireless hops, scenarios/clrp_two_links.toml and
    #: two_links.tcl, the agent at both base stations, loss p on each hop).
    path: str = "one_link"
    #: The sender reacts to ELN marks (ns-2's ``eln_``, tcpair's ``tcp.eln``).
    eln: bool = False

    def tolerance(self) -> float:
        """Allowed relative difference: 5% up to p = 5%, 10% above."""
        return 0.05 if self.p <= 0.05 else 0.10


def _sender_overrides(point: Point, duration: float) -> dict[str, Any]:
    """What both paths set alike: flow tcp1's sender, the queues and the duration."""
    return {
        "flows.tcp1.variant": point.variant,
        "flows.tcp1.window": point.window,
        "flows.tcp1.tcp.limited_transmit": point.limited_transmit,
        "flows.tcp1.tcp.congestion": point.congestion,
        "flows.tcp1.tcp.rto_estimator": point.rto_estimator,
        "links.*.queue": point.queue,
        "run.duration": duration,
    }


def one_link_overrides(point: Point, duration: float) -> dict[str, Any]:
    """tcpair's side of ``one_link.tcl``: scenarios/clrp_one_link.toml, the same values."""
    return {
        **_sender_overrides(point, duration),
        "links.wireless.forward.loss": {"model": "uniform", "p": point.p},
        "nodes.bs.bs": [point.bs] if point.bs else [],
    }


def two_links_overrides(point: Point, duration: float) -> dict[str, Any]:
    """tcpair's side of ``two_links.tcl``: scenarios/clrp_two_links.toml, the agent
    at both base stations and the loss on both wireless hops."""
    loss = {"model": "uniform", "p": point.p}
    agents = [point.bs] if point.bs else []
    return {
        **_sender_overrides(point, duration),
        "flows.tcp1.tcp.eln": point.eln,
        "links.wl1.forward.loss": loss,
        "links.wl2.forward.loss": loss,
        "nodes.bs1.bs": agents,
        "nodes.bs2.bs": agents,
    }


def tcpair_point(point: Point, duration: float, seed: int) -> dict[str, float]:
    """One tcpair run of ``point``, on its path."""
    from tcpair.simulate.result import prepare, run_json

    if point.path == "two_links":
        sc = prepare("clrp_two_links", overrides=two_links_overrides(point, duration), seed=seed)
    else:
        sc = prepare("clrp_one_link", overrides=one_link_overrides(point, duration), seed=seed)
    flow = run_json(sc)["flows"][0]
    return {m: float(flow[m]) for m in METRICS}


def ns2_point(point: Point, duration: float, seed: int) -> dict[str, float]:
    """One ns-2 run of ``point``, on its path."""
    lt = int(point.limited_transmit)
    args = (point.variant, point.p, point.window, point.queue, duration, seed, lt)
    if point.bs not in ("", "snoop_ns2"):
        raise ScenarioError(f"bs: ns-2 has no counterpart of {point.bs!r} (use snoop_ns2 or none)")
    if point.path == "two_links":
        out = run_ns2("two_links.tcl", (*args, int(point.bs == "snoop_ns2"), int(point.eln)))
    elif point.bs == "snoop_ns2":
        out = run_ns2("snoop_lan.tcl", (*args, 1))
    else:
        out = run_ns2("one_link.tcl", args)
    return {m: out[m] for m in METRICS}


DEFAULT_POINTS = tuple(
    Point(v, p, w, lt)
    for lt in (True, False)
    for v in ("reno", "newreno")
    for w in (8, 30)
    for p in (0.001, 0.01, 0.02, 0.05, 0.1)
)

#: ns-2's Snoop (tcpair's ``snoop_ns2``) on the same path, ns-2.35's default
#: limited transmit.
SNOOP_POINTS = tuple(
    Point(v, p, 30, True, bs="snoop_ns2")
    for v in ("reno", "newreno")
    for p in (0.01, 0.02, 0.05, 0.1, 0.2)
)

#: The CLRP paper's MH -> MH path, plain and with ns-2's Snoop at both base
#: stations (the sender not ELN-aware, ns-2.35's default), Reno.
TWO_LINK_POINTS = tuple(
    Point("reno", p, 30, True, bs=bs, path="two_links")
    for bs in ("", "snoop_ns2")
    for p in (0.01, 0.04, 0.06, 0.08, 0.1)
)


def crosscheck(
    points: Iterable[Point] = DEFAULT_POINTS,
    *,
    seeds: int = 10,
    duration: float = 300.0,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Run every point in both simulators over ``seeds`` seeds; one row per point.

    Columns: the point, per metric the two means and CI half-widths, the ratio
    tcpair / ns-2 of mean goodput with its 95% interval (delta method, the two
    sides independent), the tolerance and the outcome: ``agree`` when the whole
    interval lies within 1 +- tolerance, ``differ`` when it lies outside,
    ``undecided`` otherwise.
    """
    if ns_binary() is None:
        raise Ns2Missing(missing_message())
    pts = list(points)
    if seeds < 2:
        raise ScenarioError(f"seeds: at least 2 are needed for an interval, got {seeds}")
    tasks = [(pt, s) for pt in pts for s in range(1, seeds + 1)]
    done = 0
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        futures = {t: pool.submit(ns2_point, t[0], duration, t[1]) for t in tasks}
        ours = {t: tcpair_point(t[0], duration, t[1]) for t in tasks}
        theirs = {}
        for t, f in futures.items():
            theirs[t] = f.result()
            done += 1
            if progress:
                progress(done, len(tasks))
    return pd.DataFrame([_row(pt, seeds, ours, theirs) for pt in pts])


def _row(pt: Point, seeds: int, ours: dict, theirs: dict) -> dict[str, Any]:
    row: dict[str, Any] = {
        "variant": pt.variant,
        "bs": pt.bs,
        "path": pt.path,
        "eln": pt.eln,
        "p": pt.p,
        "window": pt.window,
        "limited_transmit": pt.limited_transmit,
        "queue": pt.queue,
        "congestion": pt.congestion,
        "rto_estimator": pt.rto_estimator,
        "seeds": seeds,
    }
    keys = [(pt, s) for s in range(1, seeds + 1)]
    summ = {}
    for m in METRICS:
        a = summarize(ours[k][m] for k in keys)
        b = summarize(theirs[k][m] for k in keys)
        summ[m] = (a, b)
        row[f"{m}_tcpair"], row[f"{m}_tcpair_ci95"] = a.mean, a.ci95
        row[f"{m}_ns2"], row[f"{m}_ns2_ci95"] = b.mean, b.ci95
    a, b = summ["goodput_kbps"]
    ratio, half = ratio_ci(a.mean, a.std, a.n, b.mean, b.std, b.n)
    iv = Interval.from_halfwidth(ratio, half, seeds)
    tol = pt.tolerance()
    row.update(
        ratio=ratio,
        ratio_low=iv.low,
        ratio_high=iv.high,
        tolerance=tol,
        outcome=_OUTCOME[within(iv, 1 - tol, 1 + tol)],
    )
    return row


_OUTCOME = {"holds": "agree", "does not hold": "differ", "inconclusive": "undecided"}


def crosscheck_markdown(df: pd.DataFrame) -> str:
    """The cross-check table as Markdown (docs/validation.md's format)."""
    head = (
        "| variant | limited transmit | window | p | goodput ns-2 (kb/s) | "
        "goodput tcpair (kb/s) | tcpair / ns-2 [95% CI] | retransmits ns-2 / tcpair | "
        "timeouts ns-2 / tcpair | outcome (tolerance) |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in df.itertuples(index=False):
        name = f"{r.variant} + {r.bs}" if r.bs else r.variant
        if getattr(r, "path", "one_link") == "two_links":
            name += " (MH -> MH" + (", ELN" if r.eln else "") + ")"
        lines.append(
            f"| {name} | {'on' if r.limited_transmit else 'off'} | {r.window} | {r.p:g} | "
            f"{_pm(r.goodput_kbps_ns2, r.goodput_kbps_ns2_ci95)} | "
            f"{_pm(r.goodput_kbps_tcpair, r.goodput_kbps_tcpair_ci95)} | "
            f"{r.ratio:.3f} [{r.ratio_low:.3f}, {r.ratio_high:.3f}] | "
            f"{r.retransmits_ns2:.0f} / {r.retransmits_tcpair:.0f} | "
            f"{r.timeouts_ns2:.1f} / {r.timeouts_tcpair:.1f} | {r.outcome} ({r.tolerance:.0%}) |"
        )
    return head + "\n".join(lines) + "\n"


def _pm(mean: float, half: float) -> str:
    if not math.isfinite(half):
        return f"{mean:.1f}"
    return f"{mean:.1f} ± {half:.1f}"


__all__ = [
    "DEFAULT_POINTS",
    "SNOOP_POINTS",
    "TWO_LINK_POINTS",
    "Ns2Missing",
    "Point",
    "crosscheck",
    "crosscheck_markdown",
    "ns_binary",
    "run_ns2",
    "two_links_overrides",
]
