"""The reproduce targets under ns-2.35's queue counting and backoff
(`tcpair ns2-check --targets`, docs/validation.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcpair.cli.main import main
from tcpair.ns2.conventions import NS2_MAX_BACKOFF, compare_conventions, ns2_conventions
from tcpair.reproduce import targets


def test_every_fixed_queue_is_one_shorter_and_backoff_goes_on() -> None:
    spec = targets()["clrp_fig10"]
    ns2, notes = ns2_conventions(spec)
    for link in spec.scenario["links"]:
        for d in ("forward", "reverse"):
            assert ns2.fixed[f"links.{link['name']}.{d}.queue"] == link["queue"] - 1
    assert ns2.fixed["flows.*.tcp.max_backoff"] == NS2_MAX_BACKOFF
    assert notes == []
    # the shipped target is left as it was
    assert "flows.*.tcp.max_backoff" not in spec.fixed


def test_a_queue_an_axis_moves_is_kept_and_said() -> None:
    spec = targets()["lda_accuracy"]
    ns2, notes = ns2_conventions(spec)
    assert "links.wireless.forward.queue" not in ns2.fixed
    assert ns2.fixed["links.wireless.reverse.queue"] == 9
    assert notes == ["wireless forward: queue set by an axis of the target, kept"]


def test_both_runs_and_a_row_per_claim(tmp_path: Path) -> None:
    df = compare_conventions(["clrp_fig8"], tmp_path, quick=True, jobs=1)
    assert len(df) > 0
    assert set(df["target"]) == {"clrp_fig8"}
    assert df["ns2_conventions"].str.len().min() > 0  # every claim judged both ways
    assert (tmp_path / "shipped" / "clrp_fig8" / "report" / "index.html").is_file()
    assert (tmp_path / "ns2" / "clrp_fig8" / "report" / "index.html").is_file()


def test_cli_names_a_bad_target(capsys) -> None:
    for argv, word in ((["ns2-check", "--targets", "nosuch"], "nosuch"),
                       (["ns2-check", "--targets", ","], "--targets")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert word in capsys.readouterr().err


def test_cli_checks_where_the_csv_goes_before_the_runs(tmp_path, capsys) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    argv = ["ns2-check", "--targets", "clrp_fig8", "--quick", "--out", str(tmp_path / "runs"),
            "--csv", str(blocker / "table.csv")]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--csv" in err and str(blocker) in err
    assert not (tmp_path / "runs").exists()  # no run started
    # A bad target name is told first, and makes no folder for the table.
    with pytest.raises(SystemExit) as exc:
        main(["ns2-check", "--targets", "nosuch", "--csv", str(tmp_path / "new" / "t.csv")])
    assert exc.value.code == 2
    assert "nosuch" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
