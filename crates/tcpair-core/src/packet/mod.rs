//! The one packet struct and the arena that owns every packet in flight.
//!
//! Layering note: the layer list puts `packet` above `net`, but links must read a
//! packet's size and write its drop record, so this module depends only on
//! `engine` and is used by `net` and everything above it (a DAG, no cycles).
//!
//! Packet mode as in ns-2: data segments are numbered 0, 1, 2, ...; an ACK
//! carries the next segment number the receiver expects (cumulative ACK).

use crate::engine::{Slab, Time};

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

/// One packet on the wire, its options included. Plain data, `Copy`: it
/// lives in the arena and is moved by index.
pub type Packet = PacketOf<Options>;

/// A packet as the arena keeps it: its options stored apart, by their place
/// in the arena (0: none). Most packets carry no option, and a packet with
/// its options inline took 152 bytes where this takes 64: at 10,000 Snoop
/// flows the arena held 4.4 KiB a flow (docs/performance.md).
pub type Stored = PacketOf<u32>;
const _: () = assert!(
    std::mem::size_of::<Stored>() == 64,
    "a stored packet is 64 bytes"
);

/// A data packet as a caching BS agent keeps it: of the options, a data
/// packet carries Syndrome's numbers alone (SACK and CLRP's blocks ride on
/// ACKs). 88 bytes where a [`Packet`] takes 152: at 10,000 Snoop flows the
/// agent's cache held about 87,000 packets at its peak.
pub type DataPacket = PacketOf<SynTags>;

impl Packet {
    /// This data packet as a cache keeps it ([`DataPacket`]).
    #[inline]
    pub fn to_data(&self) -> DataPacket {
        debug_assert!(
            self.kind == PktKind::Data && self.opts.sack.len == 0 && self.opts.loss.is_empty(),
            "a data packet carries no ACK option"
        );
        self.with_opts(self.opts.syn)
    }
}

impl DataPacket {
    /// The whole packet again.
    #[inline]
    pub fn packet(&self) -> Packet {
        self.with_opts(Options {
            syn: self.opts,
            ..Options::default()
        })
    }
}

/// A packet's options (TCP options and the schemes' own).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Options {
    pub sack: SackBlocks,
    /// Syndrome attached numbers (data packets relayed by Syndrome BSs).
    pub syn: SynTags,
    /// CLRP loss blocks (ACKs between a CLRP BS and a TCP-MH).
    pub loss: LossBlocks,
}

impl Options {
    /// No option at all (what most packets carry).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.sack.len == 0 && self.loss.is_empty() && self.syn.is_empty()
    }
}

/// The fields of a packet; `opts` its options ([`Packet`]) or where the
/// arena keeps them ([`Stored`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketOf<O> {
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
    pub opts: O,
}

impl<O> PacketOf<O> {
    /// The same packet with options `opts`.
    #[inline(always)]
    pub fn with_opts<P>(self, opts: P) -> PacketOf<P> {
        PacketOf {
            id: self.id,
            flow: self.flow,
            kind: self.kind,
            src: self.src,
            dst: self.dst,
            size: self.size,
            seq: self.seq,
            flags: self.flags,
            retx: self.retx,
            sent_at: self.sent_at,
            ts_echo: self.ts_echo,
            hop: self.hop,
            path: self.path,
            rwnd: self.rwnd,
            opts,
        }
    }

