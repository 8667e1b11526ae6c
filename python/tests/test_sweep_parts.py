"""Sweeps made of parts: each part a grid on its own base, one sweep of all of them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tcpair._errors import ScenarioError
from tcpair.base.tomlout import dumps
from tcpair.sweeper.definition import parse_sweep
from tcpair.sweeper.runner import open_sweep, run_sweep


def _raw() -> dict[str, Any]:
    return {
        "name": "parts",
        "scenario": "clrp_one_link",
        "seeds": 3,
        "set": {"run.duration": 5.0},
        "quick": {"seeds": 1},
        "part": [
            {
                "name": "one link",
                "axis": [
                    {"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.0, 0.05]},
                    {"name": "variant", "param": "flows.tcp1.variant", "values": ["reno", "sack"]},
                ],
            },
            {
                "name": "two links",
                "scenario": "clrp_two_links",
                "seeds": 2,
                "set": {"run.duration": 4.0},
                "quick": {"seeds": [7]},
                "axis": [
                    {
                        "name": "p",
                        "labels": ["1%"],
                        "params": {
                            "links.wl1.forward.loss.p": [0.01],
                            "links.wl2.forward.loss.p": [0.01],
                        },
                    }
                ],
            },
        ],
    }


def test_each_part_is_a_grid_on_its_own_base() -> None:
    spec = parse_sweep(_raw())
    assert spec.axis_names == ["part", "p", "variant"]
    assert spec.count() == (5, 3, 4 * 3 + 1 * 2)
    assert spec.count(quick=True) == (5, 1, 5)
    tasks = spec.plan()
    assert [t.point for t in tasks] == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3 + [4] * 2
    one, two = tasks[0], tasks[-1]
    assert one.labels == {"part": "one link", "p": 0.0, "variant": "reno"}
    assert two.labels == {"part": "two links", "p": "1%"}
    assert one.scenario["run"]["duration"] == 5.0
    assert two.scenario["run"]["duration"] == 4.0, "the part's set comes after the sweep's"
    assert {n["name"] for n in two.scenario["nodes"]} == {"mh1", "bs1", "bs2", "mh2"}
    assert [t.seed for t in spec.plan(quick=True) if t.labels["part"] == "two links"] == [7]
    assert len({t.key for t in tasks}) == len(tasks)
    # the union of the labels, for listings; the part's own labels drive its runs
    p_axis = spec.axes[spec.axis_names.index("p")]
    assert list(p_axis.labels) == [0.0, 0.05, "1%"]


def test_the_saved_definition_reads_back_to_the_same_plan(tmp_path: Path) -> None:
    spec = parse_sweep(_raw())
    again = parse_sweep(spec.to_dict())
    assert [t.key for t in again.plan()] == [t.key for t in spec.plan()]
    raw = _raw()
    raw["part"] = raw["part"][1:]
    res = run_sweep(raw, tmp_path / "s", jobs=1, progress=False, quick=True)
    assert res.counts_line().startswith("1 runs executed (0 failed)")
    runs = open_sweep(tmp_path / "s").runs
    assert runs["part"].unique().tolist() == ["two links"]
    assert set(runs["flow"]) == {"tcp1"} and (runs["status"] == "ok").all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(axis=[{"name": "x", "param": "run.seed", "values": [1]}]), "axis"),
        (lambda r: r["part"][1].update(name="one link"), "part name 'one link' used twice"),
        (lambda r: r["part"][0].update(color=1), "part[0].color: unknown field"),
        (lambda r: r["part"][1].update(seeds=0), "part 'two links'.seeds: must be >= 1"),
        (
            lambda r: r["part"][1]["axis"][0]["params"].update({"links.wl9.forward.loss.p": [1]}),
            "part 'two links' axis 'p' links.wl9",
        ),
        (lambda r: r.update(part=[]), "part: expected a non-empty array"),
        (
            lambda r: r["part"][0]["axis"].append(
                {"name": "part", "param": "run.seed", "values": [1]}
            ),
            "'part' is the column naming the part",
        ),
    ],
)
def test_bad_parts_name_the_field(change: Any, message: str) -> None:
    raw = copy.deepcopy(_raw())
    change(raw)
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_sweep(raw)


def test_dry_run_counts_the_parts(cli: Any, tmp_path: Path) -> None:
    toml = tmp_path / "parts.toml"
    toml.write_text(dumps(_raw()))
    code, stdout, err = cli("sweep", str(toml), "--out", str(tmp_path / "s"), "--dry-run")
    assert code == 0, err
    assert "5 points x up to 3 seeds = 14 runs" in stdout
    assert "part: one link, two links" in stdout
