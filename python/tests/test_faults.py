"""Faults around a sweep (docs/reliability.md): a killed sweep's workers and
lock, worker deaths versus run errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import ctrl_c, start_as_in_a_terminal, tcpair_env

import tcpair
from tcpair.results.store import Store
from tcpair.sweeper.backends import LocalBackend, WorkerDied
from tcpair.sweeper.workers import MAX_CRASHES

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_a_sweep_takes_its_workers_and_frees_the_lock(tmp_path: Path) -> None:
    sweep = tmp_path / "long.toml"
    sweep.write_text(
        f'name = "long"\nscenario = "{CLRP}"\nseeds = 4\n'
        'set = { "run.duration" = 1e6 }\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.01]\n'
    )
    out = tmp_path / "store"
    cmd = [sys.executable, "-m", "tcpair", "sweep", str(sweep), "--out", str(out), "--jobs", "2"]
    proc = subprocess.Popen(
        cmd, env=tcpair_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            # The pool's workers (a resource tracker may be a child too).
            workers = [
                c for c in _children(proc.pid) if "resource_tracker" not in _cmdline(c)
            ]
            time.sleep(0.05)
        assert len(workers) >= 2, "the pool's workers did not start"
        time.sleep(0.5)
    finally:
        proc.kill()  # SIGKILL to the sweep alone, not its process group
        proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    lingering = [w for w in workers if _alive(w)]
    for w in lingering:
        os.kill(w, signal.SIGKILL)
    assert not lingering, "pool workers outlived the killed sweep"
    with Store(out).writer():  # the lock is free at once
        pass


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _die_or_sleep(what: str) -> str:
    if what == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.5)
    return what


def test_innocent_runs_are_not_blamed_for_a_worker_death() -> None:
    """A run that kills its worker every time breaks the shared pool; the runs
    queued beside it are run again in workers of their own and succeed; only
    the killer is recorded, after MAX_CRASHES deaths of its own worker."""
    items = [("die",), *[(f"ok{i}",) for i in range(5)]]
    results = dict(LocalBackend(2).map_unordered(_die_or_sleep, items))
    assert isinstance(results[0], WorkerDied)
    assert f"died {MAX_CRASHES} times" in results[0].message
    assert [results[i] for i in range(1, 6)] == [f"ok{i}" for i in range(5)]


def _die_once(marker: str, what: str) -> str:
    if what == "die" and not os.path.exists(marker):
        Path(marker).write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)
    return what


def test_a_worker_killed_once_costs_a_retry_not_a_result(tmp_path: Path) -> None:
    marker = str(tmp_path / "killed")
    items = [(marker, "die"), *[(marker, f"ok{i}") for i in range(3)]]
    results = dict(LocalBackend(2).map_unordered(_die_once, items))
    assert results == {0: "die", 1: "ok0", 2: "ok1", 3: "ok2"}


# A sweep whose parent is slow to answer Ctrl-C (busy storing, say): one worker has
# finished its run and waits for the next, the other runs on. The parent takes its
# time before it raises KeyboardInterrupt, so that a worker that took the terminal's
# SIGINT itself would have printed its own traceback by then.
_SLOW_PARENT = """
import signal, sys, time
from tcpair.sweeper.backends import LocalBackend

def nap(seconds):
    time.sleep(seconds)
    return seconds

def slow(signum, frame):
    time.sleep(1.0)
    raise KeyboardInterrupt

if __name__ == "__main__":
    try:
        for i, _ in LocalBackend(2).map_unordered(nap, [(0.0,), (60.0,)], tick=0.05):
            if i == 0:
                signal.signal(signal.SIGINT, slow)
                print("one idle", flush=True)
    except KeyboardInterrupt:
        sys.exit(130)
