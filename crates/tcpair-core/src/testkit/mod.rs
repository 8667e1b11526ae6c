//! A closed loop for tests: a real [`TcpSender`], a real [`TcpSink`] and,
//! optionally, a real BS agent, joined by scripted hops on one event queue.
//! It is how tests of a sender part, a detector, a responder or a BS agent
//! are written: build the path, script the losses, run, read the [`Record`].
//!
//! ```text
//!            hop A                         hop B
//! sender ──────────────> [BS agent] ──────────────> receiver
//!        <──────────────            <──────────────
//!             ACKs (through the BS, or straight back: `acks_direct`)
//! ```
//!
//! Without [`Loop::hop_b`] there is one hop and no middle node: hop A ends
//! at the receiver. A BS agent ([`Loop::bs`]) needs two hops.
//!
//! # Example
//!
//! ```
//! use tcpair_core::engine::{MS, SEC};
//! use tcpair_core::tcp::{SinkConfig, TcpConfig};
//! use tcpair_core::testkit::{Link, Loop};
//!
//! let cfg = TcpConfig { total_segments: Some(100), ..TcpConfig::default() };
//! // One hop, 50 ms each way; the first transmission of segment 40 is lost.
//! let mut lp = Loop::new(cfg, SinkConfig::default())
//!     .hop_a(Link::wired(0, 50 * MS))
//!     .kill_a(40, 1);
//! lp.run_until(60 * SEC);
//! assert!(lp.finished());
//! assert_eq!(lp.record().retransmitted(), vec![40]);
//! assert_eq!(lp.sender().stats().fast_retransmits, 1);
//! ```
//!
//! # Timing
//!
//! - Data: each hop is a FIFO link ([`Link`]): serialization `ser` per
//!   packet, then `delay`. ACKs are not queued: they take `ack_ser + delay`
//!   per hop, or one fixed delay with [`Loop::acks_direct`].
//! - The middle node forwards at the instant a packet arrives: it adds no
//!   event, and neither does an absent hop or agent. Events at equal times
//!   run in the order they were scheduled (the engine's FIFO queue); within
//!   one input the loop schedules in this order: the sender's transmissions
//!   (each followed by its duplicate, if scripted), then its timer; a BS
//!   agent's injections, then its timer, then the packet it forwards; the
//!   receiver's ACK, then its delayed-ACK timer.
//! - Timers are lazy, as in the simulator: the sender, the sink and the
//!   agent report a deadline; the loop schedules an expiry event whenever
//!   that deadline changes (never cancelling one), and an expiry calls
//!   `on_timer` only if the deadline is due then. (The simulator schedules
//!   only a deadline earlier than the pending one and re-arms at expiry;
//!   both fire at the same times, but may order differently against other
//!   events at the same instant.)
//!
//! # Scripts
//!
//! Per hop, keyed by (segment, k-th transmission of it over that hop: the
//! sender's retransmissions and a BS's local ones count, and a network
//! duplicate made on hop A is a transmission of its own on hop B):
//! kills ([`Loop::kill_a`]: ns-3's ReceiveListErrorModel), extra delays
//! ([`Loop::extra_delay_a`], negative for early: reordering) and network
//! duplicates ([`Loop::duplicate_a`]). ACKs are killed by their index in the
//! order the receiver emits them ([`Loop::kill_ack`]).
//!
//! # Writing a test
//!
//! - A sender part, detector or responder: put it in the [`TcpConfig`]
//!   (`detector`, `responder`, `cc`, `clrp`, ...), script the losses, and
//!   read the sender's decisions in [`Record::recoveries`] (each
//!   [`crate::tcp::Decision`] holds the verdict and the windows before and
//!   after) and its counters with [`Loop::sender_counter`].
//! - A receiver part: set it in the [`SinkConfig`]; [`Record::acks_sent`]
//!   holds every ACK as emitted, options included.
//! - A BS agent: build it for node [`BS`] and pass it to [`Loop::bs`];
//!   [`Record::at_bs`], [`Record::injected`] and [`Record::absorbed`] show
//!   what it saw and did, [`Loop::bs_counter`] its counters.
//!
//! [`Loop::run_until`] starts the sender at time 0 and runs up to a time
//! (or until a finite transfer is finished); it can be called again to go
//! on, with assertions in between.
//!
//! Packets: flow [`FLOW`] from [`SENDER`] to [`RECEIVER`] through [`BS`];
//! data of the sender's `packet_size`, ACKs of [`ACK_SIZE`] bytes, built
//! with [`Packet::data`] and [`Packet::ack`].

