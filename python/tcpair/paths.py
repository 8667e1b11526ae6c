"""Where shipped scenarios live.

They sit at the repository root (``scenarios/``), where the issue fixes their
paths. An installed package may also carry them as package data. We look in
the package first, then the source checkout this module came from, then the
current directory (``pip install .`` run from a checkout).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def scenario_dirs() -> list[Path]:
    """Candidate directories holding shipped scenarios, most specific first."""
    candidates = [
        _PACKAGE_DIR / "scenarios",
        _PACKAGE_DIR.parent.parent / "scenarios",  # python/tcpair -> repo root
        Path.cwd() / "scenarios",
    ]
    seen: list[Path] = []
    for c in candidates:
        if c.is_dir() and c not in seen:
            seen.append(c)
    return seen


def scenario_path(name: str, *, missing_ok: bool = False) -> Path | None:
    """Path of the shipped scenario ``name`` (``.toml`` optional)."""
    filename = name if name.endswith(".toml") else f"{name}.toml"
    for d in scenario_dirs():
        p = d / filename
        if p.is_file():
            return p
    if missing_ok:
        return None
    searched = ", ".join(str(d) for d in scenario_dirs()) or "no scenarios directory found"
    raise FileNotFoundError(f"shipped scenario {filename!r} not found (searched: {searched})")


__all__ = ["scenario_dirs", "scenario_path"]
