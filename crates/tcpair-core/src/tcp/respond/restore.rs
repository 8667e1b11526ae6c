//! Responder 1: restore cwnd and ssthresh to their values just before the
//! fast retransmit (Park et al. 2010, Table 1: "restoring to the previous
//! congestion control state"; the response every loss-differentiation
//! algorithm assumes, §4.1). With the `eln` detector it is the ELN-aware
//! sender of Chen et al. 2002 (Fig. 1 lines 19-22).

use super::{BuildFn, Responder, Response, ResponseQuery};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "1",
    summary: "restore cwnd and ssthresh to their values before the fast retransmit",
    source: "Park et al. 2010, Table 1",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(Restore))
    },
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Restore;

impl Responder for Restore {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn respond(&mut self, q: &ResponseQuery) -> Response {
        Response::Set(q.before)
    }
}
