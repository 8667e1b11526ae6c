"""CLI behaviour: error paths need no core; the rest uses the fake core."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from contract import assert_run_json_contract

import tcpair._errors as errors_mod

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
CLRP = str(SCENARIOS / "clrp_one_link.toml")


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err
    return lines[0]


def test_unknown_file_exit_2(cli, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, out, err = cli("run", str(tmp_path / "nope.toml"), "--out", str(out_dir))
    assert code == 2
    assert "nope.toml" in _one_error_line(err)
    assert out == ""
    assert not out_dir.exists()


def test_validate_unknown_file(cli) -> None:
    code, _, err = cli("validate", "does/not/exist.toml")
    assert code == 2
    assert "no such scenario file" in _one_error_line(err)


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("links.nowhere.delay=1ms", "nowhere"),
        ("flows.3.variant=reno", "flows.3.variant"),
        ("run.duration.x=1", "run.duration.x"),
        ("novalue", "novalue"),
    ],
)
def test_bad_set_exit_2(cli, tmp_path: Path, override: str, needle: str) -> None:
    out_dir = tmp_path / "out"
    code, out, err = cli("run", CLRP, "--set", override, "--out", str(out_dir), "--json")
    assert code == 2
    assert needle in _one_error_line(err)
    assert out == ""
    assert not out_dir.exists()


def test_bad_option_and_bad_toml(cli, tmp_path: Path) -> None:
    code, _, err = cli("run", CLRP, "--bogus")
    assert code == 2
    assert "--bogus" in _one_error_line(err)
    bad = tmp_path / "bad.toml"
    bad.write_text("[run\n")
    code, _, err = cli("validate", str(bad))
    assert code == 2
    assert "not valid TOML" in _one_error_line(err)
    code, _, err = cli("run", CLRP, "--seed", "abc")
    assert code == 2
    _one_error_line(err)


def test_unknown_reproduce_target(cli, tmp_path: Path) -> None:
    code, _, err = cli("reproduce", "nosuch", "--out", str(tmp_path / "r"))
    assert code == 2
    assert "baseline" in _one_error_line(err)
    assert not (tmp_path / "r").exists()


def test_missing_core_is_one_line(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors_mod, "_core", None)
    code, _, err = cli("run", CLRP)
    assert code == 1
    assert "not built" in _one_error_line(err)


def test_help_and_version(cli) -> None:
    code, out, _ = cli()
    assert code == 0 and "reproduce" in out
    code, out, _ = cli("--version")
    assert code == 0 and out.startswith("tcpair ")


def test_run_json_with_fake_core(cli, fake_core, tmp_path: Path) -> None:
    code, out, err = cli("run", CLRP, "--json", "--set", "run.duration=10", "--seed", "4")
    assert code == 0, err
    obj = json.loads(out)
    assert_run_json_contract(obj)
    assert obj["summary"]["seed"] == 4


def test_run_table_and_out_dir(cli, fake_core, tmp_path: Path) -> None:
    out_dir = tmp_path / "res"
    code, out, err = cli("run", "clrp_one_link", "--out", str(out_dir))
    assert code == 0, err
    assert "tcp1" in out and "goodput" in out
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["flows"][0]["name"] == "tcp1"
    drops = pd.read_parquet(out_dir / "drops.parquet")
    assert drops["cause"].tolist() == ["corruption"]
    for t in ("flows", "recoveries", "timeseries"):
        assert (out_dir / f"{t}.parquet").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temp dir left"


def test_core_error_exit_2_no_output(cli, fake_core, tmp_path: Path) -> None:
    out_dir = tmp_path / "o"
    code, _, err = cli("run", CLRP, "--set", "run.duration=0", "--out", str(out_dir))
    assert code == 2
    assert "run.duration" in _one_error_line(err)
    assert not out_dir.exists()


UNWRITABLE = Path("/proc")  # exists on Linux; no file or folder can be made in it


@pytest.mark.skipif(not UNWRITABLE.is_dir(), reason="needs Linux's /proc")
def test_out_that_cannot_be_written_is_refused_before_the_run(cli, fake_core, monkeypatch) -> None:
    ran = []
    monkeypatch.setattr(fake_core, "run", lambda *a, **k: ran.append(1))
    code, out, err = cli("run", CLRP, "--out", str(UNWRITABLE / "results"))
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith("error: /proc/results: ")
    assert ".tmp-" not in line  # the user's path, not a temporary one
    assert out == "" and ran == []


@pytest.mark.skipif(not UNWRITABLE.is_dir(), reason="needs Linux's /proc")
def test_saving_where_nothing_can_be_written_names_the_users_path(fake_core) -> None:
    import tcpair

    result = tcpair.run(CLRP)
    with pytest.raises(OSError) as exc:
        result.save(UNWRITABLE / "results")
    assert exc.value.filename == str(UNWRITABLE / "results")


def test_validate_ok(cli, fake_core) -> None:
    code, out, _ = cli("validate", CLRP, "--set", "flows.tcp1.variant=sack")
    assert code == 0
    assert out.startswith("ok: ") and "3 nodes" in out and "1 flows" in out


def test_list(cli, fake_core) -> None:
    code, out, _ = cli("list", "--json")
    assert code == 0
    obj = json.loads(out)
    assert "reno" in {v["name"] for v in obj["variants"]}
    assert "baseline" in obj["reproduce_targets"]
    code, out, _ = cli("list")
    assert code == 0 and "uniform" in out and "baseline" in out and "sack recovery" in out


def test_bench(cli, fake_core) -> None:
    code, out, err = cli("bench", "--duration", "50", "--repeat", "2", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["events_per_s"]["best"] >= obj["events_per_s"]["median"] > 0
    assert obj["delivered_per_s"]["best"] > 0
    code, out, _ = cli("bench", "--duration", "50", "--repeat", "1")
    assert code == 0 and "delivered data packets/s" in out
    code, _, err = cli("bench", "--duration", "-1")
    assert code == 2
    _one_error_line(err)