"""


def test_ctrl_c_with_an_idle_sweep_worker_prints_no_traceback(tmp_path: Path) -> None:
    """The terminal's Ctrl-C reaches the sweep's workers too: they leave it to the
    parent, which stops them (docs/reliability.md)."""
    script = tmp_path / "slow_parent.py"
    script.write_text(_SLOW_PARENT)
    proc = start_as_in_a_terminal(
        [sys.executable, str(script)],
        env=tcpair_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "one idle\n"
    t0 = time.monotonic()
    err = ctrl_c(proc)
    assert proc.returncode == 130
    assert time.monotonic() - t0 < 30, "the busy worker was not stopped"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


# -- filesystem errors ---------------------------------------------------------------


def _sweep_file(tmp_path: Path, values: str) -> Path:
    f = tmp_path / "fs.toml"
    f.write_text(
        f'name = "fs"\nscenario = "{CLRP}"\nseeds = 1\nset = {{ "run.duration" = 5 }}\n'
        f'[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = {values}\n'
    )
    return f


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every stored file's bytes (sweep.json records the sweep being run, so
    it is written before its runs, with its line in the manifest: neither is
    part of the stored results)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (".lock", "sweep.json", "manifest.jsonl")
    }


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("tcpair.results.store.pq.write_table", OSError(28, "No space left on device")),
        ("tcpair.results.files.tempfile.mkstemp", PermissionError(13, "Permission denied")),
    ],
)
def test_a_failed_write_is_one_line_and_leaves_the_store_as_it_was(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, error: OSError
) -> None:
    out = tmp_path / "store"
    first = _sweep_file(tmp_path, "[0.0]")
    code, _, err = cli("sweep", str(first), "--out", str(out), "--jobs", "1")
    assert code == 0, err
    before = _snapshot(out)

    def fail(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(target, fail)
    sweep = _sweep_file(tmp_path, "[0.0, 0.01]")
    code, _, err = cli("sweep", str(sweep), "--out", str(out), "--jobs", "1")
    lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.startswith("error:")]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert str(out) in lines[0] and error.strerror in lines[0], lines[0]
    monkeypatch.undo()
    assert _snapshot(out) == before
    from tcpair.results.store import Store

    assert Store(out).check() == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_write_that_fails_mid_sweep_stops_the_runs_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's workers go when the error leaves the sweep, though the
    error's traceback (kept here by ``raises``) still holds the frames that
    read their results: before, they ran their chunks on and stayed until
    the interpreter's exit."""
    spec = {
        "name": "busy",
        "scenario": CLRP,
        "seeds": 60,
        "set": {"run.duration": 300},
        "axis": [{"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.01]}],
    }

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tcpair.results.store.pq.write_table", fail)
    before = set(_children(os.getpid()))  # e.g. a resource tracker of an earlier test
    with pytest.raises(Exception, match="No space left") as caught:
        tcpair.sweep(spec, tmp_path / "s", jobs=2, progress=False)
    assert caught.traceback  # the frames stay referenced while we look
    left = [c for c in set(_children(os.getpid())) - before if _alive(c) and not _tracker(c)]
    assert left == []


def _tracker(pid: int) -> bool:
    """Whether ``pid`` is multiprocessing's resource tracker (started once, kept)."""
    try:
        return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_out_under_a_file_is_one_line(cli, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, out, err = cli("run", CLRP, "--set", "run.duration=1", "--out", str(afile / "sub"))
    assert code == 2 and out == ""
    assert err.strip() == f"error: {afile}: exists and is not a directory"
    code, _, err = cli("sweep", str(_sweep_file(tmp_path, "[0.0]")), "--out", str(afile / "s"))
    assert code == 2 and err.strip().splitlines()[-1].startswith(f"error: {afile}/s")


def test_out_never_replaces_what_is_not_a_result(cli, tmp_path: Path, monkeypatch) -> None:
    """Saving replaces the whole folder: a folder holding anything else, the current
    folder (`--out .`, `--out ''`) and a folder above it are refused before the run,
    and what they hold stays; a folder a run was saved in is replaced."""
    mine = tmp_path / "papers"
    mine.mkdir()
    (mine / "draft.tex").write_text("precious")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for out, why in (
        (str(mine), "holds what is not a tcpair result (draft.tex)"),
        (".", "is the current folder or holds it"),
        ("", "is the current folder or holds it"),
        (str(tmp_path), "is the current folder or holds it"),
    ):
        code, stdout, err = cli("run", CLRP, "--set", "run.duration=1", "--out", out)
        assert code == 2 and stdout == "", (out, err)
        [line] = [ln for ln in err.splitlines() if ln.strip()]
        assert line.startswith("error: ") and why in line, line
    assert (mine / "draft.tex").read_text() == "precious"
    assert list(work.iterdir()) == []
    saved = tmp_path / "r"
    saved.mkdir()
    (saved / ".DS_Store").write_text("")  # a file browser's, not the user's work
    for duration in ("1", "2"):  # the second run replaces the first
        code, _, err = cli("run", CLRP, "--set", f"run.duration={duration}", "--out", str(saved))
        assert code == 0, err
    assert '"duration_s": 2.0' in (saved / "summary.json").read_text()


def test_saving_through_the_api_keeps_what_is_not_a_result(tmp_path: Path) -> None:
    result = tcpair.run(CLRP, overrides=["run.duration=1"])
    afile = tmp_path / "notes.txt"
    afile.write_text("keep")
    with pytest.raises(FileExistsError, match="exists and is not a folder") as exc:
        result.save(afile)
    assert exc.value.filename == str(afile) and afile.read_text() == "keep"
    with pytest.raises(FileExistsError, match=r"notes\.txt"):
        result.save(tmp_path)
    assert afile.read_text() == "keep"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary left"


def test_results_index_never_overwrites_a_page_of_the_users(cli, tmp_path: Path) -> None:
    """`reproduce --out` writes index.html at the folder's top: one tcpair did not
    write is refused before any run, and left as it was."""
    from tcpair.reporting.index_page import write_index

    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<html>my site</html>")
    code, _, err = cli("reproduce", "snoop_fig3", "--quick", "--out", str(web))
    assert code == 2
    [line] = [ln for ln in err.splitlines() if ln.strip()]
    assert line == (
        f"error: {web / 'index.html'}: was not written by tcpair and would be replaced by the "
        "results' index; give the results a folder of their own"
    )
    assert sorted(p.name for p in web.iterdir()) == ["index.html"]  # no run started
    assert (web / "index.html").read_text() == "<html>my site</html>"
    ours = tmp_path / "ours"
    write_index(ours, [])
    write_index(ours, [])  # tcpair's own index is rewritten
    assert "tcpair results" in (ours / "index.html").read_text()


def test_a_sweep_never_makes_a_store_of_the_users_folder(cli, tmp_path: Path) -> None:
    """A store sets aside files in `runs/` it did not list and removes its own
    temporaries: a folder holding anything else is refused before any run, as it
    was. A store's own leftovers (a sweep killed before it saved its definition)
    are not foreign: the rerun goes on."""
    sweep = _sweep_file(tmp_path, "[0.0]")
    mine = tmp_path / "mine"
    (mine / "runs").mkdir(parents=True)
    (mine / "runs" / "data.parquet").write_text("mine")
    (mine / "notes.txt").write_text("mine")
    before = _snapshot(mine)
    code, _, err = cli("sweep", str(sweep), "--out", str(mine))
    assert code == 2
    assert f"error: --out {mine}: holds files that are not a tcpair results store" in err
    assert "(notes.txt)" in err
    assert _snapshot(mine) == before
    killed = tmp_path / "killed"
    (killed / "runs").mkdir(parents=True)
    (killed / ".lock").write_text("")
    (killed / ".DS_Store").write_text("")  # a file browser's: not foreign
    code, _, err = cli("sweep", str(sweep), "--out", str(killed))
    assert code == 0, err
    assert Store(killed).load()["run_key"].nunique() == 1


# -- damage: detected, contained, repaired ----------------------------------------------

VOLATILE = ["run_wall_s", "finished_at"]


def _stable(df):  # type: ignore[no-untyped-def]
    return (
        df.drop(columns=[c for c in VOLATILE if c in df.columns])
        .sort_values(["run_key", "flow"])
        .reset_index(drop=True)
    )


def _small_store(cli, tmp_path: Path, values: str = "[0.0, 0.01]") -> Path:
    out = tmp_path / "store"
    sweep = str(_sweep_file(tmp_path, values))
    code, _, err = cli("sweep", sweep, "--out", str(out), "--jobs", "1")
    assert code == 0, err
    return out


def test_bit_flip_is_named_by_check_and_repair_restores_identical_results(
    cli, tmp_path: Path
) -> None:
    import pandas as pd

    out = _small_store(cli, tmp_path)
    before = tcpair.load_results(out)
    assert cli("store", "check", str(out))[0] == 0
    data = bytearray((out / "runs.parquet").read_bytes())
    data[len(data) // 2] ^= 0x04
    (out / "runs.parquet").write_bytes(bytes(data))
    code, stdout, _ = cli("store", "check", str(out))
    assert code == 1
    damaged = "damaged (its checksum differs from the manifest's)"
    assert stdout.strip() == f"{out / 'runs.parquet'}: {damaged}"
    code, stdout, err = cli("store", "repair", str(out), "--jobs", "1")
    assert code == 0, err
    assert "1 file(s) moved to quarantine/, 2 run(s) run again (0 failed)" in stdout
    assert cli("store", "check", str(out))[0] == 0
    assert list((out / "quarantine").rglob("runs.parquet"))
    pd.testing.assert_frame_equal(_stable(tcpair.load_results(out)), _stable(before))


def test_stray_and_truncated_files_are_skipped_then_set_aside(cli, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    out = _small_store(cli, tmp_path)
    keys = sorted(tcpair.load_results(out)["run_key"])
    # A run file cut short by a copy, and a file nobody wrote.
    table = pq.read_table(out / "runs.parquet")
    pq.write_table(table.slice(0, 1), out / "runs" / f"{keys[0]}.parquet")
    (out / "runs" / "stray.parquet").write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="stray file"):
        df = tcpair.load_results(out)  # a reader skips them and carries on
    assert sorted(df["run_key"]) == keys
    # The next writer sets them aside; nothing is lost.
    code, _, err = cli("sweep", str(tmp_path / "fs.toml"), "--out", str(out), "--jobs", "1")
    assert code == 0, err
    moved = {p.name for p in (out / "quarantine").rglob("*.parquet")}
    assert moved == {f"{keys[0]}.parquet", "stray.parquet"}
    assert sorted(tcpair.load_results(out)["run_key"]) == keys


def test_results_tells_of_a_damaged_run_file_in_one_warning_line(cli, tmp_path: Path) -> None:
    out = _small_store(cli, tmp_path)
    data = bytearray((out / "runs.parquet").read_bytes())
    data[len(data) // 2] ^= 0x04
    (out / "runs.parquet").write_bytes(bytes(data))
    for extra in ([], ["--json"]):
        code, stdout, err = cli("results", str(out), *extra)
        assert code == 0 and stdout
        assert err.splitlines() == [
            f"warning: {out / 'runs.parquet'}: damaged (its checksum differs from the "
            "manifest's); skipped (tcpair store repair sets it aside)"
        ]
    # The API keeps its Python warning, for a program to catch or filter.
    with pytest.warns(UserWarning, match=r"runs\.parquet: damaged .*; skipped"):
        tcpair.load_results(out)


def test_a_column_whose_type_changed_does_not_brick_the_store(cli, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tcpair.results.store import Store

    out = _small_store(cli, tmp_path)
    table = pq.read_table(out / "runs.parquet")
    i = table.column_names.index("seed")
    older = table.slice(0, 1).set_column(i, "seed", pa.array(["1"], pa.string()))
    with Store(out).writer() as store:  # as an older version would have stored it
        store.put("older", older.set_column(0, "run_key", pa.array(["older"])), {})
    df = tcpair.load_results(out)
    assert "older" in set(df["run_key"]) and len(df) == 3


def test_a_truncated_sweep_json_is_one_line(cli, tmp_path: Path) -> None:
    out = _small_store(cli, tmp_path)
    text = (out / "sweep.json").read_text()
    (out / "sweep.json").write_text(text[: len(text) // 2])
    code, _, err = cli("results", str(out))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"error: {out / 'sweep.json'}: damaged")


def test_a_reader_during_compaction_sees_every_run_once(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import tcpair.results.reading as reading_mod
    from tcpair.results.store import Store

    out = _small_store(cli, tmp_path)
    table = pq.read_table(out / "runs.parquet")
    with Store(out).writer() as store:  # the runs back as run files, not compacted
        for key in table.column("run_key").to_pylist():
            rows = table.filter(pa.compute.equal(table.column("run_key"), key))
            store.put(key, rows, {})
    (out / "runs.parquet").unlink()
    real = reading_mod.read_parquet
    compacted = []

    def read_while_compacting(path, *args):  # type: ignore[no-untyped-def]
        if not compacted:  # another process compacts between listing and reading
            compacted.append(0)
            compacted[0] = Store(out).compact()
        return real(path, *args)

    monkeypatch.setattr(reading_mod, "read_parquet", read_while_compacting)
    df = Store(out).load()
    assert compacted == [2]
    assert sorted(df["run_key"]) == sorted(table.column("run_key").to_pylist())


def test_a_second_sweep_into_the_same_out_is_refused(cli, tmp_path: Path) -> None:
    out = _small_store(cli, tmp_path)
    other = tmp_path / "other.toml"
    other.write_text((tmp_path / "fs.toml").read_text().replace('name = "fs"', 'name = "other"'))
    before = _snapshot(out)
    code, _, err = cli("sweep", str(other), "--out", str(out), "--jobs", "1")
    line = err.strip().splitlines()[-1]
    assert code == 2 and "holds the results of sweep 'fs'" in line and "own --out" in line
    assert _snapshot(out) == before


# -- SIGKILL during compaction and during the manifest's writes -------------------------

KILLERS = {
    # after the new runs.parquet is in place, before the run files are deleted
    "compaction": """
real = st.Store._write_table
def hook(self, path, table):
    real(self, path, table)
    if path.name == "runs.parquet":
        die()
st.Store._write_table = hook
""",
    # half-way through writing the manifest that compaction rewrites
    "manifest rewrite": """
def hook(self, entries):
    self.path.with_name(".tmp-manifest.jsonl").write_text('{"file": "ru')
    die()
mf.Manifest.rewrite = hook
""",
    # half-way through the line of the third run's file (not yet renamed into place;
    # each run is its own group here)
    "manifest append": """
cm.GROUP_RUNS = 1
real = mf.Manifest.record
calls = []
def hook(self, rel, tmp):
    calls.append(rel)
    if len(calls) == 4:
        with open(self.path, "a") as fh:
            fh.write('{"file": "runs/')
        die()
    real(self, rel, tmp)
mf.Manifest.record = hook
""",
}


@pytest.mark.parametrize("point", sorted(KILLERS))
def test_sigkill_during_compaction_or_manifest_write_loses_nothing(
    cli, tmp_path: Path, point: str
) -> None:
    import pandas as pd

    from tcpair.results.store import Store

    sweep = _sweep_file(tmp_path, "[0.0, 0.01, 0.02]")
    out = tmp_path / "store"
    script = (
        "import os, signal, sys\n"
        "import tcpair.results.store as st, tcpair.results.manifest as mf\n"
        "import tcpair.sweeper.commit as cm\n"
        "def die():\n    os.kill(os.getpid(), signal.SIGKILL)\n"
        + KILLERS[point]
        + "from tcpair.cli.main import main\n"
        + f"main(['sweep', {str(sweep)!r}, '--out', {str(out)!r}, '--jobs', '1'])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env=tcpair_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert Store(out).check() == [], "the kill left a damaged or stray file"
    stored = tcpair.load_results(out)
    assert stored["run_key"].is_unique and len(stored) >= 1
    finished = dict(zip(stored["run_key"], stored["finished_at"], strict=True))
    code, stdout, err = cli("sweep", str(sweep), "--out", str(out), "--jobs", "1")
    assert code == 0, err
    assert f"{3 - len(stored)} runs executed (0 failed)" in " ".join(stdout.split())
    assert Store(out).check() == []
    df = tcpair.load_results(out)
    kept = dict(zip(df["run_key"], df["finished_at"], strict=True))
    assert {k: kept[k] for k in finished} == finished, "stored runs were run again"
    code, _, err = cli("sweep", str(sweep), "--out", str(tmp_path / "ref"), "--jobs", "1")
    assert code == 0, err
    pd.testing.assert_frame_equal(_stable(df), _stable(tcpair.load_results(tmp_path / "ref")))
