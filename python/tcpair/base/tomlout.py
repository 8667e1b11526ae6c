"""A small TOML writer for scenarios and sweeps, shaped as a user writes them.

Top-level tables become ``[run]`` sections, lists of tables become ``[[flows]]``
arrays of tables, small tables of plain values become inline tables
(``loss = { model = "uniform", p = 0.02 }``), and everything else is written
as ``key = value``. ``tomllib.loads(dumps(d)) == d`` for any dict of strings,
numbers, booleans, dates, lists and dicts; ``None`` has no TOML form and is
left out.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from typing import Any

INLINE_WIDTH = 60  # longest inline table written on one line
ITEM_WIDTH = 120  # longest inline table as one line of a multi-line array
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b"}


def _key(k: Any) -> str:
    k = str(k)
    return k if _BARE.match(k) else _string(k)


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _float(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def value(v: Any) -> str:
    """One value in inline form."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, _dt.datetime | _dt.date | _dt.time):
        return v.isoformat()
    if isinstance(v, Mapping):
        items = [f"{_key(k)} = {value(x)}" for k, x in v.items() if x is not None]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v if x is not None) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}: {v!r}")


def _inline_ok(v: Mapping[str, Any], width: int = INLINE_WIDTH) -> bool:
    """A small table of plain values reads best inline."""
    plain = all(not isinstance(x, Mapping) and not _is_table_list(x) for x in v.values())
    return plain and len(value(v)) <= width


def _inline_items(v: list[Mapping[str, Any]]) -> bool:
    """A list of small plain tables reads best as an array of inline tables."""
    return all(_inline_ok(x, ITEM_WIDTH) for x in v)


def _split(table: Mapping[str, Any], top: bool) -> tuple[list, list, list]:
    """(key = value pairs, sub-tables, arrays of tables) of one table."""
    pairs, tables, arrays = [], [], []
    for k, v in table.items():
        if v is None:
            continue
        if isinstance(v, Mapping) and (top or not _inline_ok(v)) and v:
            tables.append((k, v))
        elif _is_table_list(v) and (top or not _inline_items(v)):
            arrays.append((k, v))
        else:
            pairs.append((k, v))
    return pairs, tables, arrays


def _pair(k: Any, v: Any) -> str:
    if _is_table_list(v) and len(v) > 1:  # one inline table per line
        items = "".join(f"  {value(x)},\n" for x in v)
        return f"{_key(k)} = [\n{items}]"
    return f"{_key(k)} = {value(v)}"


def _body(path: list[str], table: Mapping[str, Any], lines: list[str]) -> None:
    pairs, tables, arrays = _split(table, top=not path)
    lines.extend(_pair(k, v) for k, v in pairs)
    for k, v in tables:
        sub = [*path, _key(k)]
        nested_pairs = _split(v, top=False)[0]
        if nested_pairs or not path:
            lines.extend(["", f"[{'.'.join(sub)}]"])
        _body(sub, v, lines)
    for k, items in arrays:
        sub = [*path, _key(k)]
        for item in items:
            lines.extend(["", f"[[{'.'.join(sub)}]]"])
            _body(sub, item, lines)


def dumps(data: Mapping[str, Any]) -> str:
    """``data`` as a TOML document."""
    lines: list[str] = []
    _body([], data, lines)
    while lines and lines[0] == "":
        lines.pop(0)
    return "\n".join(lines) + "\n"


__all__ = ["dumps", "value"]
