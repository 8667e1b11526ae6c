"""The compare_all target: its analysis on hand-built runs (ratios, ranking from
intervals, not-applicable cells, the summary, the deployment table from the
scenarios) and a small real run of the target's own sweep end to end."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tcpair.paths import shipped_sweeps
from tcpair.reproduce import compare_all, compare_deploy, targets
from tcpair.runner import run_sweep
from tcpair.site import build_report
from tcpair.sweepdef import load_sweep

NAME = "compare_all"


def _raw() -> dict[str, Any]:
    return tomllib.loads(shipped_sweeps()[NAME].read_text(encoding="utf-8"))


def _subset(raw: dict[str, Any], schemes: list[str], losses: list[str]) -> dict[str, Any]:
    """The sweep with only the given labels of its two axes."""
    out = copy.deepcopy(raw)
    for axis in out["axis"]:
        keep = schemes if axis["name"] == "scheme" else losses
        idx = [axis["labels"].index(k) for k in keep]
        axis["labels"] = [axis["labels"][i] for i in idx]
        axis.pop("quick", None)
        if "params" in axis:
            axis["params"] = {p: [v[i] for i in idx] for p, v in axis["params"].items()}
        else:
            axis["values"] = [axis["values"][i] for i in idx]
    return out


def test_sweep_runs_every_scheme_in_both_directions_with_its_loss_rates() -> None:
    spec = load_sweep(NAME)
    assert NAME in targets()
    labels = spec.axes[0].labels
    names = {compare_all.split_label(x) for x in labels}
    schemes = {n for _, n in names}
    assert {"reno", "snoop", "eln_snoop", "syndrome", "clrp", "pr", "pr_star"} <= schemes
    assert {d for d, _ in names} == {"FH -> MH", "MH -> FH"}
    for task in spec.plan(version="v"):
        if task.seed != 1:
            continue
        model, rate = compare_all.data_loss(task.scenario)
        word, pct = str(task.labels["loss"]).split()
        assert compare_all.MODELS.get(model, model) == word
        assert rate == pytest.approx(float(pct.rstrip("%")) / 100, rel=1e-4)
        mh = compare_deploy.mobile_host(task.scenario)
        assert mh == "mh"


def test_mean_loss_of_each_model() -> None:
    assert compare_all.mean_loss({"model": "uniform", "p": 0.03}, 1000) == 0.03
    bursty = {"model": "markov2", "p_good_to_bad": 0.1, "p_bad_to_good": 0.3, "loss_bad": 0.4}
    assert compare_all.mean_loss(bursty, 1000) == pytest.approx(0.25 * 0.4)
    timed = {"model": "markov2_time", "mean_good": 3.0, "mean_bad": 1.0, "loss_bad": 0.5}
    assert compare_all.mean_loss(timed, 1000) == pytest.approx(0.125)
    assert compare_all.mean_loss({"model": "ber", "b": 1e-5}, 125) == pytest.approx(
        1 - (1 - 1e-5) ** 1000
    )


def _tidy(factors: dict[tuple[str, str], float], seeds: int = 6) -> pd.DataFrame:
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
    assert na == [(mh, "fast"), (mh, "same")]
    table = compare_all.ratio_table(rat, mh, ["uniform 1%", "uniform 5%"], order)
    cells = table.set_index("scheme")
    assert cells.loc["fast", "uniform 1%"] == compare_all.NOT_APPLICABLE
    assert float(cells.loc["slow", "uniform 1%"].split()[0]) == pytest.approx(SLOW, rel=0.01)
    text = compare_all.summary(rat, ranks, na)
    assert f"{fh}, uniform: first fast; last slow" in text
    assert "fast beats Reno in 2 of 2 scenarios (ratio 1.2" in text
    assert "MH -> FH, uniform: first reno; last slow" in text
    assert "slow beats Reno in 0 of 4 scenarios (ratio 0.80 to 0.80), loses in 4" in text
    assert "Not applicable: fast (MH -> FH), same (MH -> FH)" in text


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
    schemes = ["fh_mh:reno", "fh_mh:snoop", "fh_mh:syndrome", "mh_fh:reno", "mh_fh:clrp"]
    raw = _subset(_raw(), schemes, ["uniform 5%"])
    raw["seeds"] = 3
    raw["set"] = {"run.duration": 20.0, "run.warmup": 2.0}
    res = run_sweep(raw, tmp_path / NAME, jobs=1, progress=False)
    assert res.counts_line().startswith("15 runs executed (0 failed)")
    build_report(tmp_path / NAME)
    report = tmp_path / NAME / "report"
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.find("Summary, computed from the runs") < page.find("Goodput ratio over Reno")
    assert "not applicable" in page  # syndrome and snoop were left out of MH -> FH
    assert (report / "compare_all_families.png").exists()
    rat = pd.read_csv(report / "compare_all_ratios.csv").set_index(["direction", "scheme"])
    assert rat.loc[("FH -> MH", "snoop"), "outcome"] == compare_all.WINS
    assert "caches data" in page and "numbers data" in page
