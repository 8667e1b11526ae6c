"""Loading scenarios and applying ``--set dotted.key=value`` overrides.

A scenario is plain data (the TOML file's structure as nested dicts and lists),
so files and Python dicts are interchangeable. Validation of the contents is
the core's job (it owns the schema); this module only gets the data into
shape and reports path problems with the key the user typed.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.paths import scenario_path

Scenario = dict[str, Any]


def load_scenario(source: Mapping[str, Any] | str | Path) -> Scenario:
    """Return a fresh, mutable scenario dict from a TOML path or a mapping.

    A mapping is deep-copied so that overrides never alter the caller's object.
    A bare name such as ``clrp_one_link`` resolves to a shipped scenario.
    """
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source))
    path = _resolve(source)
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read scenario file: {exc.strerror}") from None


def _resolve(source: str | Path) -> Path:
    """Find the file: as given, else among the shipped scenarios."""
    path = Path(source)
    if path.is_file():
        return path
    if path.parent == Path("."):
        shipped = scenario_path(path.name, missing_ok=True)
        if shipped is not None:
            return shipped
    if path.is_dir():
        raise ScenarioError(f"{source}: is a directory, not a scenario file")
    raise ScenarioError(f"{source}: no such scenario file")


def parse_value(text: str) -> Any:
    """Parse an override value as a TOML literal, else keep it as a string.

    TOML literals cover what scenario files contain (numbers, booleans, quoted
    strings, arrays, inline tables); falling back to the raw text lets users
    write ``bandwidth=10Mb`` or ``variant=newreno`` without quotes.
    """
    stripped = text.strip()
    if not stripped:
        return ""
    try:
        return tomllib.loads(f"v = {stripped}")["v"]
    except tomllib.TOMLDecodeError:
        return stripped


def split_override(item: str) -> tuple[str, Any]:
    """Split ``key=value`` into the dotted key and the parsed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError(f"--set {item!r}: expected dotted.key=value")
    parts = key.split(".")
    if any(not p.strip() for p in parts):
        raise ScenarioError(f"--set {key}: empty component in the dotted key")
    return key, parse_value(value)


def _list_index(items: list[Any], part: str, where: str, key: str, what: str) -> int:
    """Find a list element by position (``0``) or by its ``name`` field."""
    if part.isdigit():
        idx = int(part)
        if idx < len(items):
            return idx
        raise ScenarioError(f"{what} {key}: {where} has {len(items)} element(s), no index {idx}")
    for idx, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("name") == part:
            return idx
    names = [str(i.get("name")) for i in items if isinstance(i, Mapping) and "name" in i]
    known = ", ".join(names) if names else "none has a name"
    raise ScenarioError(f"{what} {key}: no element named {part!r} in {where} (known: {known})")


def set_path(scenario: Scenario, key: str, value: Any, *, what: str = "--set") -> None:
    """Set ``value`` at dotted ``key`` in place, creating missing tables.

    ``what`` names where the key came from in error messages (``--set``, a
    sweep axis, ...).
    """
    parts = key.split(".")
    node: Any = scenario
    where: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        label = ".".join(where) or "the scenario"
        if isinstance(node, dict):
            if last:
                node[part] = value
                return
            if part not in node:
                node[part] = {}
            node = node[part]
        elif isinstance(node, list):
            idx = _list_index(node, part, label, key, what)
            if last:
                node[idx] = value
                return
            node = node[idx]
        else:
            raise ScenarioError(
                f"{what} {key}: {label} is a {type(node).__name__} ({node!r}), "
                f"not a table, so it has no field {part!r}"
            )
        where.append(part)


def apply_overrides(
    scenario: Mapping[str, Any],
    overrides: Iterable[str] = (),
    *,
    seed: int | None = None,
) -> Scenario:
    """Return a copy of ``scenario`` with ``dotted.key=value`` overrides applied.

    List elements are addressed by index or by ``name`` (``links.wireless``),
    because names are what scenario files are written in terms of and they do
    not shift when an element is added. ``seed`` sets ``run.seed``.
    """
    out = copy.deepcopy(dict(scenario))
    if isinstance(overrides, str):
        overrides = [overrides]
    for item in overrides:
        key, value = split_override(item)
        set_path(out, key, value)
    if seed is not None:
        set_path(out, "run.seed", int(seed))
    return out


__all__ = ["Scenario", "apply_overrides", "load_scenario", "parse_value", "set_path"]
