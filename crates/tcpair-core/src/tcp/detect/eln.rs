//! `eln`: the ACK's Explicit Loss Notification bit. A duplicate ACK that
//! reaches the threshold with ELN set reports a wireless loss (Chen et al.
//! 2002, Fig. 1 lines 19-22: "retransmit the lost packet only, but do not
//! reduce the congestion window"; Balakrishnan and Katz's ELN as used by
//! ELN-Snoop). With the restoring responder this is the ELN-aware sender of
//! Syndrome and ELN-Snoop (`tcp.eln = true` is the alias).

use super::{BuildFn, Cause, Counters, Decision, Detector, Query};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "eln",
    summary: "wireless when the triggering ACK carries ELN (Syndrome, ELN-Snoop)",
    source: "Chen et al. 2002, Fig. 1 lines 19-22",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(Eln::default()))
    },
};

/// The counters this detector reports per flow.
pub const COUNTERS: &[&str] = &["eln_retransmits"];

#[derive(Debug, Clone, Copy, Default)]
pub struct Eln {
    /// Fast retransmits made on an ELN verdict.
    retransmits: u64,
}

impl Detector for Eln {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        Cause::wireless_if(q.ack.eln)
    }
    fn on_decision(&mut self, d: &Decision) {
        if d.verdict == Cause::Wireless {
            self.retransmits += 1;
        }
    }
    fn counters(&self, out: &mut Counters) {
        out.push((COUNTERS[0], self.retransmits));
    }
}
