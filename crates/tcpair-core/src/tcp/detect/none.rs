//! `none`: every loss is congestion. Plain TCP.

use super::{BuildFn, Cause, Detector, Query};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "none",
    summary: "every loss is congestion (plain TCP)",
    source: "RFC 5681",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(NoDetector))
    },
};

#[derive(Debug, Clone, Copy, Default)]
pub struct NoDetector;

impl Detector for NoDetector {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, _q: &Query) -> Cause {
        Cause::Congestion
    }
    fn uses_history(&self) -> bool {
        false // never wireless, so no responder reads it either
    }
}
