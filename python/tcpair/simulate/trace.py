"""The event trace: written to Parquet while the core runs, read back lazily.

The core fills fixed-size column chunks and hands each to :class:`ParquetTrace`,
which appends it as one row group (``pyarrow.parquet.ParquetWriter``), so a long
run's trace never sits whole in memory. docs/trace.md describes the columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

# The core's column bytes (little-endian) and their dtypes.
_DTYPES = {
    "time_ns": "<u8",
    "kind": "u1",
    "packet_id": "<i8",
    "flow": "<i4",
    "seq": "<i8",
    "size": "<u4",
    "is_ack": "i1",
    "origin": "i1",
    "eln": "u1",
    "node": "<i4",
    "dir": "<i4",
    "queue": "<i4",
    "detail": "<u2",
    "value": "<i8",
    "cwnd": "<f8",
    "ssthresh": "<f8",
}

ORIGINS = ("first", "sender", "bs")

SCHEMA = pa.schema(
    [
        ("time_ns", pa.uint64()),
        ("time_s", pa.float64()),
        ("kind", pa.string()),
        ("packet_id", pa.int64()),
        ("flow", pa.string()),
        ("packet", pa.string()),
        ("seq", pa.int64()),
        ("size", pa.uint32()),
        ("origin", pa.string()),
        ("eln", pa.bool_()),
        ("node", pa.string()),
        ("link", pa.string()),
        ("direction", pa.string()),
        ("queue", pa.int32()),
        ("detail", pa.string()),
        ("value", pa.int64()),
        ("cwnd", pa.float64()),
        ("ssthresh", pa.float64()),
    ]
)


def _names(codes: np.ndarray, names: list[str]) -> pa.Array:
    """Strings for codes (``-1``: null), decoded by Arrow (no Python objects)."""
    idx = pa.array(np.where(codes < 0, 0, codes).astype(np.int32), mask=codes < 0)
    dictionary = pa.array(names or [""], type=pa.string())
    return pa.DictionaryArray.from_arrays(idx, dictionary).dictionary_decode()


def _nullable(col: np.ndarray, arrow_type: pa.DataType) -> pa.Array:
    return pa.array(col, type=arrow_type, mask=col < 0)


def chunk_table(cols: Mapping[str, bytes], labels: Mapping[str, list[str]]) -> pa.Table:
    """One chunk from the core as an Arrow table of :data:`SCHEMA`."""
    c = {k: np.frombuffer(cols[k], dtype=dt) for k, dt in _DTYPES.items()}
    dirs = labels["dirs"]
    links = [d.rsplit(":", 1)[0] for d in dirs]
    sides = [d.rsplit(":", 1)[1] for d in dirs]
    dir_codes = c["dir"].astype(np.int64)
    is_ack = c["is_ack"].astype(np.int64)
    data = {
        "time_ns": pa.array(c["time_ns"], type=pa.uint64()),
        "time_s": pa.array(c["time_ns"] / 1e9, type=pa.float64()),
        "kind": _names(c["kind"].astype(np.int64), labels["kinds"]),
        "packet_id": _nullable(c["packet_id"], pa.int64()),
        "flow": _names(c["flow"].astype(np.int64), labels["flows"]),
        "packet": _names(is_ack, ["data", "ack"]),
        "seq": _nullable(c["seq"], pa.int64()),
        "size": pa.array(c["size"], type=pa.uint32()),
        "origin": _names(c["origin"].astype(np.int64), list(ORIGINS)),
        "eln": pa.array(c["eln"].astype(bool)),
        "node": _names(c["node"].astype(np.int64), labels["nodes"]),
        "link": _names(dir_codes, links),
        "direction": _names(dir_codes, sides),
        "queue": _nullable(c["queue"], pa.int32()),
        "detail": _names(c["detail"].astype(np.int64) - 1, labels["details"][1:]),
        "value": _nullable(c["value"], pa.int64()),
        "cwnd": pa.array(c["cwnd"], type=pa.float64()),
        "ssthresh": pa.array(c["ssthresh"], type=pa.float64()),
    }
    return pa.table(data, schema=SCHEMA)


class ParquetTrace:
    """The core's trace sink: each chunk becomes one row group of ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(self.path, SCHEMA)
        self.rows = 0

    def __call__(self, cols: Mapping[str, bytes], labels: Mapping[str, list[str]]) -> None:
        table = chunk_table(cols, labels)
        self.rows += table.num_rows
        self._writer.write_table(table)

    def close(self) -> None:
        self._writer.close()


