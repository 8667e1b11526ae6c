"""The paper-reproduction targets snoop_fig3 and syndrome_fig10..13 (CLRP: test_targets_clrp.py):
sweep files, scenarios, and the analyses' verdicts on synthetic runs (no long
simulations)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from synthetic import by_text, context, rows

from tcpair._errors import ScenarioError
from tcpair.evidence.stats import ratio_ci
from tcpair.reporting.page import FAILS, HOLDS, NA
from tcpair.reproduce import resolve_targets, targets
from tcpair.reproduce.amir1995 import fig3 as snoop_fig3
from tcpair.reproduce.chen2002 import figs10_13 as syndrome
from tcpair.sweeper.definition import load_sweep

NEW = ("snoop_fig3", "syndrome_fig10", "syndrome_fig11", "syndrome_fig12", "syndrome_fig13")
BERS = (1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3)
PS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)
DUPS = (0.02, 0.05, 0.1, 0.15, 0.2)


# --- sweep files and scenarios --------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_sweep_parses_and_plans(name: str) -> None:
    spec = load_sweep(name)
    assert spec.target is not None and spec.target.analysis
    assert spec.target.order > 0, "after the baseline"
    assert len(spec.seeds) >= 5 and spec.seeds_for(True) == (1, 2)
    full, quick = spec.plan(version="v"), spec.plan(quick=True, version="v")
    assert len(quick) < len(full)
    assert {t.scenario["run"]["duration"] for t in quick} == {20.0 if "snoop" in name else 30.0}
    assert "scheme" in spec.axis_names
    for t in full:
        nodes = {n["name"]: n for n in t.scenario["nodes"]}
        scheme = t.labels["scheme"]
        bs_node = nodes["bs" if name == "snoop_fig3" else "ha"]
        assert bs_node["bs"] == ([] if scheme == "reno" else [scheme])
        for f in t.scenario["flows"]:
            assert f.get("tcp", {}).get("eln", False) is (scheme in ("syndrome", "eln_snoop"))
            assert f.get("sink", {}).get("syndrome", False) is (scheme == "syndrome")


def test_snoop_fig3_grid() -> None:
    spec = load_sweep("snoop_fig3")
    assert spec.count() == (2 * len(BERS), 30, 2 * len(BERS) * 30)
    t = spec.plan(version="v")[-1]
    wl = next(lk for lk in t.scenario["links"] if lk["name"] == "wireless")
    assert wl["forward"]["loss"] == {"model": "ber", "ber": 1e-3}
    assert t.scenario["flows"][0]["packet_size"] == 500


@pytest.mark.parametrize("name", ["syndrome_fig10", "syndrome_fig11", "syndrome_fig13"])
def test_syndrome_wired_loss_is_p_over_50(name: str) -> None:
    for t in load_sweep(name).plan(version="v"):
        links = {lk["name"]: lk for lk in t.scenario["links"]}
        wl, wd = links["wireless"]["forward"]["loss"], links["s1-n8"]["forward"]["loss"]
        if wl["model"] == "uniform":
            assert wl["p"] == pytest.approx(t.labels["p"])
            assert wd["p"] == pytest.approx(t.labels["p"] / 50)
        else:
            # Fig. 13: the paper's transition probabilities, per packet.
            assert wl["model"] == wd["model"] == "markov2"
            assert wl["p_good_to_bad"] == wl["p_bad_to_good"] == 0.05
            assert wd["p_good_to_bad"] == wd["p_bad_to_good"] == 0.05
            assert wl["loss_bad"] == pytest.approx(t.labels["p"])
            assert wd["loss_bad"] == pytest.approx(t.labels["p"] / 50)
            assert wd["loss_good"] == pytest.approx(wl["loss_good"] / 50) == 4e-6
        impaired = "reorder" in links["n8-ha"].get("forward", {})
        assert impaired == (name != "syndrome_fig10")


def test_syndrome_fig12_grid() -> None:
    spec = load_sweep("syndrome_fig12")
    assert spec.axis_names == ["scheme", "dup"]
    for t in spec.plan(version="v"):
        links = {lk["name"]: lk for lk in t.scenario["links"]}
        fwd = links["n8-ha"]["forward"]
        assert fwd["duplicate"] == {"p": t.labels["dup"], "min": 1, "max": 20}
        assert fwd["reorder"] == {"p": 0.05, "min": 1, "max": 10}
        assert links["wireless"]["forward"]["loss"]["p"] == 0.02
        assert links["s1-n8"]["forward"]["loss"]["p"] == pytest.approx(0.02 / 50)


@pytest.mark.parametrize("name", ["snoop_paper", "syndrome_paper"])
def test_scenarios_validate(name: str) -> None:
    pytest.importorskip("tcpair._core")
    from tcpair.simulate import result as api

    sc = api.validate(name)
    assert sc["flows"]


def test_syndrome_points_validate_with_the_core() -> None:
    """Every Reno and Syndrome grid point of the shipped sweeps is accepted by the core
    (Snoop is checked once its agent is registered)."""
    core = pytest.importorskip("tcpair._core")
    for name in NEW:
        for t in load_sweep(name).plan(version="v"):
            if t.seed != 1:
                continue
            try:
                core.validate(json.dumps(t.scenario))
            except ScenarioError as exc:
                if t.labels["scheme"] == "snoop" and "unknown BS agent" in str(exc):
                    continue
                raise


def test_targets_listed_and_dashed_names() -> None:
    known = targets()
    assert [n for n in known if n in NEW] == list(NEW)
    assert next(iter(known)) == "baseline"
    assert resolve_targets(["snoop-fig3", "syndrome-fig12", "snoop_fig3"], known) == [
        "snoop_fig3",
        "syndrome_fig12",
    ]
    with pytest.raises(ScenarioError):
        resolve_targets(["syndrome-fig99"], known)


def test_cli_list_shows_targets(cli, fake_core) -> None:
    code, out, _ = cli("list", "--json")
    assert code == 0
    listed = json.loads(out)["reproduce_targets"]
    assert all(n in listed for n in NEW)


def test_ratio_ci() -> None:
    r, ci = ratio_ci(20.0, 2.0, 5, 10.0, 1.0, 5)
    se = math.sqrt(4 / 5 / 100 + 400 * (1 / 5) / 10**4)
    assert r == 2.0 and ci == pytest.approx(2.776445 * se, rel=1e-5)
    assert math.isnan(ratio_ci(1.0, 0.0, 1, 1.0, 0.0, 5)[1])
    assert math.isnan(ratio_ci(1.0, 0.0, 3, 0.0, 0.0, 3)[0])


RENO = (240, 235, 200, 120, 50, 15, 4, 2, 1)  # KB/s at BERS: undegraded up to 3e-7
SNOOP_OK = (240, 240, 240, 238, 230, 200, 100, 30, 2)  # speedup 25x at 1e-4
SNOOP_BAD = (240, 240, 200, 150, 240, 60, 16, 5, 1)  # degraded at 1e-6; peak 4.8x at 1e-5


def snoop_runs(
    snoop: tuple[float, ...] = SNOOP_OK, reno: tuple[float, ...] = RENO
) -> pd.DataFrame:
    table = {
        "reno": dict(zip(BERS, reno, strict=True)),
        "snoop": dict(zip(BERS, snoop, strict=True)),
    }
    return rows(
        {"scheme": ("reno", "snoop"), "ber": BERS},
        ("tcp1",),
        lambda scheme, ber, flow: float(table[scheme][ber]),
    )


def test_snoop_fig3_holds(tmp_path: Path) -> None:
    ctx = context(tmp_path, "snoop_fig3", snoop_runs())
    found = snoop_fig3.analyse(ctx)
    assert [c.verdict for c in found.claims] == [HOLDS, HOLDS, HOLDS, HOLDS], found.claims
    assert found.claims[1].detail.startswith("BER 0.0001: 25")
    for fig in found.figures:
        assert (ctx.out / fig.png).read_bytes()[:4] == b"\x89PNG"
    sp = pd.read_csv(ctx.out / "snoop_fig3_speedup.csv")
    assert len(sp) == len(BERS) and (sp["ratio_ci95"] > 0).all()
    assert sp["ratio"].max() == pytest.approx(25, rel=0.03)


def test_snoop_fig3_fails(tmp_path: Path) -> None:
    found = snoop_fig3.analyse(context(tmp_path, "snoop_fig3", snoop_runs(SNOOP_BAD)))
    assert [c.verdict for c in found.claims] == [FAILS, FAILS, FAILS, HOLDS], found.claims
    assert "Snoop@1e-06: 0.83" in found.claims[0].detail
    assert found.claims[0].numbers["Snoop@3e-06"]["outcome"] == FAILS


def test_snoop_fig3_taper_fails_with_a_large_gain_at_low_ber(tmp_path: Path) -> None:
    """A Reno already collapsing at 1e-6 (50 KB/s against Snoop's 240): the speedup
    there, 4.8, is not below a tenth of 25, so the gain does not taper off."""
    reno = (240, 235, 50, 40, 30, 15, 4, 2, 1)
    found = snoop_fig3.analyse(context(tmp_path, "snoop_fig3", snoop_runs(SNOOP_OK, reno)))
    taper = found.claims[3]
    assert taper.claim_id == "taper_low_ber" and taper.verdict == FAILS
    assert taper.numbers["BER 1e-06"]["outcome"] == FAILS
    assert taper.numbers["BER 1e-07"]["outcome"] == HOLDS


def test_snoop_fig3_without_snoop_runs_is_not_assessed(tmp_path: Path) -> None:
    runs = snoop_runs()
    found = snoop_fig3.analyse(context(tmp_path, "snoop_fig3", runs[runs["scheme"] == "reno"]))
    assert {c.verdict for c in found.claims} == {NA}


def syndrome_runs(
    xs: tuple[float, ...] = PS,
    x_axis: str = "p",
    schemes: tuple[str, ...] = ("reno", "snoop", "syndrome"),
    syn_over_snoop: Callable[[float, str], float] = lambda x, f: 1.02,
    reno_factor: float = 1 / 1.5,
    s2_factor: float = 0.8,
) -> pd.DataFrame:
    def goodput(scheme: str, flow: str, **labels: float) -> float:
        x = labels[x_axis]
        snoop = 150.0 / (1 + 10 * x) * (1 if flow == "s1" else s2_factor)
        return {
            "snoop": snoop,
            "syndrome": snoop * syn_over_snoop(x, flow),
            "reno": snoop * reno_factor,
        }[scheme]

    return rows({"scheme": schemes, x_axis: xs}, syndrome.FLOWS, goodput)


def test_syndrome_fig10_holds_then_fails(tmp_path: Path) -> None:
    found = syndrome.analyse(context(tmp_path / "a", "syndrome_fig10", syndrome_runs()))
    assert [c.verdict for c in found.claims] == [HOLDS, HOLDS, HOLDS], found.claims
    assert "+50%" in by_text(found.claims, "more goodput than Reno").detail
    # S2 above S1, Syndrome 15% above Snoop at p = 0.1, Reno only 10% below.
    bad = syndrome_runs(
        syn_over_snoop=lambda x, f: 1.15 if x == 0.1 else 1.0, reno_factor=1 / 1.1, s2_factor=1.1
    )
    found = syndrome.analyse(context(tmp_path / "b", "syndrome_fig10", bad))
    # "close over a wide range of p": p = 0.001..0.01 is a decade within 10%.
    assert [c.verdict for c in found.claims] == [FAILS, HOLDS, FAILS], found.claims
    # Outside the band at every other p: no decade holds.
    off = syndrome_runs(syn_over_snoop=lambda x, f: 1.15 if PS.index(x) % 2 else 1.0)
    found = syndrome.analyse(context(tmp_path / "c", "syndrome_fig10", off))
    assert by_text(found.claims, "comparable to Snoop").verdict == FAILS
    # A gain of 120% is outside the paper's 30-80%.
    big = syndrome_runs(reno_factor=1 / 2.2)
    found = syndrome.analyse(context(tmp_path / "d", "syndrome_fig10", big))
    assert by_text(found.claims, "more goodput than Reno").verdict == FAILS


def test_syndrome_claims_are_judged_against_ns2_snoop(tmp_path: Path) -> None:
    """With both Snoops in the runs, ns-2's is the comparator; tcpair's is shown beside."""
    base = syndrome_runs(schemes=("reno", "snoop", "syndrome"))
    ns2 = base[base["scheme"] == "snoop"].assign(scheme="snoop_ns2")
    ns2["goodput_kbps"] *= 1.02  # Syndrome is 1.02 x tcpair's Snoop: exactly ns-2's
    tcp = base.copy()
    tcp.loc[tcp["scheme"] == "snoop", "goodput_kbps"] *= 1.5  # tcpair's Snoop far ahead
    found = syndrome.analyse(context(tmp_path, "syndrome_fig10", pd.concat([tcp, ns2])))
    close = by_text(found.claims, "comparable to Snoop")
    assert close.verdict == HOLDS and "ns-2's Snoop, the comparator" in close.text
    assert "Against SNOOP (tcpair): does not hold" in close.detail
    assert {f.png.split("/")[-1] for f in found.figures} >= {"syndrome_fig10_vs_snoop.png"}


@pytest.mark.parametrize("name", ["syndrome_fig11", "syndrome_fig13"])
def test_syndrome_comparable(tmp_path: Path, name: str) -> None:
    xs = tuple(load_sweep(name).axes[1].labels)
    found = syndrome.analyse(context(tmp_path / "a", name, syndrome_runs(xs)))
    close = by_text(found.claims, "comparable to Snoop")
    assert close.verdict == HOLDS and f"at {2 * len(xs)} of {2 * len(xs)}" in close.detail
    off = syndrome_runs(xs, syn_over_snoop=lambda x, f: 0.8 if f == "s2" else 1.0)
    found = syndrome.analyse(context(tmp_path / "b", name, off))
    assert by_text(found.claims, "comparable to Snoop").verdict == FAILS


def test_syndrome_fig12_holds_then_fails(tmp_path: Path) -> None:
    def paper_like(x: float, flow: str) -> float:
        onset = syndrome.DUP_ONSET[flow]
        return 1.02 if x <= onset else 1.15

    runs = syndrome_runs(DUPS, "dup", ("snoop", "syndrome"), paper_like)
    found = syndrome.analyse(context(tmp_path / "a", "syndrome_fig12", runs))
    assert [c.verdict for c in found.claims] == [HOLDS, HOLDS], found.claims
    for fig in found.figures:
        assert (tmp_path / "a" / "out" / fig.png).is_file()
    # A gap at 0.05 for S2 (before its onset 0.1) and a 40% worst case.
    runs = syndrome_runs(DUPS, "dup", ("snoop", "syndrome"), lambda x, f: 1.4 if x >= 0.05 else 1)
    found = syndrome.analyse(context(tmp_path / "b", "syndrome_fig12", runs))
    onset = by_text(found.claims, "only once")
    assert onset.verdict == FAILS and "s2 dup=0.05: 1.4" in onset.detail
    assert onset.numbers["s2 dup=0.05"]["outcome"] == FAILS
    assert by_text(found.claims, "more aggressive").verdict == FAILS
    # No gap anywhere: the "appears above the onset" half fails.
    runs = syndrome_runs(DUPS, "dup", ("snoop", "syndrome"))
    found = syndrome.analyse(context(tmp_path / "c", "syndrome_fig12", runs))
    assert by_text(found.claims, "only once").verdict == FAILS
    # "about 20%" is two-sided: a worst case of 2% is not about 20%.
    assert by_text(found.claims, "more aggressive").verdict == FAILS


def test_syndrome_without_snoop_is_not_assessed(tmp_path: Path) -> None:
    runs = syndrome_runs(schemes=("reno", "syndrome"))
    found = syndrome.analyse(context(tmp_path, "syndrome_fig10", runs))
    verdicts = {c.text.split(":")[0]: c.verdict for c in found.claims}
    assert list(verdicts.values()) == [HOLDS, NA, NA]


def test_figspec_by_axes() -> None:
    assert syndrome.figspec("copy", ["scheme", "dup"]).x_axis == "dup"
    assert syndrome.figspec("syndrome_fig10", ["scheme", "p"]).claims[-1] == "gain"


def test_syndrome_fig10_mh_reverses_the_flows_and_the_losses() -> None:
    """Fig. 10's MH -> FH direction: the flows leave the MH, the losses sit on MH -> HA and
    n8 -> S1 (p/50), the ACK directions are lossless, and every Snoop's sender uses ELN."""
    spec = load_sweep("syndrome_fig10_mh")
    assert syndrome.figspec(spec.name, spec.axis_names).claims == ("rtt_bias", "close", "gain")
    for t in spec.plan(version="v"):
        flows = {f["name"]: f for f in t.scenario["flows"]}
        assert (flows["s1"]["src"], flows["s1"]["dst"]) == ("mh", "s1")
        assert (flows["s2"]["src"], flows["s2"]["dst"]) == ("mh", "s2")
        links = {lk["name"]: lk for lk in t.scenario["links"]}
        assert links["wireless"]["reverse"]["loss"]["p"] == pytest.approx(t.labels["p"])
        assert links["s1-n8"]["reverse"]["loss"]["p"] == pytest.approx(t.labels["p"] / 50)
        assert links["wireless"]["forward"]["loss"]["p"] == 0.0
        assert links["s1-n8"]["forward"]["loss"]["p"] == 0.0
        scheme = t.labels["scheme"]
        assert flows["s1"]["tcp"]["eln"] is (scheme != "reno")
        assert flows["s1"]["sink"]["syndrome"] is (scheme == "syndrome")
