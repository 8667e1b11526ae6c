"""Where shipped scenarios and sweeps live.

They are package data (``tcpair/scenarios``, ``tcpair/sweeps``), so an installed
wheel finds them from any directory; the repository root's ``scenarios/`` and
``sweeps/`` are symlinks to them, the paths the docs use. The
current directory's ``scenarios/`` and ``sweeps/`` are searched after the
package, so a project can add its own.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tcpair/base -> tcpair


def _dirs(kind: str) -> list[Path]:
    candidates = [
        _PACKAGE_DIR / kind,
        _PACKAGE_DIR.parent.parent / kind,  # python/tcpair -> repo root
        Path.cwd() / kind,
    ]
    seen: list[Path] = []
    for c in candidates:
        if c.is_dir() and c.resolve() not in [s.resolve() for s in seen]:
            seen.append(c)
    return seen


def _find(kind: str, name: str, missing_ok: bool) -> Path | None:
    filename = name if name.endswith(".toml") else f"{name}.toml"
    for d in _dirs(kind):
        p = d / filename
        if p.is_file():
            return p
    if missing_ok:
        return None
    searched = ", ".join(str(d) for d in _dirs(kind)) or f"no {kind} directory found"
    raise FileNotFoundError(f"shipped {kind[:-1]} {filename!r} not found (searched: {searched})")


def scenario_dirs() -> list[Path]:
    """Candidate directories holding shipped scenarios, most specific first."""
    return _dirs("scenarios")


def scenario_path(name: str, *, missing_ok: bool = False) -> Path | None:
    """Path of the shipped scenario ``name`` (``.toml`` optional)."""
    return _find("scenarios", name, missing_ok)


def sweep_dirs() -> list[Path]:
    """Candidate directories holding shipped sweeps, most specific first."""
    return _dirs("sweeps")


def sweep_path(name: str, *, missing_ok: bool = False) -> Path | None:
    """Path of the shipped sweep ``name`` (``.toml`` optional)."""
    return _find("sweeps", name, missing_ok)


def shipped_sweeps() -> dict[str, Path]:
    """Every shipped sweep by file stem (first directory wins)."""
    out: dict[str, Path] = {}
    for d in sweep_dirs():
        for p in sorted(d.glob("*.toml")):
            out.setdefault(p.stem, p)
    return out


__all__ = ["scenario_dirs", "scenario_path", "shipped_sweeps", "sweep_dirs", "sweep_path"]


def dissector_path() -> Path:
    """The shipped Wireshark Lua dissector of tcpair's TCP option (docs/trace.md)."""
    return _PACKAGE_DIR / "wireshark" / "tcpair.lua"
