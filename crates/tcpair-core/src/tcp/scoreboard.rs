//! SACK scoreboard of RFC 6675 in packet units.
//!
//! One byte of flags per segment from `base` (= SND.UNA) to the highest
//! segment sent, kept in a `VecDeque` whose capacity is reused: after the
//! first window no ACK allocates.

use std::collections::VecDeque;

const SACKED: u8 = 1;
/// Retransmitted during the current recovery episode (RFC 6675 SetPipe (b)).
const RETX: u8 = 2;

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    base: u32,
    flags: VecDeque<u8>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self {
            base: 0,
            flags: VecDeque::with_capacity(64),
        }
    }

    /// First segment tracked (SND.UNA).
    pub fn base(&self) -> u32 {
        self.base
    }

    /// One past the last segment tracked (the sender's `max_sent`).
    pub fn end(&self) -> u32 {
        self.base + self.flags.len() as u32
    }

    #[inline]
    fn get(&self, seq: u32) -> u8 {
        if seq < self.base {
            return 0;
        }
        self.flags
            .get((seq - self.base) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Track segments up to `end` (exclusive), new ones with no flags.
    pub fn extend_to(&mut self, end: u32) {
        while self.end() < end {
            self.flags.push_back(0);
        }
    }

    /// Forget segments below `una` (they are cumulatively acknowledged).
    pub fn advance_to(&mut self, una: u32) {
        while self.base < una && !self.flags.is_empty() {
            self.flags.pop_front();
            self.base += 1;
        }
        if self.base < una {
            self.base = una;
        }
    }

    /// Mark `[start, end)` SACKed (clipped to the tracked range). Returns
    /// whether any segment was newly SACKed.
    pub fn mark_sacked(&mut self, start: u32, end: u32) -> bool {
        let lo = start.max(self.base);
        let hi = end.min(self.end());
        let mut new = false;
        for s in lo..hi {
            let f = &mut self.flags[(s - self.base) as usize];
            if *f & SACKED == 0 {
                *f |= SACKED;
                new = true;
            }
        }
        new
    }

    pub fn is_sacked(&self, seq: u32) -> bool {
        self.get(seq) & SACKED != 0
    }

    pub fn is_retransmitted(&self, seq: u32) -> bool {
        self.get(seq) & RETX != 0
    }

    pub fn set_retransmitted(&mut self, seq: u32) {
        if seq >= self.base && seq < self.end() {
            self.flags[(seq - self.base) as usize] |= RETX;
        }
    }

    /// Drop every SACKed mark (after an RTO: RFC 2018 §8, the receiver may
    /// have reneged; ns-2's Sack1 also clears its scoreboard).
    pub fn clear_sacked(&mut self) {
        for f in self.flags.iter_mut() {
            *f &= !SACKED;
        }
    }

    /// Drop every retransmitted mark (start of a new recovery episode).
    pub fn clear_retransmitted(&mut self) {
        for f in self.flags.iter_mut() {
            *f &= !RETX;
        }
    }

    /// Number of SACKed segments strictly above `seq`.
    pub fn sacked_above(&self, seq: u32) -> u32 {
        let from = if seq < self.base {
            0
        } else {
            (seq - self.base + 1) as usize
        };
        self.flags
            .iter()
            .skip(from)
            .filter(|f| **f & SACKED != 0)
            .count() as u32
    }

    /// Number of SACKed segments tracked.
    pub fn sacked_count(&self) -> u32 {
        self.flags.iter().filter(|f| **f & SACKED != 0).count() as u32
    }

    /// Highest SACKed segment, if any.
    pub fn highest_sacked(&self) -> Option<u32> {
        self.flags
            .iter()
            .rposition(|f| f & SACKED != 0)
            .map(|i| self.base + i as u32)
    }

    /// RFC 6675 §4 IsLost in packets: at least `dupthresh` SACKed segments
    /// above `seq` (the byte rule "(DupThresh-1)*SMSS SACKed bytes above"
    /// reduces to the same count in packet mode).
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        !self.is_sacked(seq) && self.sacked_above(seq) >= dupthresh
    }

    /// RFC 6675 §4 SetPipe in packets, one pass from the top so IsLost costs
    /// nothing extra: every un-SACKed segment not deemed lost counts once,
    /// and once more if it was retransmitted in this episode. (The RFC's
    /// test "S1 <= HighRxt" is replaced by the per-segment mark, which is the
    /// same when holes are retransmitted in order, as NextSeg does.)
    pub fn pipe(&self, dupthresh: u32) -> u32 {
        let mut sacked = 0u32;
        let mut pipe = 0u32;
        for f in self.flags.iter().rev() {
            if f & SACKED != 0 {
                sacked += 1;
                continue;
            }
            if sacked < dupthresh {
                pipe += 1;
            }
            if f & RETX != 0 {
                pipe += 1;
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg rules (1) and (3) (rule (2), new data, is the
    /// sender's): the smallest un-SACKed segment above `high_rxt` and below
    /// the highest SACKed one that IsLost (rule 1) or, if `allow_rule3`, any
    /// such segment. Returns `(seq, lost)`.
    pub fn next_hole(
        &self,
        high_rxt: Option<u32>,
        dupthresh: u32,
        allow_rule3: bool,
    ) -> Option<(u32, bool)> {
        let top = self.highest_sacked()?;
        let total_sacked = self.sacked_count();
        let mut sacked_at_or_below = 0u32;
        let start = match high_rxt {
            Some(h) if h + 1 > self.base => h + 1,
            _ => self.base,
        };
        let mut first_unlost: Option<u32> = None;
        for seq in self.base..top {
            let sacked = self.is_sacked(seq);
            if sacked {
                sacked_at_or_below += 1;
                continue;
            }
            if seq < start {
                continue;
            }
            let above = total_sacked - sacked_at_or_below;
            if above >= dupthresh {
                return Some((seq, true));
            }
            if first_unlost.is_none() {
                first_unlost = Some(seq);
            }
            // Lost segments form a prefix of the holes: none above this one.
            break;
        }
        if allow_rule3 {
            first_unlost.map(|s| (s, false))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_islost_nextseg() {
        let mut sb = Scoreboard::new();
        sb.advance_to(10);
        sb.extend_to(20); // segments 10..19 outstanding
        assert_eq!(sb.pipe(3), 10);
        // 10 and 12 lost; 11, 13, 14, 15 SACKed.
        sb.mark_sacked(11, 12);
        sb.mark_sacked(13, 16);
        // Above 10: 4 SACKed -> lost; above 12: 3 SACKed -> lost.
        assert!(sb.is_lost(10, 3));
        assert!(sb.is_lost(12, 3));
        assert!(!sb.is_lost(16, 3));
        assert_eq!(sb.highest_sacked(), Some(15));
        // pipe = 16..19 (4 not lost) + 0 for the lost ones = 4.
        assert_eq!(sb.pipe(3), 4);
        assert_eq!(sb.next_hole(None, 3, false), Some((10, true)));
        sb.set_retransmitted(10);
        assert_eq!(sb.pipe(3), 5);
        assert_eq!(sb.next_hole(Some(10), 3, false), Some((12, true)));
        assert_eq!(sb.next_hole(Some(12), 3, true), None);
        // Cumulative ACK to 12 drops 10 and 11.
        sb.advance_to(12);
        assert_eq!(sb.base(), 12);
        assert_eq!(sb.end(), 20);
        assert_eq!(sb.sacked_above(11), 3);
        sb.clear_sacked();
        assert_eq!(sb.highest_sacked(), None);
        assert_eq!(sb.pipe(3), 8);
    }

    #[test]
    fn rule3_hole_not_yet_lost() {
        let mut sb = Scoreboard::new();
        sb.extend_to(6);
        sb.mark_sacked(1, 2); // only one SACKed above 0: not lost
        assert_eq!(sb.next_hole(None, 3, false), None);
        assert_eq!(sb.next_hole(None, 3, true), Some((0, false)));
    }
}
