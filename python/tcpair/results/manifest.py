"""The results store's manifest: a SHA-256 checksum of every committed file,
so damage (a bit flip, a truncated or stray file) is found, set aside and
repaired rather than silently read or blocking the whole store.

``manifest.jsonl`` is append-only: a file's line (path, size, checksum) is
written and fsynced *before* the file is renamed into place, so every
committed file has its line whatever kills the process; a line whose file
never appeared is ignored, and a torn last line is skipped. Compaction
rewrites the manifest (atomically) without the lines of the files it folded.
A store written before manifests existed has none: its files are checked for
readability only, and ``tcpair store repair`` writes one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "manifest.jsonl"
QUARANTINE = "quarantine"


def digest(path: str | Path) -> tuple[int, str]:
    """Size and SHA-256 of a file."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


@dataclass(frozen=True)
class Problem:
    """A stored file that cannot be trusted: ``what`` says why."""

    path: Path
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


class Manifest:
    """The checksums of a store's committed files, keyed by path relative to the store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / MANIFEST

    def exists(self) -> bool:
        return self.path.is_file()

    def record(self, rel: str, tmp: str | Path) -> None:
        """Append the line of ``rel`` (its content now in ``tmp``); fsynced."""
        size, sha = digest(tmp)
        line = json.dumps({"file": rel, "size": size, "sha256": sha}) + "\n"
        with open(self.path, "a+b") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():  # a line torn by a kill is ended, not continued
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    line = "\n" + line
            fh.write(line.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())

    def entries(self) -> dict[str, dict[str, Any]]:
        """``path -> {size, sha256}``; the last line of a path wins, torn lines are skipped."""
        out: dict[str, dict[str, Any]] = {}
        if not self.path.is_file():
            return out
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError, TypeError, KeyError):
                e = json.loads(line)
                out[str(e["file"])] = {"size": int(e["size"]), "sha256": str(e["sha256"])}
        return out

    def rewrite(self, entries: Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the manifest by ``entries`` (atomically, fsynced)."""
        tmp = self.path.with_name(f".tmp-{MANIFEST}")
        with open(tmp, "w", encoding="utf-8") as fh:
            for rel, e in sorted(entries.items()):
                fh.write(json.dumps({"file": rel, **e}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def check(self, files: Iterable[Path]) -> list[Problem]:
        """Files whose checksum differs from their line, or that have no line."""
        if not self.exists():
            return []
        known = self.entries()
        problems = []
        for f in files:
            e = known.get(f.relative_to(self.root).as_posix())
            if e is None:
                problems.append(Problem(f, "stray file (not in the store's manifest)"))
                continue
            try:
                size, sha = digest(f)
            except OSError as exc:
                problems.append(Problem(f, f"cannot be read ({exc.strerror})"))
                continue
            if (size, sha) != (e["size"], e["sha256"]):
                problems.append(Problem(f, "damaged (its checksum differs from the manifest's)"))
        return problems


def quarantine(root: Path, problems: Iterable[Problem], *, warn: bool = True) -> list[Path]:
    """Move each problem's file under ``root/quarantine/`` (kept, never deleted)."""
    moved = []
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for p in problems:
        if not p.path.exists():
            continue
        dest = root / QUARANTINE / stamp / p.path.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(p.path), dest)
        moved.append(dest)
        if warn:
            warnings.warn(f"{p}; moved to {dest}", stacklevel=2)
    return moved


__all__ = ["MANIFEST", "QUARANTINE", "Manifest", "Problem", "digest", "quarantine"]
