"""The results store: one directory per sweep, safe to interrupt at any moment.

Layout::

    DIR/
      sweep.json            the sweep definition last run here (self-contained)
      runs.parquet          compacted table: one row per run and flow
      runs/<key>.parquet    runs finished since the last compaction
      tables/<name>/<key>.parquet   per-packet tables the sweep keeps
      .lock                 held while a sweep writes here

Each finished run is written to a temporary file in ``runs/`` and renamed into
place (``os.replace`` is atomic on POSIX), so a run file is either complete or
absent, whatever kills the process. A run is stored once its run file exists;
kept tables are written first, so a stored run always has them. Compaction
folds the run files into ``runs.parquet`` (written the same way) and only then
deletes them; a crash in between leaves duplicates, which loading removes by
key. ``runs.parquet`` is plain Parquet: pandas, pyarrow, polars and DuckDB
read it directly.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tcpair._errors import ScenarioError, StoreLocked
from tcpair._perms import fix_file

try:  # POSIX only; the store still works without a lock elsewhere.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

COMPACT = "runs.parquet"
RUNS = "runs"
TABLES = "tables"
SWEEP = "sweep.json"
LOCK = ".lock"
TMP_PREFIX = ".tmp-"


# Descriptors of the store locks this process holds. A forked pool worker
# inherits them; it closes its copies (release_inherited_locks) so that the
# kernel frees a lock as soon as the sweep that took it is gone, even if a
# worker lingers (flock locks belong to the open file, shared by every copy).
_HELD_LOCKS: set[int] = set()


def release_inherited_locks() -> None:
    """In a forked child: close the copies of the parent's store locks."""
    for fd in list(_HELD_LOCKS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


def _fsync_write(path: Path, write: Any) -> None:
    """Write via ``write(tmp_path)`` next to ``path``, fsync, then rename into place."""
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
        os.replace(tmp, path)
    except OSError as exc:  # e.g. a full disk: name the file being written
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_table(path: Path, table: pa.Table) -> None:
    _fsync_write(path, lambda tmp: pq.write_table(table, tmp))


def _concat(tables: Sequence[pa.Table]) -> pa.Table:
    """Concatenate tables whose columns differ (a failed run has no flow metrics)
    or whose types were inferred differently (null vs string, int vs float)."""
    tables = [t for t in tables if t.num_columns]
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="permissive")


def write_json(path: Path, data: Any) -> None:
    """Atomically write ``data`` as JSON."""

    def w(tmp: str) -> None:
        Path(tmp).write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")

    _fsync_write(path, w)


