"""What a new user sees first: short reprs, tcpair.load, kept tables with
their parameters, progress off a terminal, failed runs failing the command,
grouped failures, dry runs that check every point, scheme columns."""

from __future__ import annotations

import inspect
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

import tcpair
from tcpair.sweeper.progress import PlainProgress, _progress
from tcpair.sweeper.runner import run_sweep

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


def sweep_def(ps: list[float], **extra: object) -> dict:
    return {
        "name": "nb",
        "scenario": CLRP,
        "seeds": 2,
        "set": {"run.duration": 5.0},
        "axis": [{"name": "p", "param": "links.wireless.forward.loss.p", "values": ps}],
        **extra,
    }


def write_sweep(tmp_path: Path, ps: str) -> Path:
    f = tmp_path / "s.toml"
    f.write_text(
        f'name = "s"\nscenario = "{CLRP}"\nseeds = 2\nset = {{ "run.duration" = 5.0 }}\n'
        f'[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = {ps}\n'
    )
    return f


def test_result_repr_is_a_short_summary() -> None:
    r = tcpair.run("clrp_one_link", overrides={"run.duration": 5}, seed=3)
    text = repr(r)
    assert len(text) < 200, text
    assert text.startswith("<tcpair.Result clrp_one_link seed=3 5 s: 1 flow, goodput ")
    assert "Mb/s; tables: flows" in text


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    r = tcpair.run(
        "clrp_one_link",
        overrides={
            "run.duration": 5,
            "links.wireless.forward.loss.p": 0.05,
            "output.timeseries": True,
        },
    )
    r.save(tmp_path / "r")
    back = tcpair.load(tmp_path / "r")
    assert isinstance(back, tcpair.Result)
    assert back.summary == r.summary and back.scenario == r.scenario
    assert back.name == r.name and repr(back) == repr(r)
    for name in ("flows", "drops", "recoveries", "timeseries"):
        pd.testing.assert_frame_equal(back.table(name), r.table(name), check_dtype=False)
    with pytest.raises(tcpair.ScenarioError, match="not a saved result"):
        tcpair.load(tmp_path)


def test_sweep_signature_lists_its_options() -> None:
    params = inspect.signature(tcpair.sweep).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())
    for name in ("jobs", "scheduler", "dask_local", "quick", "until_ci", "max_seeds", "progress"):
        assert name in params


def test_sweep_repr_table_and_load(tmp_path: Path) -> None:
    res = tcpair.sweep(
        sweep_def([0.0, 0.05], keep=["drops"]), tmp_path / "s", jobs=1, progress=False
    )
    text = repr(res)
    assert len(text) < 300, text
    assert "<tcpair.SweepResult nb: 4 runs (4 ok), axes p" in text
    drops = res.table("drops")
    assert {"run_key", "point", "p", "seed", "cause"} <= set(drops.columns)
    assert set(drops["p"]) == {0.05} and set(drops["seed"]) == {1, 2}
    with pytest.raises(tcpair.ScenarioError, match="does not keep it"):
        res.table("timeseries")
    again = tcpair.load(tmp_path / "s")
    assert repr(again) == text
    assert len(again.table("drops")) == len(drops)


def test_progress_is_plain_lines_off_a_terminal(tmp_path: Path) -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, force_jupyter=False)
    assert isinstance(_progress(console, True), PlainProgress)
    run_sweep(sweep_def([0.0]), tmp_path / "s", jobs=1, console=console)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
    assert lines[-1].startswith("nb: 2/2 runs, ") and lines[-1].endswith(" s"), lines
    assert "\x1b" not in buf.getvalue() and "\r" not in buf.getvalue()


def test_progress_in_jupyter_falls_back_quietly() -> None:
    console = Console(file=io.StringIO(), force_jupyter=True)
    bar = _progress(console, True)
    assert isinstance(bar, PlainProgress)
    with bar:
        pid = bar.add_task("x", total=3, completed=0, failed=0)
        bar.update(pid, advance=3, failed=1)
    assert not isinstance(
        _progress(Console(file=io.StringIO(), force_terminal=True), True), PlainProgress
    )


