"""The compare_all target: the shipped sweep is its plan's (families, schemes, what does
not fit where and why), its analysis on hand-built runs (ratios, ranking from
intervals, not-applicable cells with their reasons, the computed summary, the
deployment table from the scenarios) and a small real run of the target's own sweep
end to end."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tcpair.base.paths import shipped_sweeps
from tcpair.reporting.site import build_report
from tcpair.reproduce import targets
from tcpair.reproduce.studies import compare_all, compare_deploy, compare_plan
from tcpair.sweeper.definition import load_sweep
from tcpair.sweeper.runner import run_sweep

NAME = "compare_all"


def _raw() -> dict[str, Any]:
    return tomllib.loads(shipped_sweeps()[NAME].read_text(encoding="utf-8"))


def _subset(raw: dict[str, Any], keep: dict[str, tuple[list[str], list[str]]]) -> dict[str, Any]:
    """The sweep with only the given parts, each with only the given labels of its
    ``scheme`` and ``loss`` axes."""
    out = copy.deepcopy(raw)
    out["part"] = [p for p in out["part"] if p["name"] in keep]
    for part in out["part"]:
        schemes, losses = keep[part["name"]]
        part.pop("quick", None)
        for axis in part["axis"]:
            wanted = schemes if axis["name"] == "scheme" else losses
            idx = [axis["labels"].index(k) for k in wanted]
            axis["labels"] = [axis["labels"][i] for i in idx]
            axis.pop("quick", None)
            axis["params"] = {p: [v[i] for i in idx] for p, v in axis["params"].items()}
    return out


def test_the_shipped_sweep_is_the_plans() -> None:
    shipped = shipped_sweeps()[NAME].read_text(encoding="utf-8")
    assert shipped == compare_plan.render(), (
        "sweeps/compare_all.toml is generated: "
        "python3 -m tcpair.reproduce.studies.compare_plan > sweeps/compare_all.toml"
    )


def test_sweep_runs_every_family_with_the_schemes_that_fit_it() -> None:
    spec = load_sweep(NAME)
    assert NAME in targets()
    seen: dict[str, set[tuple[str, str]]] = {}
    for task in spec.plan(version="v"):
        if task.seed != 1:
            continue
        seen.setdefault(task.labels["part"], set()).add(
            compare_all.split_label(task.labels["scheme"])
        )
        model, rate = compare_all.data_loss(task.scenario)
        word, pct = str(task.labels["loss"]).split()
        assert compare_all.MODELS.get(model, model) == word
        assert rate == pytest.approx(float(pct.rstrip("%")) / 100, rel=1e-4)
        ends = {compare_deploy.the_flow(task.scenario)[e] for e in ("src", "dst")}
        direction = compare_all.split_label(task.labels["scheme"])[0]
        mobile = {"FH -> MH": 1, "MH -> FH": 1, "MH -> MH": 2, "n0 -> n5": 2}[direction]
        assert len(compare_deploy.mobile_hosts(task.scenario) & ends) == mobile
    assert list(seen) == [f.name for f in compare_plan.FAMILIES]
    detectors = {f"{d}+{r}" for d in compare_plan.DETECTORS for r in ("1", "21")}
    assert len(detectors) == 12
    for part, pairs in seen.items():
        names = {n for _, n in pairs}
        assert detectors | {"reno", "lda_eq+adaptive", "veno", "pr_star"} <= names, part
        has_bs = part != "802.11 chain"
        assert ({"snoop", "syndrome", "clrp"} <= names) == has_bs, part
        assert ("freeze" in names) == ("syndrome+freeze" in names) == (part == "hand-offs")
    assert {d for d, _ in seen["one wireless link"]} == {"FH -> MH", "MH -> FH"}
    assert {d for d, _ in seen["two wireless links"]} == {"MH -> MH"}
    uniform = [x for x in spec.axes[spec.axis_names.index("loss")].labels if "uniform" in str(x)]
    assert len(uniform) >= 6, "the loss sweep has more rates than 0.5/2/5%"


def test_what_does_not_fit_says_why() -> None:
    fams = {f.name: f for f in compare_plan.FAMILIES}
    chain, one, hand = fams["802.11 chain"], fams["one wireless link"], fams["hand-offs"]
    got = compare_plan.settings("snoop", chain, chain.directions[0])
    assert isinstance(got, str) and "no base station" in got
    got = compare_plan.settings("freeze", one, one.directions[0])
    assert isinstance(got, str) and "hand-offs" in got
    fake_up = compare_plan.Direction("mh_fh", "mh", "fh", True, False)
    assert "mobile host" in str(compare_plan.settings("freeze", hand, fake_up))
    snoop_up = compare_plan.settings("snoop", one, one.directions[1])
    assert isinstance(snoop_up, dict) and snoop_up["tcp"] == {"eln": True}
    two = fams["two wireless links"]
    clrp_mm = compare_plan.settings("clrp", two, two.directions[0])
    assert isinstance(clrp_mm, dict)
    assert clrp_mm["tcp"] == {"clrp": True} and clrp_mm["sink"] == {"clrp": True}
    assert compare_plan.reason("snoop", "802.11 chain", "chain").startswith("no base station")
    assert compare_plan.reason("x", "elsewhere", "fh_mh") == "not run in this family"


def test_mean_loss_of_each_model() -> None:
    assert compare_all.mean_loss({"model": "uniform", "p": 0.03}, 1000) == 0.03
    bursty = {"model": "markov2", "p_good_to_bad": 0.1, "p_bad_to_good": 0.3, "loss_bad": 0.4}
    assert compare_all.mean_loss(bursty, 1000) == pytest.approx(0.25 * 0.4)
    timed = {"model": "markov2_time", "mean_good": 3.0, "mean_bad": 1.0, "loss_bad": 0.5}
    assert compare_all.mean_loss(timed, 1000) == pytest.approx(0.125)
    assert compare_all.mean_loss({"model": "ber", "b": 1e-5}, 125) == pytest.approx(
        1 - (1 - 1e-5) ** 1000
    )


def _tidy(factors: dict[tuple[str, str], float], seeds: int = 6, part: str = "") -> pd.DataFrame:
    """Hand-built runs: goodput = 1000 x factor x a per-seed factor common to every
    scheme (as the simulator's common random numbers) x 0.5% noise per run."""
    rng = np.random.default_rng(7)
    common = 1 + 0.05 * rng.standard_normal(seeds)
    rows = []
    for (direction, name), f in factors.items():
        for loss, rate in (("uniform 1%", 0.01), ("uniform 5%", 0.05)):
            for s in range(seeds):
                g = 1000 * f * common[s] * (1 + 0.005 * rng.standard_normal())
                rows.append(
                    {
                        "part": part,
                        "direction": direction,
                        "name": name,
                        "scheme": f"x:{name}",
                        "family": f"{direction}, uniform",
                        "loss": loss,
                        "rate": rate,
                        "seed": s + 1,
                        "goodput_kbps": g,
                    }
                )
    return pd.DataFrame(rows)


FAST, SLOW, SAME = 1.3, 0.8, 1.0


def test_ratios_ranking_and_summary_follow_the_intervals() -> None:
    fh, mh = "FH -> MH", "MH -> FH"
    t = _tidy(
        {
            (fh, "reno"): 1.0,
            (fh, "fast"): FAST,
            (fh, "slow"): SLOW,
            (fh, "same"): SAME,
            (mh, "reno"): 1.0,
            (mh, "slow"): SLOW,
        }
    )
    order = compare_all.scheme_order(t)
    assert order[0] == "reno"
    rat = compare_all.ratios(t)
    got = rat.set_index(["direction", "scheme", "loss"])
    assert got.loc[(fh, "fast", "uniform 1%"), "outcome"] == compare_all.WINS
    assert got.loc[(fh, "slow", "uniform 5%"), "outcome"] == compare_all.LOSES
    assert got.loc[(fh, "fast", "uniform 1%"), "ratio"] == pytest.approx(FAST, rel=0.01)
    ranks = compare_all.ranking(t, order)
    r = ranks[ranks["direction"] == fh].set_index("scheme")["rank"]
    assert r["fast"] == 1 and r["slow"] == 4
    assert r["same"] == r["reno"] == 2, "overlapping intervals share a rank"
    na = compare_all.not_applicable(t)
    why = "not run in this family"
    assert na == [(mh, "fast", why), (mh, "same", why)]
    table = compare_all.ratio_table(rat, mh, ["uniform 1%", "uniform 5%"], order)
    cells = table.set_index("scheme")
    assert cells.loc["fast", "uniform 1%"] == f"{compare_all.NOT_APPLICABLE}: {why}"
    assert float(cells.loc["slow", "uniform 1%"].split()[0]) == pytest.approx(SLOW, rel=0.01)
    text = compare_all.summary(rat, ranks, na)
    fast = ranks.set_index(["direction", "scheme"]).loc[(fh, "fast"), "estimate"]
    assert f"{fh}, uniform: first fast ({fast:.2f}); last slow (0.80)" in text
    assert "fast beats Reno in 2 of 2 scenarios (ratio 1.2" in text
    assert "MH -> FH, uniform: first reno (1.00); last slow (0.80)" in text
    assert "slow beats Reno in 0 of 4 scenarios (ratio 0.80 to 0.80), loses in 4" in text
    assert f"Not applicable: fast, same in MH -> FH ({why})" in text
    matrix = compare_all.family_matrix(ranks, order).set_index("scheme")
    assert matrix.loc["fast", f"{mh}, uniform"] == "n/a"
    assert matrix.loc["slow", f"{fh}, uniform"] == "0.80 (4)"


def test_not_applicable_cells_give_the_plans_reason() -> None:
    part, chain = "802.11 chain", "n0 -> n5"
    t = _tidy({(chain, "reno"): 1.0, (chain, "veno"): FAST}, part=part)
    t["family"] = f"{part}: " + t["family"]
    rat = compare_all.ratios(t)
    order = ["reno", "veno", "snoop"]
    table = compare_all.ratio_table(rat, chain, ["uniform 1%"], order, part).set_index("scheme")
    assert table.loc["snoop", "uniform 1%"].startswith("not applicable: no base station")
    assert float(table.loc["veno", "uniform 1%"].split()[0]) == pytest.approx(FAST, rel=0.01)
    t2 = pd.concat([t, _tidy({(chain, "snoop"): 1.0}, part="elsewhere")])
    t2["family"] = t2["part"] + ": " + t2["direction"]
    na = compare_all.not_applicable(t2)
    assert (f"{part}, {chain}", "snoop", compare_plan.reason("snoop", part, "chain")) in na


def _scenario(direction: str, bs: list[str], tcp: dict, sink: dict, variant: str = "reno"):
    fwd = direction == "fh_mh"
    return {
        "nodes": [{"name": "fh"}, {"name": "bs", "bs": bs}, {"name": "mh"}],
        "links": [
            {"name": "wired", "from": "fh", "to": "bs", "kind": "wired"},
            {
                "name": "wireless",
                "from": "bs" if fwd else "mh",
                "to": "mh" if fwd else "bs",
                "kind": "wireless",
                "forward": {"loss": {"model": "uniform", "p": 0.02}},
            },
        ],
        "flows": [
            {
                "name": "tcp1",
                "src": "fh" if fwd else "mh",
                "dst": "mh" if fwd else "fh",
                "variant": variant,
                "tcp": tcp,
                "sink": sink,
            }
        ],
    }


def test_deployment_is_read_from_the_scenario() -> None:
    syn_fh = _scenario("fh_mh", ["syndrome"], {"eln": True}, {"syndrome": True})
    syn_mh = _scenario("mh_fh", ["syndrome"], {"eln": True}, {"syndrome": True})
    assert compare_deploy.host_changes(syn_fh) == {
        "FH": ["tcp.eln = true"],
        "MH": ["sink.syndrome = true"],
    }
    assert compare_deploy.host_changes(syn_mh) == {
        "FH": ["sink.syndrome = true"],
        "MH": ["tcp.eln = true"],
    }
    lda = _scenario("fh_mh", [], {"detector": "lda_eq", "responder": "21"}, {})
    assert compare_deploy.host_changes(lda)["FH"] == ["tcp.detector = lda_eq", "responder 21"]
    plain = _scenario("mh_fh", [], {"responder": "21", "eln": False}, {}, variant="sack")
    assert compare_deploy.host_changes(plain) == {"FH": [], "MH": []}
    # MH -> MH: both ends are mobile hosts; Freeze-TCP is a change at the receiving MH
    fams = {f.name: f for f in compare_plan.FAMILIES}
    spec = load_sweep(NAME)
    sc = {t.labels["scheme"]: t.scenario for t in spec.plan() if t.seed == 1}
    assert compare_deploy.host_changes(sc["mh_mh:clrp"]) == {
        "FH": [],
        "MH": ["tcp.clrp = true", "sink.clrp = true"],
    }
    assert fams["hand-offs"].handoffs
    frozen = compare_deploy.host_changes(sc["fh_mh:syndrome+freeze"])
    assert frozen["FH"] == ["tcp.eln = true"]
    assert frozen["MH"][0] == "sink.syndrome = true"
    assert frozen["MH"][1].startswith("mobility.freeze = true")
    assert compare_deploy.bs_agents(sc["fh_mh:freeze"]) == []
    veno = _scenario("mh_fh", [], {}, {}, variant="veno")
    assert compare_deploy.host_changes(veno)["MH"] == ["variant veno"]
    assert compare_deploy.bs_agents(syn_fh) == ["bs: syndrome"]
    assert compare_all.data_loss(syn_mh) == ("uniform", 0.02)
    t = pd.DataFrame(
        [
            {"direction": "FH -> MH", "name": "syndrome", "rate": 0.02, "sc": syn_fh},
            {"direction": "FH -> MH", "name": "veno", "rate": 0.02, "sc": veno},
        ]
    )
    dep = compare_deploy.deployment(t, ["syndrome", "veno"], probes=False).set_index("scheme")
    assert dep.loc["syndrome", "BS change"] == "bs: syndrome"
    assert dep.loc["veno", "end-to-end semantics kept"] == "yes"


def test_semantics_are_broken_only_by_an_ack_of_the_bs() -> None:
    cols = ["kind", "packet", "count"]
    kept = pd.DataFrame(
        [["bs_local_retransmit", "data", 3], ["bs_eln_set", "ack", 2]], columns=cols
    )
    split = pd.DataFrame([["bs_inject", "ack", 1]], columns=cols)
    assert compare_deploy.semantics_kept(kept)
    assert not compare_deploy.semantics_kept(split)
    assert compare_deploy.actions_text(kept) == "retransmits locally data, sets ELN on ack"


def test_small_real_run_end_to_end(tmp_path: Path) -> None:
    one = ["fh_mh:reno", "fh_mh:snoop", "fh_mh:syndrome", "mh_fh:reno", "mh_fh:clrp"]
    raw = _subset(
        _raw(),
        {
            "one wireless link": (one, ["uniform 5%"]),
            "802.11 chain": (["chain:reno", "chain:veno"], ["uniform 2%"]),
            "hand-offs": (["fh_mh:reno", "fh_mh:freeze"], ["uniform 2%"]),
        },
    )
    raw["seeds"] = 3
    for part in raw["part"]:
        part.pop("seeds", None)
        short = part["name"] != "hand-offs"  # its three hand-offs end by 46.2 s
        part["set"] = {"run.duration": 20.0 if short else 50.0, "run.warmup": 2.0}
    res = run_sweep(raw, tmp_path / NAME, jobs=1, progress=False)
    assert res.counts_line().startswith("27 runs executed (0 failed)")
    build_report(tmp_path / NAME)
    report = tmp_path / NAME / "report"
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.find("Summary, computed from the runs") < page.find("Goodput ratio over Reno")
    assert "not applicable: no base station" in page  # Snoop on the 802.11 chain
    assert "Freeze-TCP acts only at hand-offs" in page
    assert "Goodput ratio over Reno, hand-offs, FH -&gt; MH" in page
    assert (report / "compare_all_families.png").exists()
    rat = pd.read_csv(report / "compare_all_ratios.csv").set_index(["part", "direction", "scheme"])
    assert rat.loc[("one wireless link", "FH -> MH", "snoop"), "outcome"] == compare_all.WINS
    assert "caches data" in page and "numbers data" in page
