"""The Python API on the fake core: shapes, overrides, atomic saving."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import tcpair
from tcpair.simulate.result import write_atomically


def test_run_returns_tables(fake_core) -> None:
    r = tcpair.run("clrp_one_link", overrides=["links.wireless.forward.loss.p=0.02"], seed=3)
    assert r.summary["seed"] == 3
    assert isinstance(r.flows, pd.DataFrame) and r.flows.loc[0, "name"] == "tcp1"
    assert list(r.drops.columns)[:3] == ["time_s", "flow", "kind"]
    assert len(r.recoveries) == 0 and "cwnd" in r.timeseries.columns
    assert json.loads(r.to_json())["summary"]["seed"] == 3
    assert r.scenario["links"][1]["forward"]["loss"]["p"] == 0.02
    with pytest.raises(KeyError):
        r.table("nope")


def test_run_from_dict(fake_core) -> None:
    sc = tcpair.load_scenario("clrp_one_link")
    r = tcpair.run(sc, overrides=["run.duration=5"])
    assert r.summary["duration_s"] == 5
    assert sc["run"]["duration"] == 300.0


def test_validate_and_catalog(fake_core) -> None:
    assert tcpair.validate("clrp_one_link")["flows"][0]["name"] == "tcp1"
    assert "sack" in {v["name"] for v in tcpair.catalog()["variants"]}
    assert tcpair.core_version() == "0.0.0-fake"


def test_save_replaces_existing_atomically(fake_core, tmp_path: Path) -> None:
    """A folder an earlier run was saved in is replaced whole: its trace, which
    this run does not have, goes with it (a folder holding anything else is
    refused: test_faults.py)."""
    target = tmp_path / "r"
    target.mkdir()
    (target / "summary.json").write_text("old")
    (target / "trace.parquet").write_text("old")
    tcpair.run("clrp_one_link").save(target)
    assert not (target / "trace.parquet").exists()
    assert (target / "summary.json").read_text() != "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_write_atomically_failure_leaves_nothing(tmp_path: Path) -> None:
    def boom(d: Path) -> None:
        (d / "half.txt").write_text("x")
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_atomically(tmp_path / "out", boom)
    assert list(tmp_path.iterdir()) == []


def test_worker_returns_errors_as_data(fake_core) -> None:
    """A failing run is a result (status failed, message kept), not an exception."""
    from tcpair.simulate.result import to_json
    from tcpair.sweeper.runner import run_task

    sc = tcpair.load_scenario("clrp_one_link")
    ok = run_task(to_json(sc))
    assert ok["status"] == "ok" and ok["flows"][0]["name"] == "tcp1"
    bad = run_task(to_json(tcpair.apply_overrides(sc, ["run.duration=0"])))
    assert bad["status"] == "failed" and bad["error_kind"] == "scenario"
    assert "run.duration" in bad["error"]


def test_api_functions_are_not_shadowed_by_submodules() -> None:
    # Importing every submodule must leave the API's functions in place: a module
    # named like a function (tcpair/report.py once) replaces it on import.
    import importlib
    import pkgutil

    for mod in pkgutil.walk_packages(tcpair.__path__, "tcpair."):
        importlib.import_module(mod.name)
    for name in ("run", "validate", "sweep", "report", "plot", "load", "load_results"):
        assert callable(getattr(tcpair, name)), name
