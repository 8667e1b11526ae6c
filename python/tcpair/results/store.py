"""The results store: one directory per sweep, safe to interrupt at any moment.

Layout::

    DIR/
      sweep.json            the sweep definition last run here (self-contained)
      runs.parquet          compacted table: one row per run and flow
      runs/g<seq>.parquet   groups of runs finished since the last compaction
      runs/g<last>-<first>.parquet  segments: 64 groups folded into one as a sweep goes
      tables/<name>/g<seq>.parquet  per-packet tables the sweep keeps (run_key column)
      manifest.jsonl        size and SHA-256 of each committed file (manifest.py)
      quarantine/           files that failed their checksum, set aside
      .lock                 held while a sweep writes here

Finished runs are committed in groups (many runs per file, one write and one
fsync per file): each group's file is written to a temporary file in ``runs/``
and renamed into place (``os.replace`` is atomic on POSIX), so a group is
either complete or absent, whatever kills the process. A run is stored once
the file of its group exists; kept tables are written first, so a stored run
always has them. Group files are numbered in the order they were written; when
a run is stored twice (a failed run retried), the newest file's rows win.
Compaction folds the run files into ``runs.parquet`` (written the same way)
and only then deletes them; a crash in between leaves duplicates, which
loading removes by key. ``runs.parquet`` is plain Parquet: pandas, pyarrow,
polars and DuckDB read it directly. Run files of older versions, one per run
and named by its key, are read alike (they sort before every group).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tcpair._errors import ScenarioError, StoreLocked
from tcpair.base.plain import BROWSER_FILES, check_folder
from tcpair.results.files import (
    COMPACT,
    GROUP_PREFIX,
    LOCK,
    RUNS,
    SEGMENT_GROUPS,
    SWEEP,
    TABLES,
    TMP_PREFIX,
    fsync_write,
    group_seq,
    json_text,
    write_json,
)
from tcpair.results.manifest import MANIFEST, QUARANTINE, Manifest, Problem, digest, quarantine
from tcpair.results.reading import StoreReading
from tcpair.results.rowtables import keyed as _keyed
from tcpair.results.rowtables import newest as _newest

try:  # POSIX only; the store still works without a lock elsewhere.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]



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


class Store(StoreReading):
    """A results directory. Reading needs no lock; writing goes through :meth:`writer`."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.manifest = Manifest(self.root)
        # Run tables this object wrote, so compaction need not read them back.
        self._written: dict[str, pa.Table] = {}
        # The last group number used (read from the store on the first write).
        self._seq: int | None = None
        # True while this object holds the lock: then damaged files are
        # quarantined; a reader without the lock only skips them.
        self._writing = False

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

    def foreign_names(self) -> list[str]:
        """Names at the top of the folder that no store writes (none if the folder
        is missing or holds a sweep's definition): a sweep into a folder of the
        user's own would set aside or remove what it takes for its own files."""
        if not self.root.is_dir() or (self.root / SWEEP).is_file():
            return []
        ours = {SWEEP, COMPACT, RUNS, TABLES, LOCK, MANIFEST, QUARANTINE, *BROWSER_FILES}
        return sorted(
            p.name
            for p in self.root.iterdir()
            if p.name not in ours and not p.name.startswith(TMP_PREFIX)
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
            self._adopt_unlisted()
            self._seq = None
            self._writing = True
            yield self
        finally:
            self._writing = False
            _HELD_LOCKS.discard(fh.fileno())
            fh.close()

    def committed_files(self) -> list[Path]:
        """Every stored file the manifest covers (not temporaries, not the lock)."""
        files = [self.root / SWEEP, self.compact_path, *self._run_files()]
        for d in sorted(self.root.glob(f"{TABLES}/*")):
            files += sorted(p for p in d.glob("*.parquet") if not p.name.startswith(TMP_PREFIX))
        return [f for f in files if f.is_file()]

    def _adopt_unlisted(self) -> None:
        """A store from before manifests: list its files as they are now."""
        if self.manifest.exists():
            return
        entries = {}
        for f in self.committed_files():
            size, sha = digest(f)
            entries[f.relative_to(self.root).as_posix()] = {"size": size, "sha256": sha}
        if entries:
            self.manifest.rewrite(entries)

    def _commit(self, path: Path) -> Any:
        rel = path.relative_to(self.root).as_posix()
        return lambda tmp: self.manifest.record(rel, tmp)

    def _write_table(self, path: Path, table: pa.Table) -> None:
        fsync_write(path, lambda tmp: pq.write_table(table, tmp), self._commit(path))

    def check(self) -> list[Problem]:
        """Every committed file that fails its checksum, is stray or is unreadable."""
        problems = self.manifest.check(self.committed_files())
        bad = {p.path for p in problems}
        for f in self.committed_files():
            if f in bad:
                continue
            try:
                if f.suffix == ".parquet":
                    pq.read_metadata(f)
                else:
                    json.loads(f.read_text(encoding="utf-8"))
            except (pa.ArrowException, OSError, ValueError) as exc:
                problems.append(Problem(f, f"damaged (not readable: {exc})"))
        return problems

    def _set_aside(self, problems: Sequence[Problem]) -> None:
        """Quarantine (writer) or skip with a warning (reader)."""
        if self._writing:
            quarantine(self.root, problems)
            return
        for p in problems:
            warnings.warn(f"{p}; skipped (tcpair store repair sets it aside)", stacklevel=3)

    def _remove_temporaries(self) -> None:
        for d in [self.root, self.runs_dir, *self.root.glob(f"{TABLES}/*")]:
            if d.is_dir():
                for p in d.glob(f"{TMP_PREFIX}*"):
                    with contextlib.suppress(OSError):
                        p.unlink()

    def put(self, key: str, rows: pa.Table, tables: Mapping[str, pa.Table]) -> None:
        """Store one finished run: a group of one (:meth:`put_group`)."""
        self.put_group(rows, {name: _keyed(t, key) for name, t in tables.items()})

    def put_group(self, rows: pa.Table, tables: Mapping[str, pa.Table]) -> str:
        """Store a group of finished runs; returns the group's file name (``g<seq>``).

        ``rows`` holds every run's rows (a ``run_key`` column), each kept table
        the rows of every run that has it (a ``run_key`` column too). The kept
        tables are written first, the run file last: one write, one fsync and
        one manifest line per file, whatever the number of runs."""
        name = self._next_group()
        for table_name, table in tables.items():
            d = self.table_dir(table_name)
            d.mkdir(parents=True, exist_ok=True)
            self._write_table(d / f"{name}.parquet", table)
        self._write_table(self.runs_dir / f"{name}.parquet", rows)
        self._written[name] = rows
        self._fold_groups()
        return name

    def _next_group(self) -> str:
        """The next group's name: one past the highest group file (runs or kept
        tables) in the store, so files sort in the order they were written."""
        if self._seq is None:
            names = [p.stem for p in self._run_files()]
            names += [p.stem for p in self.root.glob(f"{TABLES}/*/{GROUP_PREFIX}*.parquet")]
            self._seq = max((n for n in map(group_seq, names) if n is not None), default=0)
        self._seq += 1
        return f"{GROUP_PREFIX}{self._seq:012d}"

    def save_sweep(self, definition: Mapping[str, Any]) -> None:
        """Write the sweep's definition, unless the store holds it already as its
        manifest recorded it (a resumed sweep): no file rewritten, no line added."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / SWEEP
        data = json_text(definition).encode("utf-8")
        recorded = self.manifest.entries().get(SWEEP)
        with contextlib.suppress(OSError):
            if recorded == {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()} and (
                path.read_bytes() == data
            ):
                return
        write_json(path, definition, self._commit(path))

    def compact(self) -> int:
        """Fold run files into ``runs.parquet``; returns how many were folded.

        Order: the new ``runs.parquet`` (its manifest line first), then the run
        files go, then the manifest is rewritten without their lines. A kill
        at any point leaves every run readable (duplicates are removed by key
        on loading; lines of missing files are ignored)."""
        files = self._run_files()
        if not files:
            return 0
        self._write_table(self.compact_path, self._load_arrow(files))
        self._drop(files)
        self._seq = None
        return len(files)

    def _fold_groups(self) -> None:
        """Once :data:`SEGMENT_GROUPS` group files stand in ``runs/``, fold them
        into one segment file named after the last and first of them
        (``g<last>-<first>``: it sorts where its last group did, so the newest
        copy of a run still comes last). A store of a million runs then has a
        few dozen files to read, not thousands, even before its compaction.
        A kill in between leaves duplicates, which loading removes."""
        groups = [f for f in self._run_files() if group_seq(f.stem, whole=True) is not None]
        if len(groups) < SEGMENT_GROUPS:
            return
        first, last = groups[0].stem, groups[-1].stem
        segment = self.runs_dir / f"{last}-{first[len(GROUP_PREFIX) :]}.parquet"
        table = _newest(self._read_all(groups))
        self._write_table(segment, table)
        self._drop(groups)
        self._written[segment.stem] = table

    def _drop(self, files: Sequence[Path]) -> None:
        """Delete run files now held by a newer file, then their manifest lines."""
        for f in files:
            self._written.pop(f.stem, None)
            with contextlib.suppress(OSError):
                f.unlink()
        present = {f.relative_to(self.root).as_posix() for f in self.committed_files()}
        entries = self.manifest.entries()
        self.manifest.rewrite({k: v for k, v in entries.items() if k in present})



def load_results(directory: str | Path, *, with_scenario: bool = False) -> pd.DataFrame:
    """All runs stored in ``directory`` as one DataFrame (one row per run and flow).

    Columns: ``run_key``, ``sweep``, the sweep's axis labels, ``seed``,
    ``status`` (``ok``/``failed``), ``error_kind``, ``error``, run-level
    numbers prefixed ``run_``, then the flow's metrics (``flow`` is its name).
    """
    check_folder(directory, "directory")
    store = Store(directory)
    if not store.exists():
        raise ScenarioError(f"{directory}: not a tcpair results directory (no {SWEEP} or {RUNS}/)")
    return store.load(with_scenario=with_scenario)


__all__ = ["Store", "StoreLocked", "load_results", "release_inherited_locks"]