class Store:
    """A results directory. Reading needs no lock; writing goes through :meth:`writer`."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        # Run tables this object wrote, so compaction need not read them back.
        self._written: dict[str, pa.Table] = {}

    # -- layout -------------------------------------------------------------
    @property
    def runs_dir(self) -> Path:
        return self.root / RUNS

    @property
    def compact_path(self) -> Path:
        return self.root / COMPACT

    def table_dir(self, name: str) -> Path:
        return self.root / TABLES / name

    def exists(self) -> bool:
        return (
            (self.root / SWEEP).is_file() or self.compact_path.is_file() or self.runs_dir.is_dir()
        )

    def _run_files(self) -> list[Path]:
        if not self.runs_dir.is_dir():
            return []
        return sorted(
            p for p in self.runs_dir.glob("*.parquet") if not p.name.startswith(TMP_PREFIX)
        )

    # -- writing -------------------------------------------------------------
    @contextlib.contextmanager
    def writer(self) -> Iterator[Store]:
        """Hold the store's lock while writing; stale temporary files are removed."""
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        fh: IO[str] = open(self.root / LOCK, "a+")  # noqa: SIM115 - held for the block
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise StoreLocked(
                        f"{self.root}: results store in use by another tcpair process"
                    ) from None
            _HELD_LOCKS.add(fh.fileno())
            self._remove_temporaries()
            yield self
        finally:
            _HELD_LOCKS.discard(fh.fileno())
            fh.close()

    def _remove_temporaries(self) -> None:
        for d in [self.root, self.runs_dir, *self.root.glob(f"{TABLES}/*")]:
            if d.is_dir():
                for p in d.glob(f"{TMP_PREFIX}*"):
                    with contextlib.suppress(OSError):
                        p.unlink()

    def put(self, key: str, rows: pa.Table, tables: Mapping[str, pa.Table]) -> None:
        """Store one finished run (its kept tables first, the run file last)."""
        for name, table in tables.items():
            d = self.table_dir(name)
            d.mkdir(parents=True, exist_ok=True)
            _write_table(d / f"{key}.parquet", table)
        _write_table(self.runs_dir / f"{key}.parquet", rows)
        self._written[key] = rows

    def save_sweep(self, definition: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        write_json(self.root / SWEEP, definition)

    def compact(self) -> int:
        """Fold run files into ``runs.parquet``; returns how many were folded."""
        files = self._run_files()
        if not files:
            return 0
        _write_table(self.compact_path, self._load_arrow(files))
        for f in files:
            with contextlib.suppress(OSError):
                f.unlink()
        self._written.clear()
        return len(files)

    # -- reading -------------------------------------------------------------
    def sweep_definition(self) -> dict[str, Any] | None:
        p = self.root / SWEEP
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None

    def _load_arrow(self, files: Sequence[Path]) -> pa.Table:
        """The compacted table plus ``files``, one copy of each run (the newest)."""
        parts = [pq.read_table(self.compact_path)] if self.compact_path.is_file() else []
        parts.extend(
            self._written[f.stem] if f.stem in self._written else pq.read_table(f) for f in files
        )
        table = _concat(parts)
        if "run_key" not in table.column_names or len(parts) < 2:
            return table
        # A run file is newer than a compacted copy of the same run: keep every
        # row (flow) of the last part holding each key.
        origin = np.concatenate([np.full(p.num_rows, i) for i, p in enumerate(parts)])
        keys = pd.Series(table.column("run_key").to_numpy(zero_copy_only=False))
        newest = pd.Series(origin).groupby(keys.to_numpy()).transform("max").to_numpy()
        if (newest == origin).all():
            return table
        return table.filter(pa.array(newest == origin))

    def load(self, *, with_scenario: bool = False) -> pd.DataFrame:
        """Every stored run, one row per run and flow (failed runs: one row, no flow)."""
        table = self._load_arrow(self._run_files())
        if not with_scenario and "scenario" in table.column_names:
            table = table.drop_columns(["scenario"])
        return table.to_pandas()

    def status(self) -> dict[str, str]:
        """``run_key -> status`` of every stored run (reads two columns only)."""
        out: dict[str, str] = {}
        sources = [self.compact_path] if self.compact_path.is_file() else []
        sources += self._run_files()
        for src in sources:
            t = pq.read_table(src, columns=["run_key", "status"])
            out.update(
                zip(t.column("run_key").to_pylist(), t.column("status").to_pylist(), strict=True)
            )
        return out

    def load_table(self, name: str, keys: Sequence[str] | None = None) -> pd.DataFrame:
        """A kept per-packet table (e.g. ``timeseries``) with a ``run_key`` column."""
        d = self.table_dir(name)
        if not d.is_dir():
            return pd.DataFrame()
        wanted = set(keys) if keys is not None else None
        frames = []
        for p in sorted(d.glob("*.parquet")):
            if p.name.startswith(TMP_PREFIX) or (wanted is not None and p.stem not in wanted):
                continue
            frame = pq.read_table(p).to_pandas()
            frame.insert(0, "run_key", p.stem)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def load_results(directory: str | Path, *, with_scenario: bool = False) -> pd.DataFrame:
    """All runs stored in ``directory`` as one DataFrame (one row per run and flow).

    Columns: ``run_key``, ``sweep``, the sweep's axis labels, ``seed``,
    ``status`` (``ok``/``failed``), ``error_kind``, ``error``, run-level
    numbers prefixed ``run_``, then the flow's metrics (``flow`` is its name).
    """
    store = Store(directory)
    if not store.exists():
        raise ScenarioError(f"{directory}: not a tcpair results directory (no {SWEEP} or {RUNS}/)")
    return store.load(with_scenario=with_scenario)


__all__ = ["Store", "StoreLocked", "load_results", "release_inherited_locks"]
