//! The one packet struct and the arena that owns every packet in flight.
//!
//! Layering note: the layer list puts `packet` above `net`, but links must read a
//! packet's size and write its drop record, so this module depends only on
//! `engine` and is used by `net` and everything above it (a DAG, no cycles).
//!
//! Packet mode as in ns-2: data segments are numbered 0, 1, 2, ...; an ACK
//! carries the next segment number the receiver expects (cumulative ACK).

use crate::engine::Time;

mod options;
pub mod seq_window;

pub use options::*;
pub use seq_window::SeqWindow;

/// Index of a node in the topology.
pub type NodeId = u32;
/// Index of a flow in the scenario.
pub type FlowId = u32;
/// Handle of a packet in the [`Arena`].
pub type PktRef = u32;

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
    /// Index of the next hop on the packet's precomputed path (source routing of
    /// static shortest paths; see `net::Routes`).
    pub hop: u16,
    /// The precomputed path this packet follows (`net::Routes` id), stamped by
    /// the simulator when the packet enters the network: a route change (a
    /// handoff) does not re-route packets already on their way.
    pub path: u32,
    /// ACK: the receiver's advertised window in segments (`u32::MAX`: no
    /// limit, the default; 0: a zero window, Freeze-TCP).
    pub rwnd: u32,
}

impl Packet {
    /// Data segment `seq` of `flow`, `size` bytes on the wire, sent from
    /// `src` to `dst` at `sent_at` (a first transmission, no options).
    #[inline]
    pub fn data(
        flow: FlowId,
        (src, dst): (NodeId, NodeId),
        size: u32,
        seq: u32,
        sent_at: Time,
    ) -> Packet {
        Packet {
            id: 0,
            flow,
            kind: PktKind::Data,
            src,
            dst,
            size,
            seq,
            flags: 0,
            retx: Retx::Original,
            sent_at,
            ts_echo: 0,
            sack: SackBlocks::default(),
            syn: SynTags::default(),
            loss: LossBlocks::default(),
            hop: 0,
            path: 0,
            rwnd: u32::MAX,
        }
    }

    /// ACK of `flow` asking for segment `ack` (cumulative), `size` bytes,
    /// sent from `src` to `dst` at `sent_at`, echoing `ts_echo` (no options).
    #[inline]
    pub fn ack(
        flow: FlowId,
        (src, dst): (NodeId, NodeId),
        size: u32,
        ack: u32,
        sent_at: Time,
        ts_echo: Time,
    ) -> Packet {
        Packet {
            id: 0,
            flow,
            kind: PktKind::Ack,
            src,
            dst,
            size,
            seq: ack,
            flags: 0,
            retx: Retx::Original,
            sent_at,
            ts_echo,
            sack: SackBlocks::default(),
            syn: SynTags::default(),
            loss: LossBlocks::default(),
            hop: 0,
            path: 0,
            rwnd: u32::MAX,
        }
    }

    /// The same packet, sent by `retx` (a retransmission).
    #[inline]
    pub fn with_retx(mut self, retx: Retx) -> Packet {
        self.retx = retx;
        self
    }

    #[inline]
    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// Slab of packets with a free list: no allocation per packet once warm.
///
/// Packet ids are counted per *id space*: each flow belongs to one
/// ([`Arena::set_id_spaces`]; all to space 0 by default), and a packet's id
/// is the next number of its flow's space. The simulator gives each
/// independent part of the network its own space, so a packet's id does not
/// depend on how the parts' events interleave (`sim::parts`).
#[derive(Debug)]
pub struct Arena {
    slots: Vec<Packet>,
    free: Vec<PktRef>,
    live: usize,
    /// The id space of each flow (empty: every flow in space 0).
    space_of_flow: Vec<u32>,
    /// The next id of each space.
    next_id: Vec<u64>,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    pub fn new() -> Self {
        Self {
            slots: Vec::with_capacity(256),
            free: Vec::with_capacity(256),
            live: 0,
            space_of_flow: Vec::new(),
            next_id: vec![0],
        }
    }

    /// Flow `f` takes its packets' ids from space `spaces[f]` (spaces
    /// numbered from 0; a flow beyond the list is in space 0).
    pub fn set_id_spaces(&mut self, spaces: Vec<u32>) {
        let n = spaces.iter().max().map_or(1, |&m| m as usize + 1);
        self.space_of_flow = spaces;
        self.next_id = vec![0; n];
    }

    /// A fresh packet id for a packet of `flow`, unique in its id space.
    #[inline]
    pub fn next_id(&mut self, flow: FlowId) -> u64 {
        let s = self
            .space_of_flow
            .get(flow as usize)
            .map_or(0, |&s| s as usize);
        let id = self.next_id[s];
        self.next_id[s] += 1;
        id
    }

    /// Store `p` (its `id` is overwritten with a fresh one) and return its handle.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktRef {
        self.alloc_with(|| p)
    }

    /// [`Self::alloc`] of the packet `make` builds, built in its slot: a
    /// packet is 152 bytes, and building it elsewhere first costs a copy.
    #[inline(always)]
    pub fn alloc_with(&mut self, make: impl FnOnce() -> Packet) -> PktRef {
        self.live += 1;
        let r = match self.free.pop() {
            Some(r) => {
                self.slots[r as usize] = make();
                r
            }
            None => {
                self.slots.push(make());
                (self.slots.len() - 1) as PktRef
            }
        };
        let flow = self.slots[r as usize].flow;
        self.slots[r as usize].id = self.next_id(flow);
        r
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

    /// Give back the slots' memory at the end of a run, keeping the count of
    /// live packets (the results check it): no packet may be read or
    /// allocated afterwards.
    pub fn release_slots(&mut self) {
        self.slots = Vec::new();
        self.free = Vec::new();
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
        Packet::data(0, (0, 1), 1000, 5, 0)
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

    #[test]
    fn released_slots_keep_the_count_of_live_packets() {
        let mut a = Arena::new();
        let r = a.alloc(pkt());
        a.alloc(pkt());
        a.free(r);
        a.release_slots();
        assert_eq!((a.live(), a.capacity_used()), (1, 0));
    }
}
