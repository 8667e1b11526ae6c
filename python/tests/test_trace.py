"""The event trace and the pcap files with the real core, and the Lua
dissector with the real tshark (docs/trace.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from needs import tshark

pytest.importorskip("tcpair._core")

import tcpair
from tcpair.base.paths import dissector_path
from tcpair.simulate.trace import read as read_trace

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
ONE_LINK = str(SCENARIOS / "clrp_one_link.toml")
MH_FH = str(SCENARIOS / "clrp_one_link_mh_fh.toml")


def _lossy(seconds: float, p: float = 0.03) -> dict[str, object]:
    return {"run.duration": seconds, "links.wireless.forward.loss.p": p, "links.wireless.queue": 8}


def test_trace_rows_drops_and_determinism(tmp_path: Path) -> None:
    r = tcpair.run(ONE_LINK, overrides=_lossy(10), trace=tmp_path / "a.parquet")
    t = r.trace
    assert list(t.columns)[:4] == ["time_ns", "time_s", "kind", "packet_id"]
    drops = t[t["kind"] == "drop"]
    assert len(drops) == len(r.drops) > 5
    assert list(drops["packet_id"]) == list(r.drops["packet_id"])
    assert list(drops["detail"]) == list(r.drops["cause"])
    assert set(drops["detail"]) == {"queue", "corruption"}
    # Same scenario, same trace.
    again = tcpair.run(ONE_LINK, overrides=_lossy(10), trace=tmp_path / "b.parquet")
    pd.testing.assert_frame_equal(t, again.trace)
    # The unbounded initial ssthresh is inf, never 4.29e9.
    w = t[t["kind"] == "window"]
    assert w["ssthresh"].iloc[0] == float("inf")
    assert w["ssthresh"].max() == float("inf") and w["ssthresh"][w["ssthresh"] < 1e9].max() < 100


def test_follow_and_time_sequence(tmp_path: Path) -> None:
    r = tcpair.run(ONE_LINK, overrides=_lossy(5), trace=True)
    lost = int(r.drops["packet_id"].iloc[0])
    rows = r.follow(lost)
    assert rows["kind"].iloc[0] == "send"
    assert rows["kind"].iloc[-1] == "drop"
    assert rows["time_ns"].is_monotonic_increasing
    fig = r.time_sequence("tcp1", 1.0, 3.0)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "segment dropped" in labels and "retransmitted by the sender" in labels
    fig.savefig(tmp_path / "ts.png")
    with pytest.raises(tcpair.ScenarioError, match="no flow named"):
        r.time_sequence("nope")

    # Saved and loaded back with its trace.
    r.save(tmp_path / "saved")
    back = tcpair.load(tmp_path / "saved")
    assert len(back.trace) == len(r.trace)


def test_trace_streams_in_row_groups(tmp_path: Path) -> None:
    path = tmp_path / "long.parquet"
    r = tcpair.run(ONE_LINK, overrides={"run.duration": 40}, trace=path)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups >= 2, "one row group per chunk of 65536 rows"
    assert meta.num_rows == len(r.trace) > 65_536


def test_filters_and_untraced_result(tmp_path: Path) -> None:
    sc = {"trace.links": ["wireless"], "trace.start": 1.0, "trace.end": 2.0, "run.duration": 3}
    r = tcpair.run(ONE_LINK, overrides=sc, trace=True)
    t = r.trace
    assert set(t["link"].dropna()) == {"wireless"}
    assert t["time_s"].between(1.0, 2.0, inclusive="left").all()
    plain = tcpair.run(ONE_LINK, overrides={"run.duration": 3})
    with pytest.raises(tcpair.ScenarioError, match="not traced"):
        _ = plain.trace
    with pytest.raises(tcpair.ScenarioError, match=r"trace\.nodes\[0\]"):
        tcpair.run(ONE_LINK, overrides={"trace.nodes": ["nowhere"], "run.duration": 1})


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcpair", *args], cwd=cwd, capture_output=True, text=True
    )


def test_cli_bad_pcap_dir_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    p = _cli("run", ONE_LINK, "--set", "run.duration=1", "--pcap", "afile/sub", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: trace.pcap"), p.stderr


@pytest.mark.parametrize("size", [65_482, 65_510, 65_524, 65_535])
def test_cli_packet_size_too_large_for_pcap_is_one_error_line(tmp_path: Path, size: int) -> None:
    """Refused before the run, naming the flow's packet_size (it was an
    internal error from 65,524 and blamed trace.pcap from 65,510)."""
    sets = ["--set", "run.duration=0.1", "--set", f"flows.tcp1.packet_size={size}"]
    for args in (
        ("run", ONE_LINK, *sets, "--pcap", "out"),
        ("validate", ONE_LINK, *sets, "--set", "trace.pcap=out"),
    ):
        p = _cli(*args, cwd=tmp_path)
        assert p.returncode == 2, p.stderr
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, p.stderr
        assert lines[0].startswith("error: flows.tcp1.packet_size: must be at most 65481"), p.stderr
        assert lines[0].endswith(f"got {size}"), p.stderr
        assert not (tmp_path / "out").exists()


def test_pcap_dissector_prints_the_shipped_file(tmp_path: Path) -> None:
    p = _cli("pcap-dissector", cwd=tmp_path)
    assert p.returncode == 0
    assert Path(p.stdout.strip()) == dissector_path()
    assert dissector_path().is_file()


def _tshark(pcap: Path, *fields: str, filt: str | None = None) -> list[list[str]]:
    cmd = [tshark(), "-X", f"lua_script:{dissector_path()}", "-r", str(pcap), "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    if filt:
        cmd += ["-Y", filt]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def _check_clean(pcap: Path) -> None:
    """No malformed packet, no expert error, good IP and TCP checksums."""
    bad = _tshark(pcap, "frame.number", filt="_ws.malformed || _ws.expert.severity == error")
    assert bad == []
    cmd = [
        tshark(),
        "-X",
        f"lua_script:{dissector_path()}",
        "-r",
        str(pcap),
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
        "-T",
        "fields",
        "-e",
        "ip.checksum.status",
        "-e",
        "tcp.checksum.status",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert set(out.split()) == {"1"}, "every checksum verified good"


def test_snoop_run_pcap_decoded_by_tshark_matches_trace(tmp_path: Path) -> None:
    """The issue's command: a Snoop run with --trace --pcap, read by tshark."""
    p = _cli(
        "run",
        ONE_LINK,
        "--set",
        'nodes.bs.bs=["snoop"]',
        "--set",
        "run.duration=4",
        "--set",
        "links.wireless.forward.loss.p=0.03",
        "--trace",
        "--pcap",
        "out/",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    t = read_trace(tmp_path / "clrp_one_link.trace.parquet")
    pcap = tmp_path / "out" / "wireless-forward.pcap"
    _check_clean(pcap)
    rows = _tshark(
        pcap, "frame.time_epoch", "tcpair.packet_id", "tcpair.origin", "tcp.seq_raw", "tcp.len"
    )
    tx = t[(t["kind"] == "transmit") & (t["link"] == "wireless") & (t["direction"] == "forward")]
    assert len(rows) == len(tx) > 100
    origins = {"first": "0", "sender": "1", "bs": "2"}
    for r, (_, x) in zip(rows, tx.iterrows(), strict=True):
        assert r[0] == f"{x.time_ns // 10**9}.{x.time_ns % 10**9:09d}"
        assert r[1:3] == [str(x.packet_id), origins[x.origin]]
        assert int(r[3]) == x.seq * 960 and r[4] == "960"
    assert "2" in {r[2] for r in rows}, "the BS's local retransmissions are marked"


def test_eln_and_loss_blocks_decoded(tmp_path: Path) -> None:
    out = tmp_path / "eln"
    r = tcpair.run(
        MH_FH, overrides={"nodes.bs.bs": ["snoop"], "run.duration": 5}, trace=True, pcap=out
    )
    t = r.trace
    set_ids = {str(i) for i in t[t["kind"] == "bs_eln_set"]["packet_id"]}
    pcap = out / "wireless-forward.pcap"
    _check_clean(pcap)
    eln = {row[0] for row in _tshark(pcap, "tcpair.packet_id", filt="tcpair.eln == 1")}
    assert eln == set_ids and len(eln) > 5
    out = tmp_path / "clrp"
    over = {"nodes.bs.bs": ["clrp"], "flows.tcp1.sink.clrp": True, **_lossy(5)}
    r = tcpair.run(ONE_LINK, overrides=over, trace=True, pcap=out)
    t = r.trace
    stripped = t[(t["kind"] == "bs_option_stripped") & (t["detail"] == "clrp loss blocks")]
    pcap = out / "wireless-reverse.pcap"
    _check_clean(pcap)
    with_blocks = _tshark(pcap, "tcpair.packet_id", "tcpair.loss_blocks", filt="tcpair.loss_blocks")
    assert {row[0] for row in with_blocks} == {str(i) for i in stripped["packet_id"]}
    assert len(with_blocks) > 5
    # A loss block names a segment that was dropped on the wireless hop.
    lost = set(r.drops[r.drops["cause"] == "corruption"]["seq"])
    blocks = {int(b) for row in with_blocks for b in row[1].split(",")}
    assert blocks <= lost | {int(s) for s in t[t["kind"] == "send"]["seq"]}
    assert blocks & lost


def test_queue_and_window_series(tmp_path: Path) -> None:
    from tcpair.simulate.trace import queue_series, window_series

    r = tcpair.run(ONE_LINK, overrides=_lossy(5), trace=True)
    t = r.trace
    q = queue_series(t, "wireless", "forward")
    assert q["queue"].min() >= 0 and q["queue"].max() <= 8  # links.wireless.queue
    assert q["queue"].max() == 8, "the queue filled (drops at the queue)"
    # Right after each enqueue the series equals the row's queue column.
    enq = t[(t["kind"] == "enqueue") & (t["link"] == "wireless") & (t["direction"] == "forward")]
    at = q.set_index("time_ns")["queue"]
    for _, row in enq.head(300).iterrows():
        assert at[at.index <= row.time_ns].iloc[-1] == row.queue
    sampled = queue_series(t, "wireless", "forward", every=0.1)
    assert list(sampled["time_s"].head(3)) == [0.0, 0.1, 0.2]
    w = window_series(t, "tcp1")
    assert w["ssthresh"].iloc[0] == float("inf") and (w["cwnd"] > 0).all()
    assert len(window_series(t, "tcp1", every=0.5)) == 11
    with pytest.raises(ValueError, match="every"):
        window_series(t, "tcp1", every=0)


def test_failed_run_leaves_no_pcap_or_trace(tmp_path: Path) -> None:
    over = {"run.duration": 5, "run.event_budget": 2000}
    with pytest.raises(tcpair.SimulationError, match="event_budget"):
        tcpair.run(ONE_LINK, overrides=over, trace=tmp_path / "t.parquet", pcap=tmp_path / "p")
    assert not (tmp_path / "t.parquet").exists()
    assert not (tmp_path / "p").exists()


def test_follow_names_the_flow_where_independent_parts_share_an_id() -> None:
    """Two flows on links of their own are two parts of the network: each counts
    its packet ids from 0, so an id alone may name two packets."""
    from tcpair.bench.flows import flows_scenario

    r = tcpair.run(flows_scenario(2, duration=1.0), trace=True)
    with pytest.raises(ValueError, match="give flow= as well"):
        r.follow(0)
    first = r.follow(0, flow="f1")
    assert set(first["flow"]) == {"f1"} and first["kind"].iloc[0] == "send"
    # The drops table's ids are those of the trace, per part.
    traced = r.trace[r.trace["kind"] == "drop"]
    assert list(traced["packet_id"]) == list(r.drops["packet_id"])