_NULLABLE_INTS = {pa.int64(): pd.Int64Dtype(), pa.int32(): pd.Int32Dtype()}


def read(path: str | Path, **kwargs: Any) -> pd.DataFrame:
    """A trace file as a DataFrame (``columns=``/``filters=`` pass to pyarrow).

    Integer columns with gaps (``packet_id``, ``seq``, ``queue``, ...) are
    pandas' nullable integers, so a packet id stays an integer.
    """
    table = pq.read_table(path, **kwargs)
    return table.to_pandas(types_mapper=_NULLABLE_INTS.get)


def follow(trace: pd.DataFrame, packet_id: int, flow: str | None = None) -> pd.DataFrame:
    """Every row about one packet, in the order they happened.

    A BS's local retransmission is a new packet (a new id); its row
    ``bs_local_retransmit`` names the same flow and ``seq``. Ids are counted
    per independent part of the network (flows that share no link), so in a
    run of several parts one id may name a packet of each: then ``flow``
    says which.
    """
    rows = trace[trace["packet_id"] == packet_id]
    if flow is not None:
        rows = rows[rows["flow"] == flow]
    else:
        flows = sorted(str(f) for f in rows["flow"].dropna().unique())
        if len(flows) > 1:
            raise ValueError(
                f"packet_id {packet_id} names a packet in each of several independent parts "
                f"of the network (flows {', '.join(flows)}): give flow= as well"
            )
    return rows.sort_values("time_ns", kind="stable").reset_index(drop=True)


def follow_segment(trace: pd.DataFrame, flow: str, seq: int) -> pd.DataFrame:
    """Every transmission of data segment ``seq`` of ``flow`` and its events."""
    data = trace[
        (trace["flow"] == flow)
        & (trace["packet"] == "data")
        & (trace["seq"] == seq)
        & (trace["kind"] != "deliver")  # its seq is the next expected segment
    ]
    return data.sort_values("time_ns", kind="stable").reset_index(drop=True)


def _resample(series: pd.DataFrame, every: float | None) -> pd.DataFrame:
    """``series`` (``time_s`` first) as is, or its value at 0, every, 2 every, ..."""
    if every is None:
        return series.reset_index(drop=True)
    if every <= 0:
        raise ValueError(f"every: must be > 0 seconds, got {every}")
    if series.empty:
        return series
    end = float(series["time_s"].iloc[-1])
    grid = pd.DataFrame({"time_s": np.arange(0.0, end + every / 2, every)})
    return pd.merge_asof(grid, series, on="time_s", direction="backward")


def queue_series(
    trace: pd.DataFrame, link: str, direction: str = "forward", every: float | None = None
) -> pd.DataFrame:
    """Packets waiting in one link direction's queue: on every change
    (``every=None``) or sampled every ``every`` seconds.

    From the ``enqueue`` and ``transmit`` rows: a packet waits from its
    enqueue until its transmission starts (so the trace must keep that link).
    """
    here = trace[(trace["link"] == link) & (trace["direction"] == direction)]
    enq = here[here["kind"] == "enqueue"][["packet_id", "time_ns"]]
    start = here[here["kind"] == "transmit"][["packet_id", "time_ns"]]
    both = enq.merge(start, on="packet_id", suffixes=("_enq", "_start"))
    waits = both[both["time_ns_start"] > both["time_ns_enq"]]
    steps = pd.concat(
        [
            pd.DataFrame({"time_ns": [0], "step": [0]}),  # empty at the start
            pd.DataFrame({"time_ns": waits["time_ns_enq"].to_numpy(), "step": 1}),
            pd.DataFrame({"time_ns": waits["time_ns_start"].to_numpy(), "step": -1}),
        ]
    )
    # At one instant a start (-1) goes before an enqueue (+1), as in the link.
    steps = steps.sort_values(["time_ns", "step"], kind="stable")
    steps["queue"] = steps["step"].cumsum()
    out = steps.groupby("time_ns", sort=True)["queue"].last().reset_index()
    out.insert(0, "time_s", out["time_ns"] / 1e9)
    return _resample(out[["time_s", "time_ns", "queue"]], every)


def window_series(trace: pd.DataFrame, flow: str, every: float | None = None) -> pd.DataFrame:
    """A sender's cwnd and ssthresh (segments) on every change, or sampled
    every ``every`` seconds; an unbounded ssthresh is ``inf``."""
    w = trace[(trace["flow"] == flow) & (trace["kind"] == "window")]
    return _resample(w[["time_s", "time_ns", "cwnd", "ssthresh"]], every)
