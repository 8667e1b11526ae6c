"""The CLRP reproduce targets (Sun et al. 2005, Figs. 5-13): sweep files, scenarios and
analyses on hand-built runs."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic import by_text, context, rows

from tcpair._errors import ScenarioError
from tcpair.base.paths import shipped_sweeps
from tcpair.evidence.verdict import INCONCLUSIVE
from tcpair.reporting.analysis import Context
from tcpair.reporting.page import FAILS, HOLDS, NA, Claim
from tcpair.reporting.site import build_report
from tcpair.reproduce import resolve_targets, targets
from tcpair.reproduce import sun2005 as clrp
from tcpair.reproduce.common import with_goodput
from tcpair.sweeper.definition import SweepSpec, load_sweep, parse_sweep
from tcpair.sweeper.runner import run_sweep

# --- Sun et al. 2005 (CLRP), Figs. 5-13 --------------------------------------------------

CLRP_FIGS = tuple(f"clrp_fig{n}" for n in range(5, 14))
CLRP_PS = (0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1)
MARKOV = {"model": "markov2_time", "mean_good": 6.0, "mean_bad": 0.2, "loss_bad": 0.5}
MH_FH = ("clrp_fig5", "clrp_fig6", "clrp_fig7", "clrp_fig8", "clrp_fig9")
FH_MH = ("clrp_fig10", "clrp_fig11")


def _wireless_losses(name: str, scenario: dict) -> list[dict]:
    links = {lk["name"]: lk for lk in scenario["links"]}
    if name in MH_FH:
        return [links["wireless"]["reverse"]["loss"]]
    if name in FH_MH:
        return [links["wireless"]["forward"]["loss"]]
    return [links["wl1"]["forward"]["loss"], links["wl2"]["forward"]["loss"]]


@pytest.mark.parametrize("name", CLRP_FIGS)
def test_clrp_sweep_parses_and_plans(name: str) -> None:
    spec = load_sweep(name)
    assert spec.target is not None and spec.target.analysis == "tcpair.reproduce.sun2005"
    assert spec.target.order > 14, "after the syndrome targets"
    assert spec.seeds == (1, 2, 3, 4, 5) and spec.seeds_for(True) == (1, 2)
    assert name in clrp.FIGS
    full, quick = spec.plan(version="v"), spec.plan(quick=True, version="v")
    assert len(quick) < len(full)
    assert {t.scenario["run"]["duration"] for t in quick} == {30.0}
    duration = {"clrp_fig7": 60.0, "clrp_fig8": 100.0, "clrp_fig9": 100.0}.get(name, 300.0)
    assert {t.scenario["run"]["duration"] for t in full} == {duration}
    assert {t.scenario["run"].get("warmup", 0.0) for t in full} == {0.0}
    timer = name in ("clrp_fig10", "clrp_fig11", "clrp_fig12", "clrp_fig13")
    labels = tuple(s for s in clrp.SCHEMES if timer or s != "clrp_timer")
    assert spec.axes[0].name == "scheme" and spec.axes[0].labels == labels
    if "p" in spec.axis_names:
        assert spec.axes[1].labels == CLRP_PS
        assert tuple(spec.axes[1].indices(True)) == (2, 5, 10)  # 0.1%, 1%, 10%
    for t in full:
        scheme = t.labels["scheme"]
        agents = {
            "reno": [],
            "clrp_timer": [{"agent": "clrp", "local_timer": 0.05}],
        }.get(scheme, [scheme])
        nodes = {n["name"]: n for n in t.scenario["nodes"]}
        for bs in ("bs1", "bs2") if name in ("clrp_fig12", "clrp_fig13") else ("bs",):
            assert nodes[bs]["bs"] == agents
        flow = t.scenario["flows"][0]
        tcp, sink = flow.get("tcp", {}), flow.get("sink", {})
        snoop, clrp_ = scheme.startswith("snoop"), scheme.startswith("clrp")
        assert tcp.get("eln", False) is (snoop and name not in FH_MH)
        assert tcp.get("clrp", False) is (clrp_ and name not in FH_MH)
        assert sink.get("clrp", False) is (clrp_ and name not in MH_FH)
        p = t.labels.get("p", 0.1)
        for loss in _wireless_losses(name, t.scenario):
            if name in ("clrp_fig5", "clrp_fig10", "clrp_fig12"):
                assert loss == {"model": "expo", "p": p}
            else:
                assert {k: loss[k] for k in MARKOV} == MARKOV
                assert (loss["loss_good"], loss["sojourn"], loss["slot"]) == (p, "geometric", 0.004)
    if name in ("clrp_fig8", "clrp_fig9"):
        assert spec.keep == ("timeseries",)
        assert all(t.scenario["output"]["timeseries"] is True for t in full)


def test_clrp_points_validate_with_the_core() -> None:
    """Every grid point of the CLRP sweeps is accepted by the core, whose catalog lists
    the CLRP agent (run whatever the core: CI never passes by skipping)."""
    from tcpair import _core as core

    agents = json.loads(core.catalog()).get("bs_agents", [])
    assert "clrp" in [a.get("name") for a in agents], "the core lacks the CLRP agent"
    for name in CLRP_FIGS:
        for t in load_sweep(name).plan(quick=True, version="v"):
            if t.seed == 1:
                core.validate(json.dumps(t.scenario))


def test_clrp_targets_listed_and_dashed_names() -> None:
    known = targets()
    listed = [n for n in known if n.startswith("clrp_")]
    assert listed == list(CLRP_FIGS)
    assert list(known).index("clrp_fig5") > list(known).index("syndrome_fig13")
    dashed = [f"clrp-fig{n}" for n in range(5, 14)]
    assert resolve_targets(dashed, known) == list(CLRP_FIGS)
    assert resolve_targets(["clrp-fig9", "clrp-fig8"], known) == ["clrp_fig9", "clrp_fig8"]
    with pytest.raises(ScenarioError):
        resolve_targets(["clrp-fig4"], known)


def test_clrp_bands() -> None:
    assert not clrp.BELOW_02.contains(0.002) and clrp.BELOW_02.contains(0.001)
    assert clrp.FROM_02_TO_1.contains(0.002) and clrp.FROM_02_TO_1.contains(0.01)
    assert not clrp.ABOVE_1.contains(0.01) and clrp.ABOVE_1.contains(0.02)
    assert clrp.AT_10.contains(0.1) and not clrp.AT_10.contains(0.08)
    assert [b.text for b in (clrp.BELOW_02, clrp.FROM_02_TO_1, clrp.ABOVE_1, clrp.AT_10)] == [
        "p < 0.2%",
        "0.2% <= p <= 1%",
        "p > 1%",
        "p = 10%",
    ]


def clrp_runs(
    snoop_over_reno: Callable[[float], float],
    clrp_over_snoop: Callable[[float], float],
    ps: tuple[float, ...] = CLRP_PS,
    schemes: tuple[str, ...] = clrp.ROLES,
    delay: Callable[[str, float], float] | None = None,
    app_delay: Callable[[str, float], float] | None = None,
) -> pd.DataFrame:
    """Goodput (KB/s) of Reno falling with p; Snoop and CLRP as ratios of it."""

    def goodput(scheme: str, p: float, flow: str) -> float:
        reno = 250.0 / (1 + 30 * p)
        snoop = reno * snoop_over_reno(p)
        return {"reno": reno, "snoop": snoop, "clrp": snoop * clrp_over_snoop(p)}[scheme]

    runs = rows({"scheme": schemes, "p": ps}, ("tcp1",), goodput)
    if delay is not None:
        pairs = zip(runs["scheme"], runs["p"], strict=True)
        runs["e2e_delay_mean_s"] = [delay(s, p) for s, p in pairs]
    if app_delay is not None:
        pairs = zip(runs["scheme"], runs["p"], strict=True)
        runs["app_delay_mean_s"] = [app_delay(s, p) for s, p in pairs]
    return runs


def clrp_claims(name: str, runs: pd.DataFrame) -> list[Claim]:
    """The verdicts of a target's analysis without drawing its figures."""
    return clrp.claims(with_goodput(runs), clrp.FIGS[name])


