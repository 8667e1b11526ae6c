//! The one packet struct and the arena that owns every packet in flight.
//!
//! Layering note: SPEC.md lists `packet` above `net`, but links must read a
//! packet's size and write its drop record, so this module depends only on
//! `engine` and is used by `net` and everything above it (a DAG, no cycles).
//!
//! Packet mode as in ns-2: data segments are numbered 0, 1, 2, ...; an ACK
//! carries the next segment number the receiver expects (cumulative ACK).

use crate::engine::Time;

/// Index of a node in the topology.
pub type NodeId = u32;
/// Index of a flow in the scenario.
pub type FlowId = u32;
/// Handle of a packet in the [`Arena`].
pub type PktRef = u32;

/// At most this many SACK blocks are carried (RFC 2018 with timestamps: 3).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PktKind {
    Data,
    Ack,
}

/// Who sent this transmission of a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retx {
    /// First transmission by the TCP sender.
    Original,
    /// Retransmission by the TCP sender.
    Sender,
    /// Local retransmission by a base-station agent.
    BaseStation,
}

/// SACK blocks, each `[start, end)` in segment numbers; block 0 is the most
/// recently changed one (RFC 2018 §4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub len: u8,
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    #[inline]
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len as usize]
    }
    pub fn push(&mut self, b: (u32, u32)) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
}

/// At most this many Syndrome counters ride on one packet: one per
/// Syndrome BS on the path (MH -> MH crosses two; paper 000 §3).
pub const MAX_SYN_TAGS: usize = 2;

/// Syndrome's attached number (AN) as set by one BS (paper 000 §3): which BS
/// (node id + 1; 0 = empty slot), whether the wireless hop lies downstream of
/// it (FH -> MH, Table 2) or upstream (MH -> FH, Table 3), and the counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynTag {
    pub bs: u32,
    pub downstream_wireless: bool,
    pub an: u32,
}

/// The Syndrome option: up to [`MAX_SYN_TAGS`] tags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynTags(pub [SynTag; MAX_SYN_TAGS]);

impl SynTags {
    /// Set (or overwrite) the tag of BS `bs`; returns false if no slot is free.
    pub fn set(&mut self, tag: SynTag) -> bool {
        for t in self.0.iter_mut() {
            if t.bs == tag.bs || t.bs == 0 {
                *t = tag;
                return true;
            }
        }
        false
    }
    pub fn iter(&self) -> impl Iterator<Item = &SynTag> {
        self.0.iter().filter(|t| t.bs != 0)
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|t| t.bs == 0)
    }
}

/// Capacity of the CLRP loss-block option. Paper 001 §II.A lets the BS
/// choose the maximum (its simulations use 6); 8 blocks of one 32-bit
/// sequence number each, plus kind and length, still fit the 40 bytes of
/// TCP option space (34 bytes).
pub const MAX_LOSS_BLOCKS: usize = 8;

/// CLRP's loss blocks (paper 001 §II): the sequence numbers of recent
/// wireless losses, newest first, piggy-backed on ACKs between the BS and
/// the MH only (never seen by the fixed host).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LossBlocks {
    pub len: u8,
    pub seqs: [u32; MAX_LOSS_BLOCKS],
}

impl LossBlocks {
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        &self.seqs[..self.len as usize]
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Append `seq`; returns false (and drops it) when full.
    pub fn push(&mut self, seq: u32) -> bool {
        if (self.len as usize) < MAX_LOSS_BLOCKS {
            self.seqs[self.len as usize] = seq;
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// Flag bits.
pub mod flags {
    /// Explicit Loss Notification: the loss this ACK reports was not congestion.
    pub const ELN: u8 = 1 << 0;
    /// This packet is a copy made by a `duplicate` impairment.
    pub const IMPAIR_COPY: u8 = 1 << 1;
}

/// One packet on the wire. Plain data, `Copy`, kept small: it lives in the arena
/// and is moved by index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// Unique id within the run (ground truth; copies get a new id).
    pub id: u64,
    pub flow: FlowId,
    pub kind: PktKind,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (whole packet, ns-2's `packetSize_`).
    pub size: u32,
    /// Data: segment number. ACK: next expected segment number.
    pub seq: u32,
    pub flags: u8,
    pub retx: Retx,
    /// Time this transmission left its TCP agent (or the BS for local rtx).
    pub sent_at: Time,
    /// Timestamp echoed by the receiver on an ACK (RFC 7323 TSecr): the
    /// `sent_at` of the data packet that triggered the ACK.
    pub ts_echo: Time,
    pub sack: SackBlocks,
    /// Syndrome attached numbers (data packets relayed by Syndrome BSs).
    pub syn: SynTags,
    /// CLRP loss blocks (ACKs between a CLRP BS and a TCP-MH).
    pub loss: LossBlocks,
    /// Index of the next hop on the flow's precomputed path (source routing of
    /// static shortest paths; see `net::Routes`).
    pub hop: u16,
}

impl Packet {
    #[inline]
    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// Slab of packets with a free list: no allocation per packet once warm.
#[derive(Debug, Default)]
pub struct Arena {
    slots: Vec<Packet>,
    free: Vec<PktRef>,
    live: usize,
    next_id: u64,
}

impl Arena {
    pub fn new() -> Self {
        Self {
            slots: Vec::with_capacity(256),
            free: Vec::with_capacity(256),
            live: 0,
            next_id: 0,
        }
    }

    /// A fresh unique packet id.
    #[inline]
    pub fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Store `p` (its `id` is overwritten with a fresh one) and return its handle.
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PktRef {
        p.id = self.next_id();
        self.live += 1;
        if let Some(r) = self.free.pop() {
            self.slots[r as usize] = p;
            r
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktRef
        }
    }

    #[inline]
    pub fn get(&self, r: PktRef) -> &Packet {
        &self.slots[r as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, r: PktRef) -> &mut Packet {
        &mut self.slots[r as usize]
    }

    /// Release a packet's slot. The caller must not use `r` afterwards.
    #[inline]
    pub fn free(&mut self, r: PktRef) {
        self.live -= 1;
        self.free.push(r);
    }

    /// Packets currently allocated (in a queue, on a wire, or held).
    pub fn live(&self) -> usize {
        self.live
    }

    /// High-water mark of simultaneously allocated packets.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt() -> Packet {
        Packet {
            id: 0,
            flow: 0,
            kind: PktKind::Data,
            src: 0,
            dst: 1,
            size: 1000,
            seq: 5,
            flags: 0,
            retx: Retx::Original,
            sent_at: 0,
            ts_echo: 0,
            sack: SackBlocks::default(),
            syn: SynTags::default(),
            loss: LossBlocks::default(),
            hop: 0,
        }
    }

    #[test]
    fn slots_are_reused_and_ids_unique() {
        let mut a = Arena::new();
        let r1 = a.alloc(pkt());
        let r2 = a.alloc(pkt());
        assert_ne!(a.get(r1).id, a.get(r2).id);
        a.free(r1);
        let r3 = a.alloc(pkt());
        assert_eq!(r3, r1);
        assert_eq!(a.live(), 2);
        assert_eq!(a.capacity_used(), 2);
        assert_eq!(a.get(r3).id, 2);
    }
}
