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

import tcpair
from tcpair.backends import MAX_CRASHES, LocalBackend, WorkerDied
from tcpair.store import Store

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


def _env() -> dict[str, str]:
    """Subprocesses import the same tcpair as this test process."""
    env = dict(os.environ)
    pkg_parent = str(Path(tcpair.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + os.pathsep + env.get("PYTHONPATH", "")
    return env


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
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    it is written before its runs and is not part of the stored results)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (".lock", "sweep.json")
    }


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("tcpair.store.pq.write_table", OSError(28, "No space left on device")),
        ("tcpair.store.tempfile.mkstemp", PermissionError(13, "Permission denied")),
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


def test_out_under_a_file_is_one_line(cli, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, out, err = cli("run", CLRP, "--set", "run.duration=1", "--out", str(afile / "sub"))
    assert code == 2 and out == ""
    assert err.strip() == f"error: {afile}: exists and is not a directory"
    code, _, err = cli("sweep", str(_sweep_file(tmp_path, "[0.0]")), "--out", str(afile / "s"))
    assert code == 2 and err.strip().splitlines()[-1].startswith(f"error: {afile}/s")
