"""Detectors and responders written in Python (docs/python.md): the shipped twins
decide exactly as the built-in parts, user errors are clear (import errors before
any run, exceptions with the user's traceback, wrong answers), and both sweep
backends import the user's module and store a failing run as failed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import tcpair
from tcpair import PluginError, ScenarioError
from tcpair.base import plugin_dirs as _plugin_dirs
from tcpair.simulate.plugins import search_dirs

REPO = Path(__file__).resolve().parents[2]
LDA = REPO / "scenarios" / "lda_mixed.toml"
EXAMPLE = "tcpair.examples.lda"

USER_MODULE = '''
from tcpair.examples.lda import LdaEq


class Twin(LdaEq):
    """The shipped twin, from a module beside the scenario."""


class Boom:
    def __init__(self, after=3):
        self.left = after

    def classify(self, ctx):
        self.left -= 1
        if self.left == 0:
            return ctx.seq / 0
        return "wireless"


class Typo:
    def classify(self, ctx):
        return "wireles"


class Negative:
    def respond(self, ctx):
        return (-1.0, ctx.ssthresh)


class OwnResponse:
    def respond(self, ctx):
        return None


class NoMethod:
    pass
'''


@pytest.fixture(autouse=True)
def _fresh_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's ``userparts`` module is its own (Python imports a module once)."""
    monkeypatch.delitem(sys.modules, "userparts", raising=False)
    monkeypatch.setattr(_plugin_dirs, "_dirs", [])


def _run(tcp: dict[str, Any], seed: int = 1, p: float = 0.01) -> tcpair.Result:
    return tcpair.run(
        LDA,
        overrides={"flows.tcp1.tcp": tcp, "links.wireless.forward.loss.p": p},
        seed=seed,
    )


def _same_decisions(a: tcpair.Result, b: tcpair.Result) -> None:
    pd.testing.assert_frame_equal(a.recoveries, b.recoveries)
    fa, fb = a.flows.iloc[0], b.flows.iloc[0]
    for col in ("goodput_kbps", "fast_retransmits", "wireless_frs", "window_cuts", "timeouts"):
        assert fa[col] == fb[col], col


@pytest.mark.parametrize(("seed", "p"), [(1, 0.01), (2, 0.01), (3, 0.03)])
def test_the_python_lda_eq_decides_as_the_built_in(seed: int, p: float) -> None:
    built_in = _run({"detector": "lda_eq", "responder": 1}, seed, p)
    twin = _run(
        {
            "detector": {"python": f"{EXAMPLE}:LdaEq", "threshold": 0.5},
            "responder": {"python": f"{EXAMPLE}:Restore"},
        },
        seed,
        p,
    )
    fr = built_in.recoveries[built_in.recoveries.event == "fast_retransmit"]
    # The path has both kinds of loss, and the detector says both.
    assert set(fr.true_verdict) >= {"wireless", "congestion"}
    assert set(fr.verdict) == {"wireless", "congestion"}
    _same_decisions(built_in, twin)
    assert twin.flows.iloc[0]["detector"] == "python"


@pytest.mark.parametrize(("name", "cls"), [("veno", "Veno"), ("jtcp", "Jtcp")])
def test_the_python_veno_and_jtcp_decide_as_the_built_in(name: str, cls: str) -> None:
    for seed in (1, 2):
        built_in = _run({"detector": name}, seed)
        twin = _run({"detector": {"python": f"{EXAMPLE}:{cls}"}}, seed)
        fr = built_in.recoveries[built_in.recoveries.event == "fast_retransmit"]
        assert set(fr.verdict) == {"wireless", "congestion"}
        _same_decisions(built_in, twin)


@pytest.mark.parametrize("method", [21, 24, 13, 17])
def test_the_python_table1_responds_as_the_built_in(method: int) -> None:
    built_in = _run({"detector": "lda_eq", "responder": method})
    twin = _run(
        {"detector": "lda_eq", "responder": {"python": f"{EXAMPLE}:Table1", "method": method}}
    )
    assert built_in.flows.iloc[0]["wireless_frs"] > 0
    _same_decisions(built_in, twin)


def test_a_responder_may_answer_tcp_s_own_response(tmp_path: Path) -> None:
    sc = _scenario(
        tmp_path, {"detector": "lda_eq", "responder": {"python": "userparts:OwnResponse"}}
    )
    own = tcpair.run(sc)
    plain = _run({"detector": "lda_eq", "responder": 0})
    _same_decisions(plain, own)


