"""Shared fixtures: a stand-in for the compiled core and CLI helpers; the check
that no test leaves this process's signal handlers, environment or working
directory changed (leaks.py), and fixtures that put back what libraries set.

The fake core lets the API, CLI and report code be tested before (and
independently of) the Rust core: it honours the JSON contract of
``tcpair._core`` and returns plausible, seed-deterministic numbers.
"""

from __future__ import annotations

import json
import os
import random
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from leaks import (  # noqa: F401  (autouse fixtures: every test is checked)
    unchanged_process_state,
    unchanged_process_state_by_module,
)

import tcpair._errors as errors_mod
from tcpair import ScenarioError
from tcpair.cli.main import main
from tcpair.evidence.models import pftk

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"


def _fake_run(scenario_json: str | list[str]) -> str:
    if isinstance(scenario_json, list):  # handed over, as the real core takes it
        (scenario_json,) = scenario_json
    sc = json.loads(scenario_json)
    run = sc.get("run", {})
    duration = float(run.get("duration", 300.0))
    if duration <= 0:
        raise ScenarioError(f"run.duration: must be > 0, got {duration}")
    seed = int(run.get("seed", 1))
    rng = random.Random(seed)
    flows = []
    for i, f in enumerate(sc.get("flows", [])):
        p = 0.0
        for link in sc.get("links", []):
            loss = link.get("forward", {}).get("loss", {})
            p = max(p, float(loss.get("p", 0.0)))
        window = float(f.get("window", 30))
        rate = pftk(p, 0.12, 0.5, wmax=window) * (1 + 0.02 * rng.uniform(-1, 1))
        rate = min(rate, 250.0)
        size = int(f.get("packet_size", 1000))
        good = rate * size * 8 / 1000
        flows.append(
            {
                "name": f.get("name", f"flow{i}"),
                "src": f.get("src"),
                "dst": f.get("dst"),
                "variant": f.get("variant", "reno"),
                "packet_size": size,
                "goodput_kbps": good,
                "throughput_kbps": good * (1 + p),
                "formula_throughput_mbps": good / 1000,
                "sent": int(rate * duration),
                "retransmits": int(rate * duration * p),
                "timeouts": int(10 * p * duration / 30),
                "fast_retransmits": int(rate * duration * p * 0.8),
                "window_cuts": int(rate * duration * p * 0.8),
                "arrived": int(rate * duration),
                "delivered": int(rate * duration),
                "delay_mean_s": 0.06,
                "delay_p50_s": 0.05,
                "delay_p95_s": 0.1,
                "delay_p99_s": 0.12,
                "e2e_delay_mean_s": 0.07,
                "app_delay_mean_s": 0.08,
                "mean_rtt_s": 0.12,
                "mean_rto_s": 0.4,
                "mean_timeout_rto_s": 0.5 if p > 0 else None,
            }
        )
    delivered = sum(f["delivered"] for f in flows)
    sent = sum(f["sent"] for f in flows)
    return json.dumps(
        {
            "summary": {
                "seed": seed,
                "duration_s": duration,
                "warmup_s": 0.0,
                "sim_time_s": duration,
                "events": 4 * sent,
                "wall_s": 0.001,
                "delivered_data_packets": delivered,
                "jain_fairness": 1.0,
                "packets": {
                    "sent": sent,
                    "copies": 0,
                    "delivered": delivered,
                    "dropped": sent - delivered,
                    "in_flight": 0,
                },
            },
            "flows": flows,
            "drops": {
                "time_s": [1.0],
                "flow": ["tcp1"],
                "kind": ["data"],
                "seq": [5],
                "packet_id": [17],
                "link": ["wireless"],
                "direction": ["forward"],
                "cause": ["corruption"],
                "link_kind": ["wireless"],
                "retx": [False],
            },
            "recoveries": {
                "time_s": [],
                "flow": [],
                "event": [],
                "seq": [],
                "window_cut": [],
                "true_cause": [],
                "true_link_kind": [],
            },
            "timeseries": {
                "time_s": [],
                "flow": [],
                "cwnd": [],
                "ssthresh": [],
                "seq_sent": [],
                "throughput_kbps": [],
            },
        }
    )


def _fake_validate(scenario_json: str) -> str:
    sc = json.loads(scenario_json)
    if float(sc.get("run", {}).get("duration", 1)) <= 0:
        raise ScenarioError("run.duration: must be > 0")
    return json.dumps(sc)


def _fake_catalog() -> str:
    return json.dumps(
        {
            "variants": [
                {"name": v, "summary": f"{v} recovery", "source": "RFC"}
                for v in ("tahoe", "reno", "newreno", "sack")
            ],
            "detectors": [{"name": "none", "summary": "plain TCP", "source": "RFC 5681"}],
            "error_models": [{"name": "uniform", "summary": "each packet lost with probability p"}],
            "impairments": ["loss", "reorder", "duplicate", "outages"],
        }
    )


@pytest.fixture
def fake_core(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """Replace the compiled core by the fake for the duration of a test."""
    mod = types.ModuleType("tcpair._fakecore")
    mod.run = _fake_run  # type: ignore[attr-defined]
    mod.validate = _fake_validate  # type: ignore[attr-defined]
    mod.catalog = _fake_catalog  # type: ignore[attr-defined]
    mod.__version__ = "0.0.0-fake"  # type: ignore[attr-defined]
    mod.ScenarioError = errors_mod.ScenarioError  # type: ignore[attr-defined]
    mod.SimulationError = errors_mod.SimulationError  # type: ignore[attr-defined]
    monkeypatch.setattr(errors_mod, "_core", mod)
    yield mod


def _restoring(variables: Callable[[], set[str]]) -> Iterator[None]:
    """Fixture body: the environment ``variables()`` (asked after the test) back as before."""
    before = dict(os.environ)
    yield
    for key in variables():
        if key in before:
            os.environ[key] = before[key]
        else:
            os.environ.pop(key, None)


@pytest.fixture
def restores_what_polars_sets() -> Iterator[None]:
    """For a test that imports polars: the import sets ``_RJEM_MALLOC_CONF`` (its
    allocator's settings) in this process's environment and leaves it there."""
    yield from _restoring(lambda: {"_RJEM_MALLOC_CONF"})


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``tcpair ARGS`` in-process; return (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Callable running the CLI in-process."""
    return lambda *args: run_cli(capsys, *args)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """With pytest-randomly (the test extras install it), the tests run in an order of
    its seed, printed in the header and, as ``-q`` leaves the header out, here too:
    ``-p randomly --randomly-seed=N`` runs them in the same order again."""
    if config.pluginmanager.hasplugin("randomly"):
        seed = config.getoption("randomly_seed")
        terminalreporter.write_line(
            f"tests ran in random order; the same order again: -p randomly --randomly-seed={seed}"
        )


def core_available() -> bool:
    return "tcpair._core" in sys.modules or errors_mod._core is not None