# Per figure: Snoop/Reno and CLRP/Snoop goodput ratios as functions of p that agree with
# every claim of the paper (clrp_over_snoop 0.9 everywhere then makes them fail).
PAPER_LIKE: dict[str, tuple[Callable[[float], float], Callable[[float], float]]] = {
    "clrp_fig5": (
        lambda p: 1.0 if p <= 0.01 else 1.5,
        lambda p: 1.0 if p < 0.002 else (1.05 if p <= 0.01 else 1.3),
    ),
    "clrp_fig6": (lambda p: 1.2, lambda p: 1.05 if p <= 0.01 else 1.4),
    "clrp_fig10": (lambda p: 1.5 if p <= 0.01 else 5.0, lambda p: 1.275),
    "clrp_fig11": (lambda p: 3.0, lambda p: 1.063 if p < 0.01 else 1.413),
    "clrp_fig12": (lambda p: 1.3 if p <= 0.06 else 1.05, lambda p: 1.2),
    "clrp_fig13": (lambda p: 1.3, lambda p: 1.05 + 10 * p),
}


@pytest.mark.parametrize("name", sorted(PAPER_LIKE))
def test_clrp_goodput_claims_hold_then_fail(name: str) -> None:
    spec = clrp.FIGS[name]
    found = clrp_claims(name, clrp_runs(*PAPER_LIKE[name]))
    expected = [NA if c == "below_fig12" else HOLDS for c in spec.claims]
    assert [c.verdict for c in found] == expected, found
    # Snoop no better than Reno, CLRP 20% below both: every claim about CLRP fails.
    found = clrp_claims(name, clrp_runs(lambda p: 1, lambda p: 0.8))
    for c, claim in zip(found, spec.claims, strict=True):
        if isinstance(claim, clrp.RatioClaim) and any(k.num == "clrp" for k in claim.checks):
            assert c.verdict == FAILS, c


