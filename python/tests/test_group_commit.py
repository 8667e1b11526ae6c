"""Group commit (python/tcpair/sweeper/commit.py): runs are stored many to a file, a run
is reported stored only once its group is in place, and a SIGKILL in the middle
of a group loses only that group's runs, which the rerun completes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from procs import tcpair_env

import tcpair
from tcpair.results.store import Store
from tcpair.sweeper.backends import LocalBackend
from tcpair.sweeper.commit import Group
from tcpair.sweeper.workers import (
    CHUNK_SECONDS,
    IDLE,
    MAX_CHUNK,
    Chunks,
    InProcessBackend,
)

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


def _rows(key: str, status: str = "ok") -> list[dict]:
    return [{"run_key": key, "status": status, "flow": "f0", "x": 1.0}]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_group_is_due_when_full_or_old_and_commits_as_one_file(tmp_path: Path) -> None:
    store, clock = Store(tmp_path / "s"), Clock()
    with store.writer():
        group = Group(store, max_runs=3, max_seconds=0.2, clock=clock)
        assert not group.due() and group.commit() == (0, 0)
        group.add("a", _rows("a"), {})
        group.add("b", _rows("b", "failed"), {})
        clock.now = 0.19
        assert not group.due()
        clock.now = 0.2
        assert group.due()  # by age
        group.add("c", _rows("c"), {})
        assert group.due()  # and by count
        assert group.commit() == (3, 1)
        assert len(group) == 0 and not group.due()
    files = list((tmp_path / "s" / "runs").glob("*.parquet"))
    assert [f.name for f in files] == ["g000000000001.parquet"]
    assert Store(tmp_path / "s").status() == {"a": "ok", "b": "failed", "c": "ok"}
    assert Store(tmp_path / "s").check() == []


def test_runs_with_clashing_types_in_one_group_are_still_stored(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    with store.writer():
        group = Group(store)
        group.add("a", [{"run_key": "a", "status": "ok", "label": 1}], {})
        group.add("b", [{"run_key": "b", "status": "ok", "label": "x"}], {})
        group.add("c", [{"run_key": "c", "status": "ok", "label": 2**70}], {})
        assert group.commit() == (3, 0)
    df = Store(tmp_path / "s").load().set_index("run_key")
    assert df.loc["b", "label"] == "x" and df.loc["c", "label"] == str(2**70)


@pytest.mark.parametrize("clash", [False, True])
def test_a_column_only_a_later_run_of_the_group_has_is_stored(tmp_path: Path, clash: bool) -> None:
    """A run on an 802.11 medium has MAC counters the group's first run lacks: they are
    kept (they were dropped when the group's first run had none, so which columns a
    store had depended on which run finished first)."""
    store = Store(tmp_path / "s")
    with store.writer():
        group = Group(store)
        group.add("a", [{"run_key": "a", "status": "ok", "label": 1}], {})
        late = "x" if clash else 2  # a clash takes the one-run-at-a-time path
        group.add("b", [{"run_key": "b", "status": "ok", "label": late, "run_mac_retries": 7}], {})
        assert group.commit() == (2, 0)
    df = Store(tmp_path / "s").load().set_index("run_key")
    assert df.loc["b", "run_mac_retries"] == 7 and pd.isna(df.loc["a", "run_mac_retries"])


def test_kept_tables_are_grouped_and_the_newest_copy_of_a_run_wins(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    old = pa.table({"t": [1.0, 2.0]})
    new = pa.table({"t": [3.0]})
    with store.writer():
        group = Group(store)
        group.add("a", _rows("a"), {"timeseries": old})
        group.add("b", _rows("b"), {"timeseries": old})
        group.commit()
        store.put("a", pa.Table.from_pylist(_rows("a")), {"timeseries": new})  # run again
    ts = Store(tmp_path / "s").load_table("timeseries")
    assert sorted(zip(ts["run_key"], ts["t"], strict=True)) == [
        ("a", 3.0),
        ("b", 1.0),
        ("b", 2.0),
    ]
    assert list(Store(tmp_path / "s").load_table("timeseries", ["b"])["t"]) == [1.0, 2.0]
    with store.writer():
        store.compact()  # run files fold; the tables' group numbers are not reused
        store.put("c", pa.Table.from_pylist(_rows("c")), {"timeseries": new})
    assert len(Store(tmp_path / "s").load_table("timeseries")) == 4
    assert Store(tmp_path / "s").check() == []


def test_chunks_grow_to_the_target_time_and_shrink_at_the_end() -> None:
    chunks = Chunks(10_000, workers=2)
    assert chunks.take() == [0]  # nothing known yet: one run
    chunks.record(1, 1e-4)
    size = len(chunks.take())
    assert size == min(MAX_CHUNK, int(CHUNK_SECONDS / 1e-4))
    slow = Chunks(100, workers=2)
    slow.take()
    slow.record(1, 10.0)  # long runs go one by one
    assert len(slow.take()) == 1
    tail = Chunks(10, workers=2)
    tail.record(1, 1e-6)
    assert [len(tail.take()) for _ in range(6)] == [3, 2, 2, 1, 1, 1]
    assert tail.take() == []


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@pytest.mark.parametrize("backend", [LocalBackend(2), InProcessBackend()], ids=["pool", "in"])
def test_backends_report_idle_waits_only_when_asked(backend) -> None:  # type: ignore[no-untyped-def]
    items = [(0.3,), (0.0,), (0.3,)]
    with_tick = list(backend.map_unordered(_sleep, items, tick=0.05))
    assert (IDLE, None) in with_tick
    assert sorted(i for i, _ in with_tick if i != IDLE) == [0, 1, 2]
    without = list(backend.map_unordered(_sleep, items))
    assert sorted(i for i, _ in without) == [0, 1, 2]


KILL_MID_GROUP = """
import json, os, signal, sys
import tcpair.sweeper.commit as cm
from tcpair.cli.main import main

