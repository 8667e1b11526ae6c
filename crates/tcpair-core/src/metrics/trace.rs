//! The event trace's rows: what happened to which packet, where and when,
//! in fixed-size column chunks that the simulator hands to a [`TraceSink`]
//! as each fills, so a long run's trace never sits whole in memory.
//! docs/trace.md describes every column.

use crate::engine::Time;

/// Rows per chunk (one Parquet row group per chunk on the Python side).
pub const CHUNK_ROWS: usize = 65_536;

/// The kind of one trace row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TraceKind {
    /// The TCP sender hands a data segment to the network (first
    /// transmission or its own retransmission).
    Send = 0,
    /// A packet enters a link direction's queue (queue = packets waiting after).
    Enqueue,
    /// The packet's transmission on the link starts (the link model computes
    /// it when the packet is queued, so this row's time may lie ahead).
    Transmit,
    /// The packet reaches the far end of the link direction.
    Arrive,
    /// The packet is lost; `detail` is the cause (as in the drops table).
    Drop,
    /// A data segment reaches its receiver.
    Receive,
    /// Segments handed in order to the application: `seq` is the new next
    /// expected segment, `value` how many were handed over.
    Deliver,
    /// The receiver sends an ACK (`seq` = the ACK number, in segments).
    AckSent,
    /// An ACK reaches the TCP sender.
    AckReceived,
    /// A BS agent took a copy of the data segment (its held packets grew).
    BsCache,
    /// A BS agent retransmitted a cached segment; `detail` is why.
    BsLocalRetransmit,
    /// A BS agent kept a duplicate ACK from the sender.
    BsDupackSuppressed,
    /// A BS agent absorbed a data packet.
    BsAbsorb,
    /// A BS agent set the ELN bit on an ACK.
    BsElnSet,
    /// A BS agent added an option (`detail`: which).
    BsOptionAdded,
    /// A BS agent removed an option (`detail`: which).
    BsOptionStripped,
    /// A BS agent attached or updated Syndrome's counter (`value` = the number).
    BsCounterAttached,
    /// A BS agent sent a packet of its own other than a retransmission.
    BsInject,
    /// The sender's fast retransmit: `detail` = the detector's verdict and
    /// the responder; cwnd and ssthresh the response.
    FastRetransmit,
    /// The sender's retransmission timer expired.
    Timeout,
    /// The sender's cwnd or ssthresh changed (the new values).
    Window,
}

impl TraceKind {
    pub const ALL: [TraceKind; 21] = [
        TraceKind::Send,
        TraceKind::Enqueue,
        TraceKind::Transmit,
        TraceKind::Arrive,
        TraceKind::Drop,
        TraceKind::Receive,
        TraceKind::Deliver,
        TraceKind::AckSent,
        TraceKind::AckReceived,
        TraceKind::BsCache,
        TraceKind::BsLocalRetransmit,
        TraceKind::BsDupackSuppressed,
        TraceKind::BsAbsorb,
        TraceKind::BsElnSet,
        TraceKind::BsOptionAdded,
        TraceKind::BsOptionStripped,
        TraceKind::BsCounterAttached,
        TraceKind::BsInject,
        TraceKind::FastRetransmit,
        TraceKind::Timeout,
        TraceKind::Window,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Send => "send",
            TraceKind::Enqueue => "enqueue",
            TraceKind::Transmit => "transmit",
            TraceKind::Arrive => "arrive",
            TraceKind::Drop => "drop",
            TraceKind::Receive => "receive",
            TraceKind::Deliver => "deliver",
            TraceKind::AckSent => "ack_sent",
            TraceKind::AckReceived => "ack_received",
            TraceKind::BsCache => "bs_cache",
            TraceKind::BsLocalRetransmit => "bs_local_retransmit",
            TraceKind::BsDupackSuppressed => "bs_dupack_suppressed",
            TraceKind::BsAbsorb => "bs_absorb",
            TraceKind::BsElnSet => "bs_eln_set",
            TraceKind::BsOptionAdded => "bs_option_added",
            TraceKind::BsOptionStripped => "bs_option_stripped",
            TraceKind::BsCounterAttached => "bs_counter_attached",
            TraceKind::BsInject => "bs_inject",
            TraceKind::FastRetransmit => "fast_retransmit",
            TraceKind::Timeout => "timeout",
            TraceKind::Window => "window",
        }
    }
}

/// One row. `-1` (or NaN for the windows) marks a column that does not apply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRow {
    pub time: Time,
    pub kind: TraceKind,
    pub packet_id: i64,
    pub flow: i32,
    /// Data: segment number; ACK: the next expected segment.
    pub seq: i64,
    /// Bytes on the wire (0 for rows about no packet).
    pub size: u32,
    /// 0 = data, 1 = ACK, -1 = no packet.
    pub is_ack: i8,
    /// Who sent this transmission: 0 first transmission, 1 the TCP sender's
    /// retransmission, 2 a BS agent's; -1 no data packet.
    pub origin: i8,
    /// 1 if the ELN bit is set.
    pub eln: bool,
    pub node: i32,
    /// Link direction (index; the labels name them), -1 for none.
    pub dir: i32,
    /// Packets waiting in the link direction's queue after the event.
    pub queue: i32,
    /// Index into the string table (0 = empty).
    pub detail: u16,
    /// A number the kind defines (segments delivered, Syndrome's counter).
    pub value: i64,
    pub cwnd: f64,
    /// Unbounded (the initial "infinite" ssthresh) is +inf.
    pub ssthresh: f64,
}

