"""The check that no test leaves the pytest process's state changed (leaks.py)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from leaks import changes, restore, snapshot

pytest_plugins = ["pytester"]


def _on_usr2(signum: int, frame: object) -> None:
    pass


def test_changes_names_each_kind_and_restore_undoes_them(tmp_path: Path) -> None:
    before = snapshot()
    signal.signal(signal.SIGUSR2, _on_usr2)
    os.environ["TCPAIR_LEAK_PROBE"] = "1"
    os.chdir(tmp_path)
    try:
        found = changes(before, snapshot())
    finally:
        restore(before)
    was = before.handlers[signal.SIGUSR2]
    assert found == [
        f"SIGUSR2's handler ({was.name}, now _on_usr2)",  # type: ignore[attr-defined]
        "$TCPAIR_LEAK_PROBE (unset, now '1')",
        f"the working directory ({before.cwd}, now {tmp_path})",
    ]
    assert changes(before, snapshot()) == []


def test_a_test_that_leaks_fails_naming_what_it_changed(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "from leaks import unchanged_process_state, unchanged_process_state_by_module\n"
    )
    pytester.makepyfile(
        test_one="""
        import os, signal

        def test_sets_a_variable():
            os.environ["TCPAIR_LEAK_PROBE"] = "1"

        def test_sets_a_handler():
            signal.signal(signal.SIGUSR2, lambda *_: None)

        def test_finds_it_put_back():
            assert "TCPAIR_LEAK_PROBE" not in os.environ

        def test_monkeypatch_undoes_itself(monkeypatch, tmp_path):
            monkeypatch.setenv("TCPAIR_LEAK_PROBE", "2")
            monkeypatch.chdir(tmp_path)
        """,
        test_two="""
        import os
        import pytest

        @pytest.fixture(scope="module")
        def leaky():
            os.chdir("/")
            yield

        def test_uses_it(leaky):
            pass
        """,
    )
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5, errors=3)
    result.stdout.fnmatch_lines_random(
        [
            "*the test test_sets_a_variable left changed: $TCPAIR_LEAK_PROBE (unset, now '1')",
            "*the test test_sets_a_handler left changed: SIGUSR2's handler (*, now *<lambda>)",
            "*the module test_two (its fixtures) left changed: the working directory (*, now /)",
        ]
    )
