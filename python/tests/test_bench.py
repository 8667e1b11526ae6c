"""The benchmark's regression guard: a stored baseline per machine, a warning below
half of it, never a failure (docs/performance.md)."""

from __future__ import annotations

import json

import pytest

from tcpair import ScenarioError
from tcpair.bench.events import GUARD_TOLERANCE, guard, machine_key
from tcpair.cli.main import main


def _report(events_per_s: float) -> dict:
    return {"events_per_s": {"median": events_per_s, "best": events_per_s}, "duration_s": 300.0}


def test_record_then_compare(tmp_path) -> None:
    f = tmp_path / "baseline.json"
    assert "no baseline for" in guard(_report(1e7), str(f))
    assert "recorded" in guard(_report(1e7), str(f), record=True)
    assert json.loads(f.read_text())[machine_key()]["events_per_s"] == 1e7
    assert guard(_report(0.9e7), str(f)).endswith(": ok")
    slow = guard(_report(GUARD_TOLERANCE * 1e7 * 0.99), str(f))
    assert "WARNING" in slow and "0.49 x the baseline" in slow


def test_other_machines_entries_are_kept(tmp_path) -> None:
    f = tmp_path / "baseline.json"
    f.write_text(json.dumps({"Some CPU x 64": {"events_per_s": 5e7}}))
    guard(_report(1e7), str(f), record=True)
    stored = json.loads(f.read_text())
    assert set(stored) == {"Some CPU x 64", machine_key()}


def test_a_damaged_baseline_is_a_one_line_error(tmp_path) -> None:
    f = tmp_path / "baseline.json"
    f.write_text("{not json")
    with pytest.raises(ScenarioError, match="not a baseline file"):
        guard(_report(1e7), str(f))


def test_cli_guard_prints_and_never_fails(tmp_path, capsys) -> None:
    f = tmp_path / "b.json"
    f.write_text(json.dumps({machine_key(): {"events_per_s": 1e12}}))
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--duration", "5", "--repeat", "1", "--baseline", str(f)])
    assert exc.value.code == 0
    assert "WARNING: slower than half the baseline" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--record-baseline"])
    assert exc.value.code == 2
    assert "--baseline" in capsys.readouterr().err


def test_bench_prints_the_core_loop_beside_the_bare_heap_limit(capsys) -> None:
    core = pytest.importorskip("tcpair._core")
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--duration", "5", "--repeat", "2", "--json"])
    assert exc.value.code == 0
    obj = json.loads(capsys.readouterr().out)
    limit = obj["bare_heap"]
    assert limit["events"] == obj["events"] > 0 and limit["pending"] == 64
    assert limit["events_per_s"] > 0 and limit["event_bytes"] >= 16
    loop = obj["loop_events_per_s"]
    assert loop["best"] >= loop["median"] > 0
    assert obj["loop_vs_bare_heap"] == pytest.approx(loop["best"] / limit["events_per_s"])
    with pytest.raises(SystemExit):
        main(["bench", "--duration", "5", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "bare-heap limit" in out and "core loop / bare heap" in out
    with pytest.raises(ValueError, match="at least 1"):
        core.bare_heap(10, 0)
