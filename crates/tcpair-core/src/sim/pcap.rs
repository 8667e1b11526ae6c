//! pcap capture: one classic libpcap file (nanosecond timestamps, Ethernet)
//! per link direction, each packet written when its transmission starts
//! (on a shared medium: when the MAC delivers it), with synthesised
//! Ethernet/IPv4/TCP headers and our information in one TCP experimental
//! option (RFC 6994, Touch 2013, §3: kind 253 with a 16-bit ExID).
//! docs/trace.md describes the mapping and the option's layout.

use crate::engine::Time;
use crate::limits;
use crate::packet::{flags, NodeId, Packet, PktKind, Retx};
use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// TCP option kind for experiments with an ExID (RFC 6994, §3).
pub const OPTION_KIND: u8 = 253;
/// Our ExID: "tc".
pub const EXID: u16 = 0x7463;
/// TCP options may take at most 40 bytes (RFC 9293, §3.1).
const MAX_OPTIONS: usize = 40;
/// The Ethernet header before the IPv4 datagram.
const ETHERNET_HEADER: usize = 14;
// What the scenario's check allows (`limits::MAX_PCAP_PACKET_SIZE`) is what a
// frame can hold.
const _: () = assert!(ETHERNET_HEADER + MAX_OPTIONS == limits::PCAP_FRAME_EXTRA as usize);

/// Flag bits of the option's first data byte.
pub mod opt_flags {
    pub const ELN: u8 = 1;
    /// Bits 1-2: 0 first transmission, 1 the sender's retransmission, 2 a BS's.
    pub const ORIGIN_SHIFT: u8 = 1;
    /// Some loss blocks did not fit into the 40 option bytes.
    pub const TRUNCATED: u8 = 1 << 3;
    /// Bits 4-5: the number of Syndrome tags that follow the packet id.
    pub const TAGS_SHIFT: u8 = 4;
}

/// The IPv4 address of node `n`: 10.0.0.1, 10.0.0.2, ... (250 per /24).
pub fn node_ip(n: NodeId) -> [u8; 4] {
    [
        10,
        (n / 62_500) as u8,
        (n / 250 % 250) as u8,
        (n % 250 + 1) as u8,
    ]
}

/// The Ethernet address of node `n` (locally administered).
pub fn node_mac(n: NodeId) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0, b[0], b[1], b[2], b[3]]
}

/// TCP ports of flow `flow`: (sender's, receiver's).
pub fn flow_ports(flow: u32) -> (u16, u16) {
    (
        10_000 + (flow % 20_000) as u16,
        40_000 + (flow % 20_000) as u16,
    )
}

/// Our option for `p`, padded with end-of-option bytes to a multiple of 4.
pub fn option_bytes(p: &Packet, out: &mut Vec<u8>) {
    out.clear();
    let origin = match p.retx {
        _ if p.kind == PktKind::Ack => 0,
        Retx::Original => 0,
        Retx::Sender => 1,
        Retx::BaseStation => 2,
    };
    let tags: Vec<_> = p.opts.syn.iter().copied().collect();
    let mut fl = origin << opt_flags::ORIGIN_SHIFT | (tags.len() as u8) << opt_flags::TAGS_SHIFT;
    if p.has_flag(flags::ELN) {
        fl |= opt_flags::ELN;
    }
    out.extend_from_slice(&[OPTION_KIND, 0]);
    out.extend_from_slice(&EXID.to_be_bytes());
    out.push(fl);
    out.extend_from_slice(&(p.id as u32).to_be_bytes());
    for t in &tags {
        // `bs` is the BS's node id + 1 (0 marks an empty slot).
        out.extend_from_slice(&((t.bs.saturating_sub(1)) as u16).to_be_bytes());
        out.push(u8::from(t.downstream_wireless));
        out.extend_from_slice(&t.an.to_be_bytes());
    }
    for &s in p.opts.loss.as_slice() {
        if out.len() + 4 > MAX_OPTIONS {
            out[4] |= opt_flags::TRUNCATED;
            break;
        }
        out.extend_from_slice(&s.to_be_bytes());
    }
    out[1] = out.len() as u8;
    while !out.len().is_multiple_of(4) {
        out.push(0); // end of option list
    }
}

