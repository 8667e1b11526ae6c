"""The mobile host end to end: the `handoffs` table from the API and the CLI,
and bad handoffs as one-line errors (exit 2, no output)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tcpair._core")

import tcpair
from tcpair.base.paths import scenario_path

FIG14 = str(scenario_path("syndrome_fig14"))


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def test_handoffs_table_from_the_api(tmp_path: Path) -> None:
    r = tcpair.run(FIG14)
    every = r.handoffs
    assert sorted(set(every["flow"])) == ["s1", "s2"]
    h = every[every["flow"] == "s1"]
    assert list(h["start"]) == [8.0, 13.0, 18.0, 23.0]
    assert list(h["to"]) == ["fa", "ha", "fa", "ha"]
    assert (h["resumed_at"] >= h["end"]).all()
    lost = r.drops[r.drops["cause"] == "handoff"]
    assert len(lost) == int(every["data_lost"].sum() + every["acks_lost"].sum()) > 0
    back = tcpair.load(r.save(tmp_path / "out"))
    assert list(back.handoffs["to"]) == list(every["to"])


def test_no_mobility_gives_an_empty_handoffs_table() -> None:
    r = tcpair.run(str(scenario_path("clrp_one_link")), overrides=["run.duration=2"])
    assert r.handoffs.empty


BAD = [
    ('mobility.handoffs.0.to="n8"', "mobility.handoffs[0].to"),
    ("mobility.handoffs.1.at=8.5", "mobility.handoffs[1].at"),
    ("mobility.handoffs.3.at=29.5", "mobility.handoffs[3].at"),
    ("mobility.handoffs.0.delay=-1", "mobility.handoffs[0].delay"),
    ('mobility.home="s1"', "mobility.home"),
]


@pytest.mark.parametrize(("override", "needle"), BAD)
def test_bad_handoffs_one_line_exit_2(cli, tmp_path: Path, override: str, needle: str) -> None:
    out = tmp_path / "out"
    code, stdout, err = cli("run", FIG14, "--set", override, "--out", str(out), "--json")
    assert code == 2, (stdout, err)
    assert needle in _one_error_line(err)
    assert stdout == ""
    assert not out.exists()


def test_freeze_tcp_from_the_api_and_the_cli(cli) -> None:
    plain = tcpair.run(FIG14).flows
    frozen = tcpair.run(FIG14, overrides=["mobility.freeze=true"]).flows
    assert list(frozen["freezes"]) == [4, 4]
    assert (frozen["zero_window_probes"] > 0).all()
    assert (plain["freezes"] == 0).all()
    assert frozen["timeouts"].sum() < plain["timeouts"].sum()
    code, _, err = cli("run", FIG14, "--set", "mobility.freeze_warning=-1", "--json")
    assert code == 2
    assert "mobility.freeze_warning" in _one_error_line(err)
