//! What happened in a loop, in the order it happened.

use super::HopId;
use crate::engine::Time;
use crate::packet::{Packet, PktKind};
use crate::tcp::{AckInfo, Decision, RecoveryEvent};

/// One transmission by the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    pub t: Time,
    pub seq: u32,
    pub retransmit: bool,
}

/// An ACK the sender processed, and its cwnd just after.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckAtSender {
    pub t: Time,
    pub ack: AckInfo,
    pub cwnd: f64,
}

/// An ACK the receiver emitted (as emitted: a BS may rewrite it on the way).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckSent {
    pub t: Time,
    pub ack: AckInfo,
    /// Sent on the delayed-ACK timer (not on a data arrival).
    pub on_timer: bool,
    /// Dropped by the loop's ACK kill list.
    pub killed: bool,
}

/// A data packet killed by a hop's script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lost {
    /// When it was put on the hop.
    pub t: Time,
    pub hop: HopId,
    pub seq: u32,
    /// The k-th transmission of `seq` over that hop.
    pub k: u32,
}

/// Everything a loop saw, in event order.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// Every transmission by the sender.
    pub sent: Vec<Sent>,
    /// The sender's recovery events, stamped with the time of the input
    /// (ACK or timer) that produced them.
    pub recoveries: Vec<(Time, RecoveryEvent)>,
    /// ACKs reaching the sender, with cwnd after each.
    pub acks_at_sender: Vec<AckAtSender>,
    /// ACKs emitted by the receiver (killed ones included, marked).
    pub acks_sent: Vec<AckSent>,
    /// Every packet reaching the middle node (data and ACKs), before its
    /// agent saw it, in arrival order.
    pub at_bs: Vec<(Time, Packet)>,
    /// Packets the BS agent injected (local retransmissions).
    pub injected: Vec<(Time, Packet)>,
    /// Packets the BS agent absorbed, as it left them.
    pub absorbed: Vec<(Time, Packet)>,
    /// Data packets reaching the receiver, in arrival order.
    pub at_receiver: Vec<(Time, Packet)>,
    /// Data packets killed on a hop.
    pub lost: Vec<Lost>,
    /// Segments delivered in order to the receiving application.
    pub delivered: u64,
}

impl Record {
    /// Transmissions of `seq` by the sender.
    pub fn transmissions(&self, seq: u32) -> usize {
        self.sent.iter().filter(|s| s.seq == seq).count()
    }

    /// The segments the sender retransmitted, in order.
    pub fn retransmitted(&self) -> Vec<u32> {
        let rtx = self.sent.iter().filter(|s| s.retransmit);
        rtx.map(|s| s.seq).collect()
    }

    /// The fast-retransmit decisions, time-stamped.
    pub fn fast_retransmits(&self) -> Vec<(Time, Decision)> {
        let frs = self.recoveries.iter().filter_map(|&(t, e)| match e {
            RecoveryEvent::FastRetransmit(d) => Some((t, d)),
            _ => None,
        });
        frs.collect()
    }

    /// When the retransmission timer expired.
    pub fn timeout_times(&self) -> Vec<Time> {
        let tos = self.recoveries.iter();
        let tos = tos.filter(|(_, e)| matches!(e, RecoveryEvent::Timeout { .. }));
        tos.map(|&(t, _)| t).collect()
    }

    /// The segments a scheme's sender part retransmitted
    /// ([`RecoveryEvent::Retransmit`]), in order.
    pub fn scheme_retransmits(&self) -> Vec<u32> {
        let rtx = self.recoveries.iter().filter_map(|&(_, e)| match e {
            RecoveryEvent::Retransmit { seq, .. } => Some(seq),
            _ => None,
        });
        rtx.collect()
    }

    /// cwnd after each ACK the sender processed.
    pub fn cwnd_after_acks(&self) -> Vec<f64> {
        self.acks_at_sender.iter().map(|a| a.cwnd).collect()
    }

    /// The segment numbers of the data packets reaching the BS, in order
    /// (duplicates and retransmissions included).
    pub fn bs_data_order(&self) -> Vec<u32> {
        let data = self.at_bs.iter().filter(|(_, p)| p.kind == PktKind::Data);
        data.map(|(_, p)| p.seq).collect()
    }

    /// The segment numbers of the packets the BS injected, in order.
    pub fn injected_seqs(&self) -> Vec<u32> {
        self.injected.iter().map(|(_, p)| p.seq).collect()
    }

    /// ACKs the receiver sent on its delayed-ACK timer.
    pub fn timer_acks(&self) -> usize {
        self.acks_sent.iter().filter(|a| a.on_timer).count()
    }
}