log, kill_at = sys.argv[1], int(sys.argv[2])
real_add, real_commit, added = cm.Group.add, cm.Group.commit, []

def add(self, key, rows, tables):
    real_add(self, key, rows, tables)
    added.append(key)
    if len(added) == kill_at:  # in the middle of filling a group
        os.kill(os.getpid(), signal.SIGKILL)

def commit(self):
    keys = [rows[0]["run_key"] for rows in self._rows]
    done = real_commit(self)
    with open(log, "a") as fh:  # what the sweep reported stored
        fh.write("".join(k + "\\n" for k in keys))
    return done

cm.Group.add, cm.Group.commit = add, commit
main(sys.argv[3:])
"""


def _sweep_file(tmp_path: Path, seeds: int) -> Path:
    f = tmp_path / "tiny.toml"
    f.write_text(
        f'name = "tiny"\nscenario = "{CLRP}"\nseeds = {seeds}\n'
        'set = { "run.duration" = 0.01 }\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.0, 0.05]\n'
    )
    return f


def _stable(df: pd.DataFrame) -> pd.DataFrame:
    return (
        df.drop(columns=["run_wall_s", "finished_at"])
        .sort_values(["run_key", "flow"])
        .reset_index(drop=True)
    )


def test_sigkill_mid_group_loses_only_unreported_runs_and_rerun_completes(
    cli, tmp_path: Path
) -> None:
    sweep, out, log = _sweep_file(tmp_path, 300), tmp_path / "store", tmp_path / "reported"
    total, kill_at = 600, 400  # sub-millisecond runs: groups of 256 by count
    args = ["sweep", str(sweep), "--out", str(out), "--jobs", "2"]
    proc = subprocess.run(
        [sys.executable, "-c", KILL_MID_GROUP, str(log), str(kill_at), *args],
        env=tcpair_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reported = log.read_text().split() if log.exists() else []
    assert 0 < len(reported) < kill_at, "no group was committed before the kill"
    assert Store(out).check() == [], "the kill left a damaged or stray file"
    stored = tcpair.load_results(out)
    # Every run reported stored is stored; the group being filled is lost whole.
    assert set(stored["run_key"]) == set(reported)
    finished = dict(zip(stored["run_key"], stored["finished_at"], strict=True))
    code, stdout, err = cli(*args)
    assert code == 0, err
    done = f"{total - len(reported)} runs executed (0 failed); {total} runs in the plan"
    assert f"{done}, {len(reported)} of them already stored" in " ".join(stdout.split())
    assert Store(out).check() == []
    df = tcpair.load_results(out)
    assert len(df) == total and df["run_key"].is_unique
    kept = dict(zip(df["run_key"], df["finished_at"], strict=True))
    assert {k: kept[k] for k in finished} == finished, "stored runs were run again"
    code, _, err = cli("sweep", str(sweep), "--out", str(tmp_path / "ref"), "--jobs", "1")
    assert code == 0, err
    pd.testing.assert_frame_equal(_stable(df), _stable(tcpair.load_results(tmp_path / "ref")))
    assert json.loads((out / "sweep.json").read_text())["sweep"]["name"] == "tiny"


def test_groups_fold_into_segments_that_keep_the_newest_copy_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tcpair.results.store as store_mod

    monkeypatch.setattr(store_mod, "SEGMENT_GROUPS", 3)
    root = tmp_path / "s"

    def put(store: Store, key: str, status: str) -> None:
        store.put(key, pa.Table.from_pylist(_rows(key, status)), {})

    with Store(root).writer() as store:
        put(store, "a", "failed")
        put(store, "b", "ok")
        put(store, "c", "ok")  # the third group: g1..g3 fold into a segment
        put(store, "a", "ok")  # retried: newer than the segment's copy
    names = sorted(p.name for p in (root / "runs").glob("*.parquet"))
    assert names == ["g000000000003-000000000001.parquet", "g000000000004.parquet"]
    assert Store(root).status() == {"a": "ok", "b": "ok", "c": "ok"}
    with Store(root).writer() as store:  # a later sweep numbers on after the segment
        put(store, "d", "ok")
        put(store, "b", "failed")  # g6: folds g4..g6 into g000000000006-000000000004
    names = sorted(p.name for p in (root / "runs").glob("*.parquet"))
    assert names == [
        "g000000000003-000000000001.parquet",
        "g000000000006-000000000004.parquet",
    ]
    assert Store(root).status() == {"a": "ok", "b": "failed", "c": "ok", "d": "ok"}
    assert Store(root).check() == []
    df = Store(root).load()
    assert sorted(df["run_key"]) == ["a", "b", "c", "d"]


def test_check_and_repair_a_damaged_group_file(cli, tmp_path: Path) -> None:
    """A bit flip in one group file: check names it, repair sets it aside and runs
    again exactly the runs it held, with identical results."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    sweep, out = _sweep_file(tmp_path, 5), tmp_path / "store"
    code, _, err = cli("sweep", str(sweep), "--out", str(out), "--jobs", "1")
    assert code == 0, err
    before = tcpair.load_results(out)
    table = pq.read_table(out / "runs.parquet")
    keys = sorted(table.column("run_key").to_pylist())
    with Store(out).writer() as store:  # the runs as two groups, not compacted
        for part in (keys[:4], keys[4:]):
            store.put_group(table.filter(pc.is_in(table["run_key"], pa.array(part))), {})
    (out / "runs.parquet").unlink()
    second = out / "runs" / "g000000000002.parquet"
    data = bytearray(second.read_bytes())
    data[len(data) // 2] ^= 0x10
    second.write_bytes(bytes(data))
    code, stdout, _ = cli("store", "check", str(out))
    damaged = "damaged (its checksum differs from the manifest's)"
    assert code == 1 and stdout.strip() == f"{second}: {damaged}"
    code, stdout, err = cli("store", "repair", str(out), "--jobs", "1")
    assert code == 0, err
    assert "1 file(s) moved to quarantine/, 6 run(s) run again (0 failed)" in stdout
    assert cli("store", "check", str(out))[0] == 0
    pd.testing.assert_frame_equal(_stable(tcpair.load_results(out)), _stable(before))
