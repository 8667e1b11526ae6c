"""The loss-differentiation targets pr_table1_2, lda_accuracy, pr_table3 and pr_range:
quick runs end to end (claims with outcomes) and the analyses on hand-built runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tcpair.evidence.verdict import OUTCOMES
from tcpair.reporting.analysis import analyse_sweep
from tcpair.reporting.page import FAILS, HOLDS
from tcpair.reproduce import reproduce, targets
from tcpair.reproduce.park2010 import accuracy as lda_accuracy
from tcpair.reproduce.stojcevska_popov import fairness as pr_fairness
from tcpair.reproduce.stojcevska_popov import improvement as pr_range
from tcpair.reproduce.stojcevska_popov import tables as pr_tables
from tcpair.results.store import Store
from tcpair.sweeper.view import open_sweep

TARGETS = ("pr_table1_2", "lda_accuracy", "pr_table3", "pr_range")
# The figures each target's page shows.
FIGURES = {
    "pr_table1_2": ("pr_table1_2_throughput.png",),
    "lda_accuracy": ("lda_accuracy.png", "lda_enhancement.png"),
    "pr_table3": ("pr_table3_fairness.png",),
    "pr_range": ("pr_range_ratios.png",),
}


def _verdicts(root: Path, name: str) -> list[dict[str, object]]:
    return json.loads((root / name / "report" / "verdicts.json").read_text())


@pytest.mark.parametrize("name", TARGETS)
def test_quick_run_gives_claims(tmp_path: Path, name: str) -> None:
    assert name in targets()
    done = reproduce([name.replace("_", "-")], tmp_path, quick=True, jobs=2, progress=False)
    assert done[name]
    found = _verdicts(tmp_path, name)
    assert found and all(v["outcome"] in OUTCOMES and v["provisional"] for v in found)
    report = tmp_path / name / "report"
    page = (report / "index.html").read_text()
    for png in FIGURES[name]:
        assert f'src="{png}"' in page and (report / png).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("name", "kept"), [("pr_table1_2", "recoveries"), ("pr_table3", "timeseries")]
)
def test_a_fault_reading_a_kept_table_surfaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, kept: str
) -> None:
    """A kept table that cannot be read stops the analysis: the page never goes out
    without its figure or its cause notes as if the sweep had kept nothing."""
    reproduce([name], tmp_path, quick=True, jobs=2, progress=False)
    result = open_sweep(tmp_path / name)
    assert kept in result.spec.keep and not result.table(kept).empty

    def unreadable(self: Store, table: str, keys: object = None) -> pd.DataFrame:
        raise OSError(f"{table}: Input/output error")

    monkeypatch.setattr(Store, "load_table", unreadable)
    (tmp_path / "again").mkdir()
    with pytest.raises(OSError, match="Input/output error"):
        analyse_sweep(result, tmp_path / "again")


# --- pr_table1_2 -------------------------------------------------------------------


def test_paper_numbers_follow_from_formula7() -> None:
    check = pr_tables.paper_check()
    rows = check[check["protocol"] != "PR - Reno"]
    assert np.allclose(rows["printed b/s"], rows["formula (7) b/s"], atol=0.005)
    claim = pr_tables.claim_paper_formula()
    assert claim.verdict == HOLDS
    assert "-1.00 b/s" in claim.detail  # the paper's subtraction slip, computed
    assert pr_tables.formula7(3121, 75, 1000, 29.9) == pytest.approx(814983.28, abs=0.005)


def _chain_runs(gain: float) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for seed in range(1, 9):
        common = 0.7 + 0.05 * rng.standard_normal()
        for variant in ("reno", "pr", "newreno", "pr_star"):
            new = variant in ("pr", "pr_star")
            value = common * (gain if new else 1.0) * (1 + 0.002 * rng.standard_normal())
            rows.append(
                {
                    "variant": variant,
                    "loss_at": "r3-r4",
                    "seed": seed,
                    "flow": "pr1",
                    "formula_throughput_mbps": value,
                    "sent": 3000 * (gain if new else 1.0) + seed,
                    "delivered": 2900 * (gain if new else 1.0) + seed,
                    "retransmits": 30,
                    "timeouts": 2,
                    "frs_wireless_true": 10,
                    "frs_wireless_said_wireless": 6 if new else 0,
                    "frs_congestion_true": 3,
                    "frs_congestion_said_congestion": 3,
                }
            )
    return pd.DataFrame(rows)


def test_pr_improvement_claims() -> None:
    by_id = {c.claim_id: c for c in pr_tables.claims(_chain_runs(1.19))}
    assert by_id["pr_above_reno"].verdict == HOLDS
    assert by_id["pr_star_above_newreno"].verdict == HOLDS
    assert by_id["pr_improvement_19pct"].verdict == HOLDS
    assert by_id["table1_more_sent_and_acked"].verdict == HOLDS
    by_id = {c.claim_id: c for c in pr_tables.claims(_chain_runs(1.02))}
    assert by_id["pr_above_reno"].verdict == HOLDS
    small = by_id["pr_improvement_19pct"]
    assert small.verdict == FAILS and "kept the window on 48 of 80" in small.cause
    by_id = {c.claim_id: c for c in pr_tables.claims(_chain_runs(0.9))}
    assert by_id["pr_above_reno"].verdict == FAILS
    assert by_id["table1_more_sent_and_acked"].verdict == FAILS


# --- lda_accuracy ------------------------------------------------------------------

KEYS = ["p", "buffer"]


def _lda_runs(gains: dict[str, float], said_w: dict[str, int]) -> pd.DataFrame:
    """Two scenarios, six seeds; per run 10 wireless and 10 congestion FRs."""
    rng = np.random.default_rng(5)
    rows = []
    for seed in range(1, 7):
        for p in (0.01, 0.02):
            base = 1000 * (1 + 0.03 * rng.standard_normal())
            for det, gain in gains.items():
                w = said_w[det] + int(seed % 2 and det != "none")
                rows.append(
                    {
                        "detector": det,
                        "p": p,
                        "buffer": 5,
                        "seed": seed,
                        "flow": "tcp1",
                        "goodput_kbps": base * (gain if p == 0.01 else 2 - gain),
                        "timeouts": 1,
                        "frs_wireless_true": 10,
                        "frs_wireless_said_wireless": w,
                        "frs_congestion_true": 10,
                        "frs_congestion_said_congestion": 9 if det != "none" else 10,
                        "frs_spurious": 0,
                        "frs_mixed": 0,
                    }
                )
    return pd.DataFrame(rows)


def test_lda_accuracy_pooled_and_highest() -> None:
    runs = _lda_runs(
        {"none": 1.0, "veno": 1.05, "lda_eq": 1.05}, {"none": 0, "veno": 3, "lda_eq": 6}
    )
    acc = lda_accuracy.accuracy(runs)
    assert acc["none"]["acc_w"].estimate == 0 and acc["none"]["acc_t"].estimate == 0.5
    assert acc["lda_eq"]["acc_c"].estimate == pytest.approx(0.9)
    assert acc["lda_eq"]["acc_w"].estimate == pytest.approx(0.65)
    assert lda_accuracy.claim_highest(runs).verdict == HOLDS
    runs = _lda_runs({"none": 1.0, "veno": 1.0, "lda_eq": 1.0}, {"none": 0, "veno": 8, "lda_eq": 6})
    assert lda_accuracy.claim_highest(runs).verdict == FAILS


def test_lda_enhancement_range_and_claims() -> None:
    runs = _lda_runs(
        {"none": 1.0, "veno": 1.06, "lda_eq": 1.07}, {"none": 0, "veno": 3, "lda_eq": 6}
    )
    summary = lda_accuracy.enhancement_summary(runs, KEYS).set_index("detector")
    assert summary.loc["LDA_EQ", "lowest"] == pytest.approx(-0.07, abs=0.01)
    assert summary.loc["LDA_EQ", "highest"] == pytest.approx(0.07, abs=0.01)
    assert abs(summary.loc["LDA_EQ", "average"]) < 0.01
    assert lda_accuracy.claim_not_always(runs, KEYS).verdict == HOLDS
    assert lda_accuracy.claim_average(runs, KEYS).verdict == HOLDS
    better = _lda_runs(
        {"none": 1.0, "veno": 1.0, "lda_eq": 1.0}, {"none": 0, "veno": 3, "lda_eq": 6}
    )
    better.loc[better["detector"] == "lda_eq", "goodput_kbps"] *= 1.2
    claim = lda_accuracy.claim_not_always(better, KEYS)
    assert claim.verdict == FAILS and "LDA_EQ kept the window on" in claim.cause


# --- pr_table3 ---------------------------------------------------------------------


def test_jain_index() -> None:
    assert pr_fairness.jain(np.array([1.0, 1.0, 1.0])) == pytest.approx(1.0)
    assert pr_fairness.jain(np.array([1.0, 0.0])) == pytest.approx(0.5)
    ts = pd.DataFrame(
        {
            "protocol": ["reno"] * 4,
            "seed": [1, 1, 2, 2],
            "time_s": [1.0] * 4,
            "flow": ["f0", "f1"] * 2,
            "throughput_kbps": [1.0, 1.0, 1.0, 0.0],
        }
    )
    curve = pr_fairness.over_time(ts)
    assert curve["mean"].iloc[0] == pytest.approx(0.75)


def _fair_runs(index: dict[str, float]) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for seed in range(1, 9):
        common = 0.02 * rng.standard_normal()
        for proto, j in index.items():
            value = j + common + 0.002 * rng.standard_normal()
            for flow in ("f0", "f1"):
                rows.append(
                    {
                        "protocol": proto,
                        "seed": seed,
                        "flow": flow,
                        "run_jain_fairness": value,
                        "goodput_kbps": 500.0,
                        "wireless_frs": 1,
                        "fast_retransmits": 10,
                    }
                )
    return pd.DataFrame(rows)


def test_fairness_order_and_values() -> None:
    paper = pr_fairness.PAPER_JAIN
    runs = _fair_runs(paper)
    assert pr_fairness.claim_order(runs).verdict == HOLDS
    assert pr_fairness.claim_values(runs).verdict == HOLDS
    flat = _fair_runs({"reno": 0.9, "pr": 0.9, "pr_star": 0.88})
    assert pr_fairness.claim_order(flat).verdict == FAILS
    values = pr_fairness.claim_values(flat)
    assert values.verdict == FAILS and "Reno +0.2" in values.cause


# --- pr_range ----------------------------------------------------------------------


def _grid_runs(gain: float, clean: float) -> pd.DataFrame:
    rng = np.random.default_rng(9)
    rows = []
    for seed in range(1, 7):
        for p in (0.0, 0.01):
            for delay in (10, 40):
                base = 0.8 * (1 + 0.05 * rng.standard_normal())
                for variant in ("reno", "pr", "newreno", "pr_star"):
                    new = variant in ("pr", "pr_star")
                    factor = (gain if p > 0 else clean) if new else 1.0
                    rows.append(
                        {
                            "variant": variant,
                            "bottleneck": 10,
                            "p": p,
                            "delay_ms": delay,
                            "seed": seed,
                            "flow": "pr1",
                            "formula_throughput_mbps": base * factor,
                            "wireless_frs": 1,
                            "frs_congestion_true": 4,
                            "frs_congestion_said_congestion": 3 if new else 4,
                            "frs_wireless_true": 5,
                            "frs_wireless_said_wireless": 3 if new else 0,
                        }
                    )
    return pd.DataFrame(rows)


KEYS_RANGE = ["bottleneck", "p", "delay_ms"]


def test_range_claims() -> None:
    runs = _grid_runs(1.3, 1.0)
    r = pr_range.ratios(runs, KEYS_RANGE)
    assert pr_range.claim_increase(runs, r, KEYS_RANGE).verdict == HOLDS
    assert pr_range.claim_range(runs, r, KEYS_RANGE).verdict == HOLDS
    assert pr_range.claim_identical(runs, r, KEYS_RANGE).verdict == HOLDS
    runs = _grid_runs(1.04, 1.05)
    r = pr_range.ratios(runs, KEYS_RANGE)
    assert pr_range.claim_increase(runs, r, KEYS_RANGE).verdict == HOLDS
    assert pr_range.claim_range(runs, r, KEYS_RANGE).verdict == FAILS
    same = pr_range.claim_identical(runs, r, KEYS_RANGE)
    assert same.verdict == FAILS and "kept the window on 12 of 48" in same.cause
