"""Overrides (dicts, lists, wildcards), error paths by name in the user's terms,
units (every spelling docs/scenarios.md lists) and the normalised scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcpair
from tcpair import ScenarioError
from tcpair.simulate.scenario import apply_overrides

REPO = Path(__file__).resolve().parents[2]
CLRP = "clrp_one_link"
SERDE_PHRASES = (
    "untagged enum",
    "did not match any variant",
    "invalid type",
    "invalid value",
    "expected u32",
    "expected u64",
    "expected f64",
    "unknown field",
    "unknown variant",
    "missing field",
    "`",
)
BASE = {
    "run": {"duration": 1.0},
    "nodes": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
    "links": [
        {"name": "ab", "from": "a", "to": "b", "bandwidth": 1e6, "delay": 0.01},
        {"from": "b", "to": "c", "bandwidth": 1e6, "delay": 0.01},
    ],
    "flows": [{"name": "f1", "src": "a", "dst": "c"}, {"src": "a", "dst": "c"}],
}


def test_overrides_as_dict_and_as_list_agree() -> None:
    as_dict = apply_overrides(BASE, {"links.ab.forward.loss.p": 0.02, "flows.f1.window": 7})
    as_list = apply_overrides(BASE, ["links.ab.forward.loss.p=0.02", "flows.f1.window=7"])
    assert as_dict == as_list
    assert as_dict["links"][0]["forward"]["loss"] == {"p": 0.02}
    assert "forward" not in BASE["links"][0], "the caller's dict is not touched"
    # Dict values are taken as they are: a string stays a string.
    assert apply_overrides(BASE, {"run.seed": "7"})["run"]["seed"] == "7"


def test_wildcards_set_every_element() -> None:
    sc = apply_overrides(BASE, {"flows.*.variant": "sack", "links.*.queue": 10})
    assert [f["variant"] for f in sc["flows"]] == ["sack", "sack"]
    assert [link["queue"] for link in sc["links"]] == [10, 10]
    sc = apply_overrides(BASE, ["links.*.forward.loss={model='uniform', p=0.1}"])
    sc["links"][0]["forward"]["loss"]["p"] = 0.5
    assert sc["links"][1]["forward"]["loss"]["p"] == 0.1, "each element gets its own copy"
    with pytest.raises(ScenarioError, match=r"--set nodes\.\*\.kind: the wildcard \* matches no"):
        apply_overrides({"nodes": []}, ["nodes.*.kind=router"])
    with pytest.raises(ScenarioError, match=r"run\.duration is a float"):
        apply_overrides(BASE, ["run.duration.*=1"])


def test_python_side_errors_name_elements_by_name() -> None:
    with pytest.raises(ScenarioError) as exc:
        apply_overrides(BASE, ["links.0.delay.x=1"])
    assert "links.ab.delay is a float" in str(exc.value)
    with pytest.raises(ScenarioError, match=r"links\.1\.delay is a float"):
        apply_overrides(BASE, ["links.1.delay.x=1"])  # no name: the index
    with pytest.raises(ScenarioError, match=r"overrides '': empty component"):
        apply_overrides(BASE, {"": 1})


# (override, field the message must name, words it must contain)
BAD_VALUES = [
    (
        {"links.wireless.queue": -1},
        "links.wireless.queue",
        "a whole number of packets from 0 to 1000000, got -1",
    ),
    ({"links.wireless.queue": "abc"}, "links.wireless.queue", 'got "abc"'),
    (
        {"flows.tcp1.window": 1.5},
        "flows.tcp1.window",
        "a whole number of packets from 1 to 1000000, got 1.5",
    ),
    ({"flows.tcp1.packet_size": -1}, "flows.tcp1.packet_size", "a size in bytes"),
    ({"run.seed": "x"}, "run.seed", "a whole number from 0 to 9223372036854775807"),
    ({"links.wireless.bandwidth": True}, "links.wireless.bandwidth", "a rate such as"),
    ({"links.wireless.bandwidth": "fast"}, "links.wireless.bandwidth", '"fast"'),
    ({"links.wireless.bandwidth": "10M"}, "links.wireless.bandwidth", "unknown rate unit"),
    ({"links.wireless.delay": [1]}, "links.wireless.delay", "a time such as"),
    ({"links.wireless.delay": "3 min"}, "links.wireless.delay", "unknown time unit"),
    ({"links.wireless.kind": "radio"}, "links.wireless.kind", "expected one of: wired"),
    ({"links.wireless.foo": 1}, "links.wireless.foo", 'unknown key "foo"'),
    ({"flows.tcp1.sink.delayed_ack": 1}, "flows.tcp1.sink.delayed_ack", "true or false"),
    ({"flows.tcp1.tcp.initial_cwnd": "two"}, "flows.tcp1.tcp.initial_cwnd", "a number"),
    ({"nodes.bs.kind": 3}, "nodes.bs.kind", "got 3"),
    ({"links.wireless.forward.loss.p": -0.1}, "links.wireless.forward.loss.p", "-0.1"),
    ({"links.wireless.forward.outages": [[1, 2, 3]]}, "links.wireless.forward.outages", "shorter"),
    ({"links.wireless.forward.outages": [[1]]}, "links.wireless.forward.outages", "a pair"),
    ({"flows.*.variant": "cubic"}, "flows.tcp1.variant", "cubic"),
]


@pytest.mark.parametrize(("override", "field", "words"), BAD_VALUES)
def test_core_errors_name_the_field_in_user_terms(override: dict, field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        tcpair.validate(CLRP, overrides=override)
    msg = str(exc.value)
    assert msg.startswith(f"{field}: ") or msg.startswith(f"{field}["), msg
    assert words in msg, msg
    for phrase in SERDE_PHRASES:
        assert phrase not in msg, msg
    assert "links[" not in msg and "flows[" not in msg


def test_unnamed_elements_keep_their_index() -> None:
    with pytest.raises(ScenarioError, match=r"^links\[1\]\.queue: must be a whole number"):
        tcpair.validate(apply_overrides(BASE, {"links.1.queue": -1}))
    with pytest.raises(ScenarioError, match=r"^flows\[1\]\.window: must be a whole number"):
        tcpair.validate(apply_overrides(BASE, {"flows.1.window": "big"}))


def test_cli_set_with_wildcard_and_bad_value(cli) -> None:
    code, out, err = cli("validate", CLRP, "--set", "links.*.queue=-3")
    assert code == 2 and out == ""
    assert err.strip() == (
        "error: links.wired.queue: must be a whole number of packets from 0 to 1000000, got -3"
    )


RATE_BITS = ["b", "bit", "bits", "bps", "b/s", "bit/s", "bits/s"]
RATE_BYTES = ["B", "Bps", "B/s"]
PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
TIMES = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}


def _bandwidth(text: str) -> float:
    sc = tcpair.validate(CLRP, overrides={"links.wireless.bandwidth": text})
    return sc["links"][1]["bandwidth"]


@pytest.mark.parametrize("prefix", list(PREFIXES))
def test_every_documented_rate_spelling(prefix: str) -> None:
    for unit in RATE_BITS:
        assert _bandwidth(f"3{prefix}{unit}") == pytest.approx(3 * PREFIXES[prefix]), unit
    for unit in RATE_BYTES:
        assert _bandwidth(f"3 {prefix}{unit}") == pytest.approx(24 * PREFIXES[prefix]), unit


def test_megabytes_are_bytes() -> None:
    assert _bandwidth("1MBps") == 8e6
    assert _bandwidth("1MB/s") == 8e6
    assert _bandwidth("1Mbps") == 1e6
    assert _bandwidth("2e6") == 2e6
    for bad in ["10M", "10mb", "10 MiB/s", "10 kBit"]:
        with pytest.raises(ScenarioError, match="unknown rate unit"):
            _bandwidth(bad)


def test_every_documented_time_spelling() -> None:
    for unit, scale in TIMES.items():
        for text in (f"5{unit}", f"5 {unit}", f"5{unit.upper() if unit.isascii() else unit}"):
            sc = tcpair.validate(CLRP, overrides={"links.wireless.delay": text})
            assert sc["links"][1]["delay"] == pytest.approx(5 * scale), text


SIZES = {"B": 1, "kB": 1000, "KB": 1000, "KiB": 1024}


def test_every_documented_size_spelling() -> None:
    for unit, scale in SIZES.items():
        for text in (f"2{unit}", f"2 {unit}"):
            big = {"flows.tcp1.ack_size": text, "flows.tcp1.packet_size": 60000}
            sc = tcpair.validate(CLRP, overrides=big)
            assert sc["flows"][0]["ack_size"] == 2 * scale, text
    sc = tcpair.validate(CLRP, overrides={"flows.tcp1.packet_size": "1.5kB"})
    assert sc["flows"][0]["packet_size"] == 1500
    for bad, words in [("2MB", "unknown size unit"), ("1.5B", "whole number of bytes")]:
        with pytest.raises(ScenarioError, match=words):
            tcpair.validate(CLRP, overrides={"flows.tcp1.packet_size": bad})


def test_docs_list_every_spelling_the_tests_check() -> None:
    docs = (REPO / "docs" / "scenarios.md").read_text()
    for unit in [*RATE_BITS, *RATE_BYTES, *TIMES, *SIZES]:
        assert f"`{unit}`" in docs, unit


def test_validate_returns_the_normalised_scenario() -> None:
    sc = tcpair.validate(CLRP, overrides={"links.wireless.bandwidth": "2 Mb/s"})
    assert sc["links"][1]["bandwidth"] == 2e6 and sc["links"][0]["delay"] == 0.01
    assert sc["run"]["warmup"] == 0.0 and sc["links"][0]["queue"] == 50
    assert sc["flows"][0]["tcp"]["min_rto"] == 0.2
    assert sc["flows"][0]["sink"]["delack_timeout"] == 0.1
    # The normalised scenario runs the same simulation.
    short = {"run.duration": 5, "links.wireless.forward.loss.p": 0.02}
    a = tcpair.run(CLRP, overrides=short)
    b = tcpair.run(tcpair.validate(CLRP, overrides=short))
    keep = [c for c in a.flows.columns if "wall" not in c]
    assert a.flows[keep].equals(b.flows[keep])


def test_cli_validate_json(cli) -> None:
    code, out, err = cli("validate", CLRP, "--json", "--set", "links.wired.bandwidth=1MBps")
    assert code == 0, err
    sc = json.loads(out)
    assert sc["links"][0]["bandwidth"] == 8e6
    assert sc["flows"][0]["tcp"]["dupack_threshold"] == 3
