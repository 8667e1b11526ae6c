"""Sweeps end to end on the real core: store, resume, backends, failures, --until-ci."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from procs import ctrl_c, start_as_in_a_terminal, tcpair_env

import tcpair
from tcpair import ScenarioError
from tcpair._errors import StoreLocked
from tcpair.results.store import Store
from tcpair.sweeper.backends import DaskBackend, WorkerDied
from tcpair.sweeper.definition import parse_sweep
from tcpair.sweeper.runner import open_sweep, run_sweep, run_task

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")
# Columns that legitimately differ between two executions of the same run.
VOLATILE = ["run_wall_s", "finished_at"]


def small_sweep(ps: list[float], seeds: Any = 2, duration: float = 20.0, **extra: Any) -> dict:
    return {
        "name": "small",
        "scenario": CLRP,
        "seeds": seeds,
        "set": {"run.duration": duration},
        "axis": [{"name": "p", "param": "links.wireless.forward.loss.p", "values": ps}],
        **extra,
    }


def stable(df: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by key and flow, volatile columns dropped, for comparisons."""
    return (
        df.drop(columns=[c for c in VOLATILE if c in df.columns])
        .sort_values(["run_key", "flow"])
        .reset_index(drop=True)
    )


def test_sweep_stores_every_run_once(tmp_path: Path) -> None:
    res = tcpair.sweep(small_sweep([0.0, 0.02]), tmp_path / "s", jobs=1, progress=False)
    assert res.stats[0].executed == 4 and res.stats[0].failed == 0
    df = tcpair.load_results(tmp_path / "s")
    assert len(df) == 4 and df["run_key"].is_unique
    assert set(df["status"]) == {"ok"}
    assert {"p", "seed", "flow", "goodput_kbps", "run_events"} <= set(df.columns)
    assert "scenario" not in df.columns
    full = tcpair.load_results(tmp_path / "s", with_scenario=True)
    assert '"seed":' in full.loc[0, "scenario"]
    # Compacted into one Parquet file that plain pyarrow reads.
    assert not list((tmp_path / "s" / "runs").glob("*.parquet"))
    table = pq.read_table(tmp_path / "s" / "runs.parquet")
    assert table.num_rows == 4
    pts = res.points()
    assert list(pts["goodput_kbps_n"]) == [2, 2]
    assert pts.loc[pts["p"] == 0.0, "goodput_kbps_mean"].item() > 1900


def test_kept_tables_are_stored_per_run(tmp_path: Path) -> None:
    res = tcpair.sweep(
        small_sweep([0.05], seeds=2, keep=["drops"]), tmp_path / "s", jobs=1, progress=False
    )
    drops = Store(tmp_path / "s").load_table("drops")
    assert set(drops["run_key"]) == {t.key for t in res.tasks}
    assert len(drops) > 0 and set(drops["cause"]) == {"corruption"}
    assert Store(tmp_path / "s").load_table("timeseries").empty


@pytest.mark.usefixtures("restores_what_polars_sets")
def test_other_readers(tmp_path: Path) -> None:
    tcpair.sweep(small_sweep([0.01], seeds=1), tmp_path / "s", jobs=1, progress=False)
    path = str(tmp_path / "s" / "runs.parquet")
    import polars  # a test extra: another reader than pyarrow, which wrote the file

    assert polars.read_parquet(path).height == 1


def test_resume_runs_only_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "s"
    first = run_sweep(small_sweep([0.01, 0.02]), out, jobs=1, progress=False)
    assert first.stats[0].executed == 4
    before = tcpair.load_results(out).set_index("run_key")["finished_at"]
    again = run_sweep(small_sweep([0.01, 0.02]), out, jobs=1, progress=False)
    assert again.stats[0].executed == 0 and again.stats[0].skipped == 4
    grown = run_sweep(small_sweep([0.01, 0.02, 0.05], seeds=3), out, jobs=1, progress=False)
    assert grown.stats[0].executed == 9 - 4
    after = tcpair.load_results(out).set_index("run_key")["finished_at"]
    assert (after.loc[before.index] == before).all(), "stored runs were run again"
    assert len(grown.runs) == 9
    # Shrinking the sweep keeps old runs in the store but not in the sweep's view.
    small = run_sweep(small_sweep([0.01]), out, jobs=1, progress=False)
    assert small.stats[0].executed == 0 and len(small.runs) == 2
    assert len(tcpair.load_results(out)) == 9


