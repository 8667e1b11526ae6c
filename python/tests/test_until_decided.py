"""--until-decided and --until-ci at the cap, on the fake core (fast, deterministic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcpair import ScenarioError
from tcpair.reporting.analysis import undecided_claims
from tcpair.sweeper.runner import EXIT_INCOMPLETE, open_sweep, run_sweep

REPO = Path(__file__).resolve().parents[2]
CLRP = REPO / "scenarios" / "clrp_one_link.toml"

# A target analysis whose one claim is inconclusive until every point has NEED seeds.
ANALYSIS = """
from tcpair.reporting.analysis import Analysis
from tcpair.reporting.page import Claim
from tcpair.evidence.verdict import HOLDS, INCONCLUSIVE

NEED = {need}


def analyse(ctx):
    n = int(ctx.ok_runs.groupby("point")["seed"].nunique().min())
    verdict = HOLDS if n >= NEED else INCONCLUSIVE
    return Analysis(claims=[Claim("test", "decided at enough seeds", verdict,
                                  claim_id="enough_seeds", seeds=n)])
"""


def _target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, need: int) -> Path:
    mod = f"decide_at_{need}"
    (tmp_path / f"{mod}.py").write_text(ANALYSIS.format(need=need))
    monkeypatch.syspath_prepend(str(tmp_path))
    sweep = tmp_path / f"{mod}.toml"
    sweep.write_text(
        f'name = "{mod}"\nscenario = "{CLRP}"\nseeds = 2\nmetric = "goodput_kbps"\n'
        '[set]\n"run.duration" = 5.0\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.0, 0.05]\n'
        f'[target]\ntitle = "t"\nclaim = "c"\nanalysis = "{mod}"\n'
    )
    return sweep


def _seeds(store: Path) -> list[int]:
    runs = open_sweep(store).runs
    return sorted(runs.groupby("point")["seed"].nunique().tolist())


def test_until_decided_adds_seeds_until_no_claim_is_inconclusive(
    fake_core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep = _target(tmp_path, monkeypatch, need=6)
    res = run_sweep(
        sweep, tmp_path / "s", jobs=1, progress=False, until_decided=True, judge=undecided_claims
    )
    assert _seeds(tmp_path / "s") == [6, 6]  # 2, then two rounds of 2 more
    assert not res.incomplete and res.undecided == []
    assert res.base_runs == 4 and res.planned_runs == 12
    assert "12 runs in the plan (4 at the base seeds, 8 added" in res.counts_line()


def test_until_decided_at_the_cap_warns_and_exits_3(
    fake_core, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep = _target(tmp_path, monkeypatch, need=99)
    out = tmp_path / "s"
    args = ["sweep", str(sweep), "--out", str(out), "--jobs", "1", "--until-decided"]
    code, stdout, err = cli(*args, "--max-seeds", "4", "--report")
    assert code == EXIT_INCOMPLETE == 3, err
    flat = " ".join(err.split())
    assert "--max-seeds 4 reached with 1 claims still inconclusive (enough_seeds)" in flat
    assert _seeds(out) == [4, 4]
    assert (out / "report" / "verdicts.json").is_file(), "the report is written all the same"
    # A rerun executes nothing and counts what the rounds added.
    code, stdout, err = cli(*args, "--max-seeds", "4")
    assert code == 3
    assert (
        "0 runs executed (0 failed); 8 runs in the plan (4 at the base seeds, 4 added by "
        "more-seed rounds), 8 of them already stored" in " ".join(stdout.split())
    )


def test_until_ci_at_the_cap_names_the_points_and_exits_3(fake_core, cli, tmp_path: Path) -> None:
    sweep = tmp_path / "ci.toml"
    sweep.write_text(
        f'name = "ci"\nscenario = "{CLRP}"\nseeds = 2\n[set]\n"run.duration" = 5.0\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\n'
        "values = [0.01, 0.05]\n"
    )
    code, _, err = cli(
        "sweep", str(sweep), "--out", str(tmp_path / "s"), "--jobs", "1",
        "--until-ci", "0.0001", "--max-seeds", "4",
    )  # fmt: skip
    assert code == 3
    flat = " ".join(err.split())
    assert (
        "2 of 2 points above the requested half-width 0.0001 of the mean (p=0.01; p=0.05)" in flat
    )


def test_until_decided_needs_a_target_analysis(fake_core, tmp_path: Path) -> None:
    plain = {
        "name": "plain",
        "scenario": str(CLRP),
        "seeds": 2,
        "axis": [{"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.0]}],
    }
    with pytest.raises(ScenarioError, match="--until-decided"):
        run_sweep(
            plain, tmp_path / "s", jobs=1, progress=False, until_decided=True,
            judge=undecided_claims,
        )
