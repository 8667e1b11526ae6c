//! The standard TCP receiver (ns-2 `TCPSink`, `DelAckSink`, `Sack1` sink
//! behaviour), sans-IO.
//!
//! Out-of-order segments are marked in a [`SeqWindow`] whose base is
//! `rcv_nxt`; its ring grows only when a larger gap than ever before is
//! seen, so steady state allocates nothing.

use super::AckInfo;
use crate::engine::{Time, MS};
use crate::packet::{LossBlocks, SackBlocks, SeqWindow, SynTags, MAX_SACK_BLOCKS};
use crate::schemes::clrp::holes::{HoleStats, HoleTracker};
use crate::schemes::clrp::{DEFAULT_HOLE_THRESHOLD, DEFAULT_MAX_BLOCKS};
use crate::schemes::syndrome::receiver::{SyndromeRx, SyndromeStats, UnusedCredit};

/// How many recently received out-of-order segments are remembered to
/// build SACK blocks (more than the 3 blocks sent, so that blocks merged by
/// a filled hole do not leave the option short).
const SACK_HISTORY: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkConfig {
    pub delayed_ack: bool,
    /// Delayed-ACK timer (ns-2 `DelAckSink interval_`: 100 ms).
    pub delack_timeout: Time,
    pub sack: bool,
    /// Syndrome receiver (Chen et al. 2002): see `schemes::syndrome::receiver`.
    pub syndrome: bool,
    pub syndrome_unused_credit: UnusedCredit,
    /// TCP-MH receiver of CLRP (Sun et al. 2005 §II.B): a hole that persists
    /// after `clrp_hole_threshold` further packets is a loss; the
    /// `clrp_max_blocks` most recent ones ride on every ACK.
    pub clrp: bool,
    pub clrp_hole_threshold: u32,
    pub clrp_max_blocks: u32,
}

impl Default for SinkConfig {
    fn default() -> Self {
        Self {
            delayed_ack: false,
            delack_timeout: 100 * MS,
            sack: false,
            syndrome: false,
            syndrome_unused_credit: UnusedCredit::Keep,
            clrp: false,
            clrp_hole_threshold: DEFAULT_HOLE_THRESHOLD,
            clrp_max_blocks: DEFAULT_MAX_BLOCKS,
        }
    }
}

/// Result of one input. `on_data` and `on_timer` overwrite every field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkOutput {
    /// An ACK to send now.
    pub ack: Option<AckInfo>,
    /// Segments newly delivered in order to the application.
    pub new_in_order: u32,
    /// The segment had already been received.
    pub duplicate: bool,
}

#[derive(Debug, Clone)]
pub struct TcpSink {
    cfg: SinkConfig,
    rcv_nxt: u32,
    /// Segments held above `rcv_nxt` (its base is always `rcv_nxt`).
    ooo: SeqWindow,
    /// Number of `true` entries in `ooo`.
    held_count: u32,
    /// Most recent out-of-order arrivals, newest first (RFC 2018 §4 order).
    recent: [u32; SACK_HISTORY],
    recent_len: usize,
    /// Delayed ACK: an in-order segment is waiting to be acknowledged,
    /// with the `sent_at` to echo.
    pending: Option<Time>,
    deadline: Option<Time>,
    acks_sent: u64,
    syndrome: Option<SyndromeRx>,
    clrp: Option<HoleTracker>,
    /// Freeze-TCP: advertising a zero window.
    frozen: bool,
    /// No delayed ACKs, SACK or scheme part: an in-order segment with
    /// nothing held takes [`Self::next_in_order`].
    plain: bool,
}

impl TcpSink {
    pub fn new(cfg: SinkConfig) -> Self {
        Self {
            rcv_nxt: 0,
            ooo: SeqWindow::default(),
            held_count: 0,
            recent: [0; SACK_HISTORY],
            recent_len: 0,
            pending: None,
            deadline: None,
            acks_sent: 0,
            frozen: false,
            plain: !cfg.delayed_ack && !cfg.sack && !cfg.syndrome && !cfg.clrp,
            syndrome: cfg
                .syndrome
                .then(|| SyndromeRx::new(cfg.syndrome_unused_credit)),
            clrp: cfg.clrp.then(|| HoleTracker::new(cfg.clrp_hole_threshold)),
            cfg,
        }
    }

    /// The Syndrome receiver's counters (None without `syndrome`).
    pub fn syndrome_stats(&self) -> Option<&SyndromeStats> {
        self.syndrome.as_ref().map(|r| r.stats())
    }

