"""The core's own command, ``tcpair-sim``: a scenario file run without Python gives
the flows and summary of ``tcpair run --json``, and bad input gets one error line
naming what is wrong, exit code 2 and nothing on stdout (docs/performance.md,
"Against ns-2.35"; README, "Single runs without Python")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from needs import core_binary, installed_core_command

from tcpair.base.paths import scenario_path


def _sim(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([core_binary(), *map(str, args)], capture_output=True, text=True,
                          check=False, timeout=120)


def _without_wall(answer: dict) -> dict:
    answer["summary"].pop("wall_s")
    return answer


def _lossy(tmp_path: Path, *extra: str, name: str = "clrp_one_link") -> Path:
    """A shipped scenario with 2% loss on the wireless hop, as a TOML file; ``extra``:
    more ``--set`` overrides."""
    from tcpair.base.tomlout import dumps
    from tcpair.simulate.result import prepare

    overrides = ["links.wireless.forward.loss.p=0.02", "run.duration=60", *extra]
    path = tmp_path / f"{name}.toml"
    path.write_text(dumps(dict(prepare(name, overrides=overrides))))
    return path


@pytest.mark.parametrize("bs", ["[]", '["snoop"]'])
def test_a_file_with_a_seed_answers_as_tcpair_run(tmp_path: Path, bs: str) -> None:
    path = _lossy(tmp_path, f"nodes.bs.bs={bs}")
    alone = _sim("--summary", "--seed", "3", path)
    assert alone.returncode == 0, alone.stderr
    ours = subprocess.run([sys.executable, "-m", "tcpair", "run", str(path), "--seed", "3",
                           "--json"], capture_output=True, text=True, check=True).stdout
    a, b = _without_wall(json.loads(alone.stdout)), _without_wall(json.loads(ours))
    assert a["flows"] == b["flows"]
    assert a["summary"] == b["summary"]
    assert a["summary"]["packets"]["dropped"] > 0


def test_the_seed_changes_the_run_and_the_default_is_the_files(tmp_path: Path) -> None:
    path = _lossy(tmp_path)
    runs = {seed: json.loads(_sim("--summary", *seed, path).stdout)["flows"][0]["sent"]
            for seed in [(), ("--seed", "1"), ("--seed=2",)]}
    assert runs[()] == runs[("--seed", "1")]  # the file says seed = 1
    assert runs[("--seed=2",)] != runs[()]


def test_a_shipped_scenario_runs_by_its_path() -> None:
    proc = _sim(scenario_path("clrp_one_link"))
    assert proc.returncode == 0, proc.stderr
    assert {"flows", "summary", "drops"} <= set(json.loads(proc.stdout))


def _refused(proc: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert proc.returncode == 2
    assert proc.stdout == ""
    (first,) = proc.stderr.splitlines()  # one line
    assert first.startswith("error: "), proc.stderr
    for part in parts:
        assert part in first, proc.stderr
    assert "panicked" not in proc.stderr and "RUST_BACKTRACE" not in proc.stderr


def test_bad_input_is_one_line_in_the_users_terms(tmp_path: Path) -> None:
    _refused(_sim(tmp_path / "none.toml"), "none.toml: no such scenario file")
    _refused(_sim(tmp_path), "is a directory, not a scenario file")
    _refused(_sim("--fast", tmp_path / "x.toml"), "no such option: --fast")
    _refused(_sim(), "no scenario file given")
    good = scenario_path("clrp_one_link")
    _refused(_sim(good, "--seed", "many"), "--seed", '"many"')
    _refused(_sim(good, "--seed", "-5"), "run.seed", "got -5")
    _refused(_sim(good, "--seed=1e3"), "--seed", '"1e3"')
    _refused(_sim(good, "--seed", "9" * 23), "--seed", "9" * 23)
    (tmp_path / "bad.toml").write_text("[run]\nduration = -1\n")
    _refused(_sim(tmp_path / "bad.toml"), "run.duration", "got -1")
    (tmp_path / "broken.toml").write_text("[run\n")
    _refused(_sim(tmp_path / "broken.toml"), "broken.toml: not valid TOML", "(at line 1, column 5)")
    (tmp_path / "latin.toml").write_bytes(b"# caf\xe9\n")
    _refused(_sim(tmp_path / "latin.toml"), "latin.toml: not valid UTF-8 at byte 5")


def test_a_python_plug_in_is_refused_with_where_it_runs(tmp_path: Path) -> None:
    path = _lossy(tmp_path, 'flows.tcp1.tcp={ detector = { python = "mine:Spot" } }')
    proc = _sim(path)
    _refused(proc, "flows.tcp1.tcp.detector.python")
    assert "tcpair run" in proc.stderr


def test_help_and_version() -> None:
    help_ = _sim("--help")
    assert help_.returncode == 0 and "--seed N" in help_.stdout and "--summary" in help_.stdout
    version = _sim("-V")
    assert version.returncode == 0 and version.stdout.startswith("tcpair-sim ")


def test_the_installed_command_answers_as_this_checkouts(tmp_path: Path) -> None:
    """The ``tcpair-sim`` the quick start installs is this checkout's core (an older
    one left on PATH would time, in ``bench --vs-ns2``, code that is not this)."""
    installed = installed_core_command()
    path = _lossy(tmp_path)
    answers = [
        _without_wall(json.loads(subprocess.run([binary, "--summary", str(path)],
                                                capture_output=True, text=True,
                                                check=True).stdout))
        for binary in (installed, core_binary())
    ]
    assert answers[0] == answers[1], f"{installed} is not this checkout's: reinstall it"
