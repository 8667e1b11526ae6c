"""How the results store writes and reads its files: the layout's names, a file
written whole or not at all (a temporary file, fsync, then an atomic rename), JSON
as the store writes it, Parquet read back with damage reported as such, and the
numbers in group files' names. :mod:`tcpair.results.store` says what the layout is."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tcpair.base.perms import fix_file
from tcpair.results.manifest import Problem

COMPACT = "runs.parquet"
RUNS = "runs"
TABLES = "tables"
SWEEP = "sweep.json"
LOCK = ".lock"
TMP_PREFIX = ".tmp-"
GROUP_PREFIX = "g"  # a group's file name: g + 12 digits (sorts after hex run keys)
SEGMENT_GROUPS = 64  # group files folded into one segment file as a sweep goes


def fsync_write(path: Path, write: Any, commit: Any = None) -> None:
    """Write via ``write(tmp_path)`` next to ``path``, fsync, call ``commit(tmp_path)``
    (the manifest's line), then rename into place."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=path.suffix, dir=path.parent)
    except OSError as exc:  # e.g. a read-only directory
        raise OSError(exc.errno, exc.strerror or str(exc), str(path.parent)) from None
    os.close(fd)
    try:
        write(tmp)
        fix_file(tmp)  # mkstemp makes it 0600; readers expect the umask's mode
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        if commit is not None:
            commit(tmp)
        os.replace(tmp, path)
    except OSError as exc:  # e.g. a full disk: name the file being written
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def json_text(data: Any) -> str:
    """``data`` as the store writes JSON."""
    return json.dumps(data, indent=2, default=str) + "\n"


def write_json(path: Path, data: Any, commit: Any = None) -> None:
    """Atomically write ``data`` as JSON."""
    text = json_text(data)

    def w(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")

    fsync_write(path, w, commit)


def read_parquet(
    path: Path, columns: Sequence[str] | None = None, drop: Sequence[str] = ()
) -> pa.Table:
    """Read a stored Parquet file (``columns`` of it, or all but ``drop``); a
    damaged one raises :class:`Damaged`."""
    try:
        with pq.ParquetFile(path) as pf:
            if drop and columns is None:
                columns = [n for n in pf.schema_arrow.names if n not in drop]
            return pf.read(columns=columns)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise Damaged(Problem(path, f"damaged (not readable as Parquet: {exc})")) from None


class Damaged(Exception):
    """A stored file failed to read; carries the :class:`Problem`."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def group_seq(stem: str, *, whole: bool = False) -> int | None:
    """The number of a group file's name (``g000000000042`` -> 42) or of a
    segment's last group (``g000000000064-000000000001`` -> 64), else None;
    with ``whole``, segments give None."""
    if not stem.startswith(GROUP_PREFIX):
        return None
    head, _, tail = stem[len(GROUP_PREFIX) :].partition("-")
    if whole and tail:
        return None
    if len(head) == 12 and head.isdigit() and (not tail or (len(tail) == 12 and tail.isdigit())):
        return int(head)
    return None


__all__ = [
    "COMPACT",
    "GROUP_PREFIX",
    "LOCK",
    "RUNS",
    "SEGMENT_GROUPS",
    "SWEEP",
    "TABLES",
    "TMP_PREFIX",
    "Damaged",
    "fsync_write",
    "group_seq",
    "json_text",
    "read_parquet",
    "write_json",
]