def _scenario(tmp_path: Path, tcp: dict[str, Any]) -> Path:
    """A copy of lda_mixed with ``tcp`` and the user's module beside it."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "userparts.py").write_text(USER_MODULE)
    text = LDA.read_text().replace(
        'tcp = { detector = "none", responder = 1 }', f"tcp = {_inline(tcp)}"
    )
    path = tmp_path / "user.toml"
    path.write_text(text)
    return path


def _inline(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_inline(x)}" for k, x in v.items()) + " }"
    return f'"{v}"' if isinstance(v, str) else str(v)


def test_a_module_beside_the_scenario_file_is_found(tmp_path: Path) -> None:
    sc = _scenario(tmp_path, {"detector": {"python": "userparts:Twin"}, "responder": 1})
    _same_decisions(_run({"detector": "lda_eq", "responder": 1}), tcpair.run(sc))
    assert str(tmp_path.resolve()) in search_dirs()
    assert tcpair.validate(sc)["flows"][0]["tcp"]["detector"] == {"python": "userparts:Twin"}


def test_an_exception_stops_the_run_with_the_user_s_traceback(tmp_path: Path) -> None:
    sc = _scenario(tmp_path, {"detector": {"python": "userparts:Boom", "after": 3}})
    with pytest.raises(PluginError) as info:
        tcpair.run(sc)
    msg = str(info.value)
    assert msg.startswith(
        "flows.tcp1.tcp.detector: userparts:Boom.classify raised ZeroDivisionError"
    )
    assert f'File "{tmp_path / "userparts.py"}", line 16, in classify' in msg
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert isinstance(info.value, tcpair.SimulationError)


@pytest.mark.parametrize(
    ("tcp", "message"),
    [
        (
            {"detector": {"python": "userparts:Typo"}},
            "flows.tcp1.tcp.detector: userparts:Typo.classify returned 'wireles'; "
            'expected "wireless" or "congestion"',
        ),
        (
            {"detector": "always_wireless", "responder": {"python": "userparts:Negative"}},
            "flows.tcp1.tcp.responder: userparts:Negative.respond returned (-1.0, ",
        ),
    ],
)
def test_a_wrong_answer_is_a_clear_error(tmp_path: Path, tcp: dict, message: str) -> None:
    with pytest.raises(PluginError, match="^" + _escaped(message)):
        tcpair.run(_scenario(tmp_path, tcp))


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize(
    ("ref", "field", "message"),
    [
        ("nosuchmodule:X", "detector.python", "cannot import module 'nosuchmodule'"),
        ("userparts:Nope", "detector.python", "module 'userparts' has no 'Nope'"),
        ("userparts:NoMethod", "detector.python", "has no method classify(ctx)"),
        ("userparts", "detector.python", 'expected "module:Class"'),
    ],
)
def test_an_import_error_is_a_scenario_error(
    tmp_path: Path, ref: str, field: str, message: str
) -> None:
    sc = _scenario(tmp_path, {"detector": {"python": ref}})
    for call in (tcpair.run, tcpair.validate):
        with pytest.raises(ScenarioError, match=_escaped(f"flows.tcp1.tcp.{field}: ")) as info:
            call(sc)
        assert message in str(info.value)
        assert not isinstance(info.value, PluginError)


def test_unknown_keyword_arguments_name_the_field(tmp_path: Path) -> None:
    sc = _scenario(tmp_path, {"detector": {"python": "userparts:Boom", "aftre": 3}})
    with pytest.raises(ScenarioError, match=r"^flows\.tcp1\.tcp\.detector: .*aftre"):
        tcpair.validate(sc)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcpair", *args], cwd=cwd, capture_output=True, text=True
    )


def test_the_cli_validates_runs_and_reports_errors(tmp_path: Path) -> None:
    good = _scenario(tmp_path / "a", {"detector": {"python": "userparts:Twin"}})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _cli("validate", str(good), cwd=elsewhere).returncode == 0
    ok = _cli("run", str(good), "--json", cwd=elsewhere)
    assert ok.returncode == 0, ok.stderr
    bad = _scenario(tmp_path / "b", {"detector": {"python": "userparts:Nope"}})
    res = _cli("validate", str(bad), cwd=elsewhere)
    assert res.returncode == 2
    assert res.stderr.startswith("error: flows.tcp1.tcp.detector.python: module 'userparts'")
    assert len(res.stderr.splitlines()) == 1
    boom = _scenario(tmp_path / "c", {"detector": {"python": "userparts:Boom"}})
    res = _cli("run", str(boom), cwd=elsewhere)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("error: flows.tcp1.tcp.detector: userparts:Boom.classify raised")
    assert 'userparts.py", line 16, in classify' in res.stderr


def _sweep(tmp_path: Path, tcp: dict[str, Any], name: str) -> Path:
    _scenario(tmp_path, tcp)
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\nscenario = "user.toml"\nseeds = 2\nset = {{ "run.duration" = 20.0 }}\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.01, 0.02]\n'
    )
    return path


@pytest.mark.parametrize("backend", [{"jobs": 2}, {"dask_local": 2}], ids=["pool", "dask"])
def test_sweeps_import_the_user_s_module_on_workers(tmp_path: Path, backend: dict) -> None:
    if "dask_local" in backend:
        pytest.importorskip("distributed")
    twin = _sweep(tmp_path / "twin", {"detector": {"python": "userparts:Twin"}}, "twin")
    built = _sweep(tmp_path / "built", {"detector": "lda_eq"}, "built")
    a = tcpair.sweep(twin, tmp_path / "out_twin", progress=False, **backend)
    b = tcpair.sweep(built, tmp_path / "out_built", progress=False, jobs=1)
    assert (a.runs["status"] == "ok").all() and len(a.runs) == 4
    key = ["p", "seed"]
    ga = a.runs.sort_values(key).reset_index()["goodput_kbps"]
    gb = b.runs.sort_values(key).reset_index()["goodput_kbps"]
    pd.testing.assert_series_equal(ga, gb)
    boom = _sweep(tmp_path / "boom", {"detector": {"python": "userparts:Boom"}}, "boom")
    res = tcpair.sweep(boom, tmp_path / "out_boom", progress=False, **backend)
    fails = res.failures
    assert len(fails) == 4 and set(fails["error_kind"]) == {"plugin"}
    first = fails["error"].iloc[0]
    assert first.startswith("flows.tcp1.tcp.detector: userparts:Boom.classify raised Zero")
    assert 'userparts.py", line 16, in classify' in first


def test_editing_the_module_makes_new_runs(tmp_path: Path) -> None:
    spec = _sweep(tmp_path, {"detector": {"python": "userparts:Twin"}}, "edit")
    first = tcpair.sweep(spec, tmp_path / "out", progress=False, jobs=1)
    assert first.stats[0].executed == 4
    again = tcpair.sweep(spec, tmp_path / "out", progress=False, jobs=1)
    assert again.stats[0].executed == 0
    module = tmp_path / "userparts.py"
    module.write_text(module.read_text() + "\n# edited\n")
    edited = tcpair.sweep(spec, tmp_path / "out", progress=False, jobs=1)
    assert edited.stats[0].executed == 4


def test_a_class_of_the_running_script_runs_in_process(tmp_path: Path) -> None:
    script = f"""
