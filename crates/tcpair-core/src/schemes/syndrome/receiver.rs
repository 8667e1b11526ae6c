//! Syndrome's receiver (Chen et al. 2002 §3-§5): from the TCP sequence number (SN)
//! and the BS-attached number (AN) of consecutively received packets it
//! infers how many losses happened on the wireless hop, gives that many
//! *credits*, and sets ELN on the duplicate ACKs of credited losses so the
//! (ELN-aware) sender retransmits without cutting its window.
//!
//! Interpretations (docs/syndrome.md has the reasoning):
//!
//! - Syndrome (G_n, G_m) per Fig. 1 and §3: n = max(SN_{i+1} -
//!   max_seq_seen - 1, 0), m = AN_{i+1} - AN_i - 1 (mod 2^32). Computed per
//!   tagging BS, and only when the previous received packet carries a tag
//!   of the same BS; otherwise the new AN only becomes the reference (first
//!   packet, handoff to a BS whose counter restarted, or a path change): no
//!   credit.
//! - Wireless losses w: FH -> MH (tag set by a BS whose wireless hop is
//!   downstream, Table 2): w = m for every m > 0. MH -> FH (wireless hop
//!   upstream, Table 3, Props. 9-14): w = n - m when n > m >= 0; 0 < m = n
//!   gives none; (G_0, G_m) and 0 < n < m are impossible and only counted.
//!   Two tags (MH -> MH, one per BS) add their w.
//! - Which observed losses get the credits: Eq. (1) over the n sequence
//!   numbers missing in this gap, in order (k = 1..n). When w > n (a
//!   reordered packet, Props. 5-6, or a retransmission filling an old hole
//!   while a new packet relayed just before it was lost) all n are marked
//!   and the w - n extra credits are *pending*: they float (apply to the
//!   holes the receiver already asks for, Examples 2 and 3) and, at the
//!   next gap, mark the holes that gap's own syndrome leaves unexplained
//!   (the lost packets were relayed before the fill, so their holes show up
//!   next). Without this, a credit earned by a new packet lost just before
//!   a retransmission would float to the wireline hole the receiver is
//!   asking for at that moment.
//! - ELN is set on a duplicate ACK asking for hole h when credit > 0 and h
//!   is marked or a floating credit exists (Fig. 1 line 11).
//! - credit -= 1 when a new ACK follows a run of >= 3 duplicate ACKs sent
//!   with ELN = 1 (lines 13-14). A marked hole filled without such a run (a
//!   late original, or a retransmission after a timeout) keeps its credit,
//!   which then floats ([`UnusedCredit::Keep`], the paper's Example 5
//!   scenario 2: "the credit is not deducted ..."), or is dropped with the
//!   hole ([`UnusedCredit::Drop`], which never lets a credit reach a
//!   wireline loss when nothing is reordered).

use crate::packet::{SynTag, SynTags};
use std::collections::VecDeque;

/// Length of the run of ELN duplicate ACKs after which a new ACK consumes a
/// credit (Fig. 1 line 13: "a set of 3 or more duplicate acks").
pub const CREDIT_RUN: u32 = 3;

/// The per-flow counters of a Syndrome receiver: credits given (wireless
/// losses inferred) and syndromes the paper rules out.
pub const COUNTERS: &[&str] = &["syndrome_credits", "impossible_syndromes"];

/// Counters of the receiver's inference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyndromeStats {
    /// Credits given (wireless losses inferred).
    pub credits_given: u64,
    /// Credits consumed by a run of ELN duplicate ACKs.
    pub credits_used: u64,
    /// Duplicate ACKs sent with ELN.
    pub eln_acks: u64,
    /// Syndromes the paper's propositions rule out (MH -> FH (G_0, G_m), 0 < n < m).
    pub impossible: u64,
    /// Times the tagging BS changed (or a first tag arrived): AN re-referenced.
    pub resyncs: u64,
    /// Credits dropped with a hole filled without an ELN run ([`UnusedCredit::Drop`]).
    pub credits_dropped: u64,
}

/// What happens to the credit of a marked hole that is filled without a
/// run of ELN duplicate ACKs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnusedCredit {
    /// It stays in the pool and floats (Chen et al. 2002 Example 5, scenario 2).
    #[default]
    Keep,
    /// It is dropped with its hole.
    Drop,
}

