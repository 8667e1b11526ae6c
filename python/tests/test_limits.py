"""Numbers and values at and beyond their limits (docs/reliability.md), and
Ctrl-C reaching the core. Every case here once crashed, hung, wrapped or gave
a traceback; each must now be one error naming the field (exit 2 from the
CLI, nothing written) or correct behaviour."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from procs import ignores_sigint, start_as_in_a_terminal

pytest.importorskip("tcpair._core")

import tcpair
from tcpair.base.paths import scenario_path

CLRP = str(scenario_path("clrp_one_link"))


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("override", "field", "needle"),
    [
        ("links.wired.queue=4294967295", "links.wired.queue", "1000000"),
        ("links.wired.queue=2147483647", "links.wired.queue", "1000000"),
        ("flows.tcp1.tcp.initial_cwnd=1e9", "flows.tcp1.tcp.initial_cwnd", "1000000"),
        ("flows.tcp1.window=4294967295", "flows.tcp1.window", "1000000"),
        ("flows.tcp1.tcp.initial_rto=1e-10", "flows.tcp1.tcp.initial_rto", "1 ns"),
        ("output.interval=4e-10", "output.interval", "1 ns"),
        ("links.wired.delay=1e11", "links.wired.delay", "at most 1e9 s"),
        ("run.duration=nan", "run.duration", "finite"),
        ("links.wireless.forward.loss.p=inf", "links.wireless.forward.loss.p", "finite"),
        ("run.seed=9223372036854775808", "run.seed", "2^63 - 1"),
        ("run.seed=18446744073709551616", "run.seed", "2^63 - 1"),
        ("links.wired.queue=5000000000", "links.wired.queue", "from 0 to 1000000"),
        ("flows.tcp1.window=5000000000", "flows.tcp1.window", "from 1 to 1000000"),
        ("flows.tcp1.ack_size=5000000000", "flows.tcp1.ack_size", "at most 65534 bytes"),
        (
            'links.wireless.forward.loss={model="markov2_time", mean_good=1e8, mean_bad=1,'
            ' loss_good=0, loss_bad=1, sojourn="geometric", slot=1e-9}',
            "links.wireless.forward.loss.slot",
            "too short",
        ),
    ],
)
def test_cli_refuses_numbers_beyond_limits(
    cli, tmp_path: Path, override: str, field: str, needle: str
) -> None:
    for cmd in ("validate", "run"):
        out_dir = tmp_path / cmd
        extra = ["--out", str(out_dir)] if cmd == "run" else []
        code, _, err = cli(cmd, CLRP, "--set", override, *extra)
        line = _one_error_line(err)
        assert code == 2, (cmd, err)
        assert line.startswith(f"error: {field}:") and needle in line, line
        assert not out_dir.exists()


@pytest.mark.parametrize(
    ("override", "field", "key"),
    [
        ("a=nan", "a", "a"),
        ("run.bogus=nan", "run.bogus", "bogus"),
        ("run.bogus=[1, -inf]", "run.bogus", "bogus"),
        (
            'flows.tcp1.tcp.detector={name="veno", bogus=inf}',
            "flows.tcp1.tcp.detector.bogus",
            "bogus",
        ),
    ],
)
def test_an_unknown_key_is_unknown_whatever_its_value(
    cli, tmp_path: Path, override: str, field: str, key: str
) -> None:
    """A key the scenario does not have is told so, as with `--set a=1`, not that
    its value is not finite (that is for the keys it has: run.duration=nan)."""
    for cmd in ("validate", "run"):
        out_dir = tmp_path / cmd
        extra = ["--out", str(out_dir)] if cmd == "run" else []
        code, stdout, err = cli(cmd, CLRP, "--set", override, *extra)
        assert code == 2 and stdout == "" and not out_dir.exists()
        assert _one_error_line(err).startswith(f'error: {field}: unknown key "{key}" (known keys:')
    f = tmp_path / "bogus.toml"
    f.write_text("[run]\nduration = 1\nbogus = nan\n")
    code, _, err = cli("validate", str(f))
    assert code == 2 and _one_error_line(err).startswith('error: run.bogus: unknown key "bogus"')
    with pytest.raises(tcpair.ScenarioError, match=r'^run\.bogus: unknown key "bogus"'):
        tcpair.validate(CLRP, overrides={"run.bogus": float("inf")})
    with pytest.raises(tcpair.ScenarioError, match=r"^run\.duration: must be a finite number"):
        tcpair.validate(CLRP, overrides={"run.duration": float("inf"), "run.seed": 1})


def test_api_odd_types_name_the_argument() -> None:
    with pytest.raises(TypeError, match=r"^scenario: expected a TOML file path"):
        tcpair.run([])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^seed: expected a whole number"):
        tcpair.run(CLRP, seed="abc")  # type: ignore[arg-type]
    with pytest.raises(tcpair.ScenarioError, match=r"^run\.seed: .*2\^63 - 1"):
        tcpair.run(CLRP, seed=2**63)
    with pytest.raises(tcpair.ScenarioError, match=r"keys must be strings, got \('a', 'b'\)"):
        tcpair.run({("a", "b"): 1})  # type: ignore[dict-item]
    with pytest.raises(tcpair.ScenarioError, match=r"^run\.duration: must be a finite number"):
        tcpair.run(CLRP, overrides={"run.duration": float("nan")})
    with pytest.raises(TypeError, match=r"^overrides: expected"):
        tcpair.run(CLRP, overrides=5)  # type: ignore[arg-type]
    with pytest.raises(tcpair.ScenarioError, match=r"^run\.seed: .*2\^63 - 1"):
        tcpair.run(CLRP, seed=2**70)  # beyond 64 bits: the same range
    with pytest.raises(TypeError, match=r"^directory: expected a folder's path, got int"):
        tcpair.load_results(5)
    # Every path the API takes is checked so, before anything runs or is made.
    for call, word in (
        (lambda: tcpair.load(5), "directory"),
        (lambda: tcpair.run(CLRP, pcap=5), "pcap"),
        (lambda: tcpair.sweep("clrp_fig8", 5), "out"),
    ):
        with pytest.raises(TypeError, match=rf"^{word}: expected a folder's path, got int"):
            call()
    with pytest.raises(TypeError, match=r"^trace: expected True, False or a file's path"):
        tcpair.run(CLRP, trace=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^sweep: expected a sweep file's path, a shipped"):
        tcpair.sweep(5)  # type: ignore[arg-type]
    for kw in ("jobs", "dask_local"):
        with pytest.raises(TypeError, match=rf"^{kw}: expected a whole number >= 1, got 'a'"):
            tcpair.sweep("clrp_fig8", "unused", **{kw: "a"})
        with pytest.raises(tcpair.ScenarioError, match=rf"^{kw}: must be >= 1, got 0"):
            tcpair.sweep("clrp_fig8", "unused", **{kw: 0})


@pytest.mark.parametrize("depth", [300, 1200])
def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    deep: list = []
    for _ in range(depth):
        deep = [deep]
    with pytest.raises(tcpair.ScenarioError, match=r"^flows\[0\].*nested more than 64"):
        tcpair.validate({"run": {"duration": 1}, "flows": deep})
    f = tmp_path / "deep.toml"
    f.write_text("[run]\nduration = 1\n[[flows]]\nx = " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(tcpair.ScenarioError, match=r"nested"):
        tcpair.validate(f)


DEEP = "error: --set flows: lists and tables are nested more than 64 levels deep"


@pytest.mark.parametrize("limit", [None, 100_000])
@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("value", ["[" * 1200 + "]" * 1200, "{a=" * 1200 + "1" + "}" * 1200])
def test_deep_set_value_is_one_error_line(
    cli, tmp_path: Path, command: str, value: str, limit: int | None
) -> None:
    """The same line whatever the interpreter's recursion limit (a library may raise it):
    the depth is bounded before the TOML reader, which recurses, sees the value."""
    out = tmp_path / "out"
    where = ["--out", str(out)] if command == "run" else []
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(limit or before)
    try:
        code, stdout, err = cli(command, CLRP, "--set", f"flows={value}", *where)
    finally:
        sys.setrecursionlimit(before)
    assert code == 2 and stdout == "" and not out.exists()
    assert _one_error_line(err) == DEEP


def test_set_value_nesting_counts_brackets_outside_strings() -> None:
    from tcpair.simulate.scenario import _nesting

    assert _nesting("[1, [2, {a = [3]}]]") == 4
    assert _nesting('"[[[[" ') == 0 and _nesting("'{{{'") == 0
    assert _nesting('[{b = "]\\"}]') == 2  # an escaped quote does not end the string


def test_non_utf8_file_names_the_byte(cli, tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_bytes(b'[run]\nduration = "2\xff"\n')
    with pytest.raises(tcpair.ScenarioError, match=r"bad\.toml: not valid UTF-8 at byte 19$"):
        tcpair.validate(f)
    code, _, err = cli("validate", str(f))
    assert code == 2 and "not valid UTF-8 at byte 19" in _one_error_line(err)


def test_table_cap_names_the_option() -> None:
    msg = r"^output\.max_rows: .*raise output\.max_rows"
    with pytest.raises(tcpair.SimulationError, match=msg):
        tcpair.run(
            CLRP,
            overrides={
                "run.duration": 200,
                "output.max_rows": 50,
                "links.wireless.forward.loss": {"model": "uniform", "p": 0.1},
            },
        )


def test_a_memory_budget_bounds_a_long_run(cli, tmp_path: Path) -> None:
    """A 1e6 s run with 20% loss would keep a million rows per table; with
    ``run.memory_budget`` it stops early, naming the budget, and the process
    never grew much past it. (`tcpair run` without `--out` keeps no rows: it
    needs no budget.)"""
    budget = ["run.memory_budget=48MiB", "links.wireless.forward.loss.p=0.2"]
    code = f"""
        import resource, tcpair
        tcpair.run({CLRP!r}, overrides={{"run.duration": 1}})  # imports what a run needs
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
        try:
            tcpair.run({CLRP!r}, overrides={LONG_RUN + budget!r})
        except tcpair.SimulationError as exc:
            print(exc)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.splitlines()
    before, msg, peak = int(out[0]), out[1], int(out[2])
    assert msg.startswith("run.memory_budget: the run held about "), out
    assert "48.0 MiB" in msg and "raise run.memory_budget" in msg, out
    # Beyond the interpreter and its imports: the budget and a margin.
    assert peak - before < 48 + 40, out
    sets = [a for kv in LONG_RUN + budget for a in ("--set", kv)]
    code_, stdout, err = cli("run", CLRP, *sets, "--out", str(tmp_path / "r"))
    assert code_ == 2 and stdout == "" and not (tmp_path / "r").exists()
    assert _one_error_line(err).startswith("error: run.memory_budget:")