def test_clrp_fig5_details_set_the_paper_beside_ours(tmp_path: Path) -> None:
    snoop, clrp_ratio = PAPER_LIKE["clrp_fig5"]
    found = clrp.analyse(context(tmp_path, "clrp_fig5", clrp_runs(snoop, clrp_ratio)))
    high = by_text(found.claims, "above 1%")
    assert re.search(r"CLRP/Snoop from 1\.(29|30)\d to 1\.(30|31)\d \(paper", high.detail)
    assert "paper +6.2% to +48.1%" in high.detail and "paper +39.0% to +147.1%" in high.detail
    assert len(high.numbers) == 10 and high.seeds == 3
    assert high.rule.startswith("paired ratios CLRP/Snoop: 95% CI above 1")
    table = dict(found.tables)["Goodput ratios"]
    assert set(table["pair"]) == {"CLRP / Snoop", "CLRP / TCP Reno", "Snoop / TCP Reno"}
    assert [f.png for f in found.figures] == ["clrp_fig5_goodput.png", "clrp_fig5_ratios.png"]
    for fig in found.figures:
        assert (tmp_path / "out" / fig.png).read_bytes()[:4] == b"\x89PNG"

    # Snoop 15% above Reno from 0.2% on, CLRP 20% above Snoop above 1%: only the "Snoop
    # close to Reno from 0.2% to 1%" claim fails.
    def clrp_over_snoop(p: float) -> float:
        return 1.0 if p < 0.002 else (1.05 if p <= 0.01 else 1.2)

    runs = clrp_runs(lambda p: 1.15 if p >= 0.002 else 1.0, clrp_over_snoop)
    found = clrp_claims("clrp_fig5", runs)
    assert [c.verdict for c in found][:3] == [HOLDS, FAILS, HOLDS]
    # CLRP/Reno 1.38 is just below the paper's 39% to 147%: the magnitudes do not hold.
    assert found[3].verdict == FAILS and "CLRP/Reno p=0.02: 1.38" in found[3].detail
    assert "Snoop/Reno p=0.002: 1.15" in found[1].detail
    assert [k for k, v in found[1].numbers.items() if v["outcome"] != HOLDS] == [
        f"Snoop/Reno p={p:g}" for p in (0.002, 0.005, 0.01)
    ]
    # CLRP 5% below Snoop at 4%: the claim about p > 1% fails there.
    runs = clrp_runs(lambda p: 1.0, lambda p: 0.95 if p == 0.04 else clrp_over_snoop(p))
    high = clrp_claims("clrp_fig5", runs)[2]
    assert high.verdict == FAILS and "CLRP/Snoop p=0.04: 0.95" in high.detail