    /// The CLRP hole detector's counters (None without `clrp`).
    pub fn clrp_stats(&self) -> Option<&HoleStats> {
        self.clrp.as_ref().map(|t| t.stats())
    }

    /// The per-flow counters of the receiver's scheme parts.
    pub fn counters(&self, out: &mut super::Counters) {
        if let Some(rx) = self.syndrome.as_ref() {
            rx.counters(out);
        }
        if let Some(t) = self.clrp.as_ref() {
            t.receiver_counters(out);
        }
    }

    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    /// ACKs emitted so far.
    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }

    pub fn timer_deadline(&self) -> Option<Time> {
        self.deadline
    }

    fn held(&self, seq: u32) -> bool {
        self.held_count > 0 && self.ooo.contains(seq)
    }

    pub fn on_data(&mut self, now: Time, seq: u32, sent_at: Time, out: &mut SinkOutput) {
        self.on_data_tagged(now, seq, sent_at, &SynTags::default(), out);
    }

    /// A data segment with its Syndrome tags (ignored without `syndrome`).
    pub fn on_data_tagged(
        &mut self,
        now: Time,
        seq: u32,
        sent_at: Time,
        tags: &SynTags,
        out: &mut SinkOutput,
    ) {
        if self.plain && seq == self.rcv_nxt && self.held_count == 0 {
            self.next_in_order(now, seq, sent_at, out);
            return;
        }
        *out = SinkOutput::default();
        if let Some(rx) = self.syndrome.as_mut() {
            rx.on_arrival(seq, tags);
            if seq >= self.rcv_nxt {
                rx.on_filled(seq);
            }
        }
        let had_ooo = self.held_count > 0;
        let immediate;
        if seq < self.rcv_nxt || self.held(seq) {
            out.duplicate = true;
            // RFC 5681 §4.2: ACK a duplicate at once.
            immediate = true;
        } else if seq == self.rcv_nxt {
            // Deliver seq and everything contiguous held above it.
            self.rcv_nxt += 1;
            let mut n = 1;
            while self.held_count > 0 && self.ooo.contains(self.rcv_nxt) {
                self.rcv_nxt += 1;
                self.held_count -= 1;
                n += 1;
            }
            self.ooo.advance(self.rcv_nxt);
            out.new_in_order = n;
            // RFC 5681 §4.2: ACK at once when the segment fills (part of) a hole.
            immediate = had_ooo;
        } else {
            self.ooo.mark(seq, true);
            self.held_count += 1;
            // RFC 5681 §4.2: out-of-order segment -> immediate (dup)ACK.
            immediate = true;
        }
        if seq > self.rcv_nxt {
            self.note_recent(seq);
        }
        if let Some(t) = self.clrp.as_mut() {
            t.on_arrival(seq, sent_at);
            t.advance(self.rcv_nxt);
        }
        let ack_now = if !self.cfg.delayed_ack || immediate {
            true
        } else if self.pending.is_some() {
            // Every second full-sized segment (RFC 5681 §4.2).
            true
        } else {
            self.pending = Some(sent_at);
            self.deadline = Some(now + self.cfg.delack_timeout);
            false
        };
        if ack_now {
            // RFC 7323 §4.3: a delayed ACK echoes the earliest held segment.
            let echo = self.pending.unwrap_or(sent_at);
            out.ack = Some(self.make_ack(now, echo));
        }
    }

    /// [`Self::on_data_tagged`] of a plain receiver's next segment in order,
    /// with nothing held: the general case's state changes and output
    /// without its tests (no delayed ACK is pending without delayed ACKs,
    /// and a plain receiver's ACK has no option).
    #[inline]
    fn next_in_order(&mut self, now: Time, seq: u32, sent_at: Time, out: &mut SinkOutput) {
        debug_assert!(self.pending.is_none() && self.deadline.is_none());
        self.rcv_nxt = seq + 1;
        self.ooo.advance(self.rcv_nxt);
        self.acks_sent += 1;
        *out = SinkOutput {
            ack: Some(AckInfo {
                ack: self.rcv_nxt,
                ts_echo: sent_at,
                rcv_at: now,
                rwnd: if self.frozen { 0 } else { u32::MAX },
                ..AckInfo::default()
            }),
            new_in_order: 1,
            duplicate: false,
        };
    }

    /// Take every segment by the general path (tests compare it with the short one).
    #[cfg(test)]
    pub(crate) fn without_short_path(&mut self) {
        self.plain = false;
    }

    /// Delayed-ACK timer; a no-op unless due.
    pub fn on_timer(&mut self, now: Time, out: &mut SinkOutput) {
        *out = SinkOutput::default();
        match self.deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        let echo = self.pending.unwrap_or(0);
        out.ack = Some(self.make_ack(now, echo));
    }

    fn note_recent(&mut self, seq: u32) {
        // Move-to-front, dropping an older entry for the same segment.
        let mut len = self.recent_len;
        if let Some(p) = self.recent[..len].iter().position(|s| *s == seq) {
            self.recent.copy_within(p + 1..len, p);
            len -= 1;
        }
        let len = len.min(SACK_HISTORY - 1);
        self.recent.copy_within(0..len, 1);
        self.recent[0] = seq;
        self.recent_len = len + 1;
    }

    /// The held block `[start, end)` containing `seq` (seq must be held).
    fn block_of(&self, seq: u32) -> (u32, u32) {
        let mut s = seq;
        while s > self.rcv_nxt + 1 && self.held(s - 1) {
            s -= 1;
        }
        let mut e = seq + 1;
        while self.held(e) {
            e += 1;
        }
        (s, e)
    }

    fn make_ack(&mut self, now: Time, echo: Time) -> AckInfo {
        self.pending = None;
        self.deadline = None;
        self.acks_sent += 1;
        let mut sack = SackBlocks::default();
        if self.cfg.sack {
            // RFC 2018 §4: first the block holding the most recent arrival
            // (if it did not advance rcv_nxt), then the most recent others.
            // Entries now below rcv_nxt are dropped from the history.
            let mut keep = 0;
            for i in 0..self.recent_len {
                let s = self.recent[i];
                if self.held(s) {
                    self.recent[keep] = s;
                    keep += 1;
                }
            }
            self.recent_len = keep;
            for i in 0..self.recent_len {
                if sack.len as usize >= MAX_SACK_BLOCKS {
                    break;
                }
                let b = self.block_of(self.recent[i]);
                if !sack.as_slice().contains(&b) {
                    sack.push(b);
                }
            }
        }
        let eln = match self.syndrome.as_mut() {
            Some(rx) => rx.ack_eln(self.rcv_nxt),
            None => false,
        };
        let mut loss = LossBlocks::default();
        if let Some(t) = self.clrp.as_ref() {
            t.recent(self.cfg.clrp_max_blocks as usize, &mut loss);
        }
        AckInfo {
            ack: self.rcv_nxt,
            ts_echo: echo,
            rcv_at: now,
            sack,
            eln,
            loss,
            rwnd: if self.frozen { 0 } else { u32::MAX },
            truth: None,
        }
    }

    /// Freeze-TCP (Goff et al. 2000, as Chen et al. 2002 §2 summarises it):
    /// warned of a disconnection, the receiver advertises a zero window from
    /// now on; the returned ACK (of everything received in order) announces
    /// it at once.
    pub fn freeze(&mut self, now: Time) -> AckInfo {
        self.frozen = true;
        self.make_ack(now, now)
    }

    /// Freeze-TCP after the reconnection: the window reopens, and the
    /// returned ACK of the last segment received in order is to be sent
    /// three times (the triplicate reconnection ACKs, Goff et al. 2000).
    pub fn thaw(&mut self, now: Time) -> AckInfo {
        self.frozen = false;
        self.make_ack(now, now)
    }

    /// Whether the receiver advertises a zero window now.
    pub fn frozen(&self) -> bool {
        self.frozen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freeze_advertises_a_zero_window_until_thawed() {
        let mut s = sink(false, false);
        let mut out = SinkOutput::default();
        s.on_data(MS, 0, 0, &mut out);
        assert_eq!(out.ack.unwrap().rwnd, u32::MAX, "unlimited by default");
        let z = s.freeze(2 * MS);
        assert_eq!((z.ack, z.rwnd), (1, 0), "announced at once");
        // Data still arriving is acknowledged with the zero window.
        s.on_data(3 * MS, 1, 0, &mut out);
        assert_eq!((out.ack.unwrap().ack, out.ack.unwrap().rwnd), (2, 0));
        let open = s.thaw(4 * MS);
        assert_eq!((open.ack, open.rwnd), (2, u32::MAX));
        assert!(!s.frozen());
    }

    fn sink(delayed: bool, sack: bool) -> TcpSink {
        TcpSink::new(SinkConfig {
            delayed_ack: delayed,
            delack_timeout: 100 * MS,
            sack,
            ..SinkConfig::default()
        })
    }

    #[test]
    fn in_order_and_duplicates() {
        let mut s = sink(false, false);
        let mut o = SinkOutput::default();
        s.on_data(0, 0, 0, &mut o);
        assert_eq!(o.ack.unwrap().ack, 1);
        assert_eq!(o.new_in_order, 1);
        s.on_data(1, 0, 0, &mut o);
        assert!(o.duplicate);
        assert_eq!(o.new_in_order, 0);
        assert_eq!(o.ack.unwrap().ack, 1);
    }

    #[test]
    fn hole_fill_delivers_run() {
        let mut s = sink(false, false);
        let mut o = SinkOutput::default();
        for seq in [0, 2, 3, 5] {
            s.on_data(0, seq, 0, &mut o);
        }
        assert_eq!(s.rcv_nxt(), 1);
        s.on_data(0, 1, 0, &mut o); // fills 1 -> 1,2,3 delivered
        assert_eq!(o.new_in_order, 3);
        assert_eq!(o.ack.unwrap().ack, 4);
        s.on_data(0, 4, 0, &mut o); // 4,5
        assert_eq!(o.new_in_order, 2);
        assert_eq!(s.rcv_nxt(), 6);
    }

    /// Case 9: SACK blocks for the arrival pattern 0, 2, 3, 5, 7, 8, 10, 4.
    #[test]
    fn sack_blocks_content() {
        let mut s = sink(false, true);
        let mut o = SinkOutput::default();
        let blocks = |o: &SinkOutput| o.ack.unwrap().sack.as_slice().to_vec();
        s.on_data(0, 0, 0, &mut o);
        assert!(blocks(&o).is_empty());
        s.on_data(0, 2, 0, &mut o);
        assert_eq!(blocks(&o), vec![(2, 3)]);
        s.on_data(0, 3, 0, &mut o);
        assert_eq!(blocks(&o), vec![(2, 4)]);
        s.on_data(0, 5, 0, &mut o);
        assert_eq!(blocks(&o), vec![(5, 6), (2, 4)]);
        s.on_data(0, 7, 0, &mut o);
        assert_eq!(blocks(&o), vec![(7, 8), (5, 6), (2, 4)]);
        s.on_data(0, 8, 0, &mut o);
        assert_eq!(blocks(&o), vec![(7, 9), (5, 6), (2, 4)]);
        // 10: 4 blocks exist, only the 3 most recent are sent.
        s.on_data(0, 10, 0, &mut o);
        assert_eq!(blocks(&o), vec![(10, 11), (7, 9), (5, 6)]);
        // 4 merges [2,4) and [5,6) into [2,6): first block, then the others.
        s.on_data(0, 4, 0, &mut o);
        assert_eq!(blocks(&o), vec![(2, 6), (10, 11), (7, 9)]);
        assert_eq!(o.ack.unwrap().ack, 1);
        // 1 fills the first hole: ack 6, the block [2,6) is gone.
        s.on_data(0, 1, 0, &mut o);
        assert_eq!(o.ack.unwrap().ack, 6);
        assert_eq!(blocks(&o), vec![(10, 11), (7, 9)]);
    }

    /// Case 8 (unit level): delayed ACK every second segment, timer, and
    /// immediate ACK for out-of-order data.
    #[test]
    fn delayed_ack_rules() {
        let mut s = sink(true, false);
        let mut o = SinkOutput::default();
        s.on_data(10, 0, 1, &mut o);
        assert!(o.ack.is_none());
        assert_eq!(s.timer_deadline(), Some(10 + 100 * MS));
        s.on_data(20, 1, 2, &mut o);
        // Second segment: ACK now, echoing the earliest held segment's time.
        let a = o.ack.unwrap();
        assert_eq!((a.ack, a.ts_echo), (2, 1));
        assert_eq!(s.timer_deadline(), None);
        s.on_data(30, 2, 3, &mut o);
        assert!(o.ack.is_none());
        s.on_timer(50, &mut o); // not due
        assert!(o.ack.is_none());
        s.on_timer(30 + 100 * MS, &mut o);
        assert_eq!(o.ack.unwrap().ack, 3);
        assert_eq!(s.timer_deadline(), None);
        // Out of order: immediate.
        s.on_data(40, 4, 4, &mut o);
        assert_eq!(o.ack.unwrap().ack, 3);
        // Fills the hole: immediate too.
        s.on_data(50, 3, 5, &mut o);
        assert_eq!(o.ack.unwrap().ack, 5);
        // Duplicate: immediate.
        s.on_data(60, 1, 6, &mut o);
        assert!(o.duplicate);
        assert_eq!(o.ack.unwrap().ack, 5);
    }
}
