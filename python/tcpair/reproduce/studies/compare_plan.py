"""The plan of ``compare-all``: its scenario families, its schemes, and which scheme fits
which family, written out as the sweep ``sweeps/compare_all.toml``.

The sweep is made of parts (:mod:`tcpair.sweeper.parts`), one per topology; each part runs
every scheme that fits it in each of its directions, over its loss settings. The file is
generated from the tables below (``python3 -m tcpair.reproduce.studies.compare_plan`` prints it;
a test checks the shipped file is what they give), so adding a scheme or a family is one
entry here, and a scheme that does not fit a family says why (:func:`settings` returns
the reason, which the report shows in the "not applicable" cells).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tcpair.base.tomlout import dumps

FLOW = "flows.tcp1"
DETECTORS = ("ncpld", "veno", "spike", "jtcp", "relds", "lda_eq")  # Park et al. 2010, §2
RESPONDERS = ("1", "21")  # Park et al. 2010, Table 1: restore, and restart from one segment
# Sender-only schemes: label -> (variant, tcp table).
END_TO_END: dict[str, tuple[str, dict[str, Any]]] = {
    "reno": ("reno", {}),
    "newreno": ("newreno", {}),
    "sack": ("sack", {}),
    "veno": ("veno", {}),
    "westwood+": ("westwood+", {}),
    "pr": ("pr", {}),
    "pr_star": ("pr_star", {}),
    **{
        f"{d}+{r}": ("reno", {"detector": d, "responder": r}) for d in DETECTORS for r in RESPONDERS
    },
    "lda_eq+adaptive": ("reno", {"detector": "lda_eq", "responder": "adaptive"}),
}
BS_SCHEMES = ("snoop", "snoop_ns2", "eln_snoop", "syndrome", "clrp")
FREEZE_SCHEMES = ("freeze", "syndrome+freeze")
SCHEMES = (*END_TO_END, *BS_SCHEMES, *FREEZE_SCHEMES)


@dataclass(frozen=True)
class Direction:
    """One direction of a family: the measured flow's ends and the settings that turn
    the path round; which ends are mobile hosts."""

    key: str
    src: str
    dst: str
    mobile_src: bool
    mobile_dst: bool
    turn: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    """One part of the sweep: a topology, its directions, BSs and loss settings."""

    name: str
    scenario: str
    directions: tuple[Direction, ...]
    bs: tuple[str, ...]  # nodes that carry the BS agents
    loss_params: tuple[str, ...]
    losses: tuple[tuple[str, dict[str, Any]], ...]
    quick_losses: tuple[str, ...]
    seeds: int | None = None
    set: Mapping[str, Any] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    handoffs: bool = False
    no_bs_reason: str = ""


def uniform(p: float) -> dict[str, Any]:
    return {"model": "uniform", "p": p}


def expo(p: float) -> dict[str, Any]:
    return {"model": "expo", "p": p}


def bursty(p: float) -> dict[str, Any]:
    """Two-state loss in packets: the Bad state lasts 2 packets on average and loses half
    of them; p_gb = p / (1 - 2p) sets the mean loss rate p_gb / (p_gb + 0.5) x 0.5 to p."""
    return {
        "model": "markov2",
        "p_good_to_bad": round(p / (1 - 2 * p), 7),
        "p_bad_to_good": 0.5,
        "loss_good": 0.0,
        "loss_bad": 0.5,
    }


def pct(p: float) -> str:
    return f"{p * 100:g}%"


def _one_link_dirs() -> tuple[Direction, ...]:
    wl = "links.wireless"
    return (
        Direction("fh_mh", "fh", "mh", False, True, {f"{wl}.from": "bs", f"{wl}.to": "mh"}),
        Direction("mh_fh", "mh", "fh", True, False, {f"{wl}.from": "mh", f"{wl}.to": "bs"}),
    )


UNIFORM_SWEEP = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)
QUICK_RUN = {"run.duration": 40.0, "run.warmup": 5.0}
FAMILIES: tuple[Family, ...] = (
    Family(
        name="one wireless link",
        scenario="clrp_one_link",
        directions=_one_link_dirs(),
        bs=("bs",),
        loss_params=("links.wireless.forward.loss",),
        losses=(
            *((f"uniform {pct(p)}", uniform(p)) for p in UNIFORM_SWEEP),
            *((f"expo {pct(p)}", expo(p)) for p in (0.005, 0.02, 0.05)),
            *((f"bursty {pct(p)}", bursty(p)) for p in (0.005, 0.02, 0.05)),
        ),
        quick_losses=("uniform 0.5%", "uniform 2%", "uniform 5%", "expo 2%", "bursty 2%"),
        set={"run.duration": 100.0, "run.warmup": 10.0},
        quick={"seeds": 3, "set": QUICK_RUN},
    ),
    Family(
        name="competing wired traffic",
        scenario="compare_congested",
        directions=_one_link_dirs(),
        bs=("bs",),
        loss_params=("links.wireless.forward.loss",),
        losses=tuple((f"uniform {pct(p)}", uniform(p)) for p in (0.0, 0.01, 0.05)),
        quick_losses=("uniform 1%",),
        seeds=5,  # five flows and send jitter: each run costs 5x a one-link run
        set={"run.duration": 60.0, "run.warmup": 10.0},
        quick={"seeds": 2, "set": QUICK_RUN},
    ),
    Family(
        name="two wireless links",
        scenario="clrp_two_links",
        directions=(Direction("mh_mh", "mh1", "mh2", True, True),),
        bs=("bs1", "bs2"),
        loss_params=("links.wl1.forward.loss", "links.wl2.forward.loss"),
        losses=tuple((f"expo {pct(p)}", expo(p)) for p in (0.005, 0.02, 0.05)),
        quick_losses=("expo 2%",),
        set={"run.duration": 100.0, "run.warmup": 10.0},
        quick={"seeds": 2, "set": QUICK_RUN},
    ),
    Family(
        name="802.11 chain",
        scenario="wifi_chain",
        directions=(Direction("chain", "n0", "n5", False, False),),
        bs=(),
        loss_params=("media.chain.loss",),
        losses=tuple((f"uniform {pct(p)}", uniform(p)) for p in (0.0, 0.02)),
        quick_losses=("uniform 2%",),
        seeds=5,  # the 802.11 MAC: each run costs 2x a one-link run
        set={"run.duration": 60.0, "run.warmup": 5.0},
        quick={"seeds": 2, "set": {"run.duration": 30.0, "run.warmup": 5.0}},
        no_bs_reason=(
            "no base station: every hop of the 802.11 chain is a shared-medium hop "
            "between peers, with no wired side to cache for or mark"
        ),
    ),
    Family(
        name="hand-offs",
        scenario="compare_handoff",
        directions=(Direction("fh_mh", "fh", "mh", False, True),),
        bs=("bs", "bs2"),
        loss_params=("links.wireless.forward.loss", "links.wireless2.forward.loss"),
        losses=tuple((f"uniform {pct(p)}", uniform(p)) for p in (0.005, 0.02)),
        quick_losses=("uniform 2%",),
        set={"run.duration": 60.0, "run.warmup": 5.0},
        quick={"seeds": 2},
        handoffs=True,
    ),
)


def settings(scheme: str, family: Family, d: Direction) -> dict[str, Any] | str:
    """The scheme's settings in one direction of a family, or why it does not fit."""
    agent, freeze = scheme.removesuffix("+freeze"), scheme.endswith("freeze")
    if scheme == "freeze":
        agent = ""
    if freeze and not family.handoffs:
        return "Freeze-TCP acts only at hand-offs, and this family has none"
    if freeze and not d.mobile_dst:
        return "Freeze-TCP freezes a sender to the mobile host only"
    if scheme in END_TO_END:
        variant, tcp = END_TO_END[scheme]
        return {"variant": variant, "tcp": dict(tcp), "sink": {}, "agent": ""}
    if agent and not family.bs:
        return family.no_bs_reason or "no base station on this path"
    tcp: dict[str, Any] = {}
    sink: dict[str, Any] = {}
    if agent in ("snoop", "snoop_ns2") and d.mobile_src:
        tcp["eln"] = True  # Snoop's MH -> FH side marks ELN for an ELN-aware MH sender
    if agent in ("eln_snoop", "syndrome"):
        tcp["eln"] = True
    if agent == "syndrome":
        sink["syndrome"] = True
    if agent == "clrp":  # TCP-MH at the mobile ends (Sun et al. 2005, §II)
        if d.mobile_src:
            tcp["clrp"] = True
        if d.mobile_dst:
            sink["clrp"] = True
    return {"variant": "reno", "tcp": tcp, "sink": sink, "agent": agent, "freeze": freeze}


