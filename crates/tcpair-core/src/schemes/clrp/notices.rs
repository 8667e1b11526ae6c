//! TCP-MH's list of notified wireless losses (Sun et al. 2005 §II.A): per lost
//! packet the number of times it was notified; a packet is retransmitted
//! once the count reaches the threshold. Kept by the TCP-MH sender on the
//! MH -> FH path ([`super::mh`]) and by CLRP-BS on FH -> MH ([`super::bs`]).

use crate::engine::Time;

/// One listed loss: how often it was notified, or -1 after a retransmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    seq: u32,
    /// Notices received; -1 once retransmitted (Sun et al. 2005 §II.A).
    count: i32,
    /// The retransmission's mark (see the module docs).
    mark: Time,
}

/// Counters of a [`NoticeList`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoticeStats {
    /// Loss notices processed (one per listed number per ACK).
    pub notices: u64,
    /// Retransmissions asked for.
    pub retransmits: u64,
    /// Of these, repeats after the -1 mark ended (the previous one was lost).
    pub repeats: u64,
}

/// TCP-MH's "structure list" (Sun et al. 2005 §II.A): per lost packet, the
/// number of times it was notified.
#[derive(Debug, Clone)]
pub struct NoticeList {
    threshold: u32,
    entries: Vec<Entry>,
    stats: NoticeStats,
}

impl NoticeList {
    pub fn new(rxmit_threshold: u32) -> Self {
        Self {
            threshold: rxmit_threshold.max(1),
            entries: Vec::new(),
            stats: NoticeStats::default(),
        }
    }

    pub fn stats(&self) -> &NoticeStats {
        &self.stats
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `seq` is listed (a known wireless loss, retransmitted or not).
    pub fn contains(&self, seq: u32) -> bool {
        self.entries.iter().any(|e| e.seq == seq)
    }

    /// Forget everything (after a retransmission timeout the sender resends
    /// the window anyway).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Process one ACK: `ack` is its cumulative acknowledgement, `notices`
    /// the loss numbers it carries (already filtered by the caller, e.g. the
    /// BS keeps only cached packets), `echo` its timestamp echo, and `mark`
    /// the mark a retransmission made now would get. Pushes onto `rtx` (in
    /// increasing order) the numbers to retransmit now.
    pub fn on_ack(
        &mut self,
        ack: u32,
        notices: impl Iterator<Item = u32>,
        echo: Time,
        mark: Time,
        rtx: &mut Vec<u32>,
    ) {
        // Delete the records of packets that have been acknowledged.
        self.entries.retain(|e| e.seq >= ack);
        let first = rtx.len();
        for seq in notices {
            if seq < ack {
                continue;
            }
            self.stats.notices += 1;
            let k = match self.entries.iter().position(|e| e.seq == seq) {
                Some(k) => k,
                None => {
                    self.entries.push(Entry {
                        seq,
                        count: 0,
                        mark: 0,
                    });
                    self.entries.len() - 1
                }
            };
            let e = &mut self.entries[k];
            if e.count >= 0 {
                e.count += 1;
            } else if echo > e.mark {
                // Notified by an ACK of a packet sent behind the
                // retransmission: it was lost too. Count afresh.
                e.count = 1;
                self.stats.repeats += 1;
            } else {
                continue; // stays negative
            }
            if e.count >= self.threshold as i32 {
                e.count = -1;
                e.mark = mark;
                rtx.push(seq);
                self.stats.retransmits += 1;
            }
        }
        rtx[first..].sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(l: &mut NoticeList, a: u32, n: &[u32], echo: Time, mark: Time) -> Vec<u32> {
        let mut v = Vec::new();
        l.on_ack(a, n.iter().copied(), echo, mark, &mut v);
        v
    }

    #[test]
    fn retransmit_when_the_count_reaches_the_threshold_then_stay_negative() {
        let mut l = NoticeList::new(2);
        assert!(ack(&mut l, 5, &[7, 6], 10, 100).is_empty());
        assert_eq!(ack(&mut l, 5, &[7, 6], 11, 100), vec![6, 7]);
        // Later notices before the retransmission could have arrived: negative.
        assert!(ack(&mut l, 5, &[7, 6], 50, 200).is_empty());
        assert!(ack(&mut l, 5, &[7, 6], 100, 200).is_empty());
        assert!(l.contains(6) && l.contains(7));
        assert_eq!(l.stats().retransmits, 2);
    }

    #[test]
    fn a_notice_sent_behind_the_retransmission_ends_the_mark() {
        let mut l = NoticeList::new(2);
        ack(&mut l, 5, &[6], 10, 100);
        assert_eq!(ack(&mut l, 5, &[6], 11, 100), vec![6]);
        // An ACK echoing a packet sent after the retransmission (mark 100)
        // still reports 6: that retransmission was lost. Count restarts at 1.
        assert!(ack(&mut l, 5, &[6], 101, 300).is_empty());
        assert_eq!(ack(&mut l, 5, &[6], 102, 300), vec![6]);
        assert_eq!(l.stats().repeats, 1);
    }

    #[test]
    fn acknowledged_entries_are_deleted() {
        let mut l = NoticeList::new(2);
        ack(&mut l, 5, &[6, 8], 10, 100);
        ack(&mut l, 7, &[], 10, 100);
        assert!(!l.contains(6));
        assert!(l.contains(8));
        // Notices below the cumulative ACK are ignored.
        assert!(ack(&mut l, 9, &[8], 10, 100).is_empty());
        assert!(l.is_empty());
    }

    #[test]
    fn threshold_one_retransmits_on_the_first_notice() {
        let mut l = NoticeList::new(1);
        assert_eq!(ack(&mut l, 0, &[3], 0, 1), vec![3]);
    }
}
