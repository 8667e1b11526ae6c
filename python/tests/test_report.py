"""Report generation from synthetic runs (no core needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tcpair.evidence.models import pftk_kbps
from tcpair.reporting.analysis import Context
from tcpair.reporting.page import FAILS, HOLDS, Page, render
from tcpair.reporting.site import build_index
from tcpair.reproduce.studies import baseline
from tcpair.sweeper.definition import load_sweep
from tcpair.sweeper.runner import SweepResult

RTT, T0 = 0.12, 0.6


def synthetic_runs(scale: float = 1.0) -> pd.DataFrame:
    """Runs whose Reno goodput is ``scale`` x PFTK; NewReno/SACK slightly better."""
    rng = np.random.default_rng(0)
    rows = []
    for variant, bonus in (("reno", 1.0), ("newreno", 1.05), ("sack", 1.1)):
        for p in (0.0, 0.01, 0.02, 0.05):
            for seed in (1, 2, 3):
                model = min(pftk_kbps(p, RTT, T0, 1000, wmax=30), 2000.0)
                g = model * (scale if p > 0 else 1.0) * (bonus if p > 0 else 1.0)
                rows.append(
                    {
                        "variant": variant,
                        "p": p,
                        "seed": seed,
                        "window": 30,
                        "packet_size": 1000,
                        # without loss a run is deterministic: no noise at p = 0
                        "goodput_kbps": g * (1 + 0.01 * rng.standard_normal() * (p > 0)),
                        "throughput_kbps": g,
                        "mean_rtt_s": RTT,
                        # the RTO that expired includes backoff; T0 is the base RTO
                        "mean_timeout_rto_s": 2 * T0 if p > 0 else np.nan,
                        "mean_rto_s": T0,
                        "timeouts": 10 * p,
                        "fast_retransmits": 100 * p,
                        "window_cuts": 100 * p,
                        "retransmits": 110 * p,
                        "duration_s": 300.0,
                        "wall_s": 0.01,
                    }
                )
    return pd.DataFrame(rows)


def synthetic_context(tmp_path: Path, scale: float = 1.0) -> Context:
    """The baseline sweep's spec with synthetic runs in place of stored ones."""
    runs = synthetic_runs(scale)
    runs["status"] = "ok"
    runs["flow"] = "tcp1"
    runs["point"] = runs.groupby(["variant", "p"], sort=False).ngroup()
    spec = load_sweep("baseline")
    result = SweepResult(spec, tmp_path, [], False)
    result._runs = runs
    out = tmp_path / "out"
    out.mkdir()
    return Context(result, out)


def test_baseline_analysis_files_and_verdicts(tmp_path: Path) -> None:
    ctx = synthetic_context(tmp_path)
    found = baseline.analyse(ctx)
    for fig in found.figures:
        assert (ctx.out / fig.png).read_bytes()[:4] == b"\x89PNG"
        assert fig.svg and (ctx.out / fig.svg).is_file()
    texts = [c.text for c in found.claims]
    assert any("PFTK" in t for t in texts)
    assert all(c.verdict == HOLDS for c in found.claims), found.claims
    assert (ctx.out / "baseline_points.csv").is_file()
    html = render(Page("t", "i", figures=found.figures, claims=found.claims))
    assert "http://" not in html and "https://" not in html, "page must work offline"


def test_pftk_verdict_fails_when_far_off(tmp_path: Path) -> None:
    found = baseline.analyse(synthetic_context(tmp_path, scale=0.5))
    pftk = next(c for c in found.claims if "PFTK" in c.text)
    assert pftk.verdict == FAILS


def test_points_use_the_base_rto_as_t0_and_cap_pftk() -> None:
    """PFTK's T0 is the base RTO, not the RTO that expired (its (1 + 32p^2) term is the
    backoff); the curve is capped at the bottleneck's rate."""
    runs = synthetic_runs()
    runs.loc[runs["p"] == 0.01, "mean_rto_s"] = 0.4
    pts = baseline.points(runs)
    row = pts[(pts["variant"] == "reno") & (pts["p"] == 0.01)].iloc[0]
    assert row["t0_s_mean"] == pytest.approx(0.4)
    assert row["pftk_kbps"] == pytest.approx(pftk_kbps(0.01, RTT, 0.4, 1000, wmax=30))
    assert row["goodput_kbps_n"] == 3
    assert row["goodput_kbps_ci95"] > 0
    uncapped = float(pftk_kbps(0.01, RTT, 0.4, 1000, wmax=30))
    capped = baseline.points(runs, capacity_kbps=uncapped / 2)
    row = capped[(capped["variant"] == "reno") & (capped["p"] == 0.01)].iloc[0]
    assert row["pftk_kbps"] == pytest.approx(uncapped / 2)


def test_baseline_bursty_reads_the_stationary_loss_and_judges_the_order(
    tmp_path: Path,
) -> None:
    runs = synthetic_runs()
    runs = runs[runs["p"] > 0].copy()
    runs["p_gb"] = runs["p"]  # the sweep's axis; p is derived from it
    runs = runs.drop(columns="p")
    runs["status"], runs["flow"] = "ok", "tcp1"
    runs["point"] = runs.groupby(["variant", "p_gb"], sort=False).ngroup()
    spec = load_sweep("baseline_bursty")
    result = SweepResult(spec, tmp_path, [], False)
    result._runs = runs
    (tmp_path / "out").mkdir()
    found = baseline.analyse(Context(result, tmp_path / "out"))
    (order,) = found.claims
    assert order.claim_id == "ordering_bursty" and order.verdict == HOLDS
    p_bg = 0.25  # the sweep's p_bad_to_good
    assert "p=0.0385" in order.detail or any(
        f"p={0.01 / (0.01 + p_bg):.3g}" in k for k in order.numbers
    )


def test_index_marks_missing_target(tmp_path: Path) -> None:
    html = build_index(tmp_path, [("baseline", "Baseline")]).read_text()
    assert "not run yet" in html and "baseline" in html


@pytest.mark.parametrize(
    ("text", "bps"),
    [("2Mb", 2e6), ("10 Mb/s", 1e7), ("64kbps", 64e3), (5e6, 5e6), ("1Gbit", 1e9), ("fast", None)],
)
def test_parse_bandwidth(text: object, bps: float | None) -> None:
    assert baseline.parse_bandwidth(text) == bps


def test_baseline_sweep_covers_grid() -> None:
    spec = load_sweep("baseline")
    points, seeds, runs = spec.count()
    assert points == 3 * 8 and seeds >= 3 and runs == points * seeds
    tasks = spec.plan(version="v")
    t = tasks[5]
    assert t.scenario["run"]["seed"] == t.seed
    assert t.scenario["links"][1]["forward"]["loss"] == {"model": "uniform", "p": t.labels["p"]}
    assert t.scenario["flows"][0]["variant"] == t.labels["variant"]
    quick = spec.plan(quick=True, version="v")
    assert quick[0].scenario["run"]["duration"] == 60.0
    assert len(quick) == spec.count(quick=True)[2] < len(tasks)


def test_reproduce_cli_with_fake_core(cli, fake_core, tmp_path: Path) -> None:
    out = tmp_path / "results"
    code, stdout, err = cli("reproduce", "all", "--quick", "--jobs", "1", "--out", str(out))
    assert code == 0, err
    assert (out / "index.html").is_file()
    assert (out / "baseline" / "report" / "index.html").is_file()
    assert (out / "baseline" / "report" / "goodput_vs_loss.png").is_file()
    assert (out / "baseline" / "runs.parquet").is_file()
    assert "baseline" in stdout