def test_clrp_without_clrp_runs_is_not_assessed(tmp_path: Path) -> None:
    runs = clrp_runs(lambda p: 1.0, lambda p: 1.0, schemes=("reno", "snoop"))
    found = clrp.analyse(context(tmp_path, "clrp_fig5", runs))
    assert [c.verdict for c in found.claims] == [NA, NA, NA, NA]
    assert "No successful runs for: snoop_ns2, clrp" in (found.intro or "")
    # ... unless what was run already refutes the claim.
    runs = clrp_runs(lambda p: 1.5, lambda p: 1.0, schemes=("reno", "snoop"))
    assert [c.verdict for c in clrp_claims("clrp_fig5", runs)] == [FAILS, FAILS, NA, NA]


def _delay(rising: bool) -> Callable[[str, float], float]:
    def delay(scheme: str, p: float) -> float:
        if scheme == "clrp":
            return 0.15 if rising else 0.15 + 2 * p
        return 0.14 + 1.6 * p if rising else 0.14

    return delay


def test_clrp_fig7_delay(tmp_path: Path) -> None:
    """Both readings of the delay are judged: first arrival, then in-order delivery."""
    runs = clrp_runs(lambda p: 1.2, lambda p: 1.1, delay=_delay(True), app_delay=_delay(False))
    found = clrp.analyse(context(tmp_path / "a", "clrp_fig7", runs))
    assert [c.verdict for c in found.claims] == [HOLDS, HOLDS, FAILS, FAILS], found.claims
    assert "CLRP's mean delay 0.150 s over 11 PLRs" in found.claims[0].detail
    assert "Snoop p=0.1/p=0.0001: 2.14" in found.claims[1].detail
    assert "app_delay_mean_s" in found.claims[2].text
    shown = dict(found.tables)["Per scheme and PLR"].columns
    assert "e2e delay s" in shown and "app delay s" in shown
    assert len(found.figures) == 4
    runs = clrp_runs(lambda p: 1.2, lambda p: 1.1, delay=_delay(False), app_delay=_delay(True))
    found = clrp_claims("clrp_fig7", runs)
    assert [c.verdict for c in found] == [FAILS, FAILS, HOLDS, HOLDS], found
    # The paper's "constant" says nothing of Snoop: CLRP/Snoop is shown, not judged.
    assert not any(k.startswith("CLRP/Snoop") for k in found[0].numbers)
    assert "Not part of the claim" in found[0].detail
    found = clrp_claims("clrp_fig7", clrp_runs(lambda p: 1, lambda p: 1))
    assert [c.verdict for c in found] == [NA, NA, NA, NA]
    assert "e2e_delay_mean_s" in found[0].detail
    assert "app_delay_mean_s" in found[2].detail


