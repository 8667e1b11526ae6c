//! `always_wireless`: every loss is wireless. Park et al. 2010's setting
//! for measuring responders: in their C group "all congestion FR/FRs are
//! mistakenly detected as wireless FR/FRs" (§4.3), and in their W group the
//! responder answers every FR/FR.

use super::{BuildFn, Cause, Detector, Query};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "always_wireless",
    summary: "every loss is wireless (the responder answers every fast retransmit)",
    source: "Park et al. 2010, §4.2-4.3 (W and C groups)",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(AlwaysWireless))
    },
};

#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysWireless;

impl Detector for AlwaysWireless {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, _q: &Query) -> Cause {
        Cause::Wireless
    }
}
