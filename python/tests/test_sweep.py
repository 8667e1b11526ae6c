"""Sweep definitions: grid, coupled axes, quick mode, seeds, run keys, and errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tcpair import ScenarioError
from tcpair.sweeper.definition import load_sweep, parse_sweep, run_key


def sweep(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "t",
        "scenario": "clrp_one_link",
        "seeds": 3,
        "set": {"run.duration": 10.0},
        "axis": [
            {"name": "variant", "param": "flows.tcp1.variant", "values": ["reno", "sack"]},
            {
                "name": "p",
                "param": "links.wireless.forward.loss.p",
                "values": [0, 0.01, 0.05],
                "quick": [0.05],
            },
        ],
        "quick": {"seeds": [7], "set": {"run.duration": 2.0}},
    }
    base.update(extra)
    return base


def test_full_grid_and_seeds() -> None:
    spec = parse_sweep(sweep())
    assert spec.count() == (6, 3, 18)
    tasks = spec.plan(version="v1")
    assert len(tasks) == 18
    # First axis slowest, seeds innermost.
    assert [(t.labels["variant"], t.labels["p"], t.seed) for t in tasks[:4]] == [
        ("reno", 0.0, 1),
        ("reno", 0.0, 2),
        ("reno", 0.0, 3),
        ("reno", 0.01, 1),
    ]
    t = tasks[-1]
    assert t.scenario["run"] == {"duration": 10.0, "seed": 3}
    assert t.scenario["links"][1]["forward"]["loss"] == {"model": "uniform", "p": 0.05}
    assert t.scenario["flows"][0]["variant"] == "sack"
    assert len({t.key for t in tasks}) == 18
    # Mixed ints and floats make one float column.
    assert all(isinstance(t.labels["p"], float) for t in tasks)


def test_quick_mode_subsets_points_and_seeds() -> None:
    spec = parse_sweep(sweep())
    assert spec.count(quick=True) == (2, 1, 2)
    tasks = spec.plan(quick=True, version="v1")
    assert [(t.labels["variant"], t.labels["p"], t.seed) for t in tasks] == [
        ("reno", 0.05, 7),
        ("sack", 0.05, 7),
    ]
    assert tasks[0].scenario["run"]["duration"] == 2.0


def test_coupled_axis_moves_together() -> None:
    spec = parse_sweep(
        sweep(
            axis=[
                {
                    "name": "queue",
                    "params": {
                        "links.wired.forward.queue": [10, 50],
                        "links.wireless.forward.queue": [5, 25],
                    },
                    "labels": ["small", "large"],
                }
            ]
        )
    )
    assert spec.count() == (2, 3, 6)
    t = spec.plan(version="v")[3]
    assert t.labels == {"queue": "large"}
    assert t.scenario["links"][0]["forward"]["queue"] == 50
    assert t.scenario["links"][1]["forward"]["queue"] == 25


def test_table_values_get_readable_labels() -> None:
    spec = parse_sweep(
        sweep(
            axis=[
                {
                    "name": "model",
                    "param": "links.wireless.forward.loss",
                    "values": [{"model": "uniform", "p": 0.01}, {"model": "expo", "p": 0.01}],
                }
            ]
        )
    )
    assert spec.axes[0].labels == ("model=uniform,p=0.01", "model=expo,p=0.01")


def test_run_key_depends_on_scenario_seed_and_version() -> None:
    sc = {"run": {"duration": 1.0, "seed": 1}, "b": [1, 2]}
    k = run_key(sc, 1, "v1")
    assert k == run_key({"b": [1, 2], "run": {"seed": 1, "duration": 1.0}}, 1, "v1")
    assert k != run_key(sc, 2, "v1")
    assert k != run_key(sc, 1, "v2")
    assert k != run_key({**sc, "b": [2, 1]}, 1, "v1")
    assert len(k) == 64


def test_identical_points_share_a_key() -> None:
    spec = parse_sweep(
        sweep(
            axis=[{"name": "dup", "params": {"run.duration": [10.0, 10.0]}, "labels": ["a", "b"]}],
            seeds=1,
        )
    )
    keys = [t.key for t in spec.plan(version="v")]
    assert keys[0] == keys[1]


def test_seeds_list_and_file_relative_scenario(tmp_path: Path) -> None:
    scen = Path(__file__).resolve().parents[2] / "scenarios" / "clrp_one_link.toml"
    (tmp_path / "sc.toml").write_text(scen.read_text())
    f = tmp_path / "s.toml"
    f.write_text('name = "x"\nscenario = "sc.toml"\nseeds = [4, 9]\n')
    spec = load_sweep(f)
    assert spec.seeds == (4, 9) and spec.count() == (1, 2, 2)
    assert spec.source == f


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"bogus": 1}, "bogus: unknown field"),
        ({"name": ""}, "name: expected a non-empty string"),
        ({"name": "a/b"}, "name: must be usable as a directory name"),
        ({"seeds": 0}, "seeds: must be >= 1, got 0"),
        ({"seeds": [1, 1]}, "seeds: repeated seed"),
        ({"seeds": [1, -2]}, "seeds[1]: expected an integer seed >= 0, got -2"),
        ({"scenario": "nosuch_scenario"}, "nosuch_scenario: no such scenario file"),
        ({"keep": ["flows"]}, "keep: expected a list drawn from"),
        ({"set": {"run": {"duration": 5}}}, "set.run: quote full dotted keys"),
        (
            {"axis": [{"name": "x", "param": "links.nolink.delay", "values": [1]}]},
            "axis 'x' links.nolink.delay: no element named 'nolink' in links",
        ),
        (
            {"axis": [{"name": "seed", "param": "run.duration", "values": [1]}]},
            "'seed' is a reserved column name",
        ),
        (
            {"axis": [{"name": "x", "param": "run.duration", "values": []}]},
            "axis 'x'.values: expected a non-empty list",
        ),
        (
            {"axis": [{"name": "x", "params": {"run.duration": [1, 2], "run.warmup": [0]}}]},
            "coupled parameters need lists of equal length, got run.duration: 2, run.warmup: 1",
        ),
        (
            {"axis": [{"name": "x", "param": "run.duration", "values": [1, 2], "quick": [3]}]},
            "axis 'x'.quick: 3 is not one of the axis labels [1, 2]",
        ),
        (
            {
                "axis": [
                    {"name": "x", "param": "run.duration", "values": [1]},
                    {"name": "x", "param": "run.warmup", "values": [1]},
                ]
            },
            "axis name 'x' used twice",
        ),
        ({"target": {"claim": "c"}}, "target.title: expected a string"),
        ({"quick": {"seed": 2}}, "quick.seed: unknown field"),
    ],
)
def test_bad_sweeps_name_field_and_value(change: dict[str, Any], needle: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        parse_sweep(sweep(**change))
    assert needle in str(exc.value)


def test_sweep_file_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text('name = "x"\nscenario = "clrp_one_link"\nseeds = "many"\n')
    with pytest.raises(ScenarioError, match=r"s\.toml: seeds: expected a count"):
        load_sweep(f)
    f.write_text("name = [\n")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_sweep(f)
    with pytest.raises(ScenarioError, match="no such sweep file"):
        load_sweep(tmp_path / "missing.toml")


def test_shipped_sweeps_parse() -> None:
    from tcpair.base.paths import shipped_sweeps

    found = shipped_sweeps()
    assert "baseline" in found
    for path in found.values():
        spec = load_sweep(path)
        assert spec.count()[2] > 0