def _cwnd_trace(scheme: str, seed: int) -> list[float]:
    """100 samples: Snoop saw-tooth 1..9 with resets to 1, CLRP 4..19, Reno 1..5."""
    top, low = {"reno": (5, 1), "snoop": (9, 1), "clrp": (19 - (seed == 2) * 5, 4)}[scheme]
    return [float(low + (i % (top - low + 1))) for i in range(100)]


def cwnd_context(tmp_path: Path, name: str, swap: bool = False) -> Context:
    """Runs of the three schemes with their cwnd traces stored as the sweep keeps them."""
    rows, tables = [], {}
    for scheme in clrp.ROLES:
        for seed in (1, 2, 3):
            key = f"{scheme}-{seed}"
            shape = {"snoop": "clrp", "clrp": "snoop"}.get(scheme, scheme) if swap else scheme
            timeouts = {"reno": 30, "snoop": 20, "clrp": 2}[shape]
            rows.append(
                {
                    "run_key": key,
                    "scheme": scheme,
                    "seed": seed,
                    "flow": "tcp1",
                    "goodput_kbps": 800.0,
                    "timeouts": timeouts,
                }
            )
            tables[key] = pd.DataFrame(
                {"time_s": np.arange(100) * 0.1, "flow": "tcp1", "cwnd": _cwnd_trace(shape, seed)}
            )
    ctx = context(tmp_path, name, pd.DataFrame(rows))
    d = tmp_path / "tables" / "timeseries"
    d.mkdir(parents=True)
    for key, frame in tables.items():
        frame.to_parquet(d / f"{key}.parquet")
    return ctx


@pytest.mark.parametrize("name", ["clrp_fig8", "clrp_fig9"])
def test_clrp_cwnd_claims(tmp_path: Path, name: str) -> None:
    found = clrp.analyse(cwnd_context(tmp_path / "a", name))
    assert {c.verdict for c in found.claims} == {HOLDS}, found.claims
    assert [c.seeds for c in found.claims] == [3] * len(found.claims)
    assert [f.png for f in found.figures] == [
        f"{name}_cwnd_{clrp.FIGS[name].trace}.png",
        f"{name}_cwnd_all.png",
    ]
    stats = pd.read_csv(tmp_path / "a" / "out" / f"{name}_cwnd.csv")
    snoop = stats[stats["scheme"] == "snoop"]
    assert list(snoop["max_cwnd"]) == [9.0] * 3 and list(snoop["falls_to_one"]) == [11] * 3
    assert (stats["mean_window"] == stats["mean_cwnd"]).all()  # never above the window
    capped = clrp.cwnd_stats(
        pd.DataFrame([{"run_key": "k", "scheme": "clrp", "seed": 1, "timeouts": 0}]),
        pd.DataFrame({"run_key": "k", "time_s": [0.0, 0.1], "cwnd": [10.0, 70.0]}),
        window=30,
    )
    assert capped.loc[0, ["max_cwnd", "mean_cwnd", "mean_window"]].tolist() == [70, 40, 20]
    found = clrp.analyse(cwnd_context(tmp_path / "b", name, swap=True))
    assert {c.verdict for c in found.claims} == {FAILS}, found.claims


def test_clrp_cwnd_without_traces_is_not_assessed(tmp_path: Path) -> None:
    runs = pd.DataFrame(
        [
            {
                "run_key": f"k{s}",
                "scheme": s,
                "seed": 1,
                "flow": "tcp1",
                "goodput_kbps": 1.0,
                "timeouts": 1,
            }
            for s in clrp.ROLES
        ]
    )
    found = clrp.analyse(context(tmp_path, "clrp_fig9", runs))
    assert {c.verdict for c in found.claims} == {NA}
    assert "No cwnd traces" in (found.intro or "")


