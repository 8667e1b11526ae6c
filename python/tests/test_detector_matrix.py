"""The detectors x responders targets: the sweeps cover every detector of Park et al. 2010
(with the oracle and always_wireless) and every responder; dominance on hand-built
intervals (including overlapping ones, which decide nothing); the ratios, the accuracy and
the summary on hand-built runs; and a tiny real run of the mixed-loss family end to end."""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tcpair._errors import ScenarioError
from tcpair.base.paths import shipped_sweeps
from tcpair.reporting.analysis import Context
from tcpair.reporting.site import build_report
from tcpair.reproduce import resolve_targets, targets
from tcpair.reproduce.studies import detector_matrix as dm
from tcpair.simulate import result as api
from tcpair.sweeper.definition import load_sweep
from tcpair.sweeper.runner import run_sweep

FAMILIES = ("detector_matrix_mixed", "detector_matrix_w", "detector_matrix_c")
PARK_2010 = {"none", "ncpld", "veno", "spike", "jtcp", "relds", "lda_eq"}


def _cells(rows: list[tuple[str, str, float, float]]) -> pd.DataFrame:
    """Hand-built intervals: (combo, scenario, low, high)."""
    df = pd.DataFrame(rows, columns=["combo", "scenario", "ratio_low", "ratio_high"])
    df["ratio"] = (df["ratio_low"] + df["ratio_high"]) / 2
    return df


def test_every_detector_and_every_responder_in_each_family() -> None:
    registry = api.catalog()
    responders = {r["name"] for r in registry["responders"]}
    detectors = {d["name"] for d in registry["detectors"]}
    assert PARK_2010 | {"oracle", "always_wireless"} <= detectors
    for name in FAMILIES:
        spec = load_sweep(name)
        assert name in targets()
        axes = {a.name: {str(x) for x in a.labels} for a in spec.axes}
        assert axes["detector"] == PARK_2010 | {"oracle", "always_wireless"}
        assert axes["responder"] == responders
        quick = {a.name: len(a.indices(True)) for a in spec.axes}
        assert quick["detector"] * quick["responder"] == 9 * len(responders)
    assert resolve_targets(["detector-matrix-mixed"]) == ["detector_matrix_mixed"]


def test_measured_flow_is_the_flow_the_detector_axis_sets(tmp_path: Path) -> None:
    got = {}
    for name in FAMILIES:
        ctx = Context(run_sweep_stub(name, tmp_path), tmp_path)
        got[name] = dm.measured_flow(ctx)
    assert got == {
        "detector_matrix_mixed": "tcp1",
        "detector_matrix_w": "tcp1",
        "detector_matrix_c": None,
    }