def scheme_axis(family: Family) -> dict[str, Any]:
    """The part's ``scheme`` axis: one label ``DIRECTION:SCHEME`` per fitting pair."""
    labels: list[str] = []
    rows: list[dict[str, Any]] = []
    for d in family.directions:
        for s in SCHEMES:
            got = settings(s, family, d)
            if isinstance(got, str):
                continue
            row: dict[str, Any] = {f"{FLOW}.src": d.src, f"{FLOW}.dst": d.dst, **d.turn}
            for node in family.bs:
                row[f"nodes.{node}.bs"] = [got["agent"]] if got["agent"] else []
            row[f"{FLOW}.variant"] = got["variant"]
            row[f"{FLOW}.tcp"] = got["tcp"]
            row[f"{FLOW}.sink"] = got["sink"]
            if family.handoffs:
                row["mobility.freeze"] = bool(got.get("freeze"))
            labels.append(f"{d.key}:{s}")
            rows.append(row)
    params = {k: [r[k] for r in rows] for k in rows[0]}
    return {"name": "scheme", "labels": labels, "params": params}


def loss_axis(family: Family) -> dict[str, Any]:
    labels = [lab for lab, _ in family.losses]
    values = [v for _, v in family.losses]
    return {
        "name": "loss",
        "labels": labels,
        "params": {p: list(values) for p in family.loss_params},
        "quick": list(family.quick_losses),
    }


