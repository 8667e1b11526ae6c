//! Responder 0: TCP's own response (Park et al. 2010, Table 1), the
//! baseline every other method is measured against. With it a sender
//! behaves exactly as plain TCP, whatever its detector says.

use super::{BuildFn, Responder, Response, ResponseQuery};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "0",
    summary: "TCP's own response",
    source: "Park et al. 2010, Table 1",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(Own))
    },
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Own;

impl Responder for Own {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn respond(&mut self, _q: &ResponseQuery) -> Response {
        Response::Own
    }
}