def run_sweep_stub(name: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    from tcpair.sweeper.runner import SweepResult

    return SweepResult(load_sweep(name), tmp_path, [], False)


def test_dominance_needs_separated_intervals() -> None:
    cells = _cells(
        [
            # a is wholly above b in s1 and overlaps it in s2: a dominates b
            ("a", "s1", 1.2, 1.3),
            ("b", "s1", 1.0, 1.1),
            ("a", "s2", 0.9, 1.1),
            ("b", "s2", 1.0, 1.2),
            # c overlaps a and b everywhere: nobody dominates c, c dominates nobody
            ("c", "s1", 1.05, 1.25),
            ("c", "s2", 0.95, 1.15),
            # d: above every other in s2, below them in s1: dominates none, none dominates it
            ("d", "s1", 0.5, 0.6),
            ("d", "s2", 1.3, 1.4),
        ]
    )
    dom = dm.dominance(cells)
    assert dom.dominated_by["b"] == ("a",)
    assert dom.dominated_by["c"] == ()
    assert "c" not in dom.dominates("a") and dom.dominates("c") == []
    assert dom.dominated_by["d"] == () and dom.dominates("d") == []
    assert dom.non_dominated == ["a", "c", "d"]


def test_overlapping_intervals_give_no_dominance() -> None:
    cells = _cells(
        [
            ("x", "s1", 1.0, 1.4),
            ("y", "s1", 1.3, 1.6),  # higher, but the intervals overlap
            ("x", "s2", 0.8, 1.0),
            ("y", "s2", 0.9, 1.1),
        ]
    )
    dom = dm.dominance(cells)
    assert dom.non_dominated == ["x", "y"]
    assert dom.dominates("y") == []


def test_undefined_intervals_decide_nothing() -> None:
    cells = _cells([("x", "s1", 1.5, 1.6), ("y", "s1", math.nan, math.nan)])
    assert dm.dominance(cells).non_dominated == ["x", "y"]


def _runs(factors: dict[tuple[str, str], float], scenarios: tuple[int, ...]) -> pd.DataFrame:
    """Hand-built runs of flow tcp1 (and a competing c1 that must be ignored): goodput =
    1000 x factor x a per-seed factor common to every combination x 0.5% noise; the
    accuracy counts say detector d is right on 3 of 4 wireless and all congestion FRs."""
    rng = np.random.default_rng(3)
    common = 1 + 0.05 * rng.standard_normal(6)
    rows = []
    for (det, resp), f in factors.items():
        for p in scenarios:
            for seed in range(1, 7):
                g = 1000 * f * common[seed - 1] * (1 + 0.005 * rng.standard_normal())
                plain = det == "none"
                for flow, value in (("tcp1", g), ("c1", 50.0 * seed)):
                    rows.append(
                        {
                            "p": p, "detector": det, "responder": resp, "seed": seed,
                            "flow": flow, "goodput_kbps": value,
                            "frs_wireless_true": 4, "frs_wireless_said_wireless": 0 if plain else 3,
                            "frs_congestion_true": 2, "frs_congestion_said_congestion": 2,
                        }
                    )  # fmt: skip
    return pd.DataFrame(rows)


def test_ratios_accuracy_and_summary_on_hand_built_runs() -> None:
    factors = {("none", "0"): 1.0, ("none", "1"): 1.0, ("d", "0"): 1.0}
    factors |= {("d", "1"): 1.3, ("d", "21"): 0.6, ("none", "21"): 1.0}
    runs = _runs(factors, (1, 2))
    # none+1 and d+0 are plain TCP exactly (as in the simulator); none+21 has noise of its own
    base = runs[(runs["detector"] == "none") & (runs["responder"] == "0")]
    for det, resp in (("none", "1"), ("d", "0")):
        mask = (runs["detector"] == det) & (runs["responder"] == resp)
        runs.loc[mask, "goodput_kbps"] = base["goodput_kbps"].to_numpy()
    g = dm.per_run(runs, ["p"], "tcp1")
    combos = [dm.combo(d, r) for d in ("none", "d") for r in ("0", "1", "21")]
    rat = dm.ratios(g, combos).set_index(["combo", "scenario"])
    assert rat.loc[("d+1", "p=1"), "ratio"] == pytest.approx(1.3, rel=0.02)
    assert rat.loc[("d+1", "p=1"), "outcome"] == dm.WINS
    assert rat.loc[("d+21", "p=2"), "outcome"] == dm.LOSES
    assert rat.loc[("none+1", "p=2"), "outcome"] == dm.SAME
    acc = dm.accuracy(runs, ["p"], "tcp1").set_index(["scenario", "detector"])
    assert acc.loc[("p=1", "d"), "A_w"] == pytest.approx(0.75)
    assert acc.loc[("p=1", "d"), "A_c"] == pytest.approx(1.0)
    assert acc.loc[("p=1", "none"), "A_w"] == 0.0  # plain TCP by definition
    rat = rat.reset_index()
    dom = dm.dominance(rat, combos)
    assert dom.non_dominated == ["d+1"]
    assert set(dom.dominates("d+1")) == set(combos) - {"d+1"}
    text = dm.summary(rat, dom, dom, "hand-built")
    assert "Non-dominated (1 of 6" in text and "d+1 (wins in 2 of 2" in text
    assert "3 of the 4 combinations that are plain TCP by construction" in text
    table = dm.matrix_table(rat, combos, dom).set_index("combination")
    assert table.loc["d+21", "loses"] == 2 and table.loc["d+1", "dominates"] == 5
    acc_all = dm.accuracy(runs, [], "tcp1")
    counts = dm.tally(rat, acc_all, ["none", "d"], ["0", "1", "21"]).set_index("detector")
    assert counts.loc["d", "1"] == "2/0" and counts.loc["d", "21"] == "0/2"
    assert counts.loc["d", "A_w"] == "0.75" and counts.loc["none", "A_c"] == "1.00"


def _subset(name: str, keep: dict[str, list[Any]]) -> dict[str, Any]:
    """The family's sweep with only the given labels of some axes."""
    raw = tomllib.loads(shipped_sweeps()[name].read_text(encoding="utf-8"))
    out = copy.deepcopy(raw)
    for axis in out["axis"]:
        if axis["name"] not in keep:
            continue
        labels = axis.get("labels", axis.get("values"))
        idx = [labels.index(k) for k in keep[axis["name"]]]
        axis.pop("quick", None)
        if "labels" in axis:
            axis["labels"] = [axis["labels"][i] for i in idx]
        axis["values"] = [axis["values"][i] for i in idx]
    return out


def test_tiny_real_run_end_to_end(tmp_path: Path) -> None:
    name = "detector_matrix_mixed"
    keep = {"p": [0.02], "competing": [2], "detector": ["none", "lda_eq", "oracle"]}
    raw = _subset(name, keep | {"responder": ["0", "1", "21"]})
    raw["seeds"] = 3
    raw["set"] = {**raw.get("set", {}), "run.duration": 20.0, "run.warmup": 2.0}
    res = run_sweep(raw, tmp_path / name, jobs=1, progress=False)
    assert res.counts_line().startswith("27 runs executed (0 failed)")
    build_report(tmp_path / name)
    report = tmp_path / name / "report"
    page = (report / "index.html").read_text(encoding="utf-8")
    assert (report / "matrix_1.png").exists() and 'src="matrix_1.png"' in page
    assert page.find("Summary, computed from the runs") < page.find("Non-dominated combinations")
    assert "A_w" in page and "A_c" in page
    rat = pd.read_csv(report / "detector_matrix_ratios.csv")
    assert len(rat) == 9 and set(rat["scenario"]) == {"p=0.02, competing=2"}
    plain = rat[(rat["detector"] == "none") | (rat["responder"].astype(str) == "0")]
    assert (plain["ratio"] == 1.0).all()  # plain TCP by construction, run all the same
    acc = pd.read_csv(report / "detector_matrix_accuracy.csv").set_index("detector")
    assert acc.loc["oracle", "A_w"] == pytest.approx(1.0)


def test_the_family_name_runs_the_three_targets() -> None:
    assert resolve_targets(["detector-matrix"]) == list(FAMILIES)
    assert resolve_targets(["detector_matrix", "detector-matrix-w"]) == list(FAMILIES)
    with pytest.raises(ScenarioError, match="unknown reproduce target 'detector-mat'"):
        resolve_targets(["detector-mat"])