def test_a_resumed_sweep_leaves_its_definition_and_manifest_as_they_were(tmp_path: Path) -> None:
    """Each rerun used to write sweep.json again and add its line to the manifest,
    which then grew by a line a rerun; a changed sweep still writes its new one."""
    out = tmp_path / "s"
    run_sweep(small_sweep([0.01]), out, jobs=1, progress=False)
    manifest = (out / "manifest.jsonl").read_text()
    stamp = (out / "sweep.json").stat().st_mtime_ns
    for _ in range(2):
        run_sweep(small_sweep([0.01]), out, jobs=1, progress=False)
    assert (out / "manifest.jsonl").read_text() == manifest
    assert (out / "sweep.json").stat().st_mtime_ns == stamp
    run_sweep(small_sweep([0.01, 0.02]), out, jobs=1, progress=False)
    assert "0.02" in (out / "sweep.json").read_text()
    assert Store(out).check() == []  # the manifest holds the new definition's checksum


def test_a_local_dask_cluster_leaves_this_process_s_environment_as_it_was(
    tmp_path: Path,
) -> None:
    """Its nannies set OMP_NUM_THREADS, MALLOC_TRIM_THRESHOLD_, ... here for their workers;
    a notebook's later child processes would inherit them."""
    before = dict(os.environ)
    run_sweep(small_sweep([0.0], seeds=1), tmp_path / "s", progress=False, dask_local=1)
    assert dict(os.environ) == before


def test_backends_give_identical_results(tmp_path: Path) -> None:
    spec = small_sweep([0.0, 0.02, 0.05], seeds=2)
    tables = []
    for name, opts in (
        ("inproc", {"jobs": 1}),
        ("pool", {"jobs": 2}),
        ("dask", {"dask_local": 2}),
    ):
        run_sweep(spec, tmp_path / name, progress=False, **opts)
        tables.append(stable(tcpair.load_results(tmp_path / name)))
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other)


