"""The ns-2.35 harness: the scripts run, map onto the same tcpair scenario, and the
commands skip cleanly without ns-2 (docs/validation.md)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from needs import core_binary, ns2

import tcpair
from tcpair.base.tomlout import dumps
from tcpair.cli.main import main
from tcpair.ns2 import (
    Point,
    crosscheck,
    crosscheck_markdown,
    one_link_overrides,
    parse_output,
    run_ns2,
    tcpair_point,
)
from tcpair.ns2.speed import Case, CoreBinaryFailed, bench_vs_ns2, dumbbell_scenario


def test_parse_output_reads_the_last_line() -> None:
    out = "warning: something\nsegments 10 goodput_kbps 1.5 retransmits 2 timeouts 0\n"
    assert parse_output(out) == {
        "segments": 10.0,
        "goodput_kbps": 1.5,
        "retransmits": 2.0,
        "timeouts": 0.0,
    }
    with pytest.raises(RuntimeError):
        parse_output("")
    with pytest.raises(RuntimeError):
        parse_output("segments 10 goodput_kbps")


def test_limited_transmit_matches_the_ns2_default_mapping() -> None:
    """ns-2.35's singledup_ 1 (its default) is tcpair's tcp.limited_transmit = true."""
    ns2()
    on = run_ns2("one_link.tcl", ("newreno", 0.05, 30, 50, 60.0, 1, 1))
    off = run_ns2("one_link.tcl", ("newreno", 0.05, 30, 50, 60.0, 1, 0))
    assert on != off


def test_tolerance_is_five_percent_up_to_p_5_percent() -> None:
    assert Point("reno", 0.05, 30).tolerance() == 0.05
    assert Point("reno", 0.06, 30).tolerance() == 0.10


def test_tcpair_side_is_the_shipped_scenario_with_the_point_values() -> None:
    pt = Point("newreno", 0.02, 8, limited_transmit=False, queue=19)
    ours = tcpair_point(pt, 20.0, 3)
    direct = tcpair.run("clrp_one_link", overrides=one_link_overrides(pt, 20.0), seed=3)
    flow = direct.flows.iloc[0]
    assert ours["goodput_kbps"] == flow["goodput_kbps"]
    assert direct.scenario["links"][0]["queue"] == 19
    assert direct.scenario["links"][1]["queue"] == 19
    assert direct.scenario["flows"][0]["tcp"]["limited_transmit"] is False


def test_dumbbell_scenario_is_valid() -> None:
    tcpair.validate(dumbbell_scenario(3, 10.0, 20, 5.0))
    r = tcpair.run(dumbbell_scenario(3, 10.0, 20, 5.0))
    assert len(r.flows) == 3
    assert (r.flows["goodput_kbps"] > 0).all()


def test_commands_skip_without_ns2(monkeypatch, capsys) -> None:
    monkeypatch.setenv("TCPAIR_NS", "/nonexistent/ns")
    for argv in (["ns2-check", "--seeds", "2"], ["bench", "--vs-ns2", "--pairs", "1"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
        assert "skipped: ns-2 not found" in capsys.readouterr().err


def test_ns2_script_uses_its_seed_and_reports_losses() -> None:
    ns2()
    a = run_ns2("one_link.tcl", ("reno", 0.02, 30, 50, 20.0, 1, 1))
    b = run_ns2("one_link.tcl", ("reno", 0.02, 30, 50, 20.0, 2, 1))
    assert a["segments"] > 0 and a["retransmits"] > 0
    assert a != b
    clean = run_ns2("one_link.tcl", ("newreno", 0.0, 30, 50, 20.0, 1, 1))
    assert clean["retransmits"] == 0 and clean["timeouts"] == 0


def test_lossless_path_agrees_within_one_window() -> None:
    """Without loss both simulators are deterministic and the wireless link is the
    bottleneck: the same bytes on the wire give the same goodput, within one
    window (ns-2's 40-byte header is inside tcpair's packet_size: the script sets
    packetSize_ 960)."""
    ns2()
    theirs = run_ns2("one_link.tcl", ("reno", 0.0, 8, 50, 20.0, 1, 0))
    ours = tcpair_point(Point("reno", 0.0, 8, False), 20.0, 1)
    per_segment_kbps = 1000 * 8 / 20.0 / 1000
    assert abs(ours["goodput_kbps"] - theirs["goodput_kbps"]) <= 8 * per_segment_kbps


def test_crosscheck_rows_and_markdown() -> None:
    ns2()
    df = crosscheck([Point("reno", 0.01, 30)], seeds=3, duration=20.0, jobs=2)
    row = df.iloc[0]
    assert row["seeds"] == 3
    assert row["goodput_kbps_ns2"] > 0 and row["goodput_kbps_tcpair"] > 0
    assert row["ratio_low"] <= row["ratio"] <= row["ratio_high"]
    assert row["outcome"] in {"agree", "differ", "undecided"}
    md = crosscheck_markdown(df)
    assert md.count("\n") == 3 and "| reno | on | 30 | 0.01 |" in md


def test_bench_vs_ns2_pairs_processes() -> None:
    ns2()
    (row,) = bench_vs_ns2(pairs=2, cases=[_tiny_case()])
    assert row["pairs"] == 2
    assert row["tcpair_s"] > row["tcpair_core_s"] > 0
    assert row["tcpair_s"] > row["python_start_s"] > 0
    assert row["ns2_s"] > 0
    assert row["ratio_min"] <= row["ratio_median"] <= row["ratio_max"]
    assert math.isfinite(row["ratio_median"])
    assert isinstance(row["bytecode_cached"], bool)
    assert "core_alone_s" not in row


def _tiny_case() -> Case:
    return Case(
        "tiny", "dumbbell, 2 flows, 5 s", lambda: dumbbell_scenario(2, 10.0, 20, 5.0),
        "dumbbell.tcl", (2, 10, 20, 5.0, 1),
    )


def test_the_core_alone_answers_as_tcpair_run(tmp_path: Path) -> None:
    """`tcpair-sim --summary` does the work of `tcpair run --json` and gives the
    same summary and flows (the bench's third process is a fair one)."""
    binary = core_binary()
    scenario = dumbbell_scenario(3, 10.0, 20, 5.0)
    scenario["links"][0]["forward"] = {"loss": {"model": "uniform", "p": 0.02}}
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    (tmp_path / "s.toml").write_text(dumps(scenario))
    alone = json.loads(subprocess.run([binary, "--summary", str(tmp_path / "s.json")],
                                      capture_output=True, text=True, check=True).stdout)
    ours = json.loads(subprocess.run(
        [sys.executable, "-m", "tcpair", "run", str(tmp_path / "s.toml"), "--json"],
        capture_output=True, text=True, check=True).stdout)
    for answer in (alone, ours):
        answer["summary"].pop("wall_s")
    assert alone["summary"]["packets"]["dropped"] > 0
    assert alone["summary"] == ours["summary"]
    assert alone["flows"] == ours["flows"]


def test_bench_vs_ns2_times_the_core_alone() -> None:
    ns2()
    (row,) = bench_vs_ns2(pairs=2, cases=[_tiny_case()], core_binary=core_binary())
    assert row["core_alone_s"] > 0
    assert row["core_ratio_min"] <= row["core_ratio_median"] <= row["core_ratio_max"]
    assert math.isfinite(row["core_ratio_median"])


def test_bench_vs_ns2_names_a_core_binary_that_does_not_run(tmp_path: Path) -> None:
    ns2()
    fake = tmp_path / "not-the-core"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    with pytest.raises(CoreBinaryFailed, match="did not run case tiny"):
        bench_vs_ns2(pairs=1, cases=[_tiny_case()], core_binary=fake)


def test_bench_core_binary_errors_name_the_option(capsys, tmp_path: Path) -> None:
    for argv, code in (
        (["bench", "--core-binary", str(tmp_path / "missing")], 2),
        (["bench", "--core-binary", sys.executable], 2),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == code
        err = capsys.readouterr().err
        assert "--core-binary" in err and "Traceback" not in err


def test_bench_vs_ns2_times_the_tcpair_sim_on_path_or_says_how_to_install_it(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --core-binary, `bench --vs-ns2` runs the `tcpair-sim` on PATH; with
    none there, it says how to install one and times `tcpair run` alone."""
    import tcpair.ns2
    import tcpair.ns2.speed

    asked: list[object] = []

    def fake_bench(pairs, progress=None, core_binary=None):  # type: ignore[no-untyped-def]
        asked.append(core_binary)
        return []

    monkeypatch.setattr(tcpair.ns2, "ns_binary", lambda: "/usr/bin/ns")
    monkeypatch.setattr(tcpair.ns2.speed, "bench_vs_ns2", fake_bench)
    sim = tmp_path / "tcpair-sim"
    sim.write_text("#!/bin/sh\n")
    sim.chmod(0o755)
    for path in (tmp_path, tmp_path / "nothing-here"):
        monkeypatch.setenv("PATH", str(path))
        with pytest.raises(SystemExit) as exc:
            main(["bench", "--vs-ns2", "--pairs", "1", "--json"])
        assert exc.value.code == 0
    assert asked == [str(sim), None]
    err = capsys.readouterr().err
    assert "no tcpair-sim on PATH" in err and "cargo install --locked" in err


def test_bytecode_cached_follows_the_cache_of_the_run_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bench's note on compiled modules reads the cache of `tcpair.cli.main`, where
    an import would find it."""
    import importlib.util

    from tcpair.ns2.speed import bytecode_cached

    cached = tmp_path / "cli.cpython.pyc"
    monkeypatch.setattr(importlib.util, "cache_from_source", lambda src: str(cached))
    assert not bytecode_cached()
    cached.write_bytes(b"")
    assert bytecode_cached()


def test_snoop_lan_matches_the_plain_link_without_loss_and_snoop_helps() -> None:
    """snoop_lan.tcl's LAN carries what one_link.tcl's link does (the MAC header
    is compensated), and its LL/LLSnoop repairs most wireless losses locally."""
    ns2()
    link = run_ns2("one_link.tcl", ("reno", 0.0, 30, 50, 20.0, 1, 1))
    lan = run_ns2("snoop_lan.tcl", ("reno", 0.0, 30, 50, 20.0, 1, 1, 0))
    assert abs(lan["segments"] - link["segments"]) <= 0.002 * link["segments"]
    plain = run_ns2("snoop_lan.tcl", ("reno", 0.05, 30, 50, 30.0, 1, 1, 0))
    snoop = run_ns2("snoop_lan.tcl", ("reno", 0.05, 30, 50, 30.0, 1, 1, 1))
    assert snoop["goodput_kbps"] > 1.5 * plain["goodput_kbps"]
    assert snoop["timeouts"] < plain["timeouts"]


def test_snoop_points_run_snoop_ns2_on_the_tcpair_side() -> None:
    ns2()
    pt = Point("reno", 0.05, 30, True, bs="snoop_ns2")
    assert one_link_overrides(pt, 10.0)["nodes.bs.bs"] == ["snoop_ns2"]
    df = crosscheck([pt], seeds=2, duration=20.0, jobs=2)
    assert df.iloc[0]["bs"] == "snoop_ns2"
    assert "| reno + snoop_ns2 | on | 30 | 0.05 |" in crosscheck_markdown(df)
    with pytest.raises(tcpair.ScenarioError):
        crosscheck([Point("reno", 0.05, 30, bs="clrp")], seeds=2, duration=5.0)


def _wireless_seqs_ns2(trace: str) -> list[int]:
    """Sequence numbers of the data segments the BS puts on the LAN, in order
    (ns-2's trace: `-` events from the BS, node 1, to the LAN, node 3)."""
    out = []
    with open(trace) as fh:
        lines = fh.read().splitlines()
    for line in lines:
        f = line.split()
        if f[0] == "-" and f[2:5] == ["1", "3", "tcp"] and f[5] != "40":
            out.append(int(f[10]))
    return out


def test_same_losses_same_packets_on_the_wireless_hop(tmp_path) -> None:
    """Fed the same drop list (tcpair's `list` model, ns-2's ErrorModel/List), ns-2's
    Snoop and `snoop_ns2` put the same segments on the wireless hop in the same
    order, local retransmissions included, until the senders' timers part (the first
    40 here). Before the LAN's receiving Macs were given tcpair's transmission times,
    ns-2's MH acknowledged each segment at its first bit and the two parted at the
    first local retransmission (the 11th packet)."""
    ns2()
    import numpy as np

    rng = np.random.default_rng(7)
    lost = [int(i) for i in np.nonzero(rng.random(2000) < 0.2)[0] if i > 0]
    drop = tmp_path / "drop.txt"
    drop.write_text(" ".join(map(str, lost)))
    trace = tmp_path / "ns2.tr"
    run_ns2("snoop_lan.tcl", ("reno", f"list:{drop}", 30, 50, 2.0, 1, 1, 1, trace))
    theirs = [s - 1 for s in _wireless_seqs_ns2(str(trace))]  # ns-2's SYN is seq 0
    pt = Point("reno", 0.0, 30, True, bs="snoop_ns2")
    over = one_link_overrides(pt, 2.0)
    over["links.wireless.forward.loss"] = {"model": "list", "drop": [i - 1 for i in lost]}
    r = tcpair.run("clrp_one_link", overrides=over, seed=1, trace=str(tmp_path / "t.parquet"))
    t = r.trace
    w = t[(t.kind == "transmit") & (t.link == "wireless") & (t.packet == "data")]
    ours = [int(s) for s in w.seq]
    assert ours[:40] == theirs[:40]
    assert len(set(ours[:40])) < 40  # local retransmissions are among them


def test_two_links_points_run_both_paths() -> None:
    """The MH -> MH path: the agent at both base stations and loss on both hops in
    tcpair, two_links.tcl (two LANs, LL/LLSnoop at both BSs) in ns-2."""
    from tcpair.ns2 import TWO_LINK_POINTS, two_links_overrides
    from tcpair.simulate.result import prepare

    pt = Point("reno", 0.05, 30, True, bs="snoop_ns2", path="two_links")
    sc = prepare("clrp_two_links", overrides=two_links_overrides(pt, 10.0), seed=1)
    assert [n.get("bs") for n in sc["nodes"] if n["name"] in ("bs1", "bs2")] == [
        ["snoop_ns2"],
        ["snoop_ns2"],
    ]
    assert {pt.path for pt in TWO_LINK_POINTS} == {"two_links"}
    ns2()
    df = crosscheck([pt, Point("reno", 0.05, 30, True, path="two_links")], seeds=2, duration=30.0)
    snoop, plain = df.iloc[0], df.iloc[1]
    # ns-2's own Snoop repairs most losses on both sides of the comparison
    assert snoop["goodput_kbps_ns2"] > plain["goodput_kbps_ns2"]
    assert snoop["goodput_kbps_tcpair"] > plain["goodput_kbps_tcpair"]
    assert "(MH -> MH)" in crosscheck_markdown(df)


def test_crosscheck_checks_where_the_csv_goes_before_the_runs(tmp_path, capsys) -> None:
    ns2()
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exc:
        main(["ns2-check", "--seeds", "2", "--csv", str(blocker / "table.csv")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--csv" in err and str(blocker) in err
    assert "ns-2 runs" not in err  # no run started