use crate::bs::{BsAgent, BsOut};
use crate::engine::{EventQueue, Time};
use crate::packet::{FlowId, NodeId, Packet};
use crate::tcp::{SenderOutput, SinkConfig, SinkOutput, TcpConfig, TcpSender, TcpSink};

mod hop;
mod record;
mod run;
#[cfg(test)]
mod tests;

pub use hop::{HopId, Link};
pub use record::{AckAtSender, AckSent, Lost, Record, Sent};

use hop::Hop;

/// The flow every packet of a loop belongs to.
pub const FLOW: FlowId = 0;
/// The sender's node.
pub const SENDER: NodeId = 0;
/// The middle node (give it to the agent's constructor).
pub const BS: NodeId = 1;
/// The receiver's node.
pub const RECEIVER: NodeId = 2;
/// Bytes of an ACK on the wire.
pub const ACK_SIZE: u32 = 40;

/// The way ACKs go back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AckRoute {
    /// Back over the hops, through the middle node and its agent.
    Hops,
    /// Straight to the sender, this long after they are sent.
    Direct(Time),
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// A packet reaches the middle node.
    AtBs(Packet),
    /// A data packet reaches the receiver.
    AtReceiver(Packet),
    /// An ACK reaches the sender.
    AtSender(Packet),
    SenderTimer,
    SinkTimer,
    BsTimer,
}

/// The deadline each timer's last expiry event was scheduled for.
#[derive(Debug, Default)]
struct Armed {
    rto: Option<Time>,
    delack: Option<Time>,
    bs: Option<Time>,
}

/// A closed loop: build it, run it, read what happened. See the module
/// documentation.
#[derive(Debug)]
pub struct Loop {
    sender: TcpSender,
    sink: TcpSink,
    agent: Option<Box<dyn BsAgent>>,
    /// Hops A and B.
    hops: [Hop; 2],
    two_hops: bool,
    acks: AckRoute,
    /// 1-based indices of the receiver's ACKs to drop.
    ack_kills: Vec<u64>,
    q: EventQueue<Ev>,
    armed: Armed,
    out: SenderOutput,
    sout: SinkOutput,
    bso: BsOut,
    started: bool,
    rec: Record,
}

impl Loop {
    /// A sender and a receiver over one hop (by default wired, instant:
    /// set it with [`Loop::hop_a`]).
    pub fn new(sender: TcpConfig, sink: SinkConfig) -> Self {
        Self {
            sender: TcpSender::new(sender),
            sink: TcpSink::new(sink),
            agent: None,
            hops: [Hop::new(Link::wired(0, 0)), Hop::new(Link::wired(0, 0))],
            two_hops: false,
            acks: AckRoute::Hops,
            ack_kills: Vec::new(),
            q: EventQueue::new(),
            armed: Armed::default(),
            out: SenderOutput::default(),
            sout: SinkOutput::default(),
            bso: BsOut::default(),
            started: false,
            rec: Record::default(),
        }
    }

    /// The hop leaving the sender.
    pub fn hop_a(mut self, link: Link) -> Self {
        self.hops[0].link = link;
        self
    }

    /// A second hop, from the middle node to the receiver.
    pub fn hop_b(mut self, link: Link) -> Self {
        self.hops[1].link = link;
        self.two_hops = true;
        self
    }

    /// The agent on the middle node (needs [`Loop::hop_b`]). It sees every
    /// packet crossing the node, data from hop A to hop B and ACKs back
    /// (unless [`Loop::acks_direct`]); its injected data go on hop B, its
    /// injected ACKs on hop A.
    pub fn bs(mut self, agent: Box<dyn BsAgent>) -> Self {
        self.agent = Some(agent);
        self
    }

