//! Snoop's state moving with the mobile host: the expensive alternative
//! Chen et al. 2002 (Table 1, note +) mention ("if the entire state,
//! including buffered packets, can be moved to the new BS, these approaches
//! can handle hand-offs"). At the end of a handoff the old BS gives up a
//! connection's cache, RTT estimate and counters, and the new BS adopts them;
//! its timer then retransmits what the MH has not acknowledged.

use super::agent::{Cached, Conn, Snoop};
use crate::bs::cache::Store;
use crate::bs::conn_slot;
use crate::engine::Time;
use crate::packet::FlowId;

impl Snoop {
    /// Give up `flow`'s connection state (None if this BS has none).
    pub(super) fn give_conn(
        &mut self,
        now: Time,
        flow: FlowId,
    ) -> Option<Box<dyn std::any::Any + Send>> {
        let conn = self.conns.get_mut(flow as usize)?;
        let mut conn = std::mem::take(conn);
        let (n, bytes) = held(&conn, &self.store);
        let cached = conn.cache.take_all(&mut self.store);
        if n > 0 {
            self.meters.add(now, flow, -n, -bytes);
        }
        Some(Box::new(Moving { conn, cached }))
    }

    /// Adopt `flow`'s connection state from the old BS, replacing this
    /// BS's own; cached packets follow `data_path` from here, and the timer
    /// is due at once if anything is cached.
    pub(super) fn adopt_conn(
        &mut self,
        now: Time,
        flow: FlowId,
        state: Box<dyn std::any::Any + Send>,
        data_path: u32,
    ) {
        let Ok(moving) = state.downcast::<Moving>() else {
            return;
        };
        let Moving { mut conn, cached } = *moving;
        for mut e in cached {
            e.pkt.path = data_path;
            conn.cache.push_back(&mut self.store, e);
        }
        self.meters.touch(flow);
        let i = conn_slot(&mut self.conns, flow, Default::default);
        let (old_n, old_bytes) = held(&self.conns[i], &self.store);
        let (n, bytes) = held(&conn, &self.store);
        conn.timer = (!conn.cache.is_empty()).then_some(now);
        let mut old = std::mem::replace(&mut self.conns[i], conn);
        old.cache.take_all(&mut self.store);
        if n - old_n != 0 || bytes - old_bytes != 0 {
            self.meters.add(now, flow, n - old_n, bytes - old_bytes);
        }
    }
}

/// A connection on its way to another BS: its state and its cached
/// packets, in sequence order (they leave the old agent's store).
struct Moving {
    conn: Conn,
    cached: Vec<Cached>,
}

/// Packets and bytes a connection's cache holds.
fn held(c: &Conn, store: &Store<Cached>) -> (i64, i64) {
    let bytes: i64 = c.cache.iter(store).map(|e| i64::from(e.pkt.size)).sum();
    (c.cache.len() as i64, bytes)
}
