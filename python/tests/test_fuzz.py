"""The fuzz suite of the Python API and the CLI (docs/reliability.md).

Hypothesis generates scenarios (chains of wired and wireless links, every error
model and BS agent, every variant) with edge numbers in random places, and
arbitrary values where a scenario should be. Whatever comes in, the API returns
a result that keeps its invariants (packets conserved, finite non-negative
numbers, goodput at most the bottleneck's capacity, delays at least the
propagation delay, the same result twice) or raises ``ScenarioError``,
``SimulationError`` with a one-line message, or a ``TypeError`` with one of the
API's own messages for an argument of the wrong type; the CLI exits 0
or 2 with at most one line on stderr and never a traceback. Each example has a
wall-clock deadline.

Short budget by default; the long budget is ``TCPAIR_FUZZ_EXAMPLES=100000``
(``bash .ci/fuzz`` runs both suites with it). Failures found become
``@example`` cases here.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tcpair._core")

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tcpair
from tcpair.base.tomlout import dumps

EXAMPLES = int(os.environ.get("TCPAIR_FUZZ_EXAMPLES", "30"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=EXAMPLES <= 100,  # the short budget is the same on every run
)
ALLOWED = (tcpair.ScenarioError, tcpair.SimulationError, TypeError)

# The API's own messages for an argument of the wrong type (``raise TypeError`` in
# python/tcpair: the checks of a scenario, a seed, a folder, a count, a trace,
# overrides and a sweep), as patterns of the whole message. Any other TypeError
# (say ``None + 1`` deep inside) is a bug the fuzz suite must report.
API_TYPE_ERRORS = tuple(
    re.compile(p)
    for p in (
        r"scenario: expected a TOML file path, a shipped scenario's name or a dict, got \w+",
        r"seed: expected a whole number from 0 to 2\*\*63 - 1, got .+",
        r"\w+: expected a folder's path, got \w+",
        r"\w+: expected a whole number >= 1, got .+",
        r"trace: expected True, False or a file's path, got \w+",
        r"overrides: expected a dict or a list of 'dotted\.key=value' strings, got \w+",
        r"overrides: expected 'dotted\.key=value' strings, got .+",
        r"sweep: expected a sweep file's path, a shipped sweep's name or a dict, got \w+",
    )
)

EDGES = [
    0,
    5e-324,
    1e-10,
    4e-10,
    1e-9,
    2**31,
    2**32 - 2,
    2**63,
    2**64 - 1,
    2**64,
    1e300,
    -1,
    math.nan,
    math.inf,
    -math.inf,
    "x" * 10_000,
    "",
    True,
    None,
]


def num(lo: float, hi: float) -> st.SearchStrategy[Any]:
    """Mostly a sane number, sometimes an edge."""
    sane = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    return st.one_of(sane, sane, sane, sane, sane, sane, sane, sane, st.sampled_from(EDGES))


def loss() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda p: {"model": "uniform", "p": p}, num(0, 0.2)),
        st.builds(lambda b: {"model": "ber", "ber": b}, num(0, 1e-4)),
        st.builds(lambda p: {"model": "expo", "p": p}, num(0, 0.2)),
        st.builds(
            lambda g, b: {
                "model": "markov2",
                "p_good_to_bad": g,
                "p_bad_to_good": b,
                "loss_good": 0.0,
                "loss_bad": 0.5,
            },
            num(0, 0.3),
            num(0, 1),
        ),
        st.builds(
            lambda g, b: {
                "model": "markov2_time",
                "mean_good": g,
                "mean_bad": b,
                "loss_good": 0.001,
                "loss_bad": 0.5,
            },
            num(1e-3, 2),
            num(1e-3, 0.5),
        ),
    )


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 4))
    nodes: list[dict[str, Any]] = [{"name": f"n{i}"} for i in range(n)]
    agent = draw(st.sampled_from([None, "snoop", "snoop_ns2", "eln_snoop", "syndrome", "clrp"]))
    if agent:
        nodes[n - 2].update(kind="router", bs=[agent])
    links = []
    for i in range(n - 1):
        link: dict[str, Any] = {
            "name": f"l{i}",
            "from": f"n{i}",
            "to": f"n{i + 1}",
            "bandwidth": draw(num(1e5, 2e7)),
            "delay": draw(num(0, 0.05)),
            "queue": draw(st.one_of(st.integers(1, 80), st.sampled_from(EDGES))),
            "kind": draw(st.sampled_from(["wired", "wireless"])),
        }
        if draw(st.booleans()):
            link["forward"] = {"loss": draw(loss())}
        links.append(link)
    variants = ["tahoe", "reno", "newreno", "sack", "veno", "westwood+", "pr", "pr_star"]
    flows = [
        {
            "src": "n0",
            "dst": f"n{n - 1}",
            "variant": draw(st.sampled_from(variants)),
            "start": draw(num(0, 1)),
            "window": draw(st.one_of(*[st.integers(1, 64)] * 4, st.sampled_from(EDGES))),
            "tcp": {"initial_cwnd": draw(num(1, 10))},
        }
        for _ in range(draw(st.integers(1, 2)))
    ]
    return {
        "run": {
            "duration": draw(num(0.5, 10)),
            "seed": draw(st.one_of(st.integers(0, 1000), st.sampled_from(EDGES))),
            "event_budget": 200_000,
        },
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }


def _one_line(exc: BaseException) -> None:
    """``exc`` is an error the API may raise (:data:`ALLOWED`), its message one line:
    a ``TypeError`` only with one of the API's own messages."""
    msg = str(exc)
    assert msg.strip() and "\n" not in msg and "Traceback" not in msg, repr(msg)
    if isinstance(exc, TypeError):
        assert any(p.fullmatch(msg) for p in API_TYPE_ERRORS), (
            f"a TypeError that is not one of the API's own: {msg!r}"
        )