def test_clrp_fig13_against_fig12(tmp_path: Path) -> None:
    def runs(factor: float) -> pd.DataFrame:
        runs = with_goodput(clrp_runs(lambda p: 1.2, lambda p: 1.1))
        runs["goodput_KBps"] *= factor
        return runs

    fig12 = runs(1.0)
    held = clrp.claim_below_reference(runs(0.5), fig12, "", "13", "12")
    assert held.verdict == HOLDS and "holds at all 33 (estimates 0.5)" in held.detail
    failed = clrp.claim_below_reference(runs(1.1), fig12, "", "13", "12")
    assert failed.verdict == FAILS and failed.numbers["CLRP p=0.1"]["estimate"] > 1
    # Without clrp_fig12's store beside this one: not assessed, saying why.
    found = clrp.analyse(context(tmp_path, "clrp_fig13", clrp_runs(lambda p: 1, lambda p: 1.1)))
    beside = by_text(found.claims, "Expo error model (Fig. 12)")
    assert beside.verdict == NA and "no clrp_fig12 results beside" in beside.detail


def _tiny(name: str) -> SweepSpec:
    """The shipped sweep with 5 s quick runs."""
    path = shipped_sweeps()[name]
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    raw["quick"]["set"]["run.duration"] = 5.0
    return parse_sweep(raw, base_dir=path.parent)


def test_clrp_targets_end_to_end(tmp_path: Path) -> None:
    """Tiny quick runs of three targets on the real core produce computed verdicts,
    Fig. 13's comparison reading Fig. 12's store beside it."""
    for name in ("clrp_fig12", "clrp_fig13", "clrp_fig9"):
        run_sweep(_tiny(name), tmp_path / name, jobs=1, quick=True, progress=False)
        verdicts = build_report(tmp_path / name)
        lead = [v for v in verdicts if "[Other reading" not in v]
        assert len(lead) == len(clrp.FIGS[name].claims)
        assert len(verdicts) > len(lead), "the other readings follow"
        outcomes = (HOLDS, FAILS, INCONCLUSIVE)
        assert all(any(f": {o} (" in v for o in outcomes) for v in verdicts), verdicts
        assert (tmp_path / name / "report" / "index.html").is_file()


def test_claims_are_judged_under_each_reading(tmp_path: Path) -> None:
    """With both Snoops and both CLRPs run, the lead reading (ns-2's Snoop, the paper's
    CLRP) comes first with the ids of a single reading; the others follow with suffixed
    ids, only for claims that speak of the scheme they change, each judged on its own
    schemes' runs."""
    base = clrp_runs(lambda p: 3.0, lambda p: 0.9)  # CLRP 10% below tcpair's Snoop
    ns2 = base[base["scheme"] == "snoop"].assign(scheme="snoop_ns2")
    ns2["goodput_kbps"] *= 0.5  # ns-2's Snoop: half as fast, so CLRP beats it
    timer = base[base["scheme"] == "clrp"].assign(scheme="clrp_timer")
    runs = pd.concat([base, ns2, timer], ignore_index=True)
    spec = clrp.FIGS["clrp_fig11"]
    found = clrp.claims(with_goodput(runs), spec)
    single = clrp.claims(with_goodput(base), spec)
    lead = [c for c in found if "@" not in c.claim_id]
    assert [c.claim_id for c in lead] == [c.claim_id for c in single]
    assert all(c.text.startswith("[Judged on Snoop as ns-2.35 builds it") for c in lead)
    assert not any(c.text.startswith("[") for c in single)
    by_id = {c.claim_id: c for c in found}
    every = "every_p-clrp_snoop_above"
    assert by_id[every].verdict == HOLDS, "against ns-2's Snoop"
    assert by_id[every + "@snoop+clrp"].verdict == FAILS, "against tcpair's Snoop"
    assert by_id[every + "@snoop_ns2+clrp_timer"].verdict == HOLDS
    assert by_id[every + "@snoop+clrp_timer"].verdict == FAILS
