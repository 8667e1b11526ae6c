"""Scenario loading and ``--set`` overrides (no core needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpair import ScenarioError, apply_overrides, load_scenario
from tcpair.base.paths import scenario_path
from tcpair.simulate.scenario import parse_value, prepare_scenario, split_override

BASE = {
    "run": {"duration": 300.0, "seed": 1},
    "nodes": [{"name": "fh"}, {"name": "bs"}, {"name": "mh"}],
    "links": [
        {"name": "wired", "from": "fh", "to": "bs", "bandwidth": "10Mb"},
        {"name": "wireless", "from": "bs", "to": "mh", "bandwidth": "2Mb"},
    ],
    "flows": [{"name": "tcp1", "src": "fh", "dst": "mh", "variant": "reno"}],
}


def test_list_element_by_name_creates_missing_tables() -> None:
    out = apply_overrides(BASE, ["links.wireless.forward.loss.p=0.02"])
    assert out["links"][1]["forward"] == {"loss": {"p": 0.02}}
    assert "forward" not in BASE["links"][1], "input must not be mutated"


def test_list_element_by_index() -> None:
    out = apply_overrides(BASE, ["flows.0.variant=newreno", "links.1.delay=64us"])
    assert out["flows"][0]["variant"] == "newreno"
    assert out["links"][1]["delay"] == "64us"


def test_inline_table_replaces_value() -> None:
    out = apply_overrides(BASE, ['links.wireless.forward.loss={model="uniform", p=0.01}'])
    assert out["links"][1]["forward"]["loss"] == {"model": "uniform", "p": 0.01}


def test_replace_whole_list_element() -> None:
    out = apply_overrides(BASE, ['nodes.bs={name="bs", kind="router"}'])
    assert out["nodes"][1] == {"name": "bs", "kind": "router"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("-3", -3),
        ("0.5", 0.5),
        ("1e-3", 0.001),
        ("true", True),
        ("false", False),
        ('"10Mb"', "10Mb"),
        ("10Mb", "10Mb"),
        ("newreno", "newreno"),
        ("[1, 2, 3]", [1, 2, 3]),
        ("{a = 1}", {"a": 1}),
        ("", ""),
        ("  7 ", 7),
        ("2 Mb/s", "2 Mb/s"),
    ],
)
def test_value_parsing(text: str, value: object) -> None:
    got = parse_value(text)
    assert got == value
    assert type(got) is type(value)


def test_seed_sets_run_seed_and_creates_run() -> None:
    assert apply_overrides({"nodes": []}, seed=7)["run"]["seed"] == 7
    assert apply_overrides(BASE, ["run.seed=3"], seed=9)["run"]["seed"] == 9


def test_value_with_equals_sign_kept() -> None:
    assert apply_overrides({}, ["a.b=x=y"]) == {"a": {"b": "x=y"}}


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("flows.5.variant=reno", "flows.5.variant"),
        ("links.nowhere.delay=1ms", "nowhere"),
        ("run.seed.x=1", "run.seed.x"),
        ("flows.tcp1.variant.name=x", "flows.tcp1.variant.name"),
        ("novalue", "novalue"),
        ("=3", "expected dotted.key=value"),
        ("a..b=1", "a..b"),
    ],
)
def test_override_errors_name_the_key(override: str, needle: str) -> None:
    with pytest.raises(ScenarioError) as info:
        apply_overrides(BASE, [override])
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_element_lists_known_names() -> None:
    with pytest.raises(ScenarioError, match="wired, wireless"):
        apply_overrides(BASE, ["links.wifi.delay=1ms"])


def test_single_string_override_accepted() -> None:
    assert apply_overrides(BASE, "run.duration=5")["run"]["duration"] == 5


@given(st.integers(min_value=-(2**62), max_value=2**62))
def test_integers_round_trip(n: int) -> None:
    assert split_override(f"run.x={n}") == ("run.x", n)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip(x: float) -> None:
    assert parse_value(repr(x)) == x


@given(
    st.text(alphabet=st.characters(categories=("Ll", "Nd")), min_size=1).filter(
        lambda s: not s[0].isdigit() and s not in ("true", "false", "inf", "nan")
    )
)
def test_bare_words_stay_strings(word: str) -> None:
    assert parse_value(word) == word


def test_load_from_path_name_and_dict(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text('[run]\nduration = 5.0\n[[nodes]]\nname = "a"\n')
    assert load_scenario(f) == {"run": {"duration": 5.0}, "nodes": [{"name": "a"}]}
    assert load_scenario(str(f))["run"]["duration"] == 5.0
    d = {"run": {"duration": 1.0}}
    loaded = load_scenario(d)
    loaded["run"]["duration"] = 2.0
    assert d["run"]["duration"] == 1.0
    shipped = load_scenario("clrp_one_link")
    assert [link["name"] for link in shipped["links"]] == ["wired", "wireless"]


def _outcome(make: Any) -> Any:
    """What ``make()`` returns, or the type and message of what it raises."""
    try:
        return make()
    except (ScenarioError, TypeError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize(
    ("overrides", "seed"),
    [
        ((), None),
        ((), 7),
        (["links.wireless.forward.loss.p=0.02", "flows.*.variant=newreno"], 3),
        ({"links.wired.delay": "5ms"}, None),
        (["links.wireless.forward.loss.p=nan"], None),
        (["links.nowhere.delay=1ms"], None),
        (["x=" + "[" * 70 + "]" * 70], None),
        ({"run.duration": float("inf")}, None),
        ((), "7"),
        ((), True),
    ],
)
def test_prepare_scenario_is_apply_overrides_of_load_scenario(
    tmp_path: Path, overrides: Any, seed: Any
) -> None:
    """The run path's shortcut (no second copy, no second check without overrides)
    gives the same scenario, or the same error, for a file and for a dict."""
    f = tmp_path / "s.toml"
    f.write_text(
        '[run]\nduration = 5.0\n[[links]]\nname = "wired"\n[[links]]\nname = "wireless"\n'
        '[[flows]]\nname = "tcp1"\nvariant = "reno"\n'
    )
    for source in (f, BASE):
        expected = _outcome(
            lambda s=source: apply_overrides(load_scenario(s), overrides, seed=seed)
        )
        assert _outcome(lambda s=source: prepare_scenario(s, overrides, seed=seed)) == expected
    assert "forward" not in BASE["links"][1], "input must not be mutated"


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[run\nduration=")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="directory"):
        load_scenario(tmp_path)


def test_shipped_scenarios_match_the_contract() -> None:
    clrp = load_scenario(scenario_path("clrp_one_link"))
    assert [n["name"] for n in clrp["nodes"]] == ["fh", "bs", "mh"]
    wired, wireless = clrp["links"]
    assert (wired["bandwidth"], wired["delay"], wired["kind"]) == ("10Mb", "10ms", "wired")
    assert (wireless["bandwidth"], wireless["delay"], wireless["kind"]) == (
        "2Mb",
        "64us",
        "wireless",
    )
    flow = clrp["flows"][0]
    assert (flow["name"], flow["variant"], flow["packet_size"], flow["window"]) == (
        "tcp1",
        "reno",
        1000,
        30,
    )
    assert clrp["run"]["duration"] == 300.0
    pftk = load_scenario(scenario_path("pftk_check"))
    assert "lossy" in [link["name"] for link in pftk["links"]]
    out = apply_overrides(pftk, ['links.lossy.forward.loss={model="uniform",p=0.02}'])
    assert out["links"][1]["forward"]["loss"]["p"] == 0.02


def test_read_only_shares_a_mapping_only_when_nothing_changes_it() -> None:
    user = {"run": {"duration": 1.0}, "flows": [{"name": "f", "variant": "reno"}]}
    shared = prepare_scenario(user, read_only=True)
    assert shared == prepare_scenario(user) and shared is not user
    assert shared["flows"] is user["flows"]  # not deep-copied
    for kw in ({"overrides": ["flows.f.variant=sack"]}, {"seed": 3}):
        changed = prepare_scenario(user, read_only=True, **kw)
        assert changed["flows"] is not user["flows"]
        assert user == {"run": {"duration": 1.0}, "flows": [{"name": "f", "variant": "reno"}]}
    # A mapping unfit for JSON, or a bad override, fails as without read_only.
    for bad, kw in (({"run": {"duration": float("nan")}}, {}), (user, {"overrides": ["x"]})):
        errors = []
        for ro in (False, True):
            with pytest.raises(ScenarioError) as e:
                prepare_scenario(bad, read_only=ro, **kw)
            errors.append(str(e.value))
        assert errors[0] == errors[1]
