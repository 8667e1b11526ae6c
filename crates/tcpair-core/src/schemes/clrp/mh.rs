//! TCP-MH as a sender (Sun et al. 2005 §II.A, MH -> FH): the list of
//! wireless losses the BS reports on ACKs. The sender (`tcp::sender`) calls
//! it at a few points:
//! - [`ClrpMh::on_ack`] with every ACK, new or duplicate, before the ACK
//!   itself is processed (Fig. 2: the list is updated first);
//! - [`ClrpMh::lists`] for a duplicate ACK: a DUPACK asking for a listed
//!   packet neither counts toward fast retransmit nor cuts the window
//!   ([`ClrpMh::on_listed_dupack`] counts it and, with `inflate`, lets it
//!   clock out one new segment: [`ClrpMh::extra`] is added to the window
//!   until the next new ACK, [`ClrpMh::on_new_ack`]);
//! - [`ClrpMh::take_retransmits`]: the packets notified `rxmit_threshold`
//!   times, to retransmit "promptly without starting up TCP congestion
//!   control";
//! - [`ClrpMh::on_timeout`]: go-back-N resends the window, the list starts
//!   afresh.
//!
//! Wired losses (DUPACKs for unlisted packets) get the sender's usual
//! response.

use super::notices::NoticeList;
use crate::engine::Time;
use crate::packet::LossBlocks;

/// TCP-MH's sender settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MhConfig {
    /// Notices of a wireless loss that trigger its retransmission (2).
    pub rxmit_threshold: u32,
    /// Let each DUPACK for a listed loss clock out one new segment (the
    /// window is inflated by one per such DUPACK until the next new ACK, as
    /// in fast recovery but without the cut). Sun et al. 2005 say only that
    /// no congestion control starts; without inflation a sender whose
    /// window is full stalls until the retransmission is acknowledged, and
    /// a lost retransmission can only end in a timeout (docs/clrp.md).
    pub inflate: bool,
}

impl Default for MhConfig {
    fn default() -> Self {
        Self {
            rxmit_threshold: super::DEFAULT_RXMIT_THRESHOLD,
            inflate: true,
        }
    }
}

/// The per-flow counters of TCP-MH as a sender.
pub const COUNTERS: &[&str] = &["clrp_notices", "clrp_retransmits"];

/// The event name of a TCP-MH retransmission in the `recoveries` table.
pub const RETRANSMIT_EVENT: &str = "clrp_retransmit";

#[derive(Debug, Clone)]
pub struct ClrpMh {
    cfg: MhConfig,
    list: NoticeList,
    /// Numbers to retransmit now (reused buffer).
    rtx: Vec<u32>,
    /// Window inflation by DUPACKs of listed losses since the last new ACK.
    extra: u32,
    /// ACKs that carried loss blocks.
    notices: u64,
    retransmits: u64,
    dupacks_ignored: u64,
}

impl ClrpMh {
    pub fn new(cfg: MhConfig) -> Self {
        Self {
            list: NoticeList::new(cfg.rxmit_threshold),
            cfg,
            rtx: Vec::new(),
            extra: 0,
            notices: 0,
            retransmits: 0,
            dupacks_ignored: 0,
        }
    }

    /// An ACK acknowledging everything below `cum`, carrying `loss`, echoing
    /// `echo`, arrived at `now` (Fig. 2: update the list from every ACK).
    pub fn on_ack(&mut self, cum: u32, loss: &LossBlocks, echo: Time, now: Time) {
        if !loss.is_empty() {
            self.notices += 1;
        }
        self.rtx.clear();
        self.list.on_ack(
            cum,
            loss.as_slice().iter().copied(),
            echo,
            now,
            &mut self.rtx,
        );
    }

    /// `seq` is a listed (notified) wireless loss.
    pub fn lists(&self, seq: u32) -> bool {
        self.list.contains(seq)
    }

    /// A DUPACK asked for a listed loss: no fast retransmit, no cut.
    pub fn on_listed_dupack(&mut self) {
        self.dupacks_ignored += 1;
        if self.cfg.inflate {
            self.extra += 1;
        }
    }

    /// Segments the window is inflated by.
    #[inline]
    pub fn extra(&self) -> u32 {
        self.extra
    }

    pub fn on_new_ack(&mut self) {
        self.extra = 0;
    }

    pub fn on_timeout(&mut self) {
        self.list.clear();
        self.extra = 0;
    }

    /// The numbers to retransmit now, in increasing order; give the buffer
    /// back with [`ClrpMh::put_back`]. `keep(seq)` says whether the sender
    /// still has `seq` outstanding; each kept one is counted.
    pub fn take_retransmits(&mut self, keep: impl Fn(u32) -> bool) -> Vec<u32> {
        let mut v = std::mem::take(&mut self.rtx);
        v.retain(|&s| keep(s));
        self.retransmits += v.len() as u64;
        v
    }

    /// Return the buffer taken by [`ClrpMh::take_retransmits`] (no allocation).
    pub fn put_back(&mut self, mut v: Vec<u32>) {
        v.clear();
        self.rtx = v;
    }

    /// DUPACKs not counted because they asked for a listed packet.
    pub fn dupacks_ignored(&self) -> u64 {
        self.dupacks_ignored
    }

    pub fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push((COUNTERS[0], self.notices));
        out.push((COUNTERS[1], self.retransmits));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(seqs: &[u32]) -> LossBlocks {
        let mut b = LossBlocks::default();
        for &s in seqs {
            b.push(s);
        }
        b
    }

    #[test]
    fn retransmits_at_the_threshold_and_counts() {
        let mut m = ClrpMh::new(MhConfig::default());
        m.on_ack(5, &blocks(&[6]), 10, 100);
        assert!(m.take_retransmits(|_| true).is_empty());
        m.on_ack(5, &blocks(&[6]), 11, 100);
        let v = m.take_retransmits(|s| s < 20);
        assert_eq!(v, vec![6]);
        m.put_back(v);
        assert!(m.lists(6));
        let mut c = Vec::new();
        m.counters(&mut c);
        assert_eq!(c, vec![("clrp_notices", 2), ("clrp_retransmits", 1)]);
    }

    #[test]
    fn listed_dupacks_inflate_until_the_next_new_ack() {
        let mut m = ClrpMh::new(MhConfig::default());
        m.on_listed_dupack();
        m.on_listed_dupack();
        assert_eq!((m.extra(), m.dupacks_ignored()), (2, 2));
        m.on_new_ack();
        assert_eq!(m.extra(), 0);
        let mut lit = ClrpMh::new(MhConfig {
            inflate: false,
            ..MhConfig::default()
        });
        lit.on_listed_dupack();
        assert_eq!(lit.extra(), 0);
    }
}
