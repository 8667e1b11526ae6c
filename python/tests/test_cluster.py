"""A sweep on a Dask cluster started as a cluster user starts one (docs/cluster.md):
a ``dask scheduler`` process and ``dask worker`` processes, the workers in a
directory of their own; ``tcpair sweep --scheduler ADDRESS`` with a relative
``--out``. The results are written by the client only: the workers never see
the store (a relative path would resolve elsewhere from their directory) and
leave nothing in it, and the stored results equal an in-process sweep's."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from procs import tcpair_env

import tcpair
from tcpair.results.store import Store

pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(scheduler address, the workers' directory) of a 2-worker cluster."""
    work = tmp_path / "workers"
    work.mkdir()
    info = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m"]
    procs = [
        subprocess.Popen(
            [
                *dask,
                "distributed.cli.dask_scheduler",
                *("--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0"),
                *("--scheduler-file", str(info)),
            ],
            cwd=tmp_path,
            env=tcpair_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not info.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(
            subprocess.Popen(
                [
                    *dask,
                    "distributed.cli.dask_worker",
                    *(address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"),
                    *("--local-directory", str(tmp_path / "scratch")),
                ],
                cwd=work,
                env=tcpair_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        # Waited for from a process of its own, as the sweeps below run: a Dask client in
        # the test process would share that process's state with every test before it.
        wait = (
            "from distributed import Client\n"
            f"Client({address!r}, timeout='30s').wait_for_workers(2, timeout=60)"
        )
        subprocess.run([sys.executable, "-c", wait], env=tcpair_env(), check=True, timeout=120)
        yield address, work
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _tcpair(*args: str, cwd: Path) -> tuple[int, str, str]:
    """``tcpair ARGS`` as a process of its own, as a cluster's user runs it."""
    proc = subprocess.run(
        [sys.executable, "-m", "tcpair", *args],
        cwd=cwd, env=tcpair_env(), capture_output=True, text=True, timeout=600,
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_a_sweep_on_a_cluster_is_written_by_the_client_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cluster: tuple[str, Path]
) -> None:
    address, work = cluster
    here = tmp_path / "client"
    here.mkdir()
    monkeypatch.chdir(here)
    Path("tiny.toml").write_text(
        f'name = "tiny"\nscenario = "{CLRP}"\nseeds = 40\n'
        'set = { "run.duration" = 0.5 }\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.0, 0.05]\n'
    )
    code, stdout, err = _tcpair(
        "sweep", "tiny.toml", "--out", "store", "--scheduler", address, cwd=here
    )
    assert code == 0, err
    assert "80 runs executed (0 failed)" in " ".join(stdout.split())
    assert Store("store").check() == []
    assert [p for p in work.rglob("*") if p.is_file()] == [], "a worker wrote a file"
    df = tcpair.load_results("store")
    assert len(df) == 80 and df["run_key"].is_unique and set(df["status"]) == {"ok"}
    code, _, err = _tcpair("sweep", "tiny.toml", "--out", "ref", "--jobs", "1", cwd=here)
    assert code == 0, err
    volatile = ["run_wall_s", "finished_at"]

    def stable(d: pd.DataFrame) -> pd.DataFrame:
        return d.drop(columns=volatile).sort_values("run_key").reset_index(drop=True)

    pd.testing.assert_frame_equal(stable(df), stable(tcpair.load_results("ref")))


def test_workers_elsewhere_import_a_detector_beside_the_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cluster: tuple[str, Path]
) -> None:
    """A Python detector in a module beside the scenario file: the workers, in a
    directory of their own, import it from the client's directory (docs/python.md)."""
    address, work = cluster
    here = tmp_path / "client"
    (here / "exp").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # neither the scenario's directory nor the workers'
    lda = (REPO / "scenarios" / "lda_mixed.toml").read_text()
    old = 'tcp = { detector = "none", responder = 1 }'
    for name, det in (("py", '{ python = "userdet:Mine" }'), ("rs", '"lda_eq"')):
        (here / "exp" / f"{name}.toml").write_text(
            lda.replace(old, f"tcp = {{ detector = {det} }}")
        )
        (here / f"{name}_sweep.toml").write_text(
            f'name = "{name}"\nscenario = "exp/{name}.toml"\nseeds = 3\n'
            'set = { "run.duration" = 20.0 }\n'
        )
    (here / "exp" / "userdet.py").write_text(
        "from tcpair.examples.lda import LdaEq\n\n\nclass Mine(LdaEq):\n    pass\n"
    )
    code, _, err = _tcpair(
        "sweep", str(here / "py_sweep.toml"), "--out", "py", "--scheduler", address, cwd=tmp_path
    )
    assert code == 0, err
    code, _, err = _tcpair(
        "sweep", str(here / "rs_sweep.toml"), "--out", "rs", "--jobs", "1", cwd=tmp_path
    )
    assert code == 0, err
    py, rs = (tcpair.load_results(d).sort_values("seed") for d in ("py", "rs"))
    assert set(py["status"]) == {"ok"} and len(py) == 3
    assert list(py["goodput_kbps"]) == list(rs["goodput_kbps"])
    assert [p for p in work.rglob("*") if p.is_file()] == [], "a worker wrote a file"


@pytest.mark.parametrize("address", ["nonsense", "tcp://hostonly", "nosuchscheme://h:1"])
def test_an_address_dask_cannot_parse_is_one_line(address: str, tmp_path: Path, cli) -> None:
    """Not a traceback of Dask's address parser: the option, the value, the form."""
    out = tmp_path / "store"
    code, _, err = cli("sweep", str(REPO / "sweeps" / "clrp_fig8.toml"), "--quick",
                       "--out", str(out), "--scheduler", address)
    assert code == 2
    assert f"--scheduler {address!r}" in err and "tcp://HOST:PORT" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