def _numbers_ok(v: Any, path: str = "result") -> None:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return
    if isinstance(v, int | float):
        floor = -1 if ".seq_sent" in path else 0
        assert math.isfinite(v) and v >= floor, f"{path} = {v}"
    elif isinstance(v, dict):
        for k, x in v.items():
            _numbers_ok(x, f"{path}.{k}")
    elif isinstance(v, list):
        for x in v:
            _numbers_ok(x, path)


def _invariants(sc: dict[str, Any], res: tcpair.Result) -> None:
    pk = res.summary["packets"]
    assert pk["sent"] + pk["copies"] + pk["injected"] == (
        pk["delivered"] + pk["dropped"] + pk["absorbed"] + pk["in_flight"]
    ), pk
    _numbers_ok(res.raw)
    capacity = min(float(link["bandwidth"]) for link in sc["links"])
    prop = sum(float(link["delay"]) for link in sc["links"])
    for f in res.raw["flows"]:
        slack = 8 * f["packet_size"] * 2 / max(f["measured_s"], 1e-9)
        assert f["goodput_kbps"] * 1e3 <= capacity + slack, (f["goodput_kbps"], capacity)
        for key in ("delay_mean_s", "delay_p50_s"):
            if f.get(key) is not None:
                assert f[key] + 1e-9 >= prop, (key, f[key], prop)


def _stable(res: tcpair.Result) -> str:
    raw = dict(res.raw)
    raw["summary"] = {k: v for k, v in raw["summary"].items() if k != "wall_s"}
    return json.dumps(raw, sort_keys=True)


@FUZZ
@given(sc=scenarios())
@example(
    sc={
        "run": {"duration": 1.0, "seed": 2**63, "event_budget": 1000},
        "nodes": [{"name": "n0"}, {"name": "n1"}],
        "links": [{"from": "n0", "to": "n1", "bandwidth": 1e6, "delay": 0.01, "queue": 2**32 - 2}],
        "flows": [{"src": "n0", "dst": "n1", "tcp": {"initial_cwnd": 1e9}}],
    }
)
def test_api_random_scenarios_keep_the_invariants(sc: dict[str, Any]) -> None:
    try:
        res = tcpair.run(sc)
    except ALLOWED as exc:
        _one_line(exc)
        return
    _invariants(sc, res)
    assert _stable(tcpair.run(sc)) == _stable(res), "not deterministic"


