"""The `tcpair run --json` contract (issue 2, item 9), checked by the CLI tests
against the fake core and by the core tests against the real one."""

from typing import Any

TOP_KEYS = ("flows", "events", "sim_time_s", "wall_s", "summary")
FLOW_KEYS = (
    "name",
    "goodput_kbps",
    "throughput_kbps",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "window_cuts",
)


def assert_run_json_contract(obj: dict[str, Any]) -> None:
    """Every key the contract promises is present, at the top and per flow."""
    for key in TOP_KEYS:
        assert key in obj, key
    assert obj["flows"], "at least one flow"
    for flow in obj["flows"]:
        for key in FLOW_KEYS:
            assert key in flow, key
