"""The reading side of the results store: the sweep's definition, every stored run
(one copy of each, the newest), the runs' status and the kept tables, each file
checked against the manifest first and set aside when it fails.

:class:`StoreReading` is a part of :class:`tcpair.results.store.Store`, which holds
the folder, the manifest and the runs written by this process."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tcpair._errors import ScenarioError
from tcpair.results.files import SWEEP, TMP_PREFIX, Damaged, read_parquet
from tcpair.results.manifest import Manifest, Problem
from tcpair.results.rowtables import keyed as _keyed
from tcpair.results.rowtables import newest as _newest


class StoreReading:
    """Reading a store's files; the store's writer keeps its own runs in ``_written``."""

    root: Path
    manifest: Manifest
    _written: dict[str, pa.Table]
    runs_dir: Path
    compact_path: Path
    _set_aside: Callable[[Sequence[Problem]], None]
    _run_files: Callable[[], list[Path]]
    table_dir: Callable[[str], Path]

    def sweep_definition(self) -> dict[str, Any] | None:
        p = self.root / SWEEP
        if not p.is_file():
            return None
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("sweep"), dict):
                raise ValueError("no sweep definition in it")
        except (ValueError, UnicodeDecodeError) as exc:
            raise ScenarioError(
                f"{p}: damaged ({exc}); run the sweep again with its sweep file and "
                f"--out {self.root} to rewrite it (stored runs are kept)"
            ) from None
        return data

    def _trusted(self, files: Sequence[Path]) -> list[Path]:
        """``files`` less those failing their checksum (set aside)."""
        mine = {self.runs_dir / f"{name}.parquet" for name in self._written}
        problems = self.manifest.check([f for f in files if f not in mine])
        if problems:
            self._set_aside(problems)
        bad = {p.path for p in problems}
        return [f for f in files if f not in bad]

    def _read_all(
        self, files: Sequence[Path], columns: Sequence[str] | None = None, drop: Sequence[str] = ()
    ) -> list[pa.Table]:
        """Each trusted file's table (``columns`` of it, or all but ``drop``);
        unreadable files are set aside too."""
        parts = []
        for f in self._trusted(files):
            cached = self._written.get(f.stem) if f.parent == self.runs_dir else None
            try:
                table = read_parquet(f, columns, drop) if cached is None else cached
            except Damaged as exc:
                self._set_aside([exc.problem])
                continue
            if cached is not None and columns is not None:
                table = table.select([c for c in columns if c in table.column_names])
            parts.append(table.drop_columns([c for c in drop if c in table.column_names]))
        return parts

    def _snapshot(self, read: Any) -> Any:
        """``read()``, again if a compaction removed a file under it (the new
        ``runs.parquet`` then holds its rows): a consistent view, no error."""
        for _ in range(10):
            try:
                return read()
            except FileNotFoundError:
                continue
        return read()

    def _sources(self, files: Sequence[Path] | None = None) -> list[Path]:
        compact = [self.compact_path] if self.compact_path.is_file() else []
        return compact + list(self._run_files() if files is None else files)

    def _load_arrow(
        self, files: Sequence[Path] | None = None, drop: Sequence[str] = ()
    ) -> pa.Table:
        """The compacted table plus ``files``, one copy of each run (the newest)."""
        return _newest(self._read_all(self._sources(files), drop=drop))

    def load(self, *, with_scenario: bool = False) -> pd.DataFrame:
        """Every stored run, one row per run and flow (failed runs: one row, no flow).
        The ``scenario`` column (a long text per run) is read only when asked for."""
        drop = () if with_scenario else ("scenario",)
        table = self._snapshot(lambda: self._load_arrow(drop=drop))
        return table.to_pandas(split_blocks=True)  # no copy into one block per dtype

    def status(self) -> dict[str, str]:
        """``run_key -> status`` of every stored run (reads two columns only)."""
        def read() -> dict[str, str]:
            out: dict[str, str] = {}
            for t in self._read_all(self._sources(), columns=["run_key", "status"]):
                keys, status = t.column("run_key").to_pylist(), t.column("status").to_pylist()
                out.update(zip(keys, status, strict=True))
            return out

        return self._snapshot(read)

    def load_table(self, name: str, keys: Sequence[str] | None = None) -> pd.DataFrame:
        """A kept per-packet table (e.g. ``timeseries``) with a ``run_key`` column:
        runs in the order of their keys, each run's rows in its own order. Not in the
        order the runs were stored, which depends on how many workers ran them."""
        d = self.table_dir(name)
        if not d.is_dir():
            return pd.DataFrame()
        files = [p for p in sorted(d.glob("*.parquet")) if not p.name.startswith(TMP_PREFIX)]
        parts = [
            table if "run_key" in table.column_names else _keyed(table, p.stem)
            for p, table in zip(files, self._read_each(files), strict=True)
            if table is not None
        ]
        table = _newest(parts)
        if keys is not None and table.num_rows:
            table = table.filter(pc.is_in(table.column("run_key"), pa.array(list(keys))))
        if table.num_rows:
            table = table.take(pc.sort_indices(table, [("run_key", "ascending")]))  # stable
        return table.to_pandas() if table.num_columns else pd.DataFrame()

    def _read_each(self, files: Sequence[Path]) -> list[pa.Table | None]:
        """Each file's table, None for one that is damaged (set aside)."""
        ok = set(self._trusted(files))
        out: list[pa.Table | None] = []
        for f in files:
            try:
                out.append(read_parquet(f) if f in ok else None)
            except Damaged as exc:
                self._set_aside([exc.problem])
                out.append(None)
        return out


__all__ = ["StoreReading"]