    #[inline]
    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
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
            opts: Options::default(),
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
            opts: Options::default(),
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
    slots: Slab<Stored>,
    /// The options of the packets that carry some; place 0 is no option
    /// and is never freed, so a packet without options reads it.
    opts: Slab<Options>,
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
        let mut opts = Slab::default();
        opts.put(Options::default());
        Self {
            slots: Slab::with_capacity(256),
            opts,
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

    /// [`Self::alloc`] of the packet `make` builds.
    #[inline(always)]
    pub fn alloc_with(&mut self, make: impl FnOnce() -> Packet) -> PktRef {
        let p = make();
        let opts = self.keep_opts(0, &p.opts);
        let mut s = p.with_opts(opts);
        s.id = self.next_id(s.flow);
        self.live += 1;
        self.slots.put(s)
    }

    /// Where options `o` are kept for a packet whose options were at
    /// `at`: 0 if it has none (`at` freed), else `at` or a new place.
    #[inline]
    fn keep_opts(&mut self, at: u32, o: &Options) -> u32 {
        if o.is_empty() {
            if at != 0 {
                self.opts.free(at);
            }
            return 0;
        }
        if at == 0 {
            return self.opts.put(*o);
        }
        *self.opts.get_mut(at) = *o;
        at
    }

    /// Packet `r`, its options included.
    #[inline]
    pub fn get(&self, r: PktRef) -> Packet {
        let s = self.slots.get(r);
        s.with_opts(*self.opts.get(s.opts))
    }

    /// Packet `r`'s fields without its options (`opts` is where they are kept).
    #[inline]
    pub fn head(&self, r: PktRef) -> &Stored {
        self.slots.get(r)
    }

    /// Packet `r`'s fields, to change any but its options (which [`Self::set`] changes).
    #[inline]
    pub fn head_mut(&mut self, r: PktRef) -> &mut Stored {
        self.slots.get_mut(r)
    }

    /// Packet `r` becomes `p` (its id included).
    #[inline]
    pub fn set(&mut self, r: PktRef, p: &Packet) {
        let opts = self.keep_opts(self.slots.get(r).opts, &p.opts);
        *self.slots.get_mut(r) = p.with_opts(opts);
    }

    /// Release a packet's slot. The caller must not use `r` afterwards.
    #[inline]
    pub fn free(&mut self, r: PktRef) {
        let at = self.slots.get(r).opts;
        if at != 0 {
            self.opts.free(at);
        }
        self.live -= 1;
        self.slots.free(r);
    }

    /// Give back the slots' memory at the end of a run, keeping the count of
    /// live packets (the results check it): no packet may be read or
    /// allocated afterwards.
    pub fn release_slots(&mut self) {
        self.slots.release();
        self.opts.release();
    }

    /// Packets currently allocated (in a queue, on a wire, or held).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Bytes the packets' slots and options take (their high-water marks).
    pub fn held_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Stored>()
            + self.opts.len() * std::mem::size_of::<Options>()
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
    fn options_are_kept_apart_and_their_places_reused() {
        let mut a = Arena::new();
        let plain = a.alloc(pkt());
        assert_eq!(a.head(plain).opts, 0, "no option, no place");
        let mut p = pkt();
        p.opts.sack.push((7, 9));
        let r = a.alloc(p);
        let at = a.head(r).opts;
        assert_ne!(at, 0);
        assert_eq!(a.get(r).opts.sack.as_slice(), [(7, 9)]);
        assert_eq!(a.get(plain).opts, Options::default());
        // Changed in place; stripped (its place freed); set again (reused).
        p = a.get(r);
        p.opts.loss.push(3);
        a.set(r, &p);
        assert_eq!(
            (a.head(r).opts, a.get(r).opts.loss.as_slice()),
            (at, &[3][..])
        );
        p.opts = Options::default();
        a.set(r, &p);
        assert_eq!(a.head(r).opts, 0);
        p.opts.syn.set(SynTag {
            bs: 2,
            downstream_wireless: true,
            an: 5,
        });
        a.set(r, &p);
        assert_eq!(a.head(r).opts, at, "the freed place is taken again");
        assert_eq!(a.get(r).id, p.id);
        // Freeing a packet frees its options' place.
        a.free(r);
        let mut q = pkt();
        q.opts.loss.push(1);
        let r2 = a.alloc(q);
        assert_eq!(a.head(r2).opts, at);
        assert_eq!(a.held_bytes(), 2 * 64 + 2 * std::mem::size_of::<Options>());
    }

    #[test]
    fn a_data_packet_keeps_its_numbers_in_a_cache() {
        let mut p = pkt();
        p.opts.syn.set(SynTag {
            bs: 3,
            downstream_wireless: false,
            an: 9,
        });
        let d = p.to_data();
        assert_eq!(std::mem::size_of_val(&d), 88);
        assert_eq!(d.packet(), p);
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