def test_failures_are_stored_and_the_sweep_goes_on(tmp_path: Path) -> None:
    spec = small_sweep(
        [0.01, 1.5],
        seeds=1,
        axis=[
            {"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.01, 1.5]},
            {"name": "budget", "param": "run.event_budget", "values": [10_000_000, 100]},
        ],
    )
    res = run_sweep(spec, tmp_path / "s", jobs=2, progress=False)
    assert res.stats[0].executed == 4 and res.stats[0].failed == 3
    fails = res.failures.set_index(["p", "budget"])
    assert fails.loc[(1.5, 10_000_000), "error_kind"] == "scenario"
    assert "1.5" in fails.loc[(1.5, 10_000_000), "error"]
    assert fails.loc[(0.01, 100), "error_kind"] == "simulation"
    assert "budget" in fails.loc[(0.01, 100), "error"]
    ok = res.runs[res.runs["status"] == "ok"]
    assert len(ok) == 1
    # Failed runs are not retried unless asked.
    again = run_sweep(spec, tmp_path / "s", jobs=1, progress=False)
    assert again.stats[0].executed == 0
    retried = run_sweep(spec, tmp_path / "s", jobs=1, progress=False, retry_failed=True)
    assert retried.stats[0].executed == 3
    assert len(tcpair.load_results(tmp_path / "s")) == 4


def test_all_invalid_is_bad_input_with_no_output(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"every run is invalid; at p=2\.0.*loss"):
        run_sweep(small_sweep([2.0, 3.0]), tmp_path / "s", jobs=1, progress=False)
    assert not (tmp_path / "s").exists()


def test_until_ci_adds_seeds_where_needed(tmp_path: Path) -> None:
    res = run_sweep(
        small_sweep([0.0, 0.05], seeds=2, duration=30.0),
        tmp_path / "s",
        jobs=2,
        progress=False,
        until_ci=0.02,
        max_seeds=6,
    )
    pts = res.points().set_index("p")
    # No loss: every seed gives the same goodput, so two seeds already agree.
    assert pts.loc[0.0, "goodput_kbps_n"] == 2
    n = pts.loc[0.05, "goodput_kbps_n"]
    half = pts.loc[0.05, "goodput_kbps_ci95"]
    mean = pts.loc[0.05, "goodput_kbps_mean"]
    assert n > 2
    assert half <= 0.02 * mean or n == 6
    # The store remembers the per-point seeds: reopening gives the same plan.
    again = open_sweep(tmp_path / "s")
    assert sorted(t.key for t in again.tasks) == sorted(t.key for t in res.tasks)


def test_store_lock(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    with store.writer(), pytest.raises(StoreLocked, match="in use"), Store(tmp_path / "s").writer():
        pass
    with store.writer():  # released
        pass


def test_load_results_of_a_non_store(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not a tcpair results directory"):
        tcpair.load_results(tmp_path)


def test_interrupted_compaction_keeps_one_row_per_run(tmp_path: Path) -> None:
    """A crash between writing runs.parquet and deleting run files leaves
    duplicates on disk; loading must still see each run once."""
    out = tmp_path / "s"
    run_sweep(small_sweep([0.01, 0.02], seeds=1), out, jobs=1, progress=False)
    df = pq.read_table(out / "runs.parquet").to_pandas()
    for key, rows in df.groupby("run_key"):
        pq.write_table(
            __import__("pyarrow").Table.from_pandas(rows, preserve_index=False),
            out / "runs" / f"{key}.parquet",
        )
    (out / "runs" / ".tmp-junk.parquet").write_bytes(b"half a file")
    assert len(tcpair.load_results(out)) == 2
    assert len(Store(out).status()) == 2


# -- crash safety ------------------------------------------------------------------


def _write_sweep(
    tmp_path: Path,
    ps: str = "[0.0, 0.02]",
    seeds: int = 2,
    duration: float = 20.0,
    name: str = "cli",
) -> Path:
    """A one-axis sweep file over the wireless loss rate, on the real scenario."""
    f = tmp_path / f"{name}.toml"
    f.write_text(
        f"""name = "{name}"
scenario = "{CLRP}"
seeds = {seeds}
set = {{ "run.duration" = {duration} }}
[[axis]]
name = "p"
param = "links.wireless.forward.loss.p"
values = {ps}
"""
    )
    return f


def _stored_runs(runs_dir: Path) -> dict[str, str]:
    """``run_key -> finished_at`` of every run in the committed group files
    (each one complete and readable whenever it is there)."""
    out: dict[str, str] = {}
    for p in sorted(runs_dir.glob("*.parquet")):
        if not p.name.startswith("."):
            t = pq.read_table(p, columns=["run_key", "status", "finished_at"])
            assert set(t.column("status").to_pylist()) == {"ok"}
            keys, finished = t.column("run_key"), t.column("finished_at")
            out.update(zip(keys.to_pylist(), finished.to_pylist(), strict=True))
    return out


def test_sigkill_mid_sweep_loses_nothing_and_resumes(tmp_path: Path) -> None:
    sweep_file = _write_sweep(
        tmp_path, "[0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1]", 12, 800.0, "kill"
    )
    out = tmp_path / "store"
    total = 8 * 12
    cmd = [sys.executable, "-m", "tcpair", "sweep", str(sweep_file), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--jobs", "2"],
        env=tcpair_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    runs_dir = out / "runs"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if runs_dir.is_dir() and len(_stored_runs(runs_dir)) >= 10:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "sweep finished before it could be killed; make runs longer"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    survivors = _stored_runs(runs_dir)
    assert 10 <= len(survivors) < total
    assert not (out / "runs.parquet").exists(), "killed before compaction"
    assert Store(out).check() == []
    # The rerun executes exactly the runs that were not stored.
    rerun = subprocess.run(
        [*cmd, "--jobs", "2"], env=tcpair_env(), capture_output=True, text=True, timeout=300
    )
    assert rerun.returncode == 0, rerun.stderr
    done = f"{total - len(survivors)} runs executed (0 failed); {total} runs in the plan"
    assert f"{done}, {len(survivors)} of them already stored" in (" ".join(rerun.stdout.split()))
    df = tcpair.load_results(out)
    assert len(df) == total and df["run_key"].is_unique
    kept = df.set_index("run_key").loc[list(survivors), "finished_at"]
    assert kept.to_dict() == survivors, "runs stored before the kill were run again"


def test_what_watch_raises_stops_the_sweep_and_a_rerun_completes_it(tmp_path: Path) -> None:
    """`reproduce` watches the pages drawn while the next sweep runs: a page that
    failed stops that sweep at once, with the page's error; the runs stored by then
    stay stored, and running the sweep again runs only the others."""
    spec = small_sweep([0.0, 0.01, 0.02], seeds=16, duration=2000.0)
    out = tmp_path / "store"

    def watch() -> None:  # fails once a first group of runs is stored
        if _stored_runs(out / "runs"):
            raise RuntimeError("a page failed")

    with pytest.raises(RuntimeError, match="a page failed"):
        run_sweep(spec, out, jobs=2, progress=False, watch=watch)
    stopped = _stored_runs(out / "runs")
    assert 0 < len(stopped) < 48, "the sweep ran on after watch raised"
    again = run_sweep(spec, out, jobs=2, progress=False)
    assert sum(s.executed for s in again.stats) == 48 - len(stopped)
    df = tcpair.load_results(out)
    assert len(df) == 48 and df["run_key"].is_unique
    kept = df.set_index("run_key").loc[list(stopped), "finished_at"]
    assert kept.to_dict() == stopped, "stored runs were run again"


def _sweep_in_a_terminal(sweep_file: Path, out: Path, *options: str) -> subprocess.Popen[str]:
    """`tcpair sweep` in a session of its own, as a terminal runs it (Ctrl-C then
    reaches its whole process group), returned once a first group of its runs is stored."""
    proc = start_as_in_a_terminal(
        [sys.executable, "-m", "tcpair", "sweep", str(sweep_file), "--out", str(out), *options],
        env=tcpair_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and not _stored_runs(out / "runs"):
        time.sleep(0.02)
    assert proc.poll() is None, "sweep finished before the interrupt"
    return proc


def test_ctrl_c_stops_at_once_with_a_resume_hint(tmp_path: Path) -> None:
    sweep_file = _write_sweep(tmp_path, "[0.01, 0.05]", 6, 20000.0, "long")
    out = tmp_path / "store"
    proc = _sweep_in_a_terminal(sweep_file, out)
    err = ctrl_c(proc)
    assert proc.returncode == 130
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("error: interrupted") and "run the same command again" in last
    assert "Traceback" not in err
    assert _stored_runs(out / "runs")
    with Store(out).writer():  # the lock was released
        pass


def test_ctrl_c_on_a_local_dask_cluster_prints_no_traceback(tmp_path: Path) -> None:
    """The terminal's Ctrl-C reaches the local cluster's workers too, one of them
    idle: they leave it to the sweep, which closes the cluster and says how to resume."""
    pytest.importorskip("distributed")
    sweep_file = tmp_path / "idle.toml"
    sweep_file.write_text(
        f'name = "idle"\nscenario = "{CLRP}"\nseeds = 1\n'
        '[[axis]]\nname = "d"\nparam = "run.duration"\nvalues = [0.5, 400000.0]\n'
    )
    out = tmp_path / "store"
    proc = _sweep_in_a_terminal(sweep_file, out, "--dask-local", "2")
    t0 = time.monotonic()
    err = ctrl_c(proc)
    assert proc.returncode == 130
    assert time.monotonic() - t0 < 30, "the cluster's busy worker was not stopped"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("error: interrupted") and "run the same command again" in last


# -- Dask: a worker killed mid-run ---------------------------------------------------


def kill_first_attempt(marker: str, *task: Any) -> dict[str, Any]:
    """Worker function that kills its own process the first time it runs
    (``task``: :func:`run_task`'s arguments)."""
    if not os.path.exists(marker):
        Path(marker).write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return run_task(*task)


class KillingDask(DaskBackend):
    """Dask backend whose first task kills the worker running it."""

    def __init__(self, marker: Path, **kw: Any) -> None:
        super().__init__(**kw)
        self.marker = str(marker)

    def map_unordered(self, fn, items, keys=None, tick=None):  # type: ignore[no-untyped-def]
        wrapped = [(self.marker, *args) for args in items]
        yield from super().map_unordered(kill_first_attempt, wrapped, keys, tick)


def test_dask_worker_killed_mid_run(tmp_path: Path) -> None:
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed"
    spec = parse_sweep(small_sweep([0.01, 0.05], seeds=2))
    with KillingDask(marker, local_workers=2) as backend:
        res = run_sweep(spec, tmp_path / "s", backend=backend, progress=False)
    assert marker.is_file(), "no worker was killed"
    killed_pid = int(marker.read_text())
    assert killed_pid != os.getpid()
    assert res.stats[0].executed == 4 and res.stats[0].failed == 0
    df = tcpair.load_results(tmp_path / "s")
    assert len(df) == 4 and df["run_key"].is_unique and set(df["status"]) == {"ok"}
    # Same numbers as an undisturbed run.
    run_sweep(spec, tmp_path / "ref", jobs=1, progress=False)
    pd.testing.assert_frame_equal(stable(df), stable(tcpair.load_results(tmp_path / "ref")))


def test_local_pool_survives_a_dying_worker(tmp_path: Path) -> None:
    """A run whose worker keeps dying is recorded as failed; the others complete."""
    from tcpair.sweeper.backends import LocalBackend
    from tcpair.sweeper.workers import MAX_CRASHES

    items = [(i,) for i in range(4)]
    results = dict(LocalBackend(2).map_unordered(_die_on_two, items))
    assert results[0] == 0 and results[1] == 1 and results[3] == 3
    assert isinstance(results[2], WorkerDied) and str(MAX_CRASHES) in results[2].message


def _die_on_two(i: int) -> int:
    if i == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return i


# -- the CLI ---------------------------------------------------------------------


def test_cli_sweep_dry_run_results_and_report(cli, tmp_path: Path) -> None:
    f = _write_sweep(tmp_path)
    out = tmp_path / "store"
    code, stdout, err = cli("sweep", str(f), "--out", str(out), "--dry-run")
    assert code == 0, err
    assert "2 points x 2 seeds = 4 runs" in stdout and "4 to run" in stdout
    assert not out.exists(), "a dry run writes nothing"
    code, stdout, err = cli("sweep", str(f), "--out", str(out), "--jobs", "1")
    assert code == 0, err
    assert "4 runs executed (0 failed); 4 runs in the plan, 0 of them already stored" in " ".join(
        stdout.split()
    )
    code, stdout, _ = cli("sweep", str(f), "--out", str(out), "--dry-run")
    assert "4 stored" in stdout and "0 to run" in stdout
    code, stdout, err = cli("results", str(out))
    assert code == 0, err
    assert "goodput_kbps" in stdout and "4 ok" in stdout
    code, stdout, err = cli("results", str(out), "--json")
    obj = __import__("json").loads(stdout)
    assert [p["goodput_kbps_n"] for p in obj["points"]] == [2, 2] and obj["failures"] == []
    code, stdout, err = cli("report", str(out))
    assert code == 0, err
    assert (out / "report" / "index.html").is_file()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["sweep", "nosuch.toml"], "nosuch.toml: no such sweep file"),
        (["sweep", "{f}", "--jobs", "0"], "--jobs"),
        (["sweep", "{f}", "--until-ci", "1.5"], "--until-ci"),
        (["sweep", "{f}", "--scheduler", "tcp://a:1", "--dask-local", "2"], "give one, not both"),
        (["results", "{tmp}"], "not a tcpair sweep directory"),
        (["results", "{tmp}/none"], "no such results directory"),
        (["report", "{tmp}"], "no results here"),
        (
            ["sweep", "{f}", "--ci-metric", "nosuch", "--until-ci", "0.1"],
            "metric 'nosuch': no such flow metric",
        ),
    ],
)
def test_cli_sweep_errors(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], needle: str
) -> None:
    f = _write_sweep(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = [a.format(f=f, tmp=tmp_path) for a in args]
    code, _, err = cli(*args)
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert lines[-1].startswith("error: ") and needle in lines[-1], err
    assert "Traceback" not in err
    assert not (tmp_path / "results").exists(), "bad input must leave no output"


def test_cli_list_counts_runs(cli) -> None:
    code, stdout, _ = cli("list", "--json")
    assert code == 0
    sweeps = __import__("json").loads(stdout)["sweeps"]
    b = sweeps["baseline"]
    assert b["target"] and b["runs"] == b["points"] * b["seeds"] and b["quick_runs"] < b["runs"]
