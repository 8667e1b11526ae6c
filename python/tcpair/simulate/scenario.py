"""Loading scenarios and applying ``--set dotted.key=value`` overrides.

A scenario is plain data (the TOML file's structure as nested dicts and lists),
so files and Python dicts are interchangeable. Validation of the contents is
the core's job (it owns the schema); this module only gets the data into
shape and reports path problems with the key the user typed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError
from tcpair.base.plain import MAX_DEPTH, check_plain, check_seed, check_source, read_toml
from tcpair.base.plugin_dirs import add_dirs

Scenario = dict[str, Any]


def load_scenario(source: Mapping[str, Any] | str | Path) -> Scenario:
    """Return a fresh, mutable scenario dict from a TOML path or a mapping.

    A mapping is deep-copied so that overrides never alter the caller's object.
    A bare name such as ``clrp_one_link`` resolves to a shipped scenario.
    """
    check_source(source)
    if isinstance(source, Mapping):
        check_plain(source)
        return _deepcopy(dict(source))
    path = _resolve(source)
    data = read_toml(path, "scenario file")
    check_plain(data)
    add_dirs([path.parent])  # a plug-in module beside the scenario file (tcpair.simulate.plugins)
    return data


def _deepcopy(value: Any) -> Any:
    """``copy.deepcopy``, imported on first use: a scenario file run without
    ``--set`` copies nothing."""
    import copy

    return copy.deepcopy(value)


def _resolve(source: str | Path) -> Path:
    """Find the file: as given, else among the shipped scenarios."""
    try:
        return _find(source)
    except OSError as exc:  # e.g. a name longer than the system allows
        raise ScenarioError(
            f"{_shown(source)}: cannot be a scenario file ({exc.strerror})"
        ) from None


def _shown(source: str | Path) -> str:
    """A file name for a one-line message: quoted if it holds line breaks, cut if long."""
    text = str(source)
    if not text.isprintable():
        text = repr(text)
    return text if len(text) <= 300 else text[:150] + "..." + text[-100:]


def _find(source: str | Path) -> Path:
    path = Path(source)
    if path.is_file():
        return path
    if path.parent == Path("."):
        from tcpair.base.paths import scenario_path  # only for a name that is not a file here

        shipped = scenario_path(path.name, missing_ok=True)
        if shipped is not None:
            return shipped
    if path.is_dir():
        raise ScenarioError(f"{_shown(source)}: is a directory, not a scenario file")
    raise ScenarioError(f"{_shown(source)}: no such scenario file")


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
    # tomllib reads arrays and inline tables recursively: whether a deep value ends in a
    # RecursionError depends on the stack in use, so the depth is bounded before it reads.
    if _nesting(value) > MAX_DEPTH:
        raise ScenarioError(
            f"--set {key}: lists and tables are nested more than {MAX_DEPTH} levels deep"
        )
    try:
        return key, parse_value(value)
    except RecursionError:
        raise ScenarioError(f"--set {key}: lists and tables are nested too deeply") from None


def _nesting(text: str) -> int:
    """How deep the arrays and inline tables of a TOML value nest (brackets inside
    quoted strings not counted)."""
    depth = deepest = 0
    quote, escaped = "", False
    for c in text:
        if quote:
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':
                escaped = True
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


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


def _label(where: list[str]) -> str:
    return ".".join(where) or "the scenario"


def _element_label(item: Any, part: str) -> str:
    """How an error names a list element: its ``name`` when it has one."""
    name = item.get("name") if isinstance(item, Mapping) else None
    return name if isinstance(name, str) and name and "." not in name else part


def set_path(scenario: Scenario, key: str, value: Any, *, what: str = "--set") -> None:
    """Set ``value`` at dotted ``key`` in place, creating missing tables.

    A ``*`` component stands for every element of a list (``flows.*.variant``)
    or every table in a table. ``what`` names where the key came from in error
    messages (``--set``, a sweep axis, ...).
    """
    parts = key.split(".")
    if _set(scenario, parts, value, [], key, what) == 0:
        raise ScenarioError(f"{what} {key}: the wildcard * matches no element")


def _set(node: Any, parts: list[str], value: Any, where: list[str], key: str, what: str) -> int:
    """Set ``value`` at ``parts`` below ``node``; returns how many places were set."""
    part, rest = parts[0], parts[1:]
    if part == "*":
        return _set_all(node, parts, value, where, key, what)
    if isinstance(node, dict):
        if not rest:
            node[part] = value
            return 1
        child = node.setdefault(part, {})
        return _set(child, rest, value, [*where, part], key, what)
    if isinstance(node, list):
        idx = _list_index(node, part, _label(where), key, what)
        if not rest:
            node[idx] = _deepcopy(value)
            return 1
        label = _element_label(node[idx], part)
        return _set(node[idx], rest, value, [*where, label], key, what)
    raise ScenarioError(
        f"{what} {key}: {_label(where)} is a {type(node).__name__} ({node!r}), "
        f"not a table, so it has no field {part!r}"
    )


def _set_all(node: Any, parts: list[str], value: Any, where: list[str], key: str, what: str) -> int:
    """``*``: every element of a list, every table in a table."""
    rest = parts[1:]
    if isinstance(node, list):
        items = [(str(i), node[i]) for i in range(len(node))]
    elif isinstance(node, dict):
        items = [(k, v) for k, v in node.items() if isinstance(v, dict)]
    else:
        raise ScenarioError(
            f"{what} {key}: {_label(where)} is a {type(node).__name__} ({node!r}), "
            "not a list or table, so * matches nothing"
        )
    done = 0
    for part, item in items:
        if not rest:
            node[int(part) if isinstance(node, list) else part] = _deepcopy(value)
            done += 1
            continue
        if not isinstance(item, dict | list):
            label = _label([*where, _element_label(item, part)])
            raise ScenarioError(f"{what} {key}: {label} is not a table")
        label = _element_label(item, part)
        done += _set(item, rest, _deepcopy(value), [*where, label], key, what)
    return done


Overrides = Iterable[str] | Mapping[str, Any]


def override_items(overrides: Overrides | str | None) -> list[tuple[str, Any]]:
    """``(dotted key, value)`` pairs from ``["k=v", ...]``, ``"k=v"`` or ``{"k": v}``.

    Strings are parsed as on the command line (TOML literal, else text); the
    values of a dict are taken as they are.
    """
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [split_override(overrides)]
    if isinstance(overrides, Mapping):
        out = []
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise ScenarioError(f"overrides {key!r}: keys must be dotted strings")
            check_plain(value, key)
            key = key.strip()
            if not key or any(not p.strip() for p in key.split(".")):
                raise ScenarioError(f"overrides {key!r}: empty component in the dotted key")
            out.append((key, value))
        return out
    if not isinstance(overrides, Iterable):
        raise TypeError(
            "overrides: expected a dict or a list of 'dotted.key=value' strings, "
            f"got {type(overrides).__name__}"
        )
    items = list(overrides)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"overrides: expected 'dotted.key=value' strings, got {item!r}")
    return [split_override(item) for item in items]


def apply_overrides(
    scenario: Mapping[str, Any],
    overrides: Overrides | str | None = (),
    *,
    seed: int | None = None,
) -> Scenario:
    """Return a copy of ``scenario`` with overrides applied.

    ``overrides`` is a dict ``{"links.wireless.forward.loss.p": 0.02}`` or a list
    of ``dotted.key=value`` strings as on the command line. List elements are
    addressed by index or by ``name`` (``links.wireless``), because names are
    what scenario files are written in terms of and they do not shift when an
    element is added; ``*`` addresses every element (``flows.*.variant``).
    ``seed`` sets ``run.seed``.
    """
    out = _deepcopy(dict(scenario))
    _override(out, override_items(overrides), seed)
    check_plain(out)
    return out


def prepare_scenario(
    source: Mapping[str, Any] | str | Path,
    overrides: Overrides | str | None = (),
    *,
    seed: int | None = None,
    read_only: bool = False,
) -> Scenario:
    """``apply_overrides(load_scenario(source), overrides, seed=seed)``, the same
    result and errors, without copying again the fresh scenario that
    :func:`load_scenario` made, nor checking it again when nothing was overridden
    (a seed is a whole number: it cannot make the scenario unfit for JSON).

    ``read_only``: for a caller that only reads the result (``tcpair.run``
    turns it into JSON text at once), a mapping with nothing to override or seed
    is not deep-copied: the result shares its nested values with ``source``
    (at 10,000 flows the copy is 18 MiB of dicts)."""
    if read_only and isinstance(source, Mapping) and seed is None and not overrides:
        check_source(source)
        check_plain(source)
        return dict(source)
    out = load_scenario(source)
    items = override_items(overrides)
    _override(out, items, seed)
    if items:
        check_plain(out)
    return out


def _override(scenario: Scenario, items: list[tuple[str, Any]], seed: int | None) -> None:
    """Set each ``(dotted key, value)`` of ``items``, then ``run.seed``, in place."""
    for key, value in items:
        set_path(scenario, key, value)
    if seed is not None:
        set_path(scenario, "run.seed", check_seed(seed))


__all__ = [
    "Overrides",
    "Scenario",
    "apply_overrides",
    "load_scenario",
    "override_items",
    "parse_value",
    "prepare_scenario",
    "set_path",
]