/// The Ethernet frame of `p` on the hop `from -> to`: TCP payload bytes
/// per segment `payload` (data) or none (ACK); zero-filled payload.
pub fn frame(p: &Packet, (from, to): (NodeId, NodeId), payload: u32, scratch: &mut Frame) {
    let (sport, dport) = flow_ports(p.flow);
    let eth = PacketBuilder::ethernet2(node_mac(from), node_mac(to));
    let ip = eth.ipv4(node_ip(p.src), node_ip(p.dst), 64);
    let seq_bytes = p.seq.wrapping_mul(payload);
    let tcp = match p.kind {
        PktKind::Data => ip.tcp(sport, dport, seq_bytes, 65_535).ack(0).psh(),
        PktKind::Ack => ip.tcp(dport, sport, 0, 65_535).ack(seq_bytes),
    };
    option_bytes(p, &mut scratch.opt);
    let tcp = tcp
        .options_raw(&scratch.opt)
        .expect("option is at most 40 bytes, a multiple of 4");
    let body = if p.kind == PktKind::Data {
        payload as usize
    } else {
        0
    };
    scratch.payload.resize(body, 0);
    scratch.bytes.clear();
    tcp.write(&mut scratch.bytes, &scratch.payload)
        .expect("writing into a Vec");
}

/// Buffers reused between frames.
#[derive(Debug, Default)]
pub struct Frame {
    pub bytes: Vec<u8>,
    opt: Vec<u8>,
    payload: Vec<u8>,
}

/// The open capture files, one per link direction kept by the filter.
pub(super) struct PcapSet {
    writers: Vec<Option<PcapWriter<BufWriter<File>>>>,
    scratch: Frame,
}

impl PcapSet {
    /// Create `dir` and one file per kept direction, named `<link>-<side>.pcap`.
    pub(super) fn open(dir: &Path, labels: &[String], keep: &[bool]) -> Result<PcapSet, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("trace.pcap: cannot create directory {}: {e}", dir.display()))?;
        let mut writers = Vec::with_capacity(labels.len());
        for (label, &k) in labels.iter().zip(keep) {
            if !k {
                writers.push(None);
                continue;
            }
            let path: PathBuf = dir.join(format!("{}.pcap", label.replace(':', "-")));
            let f = File::create(&path)
                .map_err(|e| format!("trace.pcap: cannot write {}: {e}", path.display()))?;
            let header = PcapHeader {
                datalink: DataLink::ETHERNET,
                ts_resolution: TsResolution::NanoSecond,
                snaplen: limits::PCAP_SNAPLEN,
                ..Default::default()
            };
            let w = PcapWriter::with_header(BufWriter::new(f), header)
                .map_err(|e| format!("trace.pcap: {}: {e}", path.display()))?;
            writers.push(Some(w));
        }
        Ok(PcapSet {
            writers,
            scratch: Frame::default(),
        })
    }

    /// Write `p` crossing direction `d` (`from -> to`) at `t`.
    pub(super) fn write(
        &mut self,
        d: u32,
        t: Time,
        p: &Packet,
        hop: (NodeId, NodeId),
        payload: u32,
    ) -> Result<(), String> {
        let Some(w) = self.writers.get_mut(d as usize).and_then(|w| w.as_mut()) else {
            return Ok(());
        };
        frame(p, hop, payload, &mut self.scratch);
        let bytes = &self.scratch.bytes;
        let pkt = PcapPacket::new(Duration::from_nanos(t), bytes.len() as u32, bytes);
        w.write_packet(&pkt)
            .map(|_| ())
            .map_err(|e| format!("trace.pcap: {e}"))
    }

    /// Flush every file.
    pub(super) fn finish(&mut self) -> Result<(), String> {
        use std::io::Write;
        for w in self.writers.iter_mut().filter_map(Option::take) {
            w.into_writer()
                .flush()
                .map_err(|e| format!("trace.pcap: {e}"))?;
        }
        Ok(())
    }
}
