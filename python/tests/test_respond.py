"""The respond_w and respond_c targets (Park et al. 2010, Figs. 3-4): quick runs end to
end, and the pooling and the verdicts on hand-built runs whose answers are known."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tcpair.evidence.verdict import OUTCOMES
from tcpair.reporting.page import FAILS, HOLDS, INCONCLUSIVE
from tcpair.reproduce import reproduce, targets
from tcpair.reproduce.park2010 import respond_c, respond_w
from tcpair.reproduce.park2010.respond import COUNTS, METHOD_ORDER, panels, per_run, relative

W_CLAIMS = {
    "improve_one_hop",
    "slow_start_never",
    "large_windows_severe",
    "best_high_loss",
    "best_more_hops",
    "adaptive_beats_1",
    "adaptive_beats_21",
}
C_CLAIMS = {
    "least_21",
    "hardly_21",
    "similar_1_22_24",
    "others_severe",
    "adaptive_beats_1",
    "adaptive_beats_21",
}


@pytest.mark.parametrize(("name", "claims"), [("respond_w", W_CLAIMS), ("respond_c", C_CLAIMS)])
def test_quick_run_gives_the_papers_panels_and_claims(
    tmp_path: Path, name: str, claims: set[str]
) -> None:
    assert name in targets()
    done = reproduce([name.replace("_", "-")], tmp_path, quick=True, jobs=2, progress=False)
    assert done[name]
    report = tmp_path / name / "report"
    found = json.loads((report / "verdicts.json").read_text())
    assert {v["claim_id"] for v in found} == claims
    assert all(v["outcome"] in OUTCOMES and v["provisional"] for v in found)
    # Panel (a) and (b), each a bar chart with whiskers.
    assert len(list(report.glob("*_a*.png"))) >= 1 and len(list(report.glob("*_b*.png"))) >= 1


def _runs(
    goodput: dict[str, float], *, loss_factor: dict[str, float] | None = None
) -> pd.DataFrame:
    """One flow per run, 1 and 5 hops, loss 1% and 5%, two buffers, four seeds: goodput
    per method (times ``loss_factor[method]`` at 5% loss) plus a part that depends on
    the seed and the scenario alike for every method (common random numbers)."""
    rows = []
    for method, g in goodput.items():
        for hops in (1, 5):
            for loss in (0.01, 0.05):
                f = (loss_factor or {}).get(method, 1.0) if loss == 0.05 else 1.0
                for buffer in (10, 50):
                    for seed in range(4):
                        common = (1 + 0.1 * seed) * (2 if hops == 1 else 1)
                        rows.append(
                            {
                                "flow": "tcp1",
                                "detector": "always_wireless",
                                "loss": loss,
                                "hops": hops,
                                "buffer": buffer,
                                "method": method,
                                "seed": seed,
                                "goodput_kbps": g * f * common,
                                **{c: 1.0 for c in COUNTS},
                            }
                        )
    return pd.DataFrame(rows)


AXES = ["loss", "hops", "buffer", "detector", "method"]
PAPER_SHAPE = {
    "0": 100.0,
    "1": 120.0,
    **{m: 90.0 for m in ("11", "12", "13", "14", "17")},
    "15": 60.0,
    "16": 60.0,
    "21": 110.0,
    "22": 100.0,
    "23": 95.0,
    "24": 115.0,
    "25": 70.0,
    "26": 70.0,
    "27": 105.0,
    "adaptive": 125.0,
}


def test_relative_goodput_is_the_per_seed_mean_of_ratios_over_a_bars_scenarios() -> None:
    g = per_run(_runs({"0": 100.0, "1": 100.0}, loss_factor={"1": 3.0}), AXES)
    assert len(g) == 2 * 2 * 2 * 2 * 4  # one row per run
    # Half the scenarios at ratio 1, half at 3: 2 on every seed, so a zero-width CI.
    iv = relative(g, "1", "0")
    assert iv.n == 4
    assert (iv.estimate, iv.low, iv.high) == pytest.approx((2.0, 2.0, 2.0), abs=1e-12)
    p = panels(g, "loss", {"hops": 1})
    a = p["a"].set_index(["loss", "method"])["relative"]
    assert a[(0.01, "1")] == 1.0 and a[(0.05, "1")] == 3.0 and a[(0.05, "0")] == 1.0
    assert list(p["b"]["hops"].unique()) == [1, 5]
    assert list(dict.fromkeys(p["b"]["method"])) == [m for m in METHOD_ORDER if m in ("0", "1")]


def test_w_verdicts_on_runs_shaped_like_the_paper() -> None:
    g = per_run(_runs(PAPER_SHAPE, loss_factor={"21": 1.5}), AXES)
    p = panels(g, "loss", {"hops": 1})
    by = {c.claim_id: c for c in respond_w.claims(g, p)}
    assert by["improve_one_hop"].verdict == HOLDS
    assert by["slow_start_never"].verdict == HOLDS
    assert by["large_windows_severe"].verdict == HOLDS
    # At 5% loss 21 gives 165 against 1's 120: best at high loss.
    assert by["best_high_loss"].verdict == HOLDS
    # At 5 hops 21 (pooled over loss: 110 and 165) beats 1: "1 best" does not hold.
    assert by["best_more_hops"].verdict == FAILS
    assert "21" in by["best_more_hops"].cause and "timeouts per run" in by["best_more_hops"].cause


def test_w_verdicts_turn_with_the_numbers() -> None:
    shape = {**PAPER_SHAPE, "12": 130.0, "15": 85.0, "27": 95.0}
    g = per_run(_runs(shape), AXES)
    p = panels(g, "loss", {"hops": 1})
    by = {c.claim_id: c for c in respond_w.claims(g, p)}
    assert by["improve_one_hop"].verdict == FAILS and "method 27" in by["improve_one_hop"].cause
    assert by["slow_start_never"].verdict == FAILS
    assert by["large_windows_severe"].verdict == FAILS


def _c_runs(goodput: dict[str, float], noise: float = 0.0) -> pd.DataFrame:
    """N flows per run (5 and 20), 1 and 3 hops, one buffer, four seeds."""
    rows = []
    for method, g in goodput.items():
        for n in (5, 20):
            for hops in (1, 3):
                for seed in range(4):
                    wobble = noise * (1 if (seed + int(method.isdigit() and method)) % 2 else -1)
                    for k in range(n):
                        rows.append(
                            {
                                "flow": f"tcp{k + 1}",
                                "flows": n,
                                "hops": hops,
                                "buffer": 50,
                                "method": method,
                                "seed": seed,
                                "goodput_kbps": (g + wobble) / n * (1 + 0.1 * seed),
                                **{c: 1.0 for c in COUNTS},
                            }
                        )
    return pd.DataFrame(rows)


def test_c_verdicts() -> None:
    shape = {m: 70.0 for m in PAPER_SHAPE if m != "adaptive"}
    shape.update({"0": 100.0, "21": 99.0, "1": 85.0, "22": 88.0, "24": 86.0})
    g = per_run(_c_runs(shape), ["flows", "hops", "buffer", "method"])
    assert len(g) == len(shape) * 2 * 2 * 4  # the N flows of a run summed
    by = {
        c.claim_id: c
        for c in (
            f(g)
            for f in (
                respond_c.claim_least,
                respond_c.claim_hardly,
                respond_c.claim_similar,
                respond_c.claim_others,
            )
        )
    }
    assert by["least_21"].verdict == HOLDS
    assert by["hardly_21"].verdict == HOLDS
    assert by["similar_1_22_24"].verdict == HOLDS
    assert by["others_severe"].verdict == HOLDS
    # Method 22 level with method 0 (TCP's own response once per episode): not similar.
    shape["22"] = 100.0
    g = per_run(_c_runs(shape), ["flows", "hops", "buffer", "method"])
    similar = respond_c.claim_similar(g)
    assert similar.verdict == FAILS and "22" in similar.cause
    # 21 level with 22 (= method 0) up to seed noise: "least" cannot be decided.
    shape["21"] = 100.0
    g = per_run(_c_runs(shape, noise=0.5), ["flows", "hops", "buffer", "method"])
    assert respond_c.claim_least(g).verdict == INCONCLUSIVE