#[derive(Debug, Clone, Default)]
pub struct SyndromeRx {
    unused: UnusedCredit,
    /// Highest SN received so far (None before the first packet).
    max_seq_seen: Option<u32>,
    /// Tags of the previously received packet.
    prev: SynTags,
    credit: u64,
    /// Credits not yet tied to a hole (part of `credit`): they float for
    /// holes already open and mark the next gap's unexplained holes.
    pending: u64,
    /// Holes given a credit by Eq. (1), increasing.
    marked: VecDeque<u32>,
    /// The ACK value last sent and how many duplicates of it carried ELN.
    last_ack: Option<u32>,
    eln_run: u32,
    stats: SyndromeStats,
}

impl SyndromeRx {
    pub fn new(unused: UnusedCredit) -> Self {
        Self {
            unused,
            ..Self::default()
        }
    }

    pub fn stats(&self) -> &SyndromeStats {
        &self.stats
    }

    /// The receiver's per-flow counters ([`COUNTERS`]).
    pub fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push((COUNTERS[0], self.stats.credits_given));
        out.push((COUNTERS[1], self.stats.impossible));
    }

    pub fn credit(&self) -> u64 {
        self.credit
    }

    /// Whether the current run of ELN duplicate ACKs (long enough to consume
    /// a credit) asks for `seq`.
    fn run_for(&self, seq: u32) -> bool {
        self.last_ack == Some(seq) && self.eln_run >= CREDIT_RUN
    }

    /// Floating credits: those not tied to a marked hole.
    fn floating(&self) -> u64 {
        self.credit.saturating_sub(self.marked.len() as u64)
    }

    /// A data packet arrived (before the ACK it triggers is built):
    /// compute the syndrome and give credits (Fig. 1 lines 7-10, 23-26).
    pub fn on_arrival(&mut self, seq: u32, tags: &SynTags) {
        let n = match self.max_seq_seen {
            None => seq,
            Some(mx) => seq.saturating_sub(mx.saturating_add(1)),
        };
        let mut w: u64 = 0;
        for t in tags.iter() {
            let Some(prev) = self.prev.iter().find(|p| p.bs == t.bs) else {
                self.stats.resyncs += 1;
                continue;
            };
            let m = t.an.wrapping_sub(prev.an).wrapping_sub(1);
            w += wireless_losses(t, n, m, &mut self.stats);
        }
        self.credit += w;
        self.stats.credits_given += w;
        let n64 = u64::from(n);
        // Pending credits (earlier syndromes with more wireless losses than
        // holes) wait for the first arrival above the max_seq_seen of their
        // time: the holes of its gap that its own syndrome leaves
        // unexplained are theirs. If that arrival opens no such hole, the
        // lost packets were not new ones (a late or retransmitted packet):
        // what is left floats (`keep`) or is dropped (`drop`).
        let mut extra = 0;
        if self.pending > 0 && self.max_seq_seen.is_none_or(|mx| seq > mx) {
            extra = self.pending.min(n64.saturating_sub(w));
            let left = self.pending - extra;
            if self.unused == UnusedCredit::Drop {
                self.credit -= left;
                self.stats.credits_dropped += left;
            }
            self.pending = 0;
        }
        if w + extra > 0 && n > 0 {
            // The n observed losses of this gap: max_seq_seen+1 .. seq-1.
            let first = seq - n;
            for k in eq1_indices(n64, w + extra) {
                self.marked.push_back(first + (k - 1) as u32);
            }
        }
        // Wireless losses beyond this gap's holes (w > n: a reordered packet,
        // Props. 5-6, or a retransmission filling an old hole right after a
        // new packet was lost): pending.
        self.pending += w.saturating_sub(n64);
        self.prev = *tags;
        if self.max_seq_seen.is_none_or(|mx| seq > mx) {
            self.max_seq_seen = Some(seq);
        }
    }

    /// A hole was filled (the segment arrived): it no longer needs a mark.
    pub fn on_filled(&mut self, seq: u32) {
        if let Some(i) = self.marked.iter().position(|&s| s == seq) {
            self.marked.remove(i);
            if self.unused == UnusedCredit::Drop && !self.run_for(seq) {
                self.credit -= 1;
                self.pending = self.pending.min(self.credit);
                self.stats.credits_dropped += 1;
            }
        }
    }

    /// The receiver sends an ACK for `ack` (next expected segment): returns
    /// its ELN bit (Fig. 1 lines 11-18).
    pub fn ack_eln(&mut self, ack: u32) -> bool {
        // Marks below the cumulative ACK are settled.
        while self.marked.front().is_some_and(|&s| s < ack) {
            self.marked.pop_front();
        }
        let dup = self.last_ack == Some(ack);
        if !dup {
            if self.eln_run >= CREDIT_RUN && self.credit > 0 {
                self.credit -= 1;
                self.stats.credits_used += 1;
                self.pending = self.pending.min(self.credit);
                // Keep marks no more numerous than credits.
                while self.marked.len() as u64 > self.credit {
                    self.marked.pop_back();
                }
            }
            self.eln_run = 0;
            self.last_ack = Some(ack);
            return false;
        }
        let eln = self.credit > 0 && (self.marked.front() == Some(&ack) || self.floating() > 0);
        if eln {
            self.eln_run += 1;
            self.stats.eln_acks += 1;
        }
        eln
    }
}