LONG_RUN = ["run.duration=1e6"]


def _start(code: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return start_as_in_a_terminal(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _interrupt_after_start(proc: subprocess.Popen[str]) -> tuple[float, str, str]:
    """Wait for the child to say it is running, wait a bit, SIGINT it; seconds to exit."""
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "started"
        time.sleep(1.0)
        assert proc.poll() is None, "the long run ended by itself"
        assert not ignores_sigint(proc.pid), "the child ignores SIGINT"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:  # a child left running would run its 1e6 s on
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return time.monotonic() - t0, out, err


def test_ctrl_c_stops_a_long_run_from_python() -> None:
    proc = _start(
        f"""
        import tcpair
        print("started", flush=True)
        try:
            tcpair.run({CLRP!r}, overrides={LONG_RUN!r})
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        """
    )
    waited, out, err = _interrupt_after_start(proc)
    assert "KeyboardInterrupt" in out, (out, err)
    assert waited < 1.0, f"took {waited:.2f} s to stop"


def test_ctrl_c_stops_a_long_run_from_the_cli(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    proc = _start(
        f"""
        import sys
        from tcpair.cli.main import main
        print("started", flush=True)
        main(["run", {CLRP!r}, "--set", "run.duration=1e6", "--out", {str(out_dir)!r}])
        """
    )
    waited, _, err = _interrupt_after_start(proc)
    assert proc.returncode == 130, err
    assert _one_error_line(err) in ("error: interrupted", "error: aborted")
    assert waited < 1.0, f"took {waited:.2f} s to stop"
    assert not out_dir.exists()


def test_sweeps_with_huge_seeds_and_values_do_not_die(tmp_path: Path) -> None:
    from tcpair.sweeper.runner import run_sweep

    sweep = {
        "name": "huge",
        "scenario": CLRP,
        "seeds": [1, 2**63],
        "set": {"run.duration": 2},
        "axis": [{"name": "q", "param": "links.wired.queue", "values": [10]}],
    }
    with pytest.raises(tcpair.ScenarioError, match=r"seeds\[1\]: .*2\^63 - 1"):
        run_sweep(sweep, tmp_path / "a", jobs=1, progress=False)
    with pytest.raises(tcpair.ScenarioError, match=r"seeds: must be at most 1000000"):
        run_sweep({**sweep, "seeds": 10**12}, tmp_path / "b", jobs=1, progress=False)
    sweep["seeds"] = [1]
    sweep["axis"][0]["values"] = [10, 2**64 - 1, 2**32 - 1]  # type: ignore[index]
    run_sweep(sweep, tmp_path / "c", jobs=1, progress=False)
    df = tcpair.load_results(tmp_path / "c")
    df = df.set_index(df["q"].astype(str))  # 2^64 - 1 does not fit Parquet's int64: text
    assert df.loc["10", "status"] == "ok"
    assert (df.drop(index="10")["status"] == "failed").all()
    assert df["error"].dropna().str.startswith("links.wired.queue: ").all()
