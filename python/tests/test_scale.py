"""The many-flows scenario generator and its benchmark (docs/performance.md)."""

from __future__ import annotations

import pytest

import tcpair
from tcpair.cli import main
from tcpair.scale import SCHEMES, bench_one, flows_scenario


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


def test_cli_prints_the_table(capsys) -> None:
    import json

    with pytest.raises(SystemExit) as exc:
        main(["bench", "--flows", "1,2", "--schemes", "reno", "--duration", "1", "--json"])
    assert exc.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["flows"] for r in rows] == [1, 2]