def test_failed_runs_fail_the_command(cli, tmp_path: Path) -> None:
    f = write_sweep(tmp_path, "[0.0, 1.5, 2.5]")
    out = tmp_path / "store"
    code, stdout, err = cli("sweep", str(f), "--out", str(out), "--jobs", "1")
    assert code == 4, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: 4 runs failed; see them with `tcpair results ")
    assert "6 runs executed (4 failed)" in " ".join(stdout.split())
    # A rerun that resolves nothing still reports the failures.
    code, _, err = cli("sweep", str(f), "--out", str(out), "--jobs", "1")
    assert code == 4
    # results: one line per distinct error, with its count and an example.
    code, stdout, err = cli("results", str(out))
    assert code == 0, err
    fails = [ln for ln in stdout.splitlines() if "failed x" in ln]
    assert len(fails) == 2, stdout
    assert any("failed x2: links.wireless.forward.loss.p" in ln and "p=1.5" in ln for ln in fails)
    code, stdout, _ = cli("results", str(out), "--json")
    groups = json.loads(stdout)["failure_groups"]
    assert sorted(g["count"] for g in groups) == [2, 2]


def test_dry_run_checks_every_point(cli, tmp_path: Path) -> None:
    f = write_sweep(tmp_path, "[0.0, -0.1, 0.02]")
    code, out, err = cli("sweep", str(f), "--out", str(tmp_path / "st"), "--dry-run")
    assert code == 2 and out == ""
    line = err.strip()
    assert line.startswith("error: sweep 's': 1 of 3 points are invalid: at p=-0.1: ")
    assert "links.wireless.forward.loss.p" in line and "-0.1" in line
    assert len(line.splitlines()) == 1
    f = write_sweep(tmp_path, "[0.0, 0.02]")
    code, out, err = cli("sweep", str(f), "--out", str(tmp_path / "st"), "--dry-run")
    assert code == 0, err
    assert "every point is valid" in out and "4 to run" in out
    assert not (tmp_path / "st").exists()
    # The metric is checked as a run would check it, the sweep's own or --ci-metric's.
    f.write_text(f.read_text().replace('seeds = 2', 'seeds = 2\nmetric = "nope"'))
    code, out, err = cli("sweep", str(f), "--out", str(tmp_path / "st"), "--dry-run")
    assert code == 2 and out == "" and "metric 'nope': no such flow metric" in err
    f = write_sweep(tmp_path, "[0.0, 0.02]")
    args = ("sweep", str(f), "--out", str(tmp_path / "st"), "--dry-run", "--ci-metric", "gput")
    code, out, err = cli(*args)
    assert code == 2 and out == "" and "metric 'gput': no such flow metric" in err
    assert not (tmp_path / "st").exists()


def _header(stdout: str) -> str:
    return " ".join(stdout.split())


def test_run_shows_scheme_columns_only_when_used(cli) -> None:
    base = ["run", CLRP, "--set", "run.duration=5", "--set", "links.wireless.forward.loss.p=0.02"]
    code, out, err = cli(*base)
    assert code == 0, err
    for label in ("BS rexmits", "ELN rexmits", "Syndrome credits", "CLRP notices", "A_w"):
        assert label not in _header(out)
    code, out, err = cli(*base, "--set", 'nodes.bs.bs=["snoop"]')
    assert code == 0, err
    assert "BS rexmits" in _header(out) and "CLRP" not in _header(out)
    code, out, err = cli(*base, "--set", "flows.tcp1.tcp.detector=oracle")
    assert code == 0, err
    assert "A_w" in _header(out) and "A_t" in _header(out) and "wireless FRs" in _header(out)
    assert "oracle" in out


def test_reproduce_with_failed_runs_exits_4(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tcpair.reproduce as repro

    out = tmp_path / "results"
    run_sweep(sweep_def([0.0, 1.5]), out / "nb", jobs=1, progress=False)
    monkeypatch.setattr(repro, "resolve_targets", lambda names: list(names))
    monkeypatch.setattr(repro, "reproduce", lambda names, out, **kw: {"nb": ["a verdict"]})
    code, stdout, err = cli("reproduce", "nb", "--out", str(out))
    assert code == 4, err
    assert "a verdict" in stdout
    assert err.strip().splitlines()[-1].startswith("error: 2 runs failed; see them with")


def test_run_spinner_is_silent_off_a_terminal() -> None:
    from tcpair.cli.runview import running

    buf = io.StringIO()
    with running(Console(file=buf, force_terminal=False), "x", 10.0):
        pass
    assert buf.getvalue() == ""