JSONISH = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20),
        st.sampled_from(EDGES),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=10), st.integers(), st.tuples(st.integers())),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=30,
)


def _nest(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


@FUZZ
@given(value=JSONISH, seed=st.one_of(st.none(), st.integers(-5, 2**65), st.text(max_size=3)))
@example(value=[], seed=None)
@example(value={("a", "b"): 1}, seed=None)
@example(value={"run": {"duration": 1}, "flows": _nest(100)}, seed=None)
@example(value={"run": {"duration": math.nan}}, seed="abc")
@example(value="x" * 10_000, seed=None)  # found: OSError "File name too long"
@example(value="\n", seed=None)  # found: a line break in the message
@example(value={"\n": math.inf}, seed=None)  # found: the same, from a key
@example(value={"\n": {0: None}}, seed=None)
def test_api_arbitrary_values_are_errors_not_crashes(value: Any, seed: Any) -> None:
    for call in (tcpair.validate, tcpair.run):
        try:
            call(value, seed=seed)
        except ALLOWED as exc:
            _one_line(exc)


KEYS = [
    "run.duration",
    "run.seed",
    "run.warmup",
    "links.wired.queue",
    "links.wired.delay",
    "links.wired.bandwidth",
    "links.wireless.forward.loss.p",
    "flows.tcp1.window",
    "flows.tcp1.packet_size",
    "flows.tcp1.tcp.initial_cwnd",
    "flows.tcp1.tcp.initial_rto",
    "output.interval",
]
VALUES = st.one_of(
    st.sampled_from(
        ["nan", "inf", "-1", "0", "1e-10", "4e-10", "1e11", "4294967295", "2147483647",
         "9223372036854775808", "18446744073709551615", "[[[[1]]]]", "{a=1}", "10Mb", "x" * 500]
    ),
    st.text(max_size=12),
)


@FUZZ
@given(key=st.sampled_from(KEYS), value=VALUES)
def test_cli_validate_is_exit_0_or_one_line_exit_2(cli, key: str, value: str) -> None:
    from tcpair.base.paths import scenario_path

    code, _, err = cli("validate", str(scenario_path("clrp_one_link")), "--set", f"{key}={value}")
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), err


@FUZZ
@given(sc=scenarios())
def test_cli_runs_generated_files(cli, tmp_path_factory: pytest.TempPathFactory, sc: dict) -> None:
    try:
        text = dumps(sc)
    except (TypeError, ValueError):  # NaN and friends have no TOML form here
        return
    f = Path(tmp_path_factory.mktemp("fuzz")) / "s.toml"
    f.write_text(text)
    code, out, err = cli("run", str(f), "--json")
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 0:
        assert json.loads(out)["flows"] is not None
    else:
        assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err


# -- the fuzz suite's own checks -------------------------------------------------


@pytest.mark.parametrize(
    ("call", "args", "kwargs"),
    [
        ("run", (42,), {}),
        ("validate", (b"x",), {}),
        ("validate", ({},), {"seed": "abc"}),
        ("run", ({},), {"seed": 1.5}),
    ],
)
def test_the_apis_own_type_errors_pass(call: str, args: tuple, kwargs: dict) -> None:
    """The patterns above match what the API says (a reworded message goes there too)."""
    with pytest.raises(TypeError) as info:
        getattr(tcpair, call)(*args, **kwargs)
    _one_line(info.value)


def test_an_internal_type_error_fails_the_fuzz_properties(monkeypatch) -> None:
    """A ``None + 1`` inside the API is a bug the properties report, not an answer."""

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        return None + 1  # type: ignore[operator]

    monkeypatch.setattr(tcpair, "run", broken)
    monkeypatch.setattr(tcpair, "validate", broken)
    for prop in (
        test_api_random_scenarios_keep_the_invariants,
        test_api_arbitrary_values_are_errors_not_crashes,
    ):
        with pytest.raises(AssertionError, match=r"not one of the API's own.*'NoneType'"):
            prop()