    /// ACKs go straight back to the sender, `delay` after they are sent
    /// (not through the middle node).
    pub fn acks_direct(mut self, delay: Time) -> Self {
        self.acks = AckRoute::Direct(delay);
        self
    }

    /// Kill the `k`-th transmission (from 1) of segment `seq` over hop A.
    pub fn kill_a(mut self, seq: u32, k: u32) -> Self {
        self.hops[0].kill(seq, k);
        self
    }

    /// Kill the `k`-th transmission of segment `seq` over hop B.
    pub fn kill_b(mut self, seq: u32, k: u32) -> Self {
        self.hops[1].kill(seq, k);
        self
    }

    /// [`Loop::kill_a`] for each (segment, k).
    pub fn kills_a(self, kills: &[(u32, u32)]) -> Self {
        kills.iter().fold(self, |l, &(s, k)| l.kill_a(s, k))
    }

    /// [`Loop::kill_b`] for each (segment, k).
    pub fn kills_b(self, kills: &[(u32, u32)]) -> Self {
        kills.iter().fold(self, |l, &(s, k)| l.kill_b(s, k))
    }

    /// The `k`-th transmission of `seq` over hop A arrives `by` ns later
    /// than the link would deliver it (earlier if negative; never before
    /// it was sent). The link stays FIFO for the others.
    pub fn extra_delay_a(mut self, seq: u32, k: u32, by: i64) -> Self {
        self.hops[0].extra_delay(seq, k, by);
        self
    }

    /// [`Loop::extra_delay_a`] on hop B.
    pub fn extra_delay_b(mut self, seq: u32, k: u32, by: i64) -> Self {
        self.hops[1].extra_delay(seq, k, by);
        self
    }

    /// A network duplicate of the `k`-th transmission of `seq` over hop A
    /// arrives `after` the original (marked `flags::IMPAIR_COPY`). Killing
    /// that transmission kills both.
    pub fn duplicate_a(mut self, seq: u32, k: u32, after: Time) -> Self {
        self.hops[0].duplicate(seq, k, after);
        self
    }

    /// [`Loop::duplicate_a`] on hop B.
    pub fn duplicate_b(mut self, seq: u32, k: u32, after: Time) -> Self {
        self.hops[1].duplicate(seq, k, after);
        self
    }

    /// Drop the `n`-th ACK (from 1) the receiver emits.
    pub fn kill_ack(mut self, n: u64) -> Self {
        self.ack_kills.push(n);
        self
    }

    /// [`Loop::kill_ack`] for each index.
    pub fn kill_acks(self, ns: &[u64]) -> Self {
        ns.iter().fold(self, |l, &n| l.kill_ack(n))
    }

    /// The sender and the receiver take every input by their general paths.
    #[cfg(test)]
    pub fn without_short_paths(mut self) -> Self {
        self.sender.without_short_path();
        self.sink.without_short_path();
        self
    }

    pub fn sender(&self) -> &TcpSender {
        &self.sender
    }

    pub fn sink(&self) -> &TcpSink {
        &self.sink
    }

    /// The BS agent, if any.
    pub fn agent(&self) -> Option<&dyn BsAgent> {
        self.agent.as_deref()
    }

    pub fn record(&self) -> &Record {
        &self.rec
    }

    /// The time of the last event run.
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// The sender's finite transfer is fully acknowledged.
    pub fn finished(&self) -> bool {
        self.sender.finished()
    }

    /// A counter of the sender's scheme parts ([`TcpSender::counters`]).
    pub fn sender_counter(&self, name: &str) -> Option<u64> {
        let mut c = Vec::new();
        self.sender.counters(&mut c);
        c.into_iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// A counter of the BS agent ([`BsAgent::counters`]) for the loop's flow.
    pub fn bs_counter(&self, name: &str) -> Option<u64> {
        let c = self.agent.as_ref()?.counters(FLOW);
        c.into_iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}
