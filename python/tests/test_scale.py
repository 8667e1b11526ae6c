"""The many-flows scenario generator and its benchmark (docs/performance.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tcpair
from tcpair.bench import scale
from tcpair.bench.scale import SCHEMES, bench_one, flows_scenario
from tcpair.cli.main import main


def _delay(sc: dict, name: str) -> float:
    link = next(lk for lk in sc["links"] if lk["name"] == name)
    return float(link["delay"])


def test_every_scheme_is_a_valid_scenario_with_its_agents() -> None:
    for scheme in SCHEMES:
        sc = flows_scenario(4, scheme, duration=2.0)
        tcpair.validate(sc)
        agents = sc["nodes"][0]["bs"]
        assert agents == ([] if scheme == "reno" else [scheme])
        assert len(sc["flows"]) == 4


def test_round_trips_spread_from_20_to_200_ms() -> None:
    sc = flows_scenario(10)
    assert 2 * _delay(sc, "w0") == pytest.approx(0.020)
    assert 2 * _delay(sc, "w9") == pytest.approx(0.200)
    delays = [_delay(sc, f"w{i}") for i in range(10)]
    assert delays == sorted(delays)


def test_a_base_station_scheme_changes_the_run() -> None:
    plain = tcpair.run(flows_scenario(3, "reno", duration=5.0))
    snoop = tcpair.run(flows_scenario(3, "snoop", duration=5.0))
    assert plain.flows["bs_retransmits"].sum() == 0
    assert snoop.flows["bs_retransmits"].sum() > 0


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(tcpair.ScenarioError, match="flows"):
        flows_scenario(0)
    with pytest.raises(tcpair.ScenarioError, match="scheme"):
        flows_scenario(2, "tahoe")


def test_without_tables_the_flows_are_the_same() -> None:
    full = tcpair.run(flows_scenario(3, "reno", duration=10.0))
    lean = tcpair.run(flows_scenario(3, "reno", duration=10.0, tables=False))
    assert len(full.drops) > 0 and len(full.recoveries) > 0
    assert len(lean.drops) == 0 and len(lean.recoveries) == 0
    assert lean.flows.equals(full.flows)


def test_bench_one_reports_a_run_in_its_own_process() -> None:
    r = bench_one(5, "snoop", 2.0)
    assert r["flows"] == 5 and r["scheme"] == "snoop"
    assert r["delivered"] > 0 and r["events"] > r["delivered"]
    assert r["wall_s"] >= r["loop_s"] > 0
    assert r["peak_rss_mib"] > 0
    if sys.platform == "linux":  # what the run added to its caller's process, per flow
        assert 0 < r["rss_before_mib"] < r["peak_rss_mib"]
        assert r["run_kib_per_flow"] == (r["peak_rss_mib"] - r["rss_before_mib"]) * 1024 / 5
        # Less the answer the caller keeps (its Python objects: a few KiB a flow here).
        assert 0 < r["kept_mib"] < r["peak_rss_mib"] - r["rss_before_mib"]
        assert r["beyond_kept_kib_per_flow"] == pytest.approx(
            r["run_kib_per_flow"] - r["kept_mib"] * 1024 / 5)


def test_kept_counts_each_object_of_an_answer_once() -> None:
    import sys

    from tcpair.bench.memory import kept_mib

    floats = [float(i) + 0.5 for i in range(1000)]
    names = [f"flow-{i}" for i in range(10)]
    answer = {"a": floats, "b": floats, "names": names}
    expect = (sys.getsizeof(answer) + sum(map(sys.getsizeof, ["a", "b", "names"]))
              + sys.getsizeof(floats) + sum(map(sys.getsizeof, floats))
              + sys.getsizeof(names) + sum(map(sys.getsizeof, names)))
    assert kept_mib(answer) * 1024 * 1024 == expect  # `floats` counted once, not twice
    assert kept_mib({"x": (floats,)}) > kept_mib({"x": floats[:10]})


def test_cli_rejects_bad_counts_and_schemes(capsys) -> None:
    for argv, word in (
        (["bench", "--flows", "0"], "--flows"),
        (["bench", "--flows", "a,b"], "--flows"),
        (["bench", "--flows", "2", "--schemes", "foo"], "--schemes"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert word in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--flows", "2", "--duration", "nan"],
        ["bench", "--flows", "2", "--duration", "inf"],
        ["bench", "--flows", "2", "--duration", "1", "--within", "nan"],
        ["bench", "--duration", "nan"],
        ["reproduce", "snoop_fig3", "--until-ci", "nan"],
    ],
)
def test_cli_rejects_numbers_that_are_not_finite(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "is not a finite number" in err and "Traceback" not in err


def test_bench_one_checks_the_scenario_before_its_process() -> None:
    with pytest.raises(tcpair.ScenarioError, match=r"run\.duration: must be at most 1e9"):
        bench_one(2, "reno", 1e12)


_ABORTING_CHILD = (
    "import os, sys; sys.stderr.write('memory allocation of 8 bytes failed\\n'); os.abort()"
)


def test_a_run_process_that_fails_is_a_clean_error(monkeypatch, capsys) -> None:
    monkeypatch.setattr(scale, "_CHILD", _ABORTING_CHILD)
    aborted = r"2 reno flows: .* SIGABRT: memory allocation"
    with pytest.raises(tcpair.SimulationError, match=aborted):
        bench_one(2, "reno", 1.0)
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--schemes", "reno", "--duration", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: 2 reno flows: the run's process was ended by SIGABRT" in err
    assert "Traceback" not in err
    monkeypatch.setattr(scale, "_CHILD", "import sys; print('x', file=sys.stderr); sys.exit(3)")
    with pytest.raises(tcpair.SimulationError, match=r"2 reno flows: x$"):
        bench_one(2, "reno", 1.0)


def test_cli_checks_where_it_saves_before_the_runs(tmp_path, capsys) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--duration", "1", "--save", str(blocker / "rows.json")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--save" in err and str(blocker) in err
    assert "flows ..." not in err  # no run started


def test_cli_checks_every_input_before_the_first_run(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--schemes", "reno,snoop", "--duration", "1e300"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: run.duration: must be at most 1e9 s" in err
    assert "flows ..." not in err  # no run started, none announced


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux's /proc")
def test_cli_checks_that_the_saved_file_can_be_written_before_the_runs(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--duration", "1", "--save", "/proc/rows.json"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--save" in err and "/proc/rows.json: cannot be written" in err
    assert "flows ..." not in err


def test_cli_prints_the_table(capsys) -> None:
    import json

    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "1,2", "--schemes", "reno", "--duration", "1", "--json"])
    assert exc.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["flows"] for r in rows] == [1, 2]


def test_bursty_loss_is_markov2_at_the_same_mean_rate() -> None:
    from tcpair.reproduce.studies.compare_all import mean_loss

    sc = flows_scenario(3, "snoop", loss=0.02, loss_model="bursty")
    tcpair.validate(sc)
    wireless = [lk for lk in sc["links"] if lk["kind"] == "wireless"]
    assert len(wireless) == 3
    loss = wireless[0]["forward"]["loss"]
    assert loss["model"] == "markov2"
    assert mean_loss(loss, 1000) == pytest.approx(0.02)
    assert flows_scenario(3)["links"][1]["forward"]["loss"] == {"model": "uniform", "p": 0.01}
    with pytest.raises(tcpair.ScenarioError, match="loss_model"):
        flows_scenario(2, loss_model="gilbert")
    with pytest.raises(tcpair.ScenarioError, match="loss"):
        flows_scenario(2, loss=0.5, loss_model="bursty")


def test_bs_state_summary_per_connection_and_total() -> None:
    from tcpair.bench.scale import STATE_KEYS, bs_state_summary

    table = {
        "flow": ["f0", "f1", "total"],
        "pkts_peak": [3, 5, 7],
        "pkts_mean": [1.0, 2.0, 3.0],
        "bytes_peak": [3000, 5000, 7000],
        "bytes_mean": [1000.0, 2000.0, 3000.0],
    }
    s = bs_state_summary(table)
    assert s["bs_pkts_peak"] == 7 and s["bs_pkts_mean"] == 3.0
    assert s["conn_pkts_peak"] == 5 and s["conn_pkts_mean"] == 1.5
    assert s["bs_bytes_peak"] == 7000 and s["conn_bytes_mean"] == 1500.0
    assert bs_state_summary({}) == dict.fromkeys(STATE_KEYS)


def test_bench_reports_the_base_stations_state(capsys) -> None:
    import json

    argv = ["bench", "--flows", "3", "--schemes", "reno,snoop_ns2,syndrome", "--duration", "2",
            "--loss-model", "bursty", "--json"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    rows = {r["scheme"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["reno"]["bs_pkts_peak"] is None
    assert rows["snoop_ns2"]["bs_pkts_peak"] > 0 and rows["snoop_ns2"]["conn_bytes_peak"] > 0
    assert rows["snoop_ns2"]["bs_pkts_peak"] <= 3 * rows["snoop_ns2"]["conn_pkts_peak"]
    assert rows["syndrome"]["loss_model"] == "bursty"
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--loss-model", "gilbert"])
    assert exc.value.code == 2


def test_saved_rows_become_the_compare_all_reports_scale_table(tmp_path, capsys) -> None:
    from tcpair.reproduce.studies.compare_all import scale_tables

    saved = tmp_path / "compare_all" / "scale.json"
    assert scale_tables(saved) == []
    argv = ["bench", "--flows", "2", "--schemes", "reno,clrp", "--duration", "1",
            "--save", str(saved)]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "clrp" in capsys.readouterr().out
    [(title, table)] = scale_tables(saved)
    assert "at scale" in title
    assert list(table["scheme"]) == ["reno", "clrp"]
    assert table.loc[0, "BS packets peak / mean"] == "- / -"
    assert table.loc[1, "BS packets peak / mean"] != "- / -"


def _pass(wall: float, **kw: object) -> dict:
    from tcpair.bench.scale import STATE_KEYS

    return {"flows": 4, "scheme": "snoop", "wall_s": wall, "loop_s": wall - 0.5,
            "events": 1000, "delivered": 250, "peak_rss_mib": 100.0 + wall,
            **dict.fromkeys(STATE_KEYS, 1.0), **kw}


def test_passes_merge_into_the_median_pass_with_the_spread() -> None:
    from tcpair.bench.scale import merge_passes

    r = merge_passes([_pass(52.0), _pass(61.5), _pass(50.8)], within_s=60.0)
    assert r["wall_s"] == 52.0 and r["loop_s"] == 51.5  # the median pass, whole
    assert r["wall_s_passes"] == [52.0, 61.5, 50.8]  # in the order run
    assert (r["wall_s_min"], r["wall_s_max"]) == (50.8, 61.5)
    assert r["passes"] == 3 and r["passes_within"] == 2
    assert r["peak_rss_mib"] == 161.5  # the largest of any pass
    kib = merge_passes([_pass(2.0, run_kib_per_flow=19.5), _pass(1.0, run_kib_per_flow=20.5)])
    assert kib["run_kib_per_flow"] == 20.5  # likewise
    assert kib["beyond_kept_kib_per_flow"] is None  # unknown in a pass: unknown
    beyond = merge_passes([_pass(2.0, run_kib_per_flow=19.5, beyond_kept_kib_per_flow=9.0),
                           _pass(1.0, run_kib_per_flow=20.5, beyond_kept_kib_per_flow=8.0)])
    assert beyond["beyond_kept_kib_per_flow"] == 9.0  # the largest of any pass
    # An even count: the lower of the two middle passes.
    assert merge_passes([_pass(3.0), _pass(1.0), _pass(4.0), _pass(2.0)])["wall_s"] == 2.0
    assert "passes_within" not in merge_passes([_pass(1.0)])


def test_passes_that_simulate_differently_are_a_determinism_bug() -> None:
    from tcpair.bench.scale import merge_passes

    with pytest.raises(RuntimeError, match=r"events .* not deterministic"):
        merge_passes([_pass(1.0), _pass(1.0, events=1001)])


def test_cli_runs_passes_and_counts_those_within_the_limit(capsys) -> None:
    import json

    argv = ["bench", "--flows", "2", "--schemes", "reno,syndrome", "--duration", "1",
            "--repeat", "2", "--within", "600", "--json"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["scheme"] for r in rows] == ["reno", "syndrome"]
    for r in rows:
        assert r["passes"] == 2 and len(r["wall_s_passes"]) == 2
        assert r["wall_s_min"] <= r["wall_s"] <= r["wall_s_max"]
        assert r["passes_within"] == 2 and r["setup_s"] > 0
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--within", "60"])
    assert exc.value.code == 2
    assert "--within" in capsys.readouterr().err


def test_the_report_table_shows_the_passes_spread() -> None:
    from tcpair.bench.scale import merge_passes, scale_table

    one = dict(_pass(2.0), duration_s=60.0, us_per_delivered=0.4)
    three = dict(merge_passes([_pass(3.0), _pass(1.0), _pass(2.0)]), duration_s=60.0,
                 us_per_delivered=0.4)
    assert "passes" not in scale_table([one]).columns
    table = scale_table([one, three])
    assert list(table["passes"]) == [1, 3]
    assert list(table["wall s fastest / slowest"]) == ["2.00 / 2.00", "1.00 / 3.00"]


def test_the_core_program_runs_the_same_flows_and_reports_its_own_peak() -> None:
    from needs import core_binary

    (row,) = scale.bench_flows([3], ["snoop"], duration=1.0, tables=False,
                               core_binary=core_binary())
    assert row["core_wall_s"] > 0
    # Its own peak (VmHWM), not the forking Python process's: far below it.
    assert 0 < row["core_peak_rss_mib"] < row["peak_rss_mib"]


def test_a_core_program_that_answers_otherwise_is_a_clean_error(tmp_path: Path, capsys) -> None:
    fake = tmp_path / "other-core"
    fake.write_text('#!/bin/sh\necho \'{"summary": {"events": 1, "delivered_data_packets": 1}}\'\n'
                    "echo peak_rss_kib=100 >&2\n")
    fake.chmod(0o755)
    with pytest.raises(scale.CoreBinaryFailed, match="counts 1 events and 1 delivered"):
        scale.bench_flows([2], ["reno"], duration=0.5, core_binary=fake)
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "2", "--schemes", "reno", "--duration", "0.5",
              "--core-binary", str(fake)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--core-binary" in err and "did not run 2 reno flows" in err
    assert "Traceback" not in err