/// Wireless losses implied by one tag's syndrome (G_n, G_m).
fn wireless_losses(t: &SynTag, n: u32, m: u32, stats: &mut SyndromeStats) -> u64 {
    if t.downstream_wireless {
        // FH -> MH, Table 2: every AN gap is a wireless loss (Lemma 2).
        u64::from(m)
    } else if n > m {
        // MH -> FH, Props. 9, 13: n - m losses on the wireless hop.
        u64::from(n - m)
    } else {
        if m > n {
            // Props. 11-12: (G_0, G_m) and 0 < n < m cannot occur.
            stats.impossible += 1;
        }
        0 // Props. 10, 14 (and (G_0, G_0)): no wireless loss.
    }
}

/// Chen et al. 2002 Eq. (1): which of the n observed losses (1-based, in sequence
/// order) get the w credits. All n if w >= n.
pub fn eq1_indices(n: u64, w: u64) -> Vec<u64> {
    if w >= n {
        return (1..=n).collect();
    }
    if 2 * w <= n {
        // 1, 3, ..., 2w - 1
        (1..=w).map(|i| 2 * i - 1).collect()
    } else {
        // w <= n < 2w: 1, 3, ..., 2(n - w) - 1, then 2(n - w) + 1 ..= n.
        let d = n - w;
        let mut v: Vec<u64> = (1..=d).map(|i| 2 * i - 1).collect();
        v.extend(2 * d + 1..=n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(bs: u32, downstream: bool, an: u32) -> SynTags {
        let mut t = SynTags::default();
        t.set(SynTag {
            bs,
            downstream_wireless: downstream,
            an,
        });
        t
    }

    /// Feed (seq, an) arrivals tagged by BS 1 and return the receiver.
    fn feed(downstream: bool, arrivals: &[(u32, u32)]) -> SyndromeRx {
        let mut rx = SyndromeRx::new(UnusedCredit::Keep);
        for &(seq, an) in arrivals {
            rx.on_arrival(seq, &tags(1, downstream, an));
        }
        rx
    }

    /// MH -> FH (Table 3, Props. 9-14): the FH receives what the BS relayed.
    #[test]
    fn mh_to_fh_propositions() {
        // (G_0, G_0): nothing.
        let rx = feed(false, &[(0, 0), (1, 1)]);
        assert_eq!((rx.credit(), rx.stats().impossible), (0, 0));
        // Prop. 9 (G_n, G_0): seqs 1, 2 never reached the BS: 2 wireless losses.
        let rx = feed(false, &[(0, 0), (3, 1)]);
        assert_eq!(rx.credit(), 2);
        // Prop. 13 (G_n, G_m) 0 < m < n: 3 missing, 1 lost after the BS: 2 wireless.
        let rx = feed(false, &[(0, 0), (4, 2)]);
        assert_eq!(rx.credit(), 2);
        // Prop. 14 0 < m = n: both losses after the BS (wireline): none.
        let rx = feed(false, &[(0, 0), (3, 3)]);
        assert_eq!((rx.credit(), rx.stats().impossible), (0, 0));
        // Props. 11-12: (G_0, G_m) and 0 < n < m cannot happen: counted only.
        let rx = feed(false, &[(0, 0), (1, 3), (3, 6)]);
        assert_eq!((rx.credit(), rx.stats().impossible), (0, 2));
    }

    /// FH -> MH (Table 2): every AN gap is a credit, whatever n.
    #[test]
    fn fh_to_mh_table_2() {
        assert_eq!(feed(true, &[(0, 0), (1, 1)]).credit(), 0); // (G_0, G_0)
        assert_eq!(feed(true, &[(0, 0), (3, 1)]).credit(), 0); // (G_n, G_0)
        assert_eq!(feed(true, &[(0, 0), (1, 2)]).credit(), 1); // (G_0, G_m)
        assert_eq!(feed(true, &[(0, 0), (2, 3)]).credit(), 2); // 0 < n < m
        assert_eq!(feed(true, &[(0, 0), (4, 2)]).credit(), 1); // 0 < m < n
        assert_eq!(feed(true, &[(0, 0), (3, 3)]).credit(), 2); // 0 < n = m
                                                               // AN wraps mod 2^32 like a sequence number.
        assert_eq!(feed(true, &[(0, u32::MAX), (2, 0)]).credit(), 0);
        assert_eq!(feed(true, &[(0, u32::MAX), (2, 1)]).credit(), 1);
    }

    /// Handoff: a new BS starts its counter afresh. The first packet tagged
    /// by a BS other than the previous packet's only sets the reference: no
    /// credit, whatever its AN (docs/syndrome.md).
    #[test]
    fn handoff_resynchronises_without_credit() {
        let mut rx = SyndromeRx::new(UnusedCredit::Keep);
        rx.on_arrival(0, &tags(1, true, 500));
        rx.on_arrival(1, &tags(1, true, 501));
        // The MH moved: BS 2 numbers from 0; packets 2-4 were lost in the blackout.
        rx.on_arrival(5, &tags(2, true, 0));
        assert_eq!(rx.credit(), 0);
        assert_eq!(rx.stats().resyncs, 2); // the very first packet, and the handoff
                                           // From then on BS 2's syndromes count as usual.
        rx.on_arrival(7, &tags(2, true, 2));
        assert_eq!(rx.credit(), 1);
        // Back to BS 1, whose counter has moved on: again no credit.
        rx.on_arrival(8, &tags(1, true, 900));
        assert_eq!(rx.credit(), 1);
    }

    /// ELN on the duplicate ACKs of a credited hole, credit spent after a
    /// run of three, new ACKs never carry ELN.
    #[test]
    fn eln_marking_and_credit_use() {
        let mut rx = SyndromeRx::new(UnusedCredit::Keep);
        rx.on_arrival(0, &tags(1, true, 0));
        assert!(!rx.ack_eln(1));
        rx.on_arrival(2, &tags(1, true, 2)); // (G_1, G_1): 1 lost on the air
        assert!(rx.ack_eln(1)); // the ACK sent for 2 is the first dupack
        for s in 3..5 {
            rx.on_arrival(s, &tags(1, true, s));
            assert!(rx.ack_eln(1));
        }
        rx.on_arrival(1, &tags(1, true, 5)); // the retransmission
        rx.on_filled(1);
        assert!(!rx.ack_eln(5));
        assert_eq!((rx.credit(), rx.stats().credits_used), (0, 1));
    }

    #[test]
    fn eq1_matches_the_paper_cases() {
        // 2m <= n: alternate from the first.
        assert_eq!(eq1_indices(4, 2), vec![1, 3]);
        assert_eq!(eq1_indices(5, 2), vec![1, 3]);
        assert_eq!(eq1_indices(3, 1), vec![1]);
        // m <= n < 2m: alternate while wireline losses remain, then all.
        assert_eq!(eq1_indices(3, 2), vec![1, 3]);
        assert_eq!(eq1_indices(5, 4), vec![1, 3, 4, 5]);
        assert_eq!(eq1_indices(2, 2), vec![1, 2]);
        // Always exactly min(w, n) distinct indices in 1..=n.
        for n in 0..12 {
            for w in 0..14 {
                let v = eq1_indices(n, w);
                assert_eq!(v.len() as u64, w.min(n), "n={n} w={w}");
                assert!(v.windows(2).all(|p| p[0] < p[1]));
                assert!(v.iter().all(|&k| (1..=n).contains(&k)));
            }
        }
    }
}