def part(family: Family) -> dict[str, Any]:
    out: dict[str, Any] = {"name": family.name, "scenario": family.scenario}
    if family.seeds is not None:
        out["seeds"] = family.seeds
    if family.set:
        out["set"] = dict(family.set)
    if family.quick:
        out["quick"] = dict(family.quick)
    out["axis"] = [scheme_axis(family), loss_axis(family)]
    return out


HEADER = """\
# Every scheme side by side on identical scenarios and seeds (no paper has this study;
# docs/compare.md). GENERATED from python/tcpair/reproduce/studies/compare_plan.py: edit that file
# and run `python3 -m tcpair.reproduce.studies.compare_plan > sweeps/compare_all.toml`.
#
# One part per scenario family (topology): the one-wireless-link path of Sun et al. 2005 in
# both directions (with a uniform loss sweep, expo and bursty loss), the same path with
# competing wired traffic, the two-wireless-link path (MH -> MH), the 802.11b chain, and the
# one-link path with a second BS and hand-offs. Each `scheme` label is DIRECTION:SCHEME;
# a scheme that does not fit a family's direction is left out of it (the report says
# "not applicable" and why).
"""


def sweep() -> dict[str, Any]:
    return {
        "name": "compare_all",
        "title": "Every scheme side by side on identical scenarios and seeds",
        "description": (
            "Every scheme tcpair implements, each with the parts it needs, on five scenario "
            "families: the one-wireless-link path (FH -- BS 10 Mb/s 10 ms, BS -- MH 2 Mb/s "
            "64 us, 1000-byte packets, window 30) in both directions under uniform loss "
            "from 0.1% to 10%, expo and bursty loss; the same path with four competing Reno "
            "flows through a 4 Mb/s wired bottleneck; the two-wireless-link path MH -> MH; "
            "the 5-hop 802.11b chain; and the one-link path with a second BS and three "
            "hand-offs. Seeds are common random numbers across schemes."
        ),
        "scenario": "clrp_one_link",
        "seeds": 10,
        "metric": "goodput_kbps",
        "keep": ["bs_state"],
        "part": [part(f) for f in FAMILIES],
        "target": {
            "title": "Compare all: every scheme on identical scenarios and seeds, "
            "goodput over Reno",
            "analysis": "tcpair.reproduce.studies.compare_all",
            "order": 60,
        },
    }


def render() -> str:
    return HEADER + dumps(sweep())


def family_named(name: str) -> Family | None:
    return next((f for f in FAMILIES if f.name == name), None)


def reason(scheme: str, family_name: str, direction_key: str) -> str:
    """Why ``scheme`` is not run in a family's direction (for the report)."""
    fam = family_named(family_name)
    d = next((x for x in fam.directions if x.key == direction_key), None) if fam else None
    if fam is None or d is None or scheme not in SCHEMES:
        return "not run in this family"
    got = settings(scheme, fam, d)
    return got if isinstance(got, str) else "not run in this family"


def directions_of(names: Sequence[str]) -> list[str]:
    return [d.key for f in FAMILIES if f.name in names for d in f.directions]


if __name__ == "__main__":
    print(render(), end="")


__all__ = ["FAMILIES", "SCHEMES", "reason", "render", "settings", "sweep"]
