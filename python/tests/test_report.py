"""Report generation from synthetic runs (no core needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tcpair.models import pftk_kbps
from tcpair.report import FAILS, HOLDS
from tcpair.reproduce import baseline, write_results_index

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
                        "goodput_kbps": g * (1 + 0.01 * rng.standard_normal()),
                        "throughput_kbps": g,
                        "mean_rtt_s": RTT,
                        "mean_timeout_rto_s": T0 if p > 0 else np.nan,
                        "mean_rto_s": 0.4,
                        "timeouts": 10 * p,
                        "fast_retransmits": 100 * p,
                        "window_cuts": 100 * p,
                        "retransmits": 110 * p,
                        "duration_s": 300.0,
                        "wall_s": 0.01,
                    }
                )
    return pd.DataFrame(rows)


def test_report_files_and_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "baseline"
    verdicts = baseline.make_report(synthetic_runs(), out, capacity_kbps=2000.0, meta={"seeds": 3})
    for name in (
        "index.html",
        "goodput_vs_loss.png",
        "goodput_vs_loss.svg",
        "recoveries_vs_loss.png",
        "runs.parquet",
        "runs.csv",
        "points.csv",
        "verdicts.json",
    ):
        assert (out / name).is_file(), name
    assert (out / "goodput_vs_loss.png").read_bytes()[:4] == b"\x89PNG"
    html = (out / "index.html").read_text()
    assert 'src="goodput_vs_loss.png"' in html
    assert "http://" not in html and "https://" not in html, "page must work offline"
    assert "PFTK" in html and HOLDS in html
    assert json.loads((out / "verdicts.json").read_text()) == verdicts
    assert all(v.endswith(HOLDS) for v in verdicts), verdicts
    assert len(pd.read_parquet(out / "runs.parquet")) == 36


def test_pftk_verdict_fails_when_far_off(tmp_path: Path) -> None:
    verdicts = baseline.make_report(synthetic_runs(scale=0.5), tmp_path / "b", capacity_kbps=2000.0)
    pftk_line = next(v for v in verdicts if "PFTK" in v)
    assert pftk_line.endswith(FAILS)


def test_points_use_t0_fallback() -> None:
    runs = synthetic_runs()
    runs.loc[runs["p"] == 0.01, "mean_timeout_rto_s"] = np.nan
    pts = baseline.points(runs)
    row = pts[(pts["variant"] == "reno") & (pts["p"] == 0.01)].iloc[0]
    assert row["t0_s_mean"] == pytest.approx(0.4)
    assert row["pftk_kbps"] == pytest.approx(pftk_kbps(0.01, RTT, 0.4, 1000, wmax=30))
    assert row["goodput_kbps_n"] == 3
    assert row["goodput_kbps_ci95"] > 0


def test_index_links_targets(tmp_path: Path) -> None:
    baseline.make_report(synthetic_runs(), tmp_path / "baseline", capacity_kbps=2000.0)
    index = write_results_index(tmp_path)
    html = index.read_text()
    assert 'href="baseline/index.html"' in html
    assert HOLDS in html


def test_index_marks_missing_target(tmp_path: Path) -> None:
    html = write_results_index(tmp_path).read_text()
    assert "not run yet" in html


@pytest.mark.parametrize(
    ("text", "bps"),
    [("2Mb", 2e6), ("10 Mb/s", 1e7), ("64kbps", 64e3), (5e6, 5e6), ("1Gbit", 1e9), ("fast", None)],
)
def test_parse_bandwidth(text: object, bps: float | None) -> None:
    assert baseline.parse_bandwidth(text) == bps


def test_plan_covers_grid() -> None:
    tasks = baseline.plan(quick=False)
    assert len(baseline.LOSS_RATES) >= 8 and len(baseline.SEEDS) >= 3
    assert len(tasks) == len(baseline.VARIANTS) * len(baseline.LOSS_RATES) * len(baseline.SEEDS)
    t = tasks[5]
    sc = t["scenario"]
    assert sc["run"]["seed"] == t["seed"]
    assert sc["links"][1]["forward"]["loss"] == {"model": "uniform", "p": t["p"]}
    assert sc["flows"][0]["variant"] == t["variant"]
    quick = baseline.plan(quick=True)
    assert quick[0]["scenario"]["run"]["duration"] == baseline.QUICK_DURATION_S


def test_reproduce_cli_with_fake_core(cli, fake_core, tmp_path: Path) -> None:
    out = tmp_path / "results"
    code, stdout, err = cli("reproduce", "all", "--quick", "--jobs", "1", "--out", str(out))
    assert code == 0, err
    assert (out / "index.html").is_file()
    assert (out / "baseline" / "index.html").is_file()
    assert (out / "baseline" / "goodput_vs_loss.png").is_file()
    assert "baseline" in stdout