import tcpair
from tcpair.examples.lda import LdaEq

class Mine(LdaEq):
    pass

over = {{"run.duration": 20}}
ref = tcpair.run({str(LDA)!r}, overrides={{**over, "flows.tcp1.tcp.detector": "lda_eq"}})
mine = tcpair.run({str(LDA)!r},
                  overrides={{**over, "flows.tcp1.tcp.detector": {{"python": "__main__:Mine"}}}})
assert mine.recoveries.equals(ref.recoveries)
print("same", len(mine.recoveries))
"""
    res = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("same ")


def test_a_traced_run_calls_the_python_part_too(tmp_path: Path) -> None:
    sc = _scenario(tmp_path, {"detector": {"python": "userparts:Twin"}})
    over = {"run.duration": 15}
    traced = tcpair.run(sc, overrides=over, trace=tmp_path / "t.parquet")
    plain = tcpair.run(LDA, overrides={**over, "flows.tcp1.tcp.detector": "lda_eq"})
    _same_decisions(plain, traced)
    assert len(traced.trace) > 0
    boom = _scenario(tmp_path / "b", {"detector": {"python": "userparts:Boom"}})
    with pytest.raises(PluginError, match=r"^flows\.tcp1\.tcp\.detector: userparts:Boom"):
        tcpair.run(boom, trace=True)