impl TraceRow {
    /// A row of `kind` at `time` about nothing yet (every column "n/a").
    pub fn new(time: Time, kind: TraceKind) -> TraceRow {
        TraceRow {
            time,
            kind,
            packet_id: -1,
            flow: -1,
            seq: -1,
            size: 0,
            is_ack: -1,
            origin: -1,
            eln: false,
            node: -1,
            dir: -1,
            queue: -1,
            detail: 0,
            value: -1,
            cwnd: f64::NAN,
            ssthresh: f64::NAN,
        }
    }
}

/// Columns of up to [`CHUNK_ROWS`] rows.
#[derive(Debug, Default, Clone)]
pub struct TraceChunk {
    pub time: Vec<u64>,
    pub kind: Vec<u8>,
    pub packet_id: Vec<i64>,
    pub flow: Vec<i32>,
    pub seq: Vec<i64>,
    pub size: Vec<u32>,
    pub is_ack: Vec<i8>,
    pub origin: Vec<i8>,
    pub eln: Vec<u8>,
    pub node: Vec<i32>,
    pub dir: Vec<i32>,
    pub queue: Vec<i32>,
    pub detail: Vec<u16>,
    pub value: Vec<i64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
}

impl TraceChunk {
    pub fn with_capacity(n: usize) -> TraceChunk {
        TraceChunk {
            time: Vec::with_capacity(n),
            kind: Vec::with_capacity(n),
            packet_id: Vec::with_capacity(n),
            flow: Vec::with_capacity(n),
            seq: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            is_ack: Vec::with_capacity(n),
            origin: Vec::with_capacity(n),
            eln: Vec::with_capacity(n),
            node: Vec::with_capacity(n),
            dir: Vec::with_capacity(n),
            queue: Vec::with_capacity(n),
            detail: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
            cwnd: Vec::with_capacity(n),
            ssthresh: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    pub fn push(&mut self, r: &TraceRow) {
        self.time.push(r.time);
        self.kind.push(r.kind as u8);
        self.packet_id.push(r.packet_id);
        self.flow.push(r.flow);
        self.seq.push(r.seq);
        self.size.push(r.size);
        self.is_ack.push(r.is_ack);
        self.origin.push(r.origin);
        self.eln.push(u8::from(r.eln));
        self.node.push(r.node);
        self.dir.push(r.dir);
        self.queue.push(r.queue);
        self.detail.push(r.detail);
        self.value.push(r.value);
        self.cwnd.push(r.cwnd);
        self.ssthresh.push(r.ssthresh);
    }

    /// Row `i` back (for tests and small consumers).
    pub fn row(&self, i: usize) -> TraceRow {
        TraceRow {
            time: self.time[i],
            kind: TraceKind::ALL[self.kind[i] as usize],
            packet_id: self.packet_id[i],
            flow: self.flow[i],
            seq: self.seq[i],
            size: self.size[i],
            is_ack: self.is_ack[i],
            origin: self.origin[i],
            eln: self.eln[i] != 0,
            node: self.node[i],
            dir: self.dir[i],
            queue: self.queue[i],
            detail: self.detail[i],
            value: self.value[i],
            cwnd: self.cwnd[i],
            ssthresh: self.ssthresh[i],
        }
    }

    pub fn clear(&mut self) {
        self.time.clear();
        self.kind.clear();
        self.packet_id.clear();
        self.flow.clear();
        self.seq.clear();
        self.size.clear();
        self.is_ack.clear();
        self.origin.clear();
        self.eln.clear();
        self.node.clear();
        self.dir.clear();
        self.queue.clear();
        self.detail.clear();
        self.value.clear();
        self.cwnd.clear();
        self.ssthresh.clear();
    }
}

/// Names for the trace's numeric columns: nodes, link directions, flows,
/// and the `detail` string table (which grows during the run; every chunk
/// comes with the table as it stands).
#[derive(Debug, Clone, Default)]
pub struct TraceLabels {
    pub nodes: Vec<String>,
    /// `"<link>:forward"` / `"<link>:reverse"`, by link-direction index.
    pub dirs: Vec<String>,
    pub flows: Vec<String>,
    pub details: Vec<String>,
}

/// Where full chunks go. An error stops the run with that message.
pub trait TraceSink: Send {
    fn chunk(&mut self, chunk: &TraceChunk, labels: &TraceLabels) -> Result<(), String>;
}

/// A sink that keeps every chunk in memory (tests, small runs).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub rows: Vec<TraceRow>,
    pub labels: TraceLabels,
}

impl TraceSink for MemorySink {
    fn chunk(&mut self, chunk: &TraceChunk, labels: &TraceLabels) -> Result<(), String> {
        self.rows.extend((0..chunk.len()).map(|i| chunk.row(i)));
        self.labels = labels.clone();
        Ok(())
    }
}

/// A [`MemorySink`] shared with the caller (the simulator owns its sink).
#[derive(Debug, Default, Clone)]
pub struct SharedSink(pub std::sync::Arc<std::sync::Mutex<MemorySink>>);

impl TraceSink for SharedSink {
    fn chunk(&mut self, chunk: &TraceChunk, labels: &TraceLabels) -> Result<(), String> {
        self.0
            .lock()
            .map_err(|e| e.to_string())?
            .chunk(chunk, labels)
    }
}
