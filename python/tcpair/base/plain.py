"""Checks that a scenario is plain data the core can read: string keys, finite
numbers, lists and tables nested at most :data:`MAX_DEPTH` deep.

The walk is iterative, so a value nested thousands of levels deep gives a
:class:`ScenarioError` naming where, never a ``RecursionError``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcpair._errors import ScenarioError

#: The deepest nesting of lists and tables a scenario may have (real scenarios
#: use four or five levels; the core's JSON reader stops at 128).
MAX_DEPTH = 64


def _join(path: str, key: str | int, child: Any = None) -> str:
    """The dotted path of ``child``; list elements by their ``name`` when they
    have one, as the core's messages name them (``links.wireless``)."""
    if isinstance(key, int):
        name = child.get("name") if isinstance(child, Mapping) else None
        if not (isinstance(name, str) and name and "." not in name):
            return f"{path}[{key}]"
        key = name
    if not key.isprintable():  # a line break in a key stays inside one line
        key = repr(key)
    return f"{path}.{key}" if path else key


class NotFinite(ScenarioError):
    """A number JSON cannot carry (``nan``, ``inf``). ``scenario`` is the whole scenario
    it was found in (None when a part was checked), for a caller that asks the core
    whether the key is known before telling of its value
    (:func:`tcpair.simulate.binding.prepare`)."""

    def __init__(self, message: str, scenario: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.scenario = scenario


def check_plain(value: Any, where: str = "") -> None:
    """Raise :class:`ScenarioError` naming the first field JSON cannot carry."""
    stack: list[tuple[str, Any, int]] = [(where, value, 0)]
    while stack:
        path, v, depth = stack.pop()
        label = path or "the scenario"
        if isinstance(v, float) and not math.isfinite(v):
            raise NotFinite(f"{label}: must be a finite number, got {v}", None if where else value)
        if not isinstance(v, Mapping | list | tuple):
            continue
        if depth >= MAX_DEPTH:
            short = label if len(label) <= 60 else label[:60] + "..."
            raise ScenarioError(
                f"{short}: lists and tables are nested more than {MAX_DEPTH} levels deep"
            )
        if isinstance(v, Mapping):
            for k, child in v.items():
                if not isinstance(k, str):
                    raise ScenarioError(
                        f"{label}: keys must be strings, got {k!r} ({type(k).__name__})"
                    )
                stack.append((_join(path, k), child, depth + 1))
        else:
            stack.extend((_join(path, i, c), c, depth + 1) for i, c in enumerate(v))


def check_source(source: Any) -> None:
    """A scenario is a path, a shipped scenario's name or a mapping."""
    if not isinstance(source, Mapping | str | Path):
        raise TypeError(
            "scenario: expected a TOML file path, a shipped scenario's name or a dict, "
            f"got {type(source).__name__}"
        )


def check_seed(seed: Any) -> int:
    """``seed`` must be a whole number (the core checks its range)."""
    import numbers  # only when a seed is given

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed: expected a whole number from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


def check_folder(value: Any, name: str) -> None:
    """``value`` names a folder: a ``str`` or a path-like object."""
    import os  # only when a folder is given

    if isinstance(value, bool) or not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name}: expected a folder's path, got {type(value).__name__}")


def check_count(value: Any, name: str) -> int:
    """``value`` is a whole number (its range is checked where it is used)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected a whole number >= 1, got {value!r}")
    return int(value)


#: Files a file browser leaves in any folder it shows: never the user's work, so a
#: folder holding them counts as empty where tcpair would take it for its output.
BROWSER_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def first_names(names: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` of ``names``, and how many more: "a, b, c and 4 more"."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as text, or a ScenarioError saying where it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{name}: not valid UTF-8 at byte {exc.start}") from None


def read_toml(path: Path, what: str) -> Any:
    """The TOML file ``path`` (a scenario or sweep file, ``what`` says which) as plain
    data, or a one-line ScenarioError naming the file: not UTF-8, not valid TOML, nested
    too deeply for the reader, or not readable."""
    import tomllib

    try:
        return tomllib.loads(decode_utf8(path.read_bytes(), str(path)))
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"{path}: lists and tables are nested too deeply") from None
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read {what}: {exc.strerror}") from None


__all__ = [
    "BROWSER_FILES",
    "MAX_DEPTH",
    "NotFinite",
    "check_count",
    "check_folder",
    "check_plain",
    "check_seed",
    "check_source",
    "decode_utf8",
    "first_names",
    "read_toml",
]
