//! The bare-heap limit: an event loop that only pops the earliest event from the
//! core's own queue (`engine::EventQueue`, a 4-ary heap) and schedules the next
//! one, with events as large as the core's. No simulation work is done, so its
//! events per second bound what the core's loop can reach on the same machine
//! (`cargo bench -p tcpair-core` and `tcpair bench` print both).

use super::QUEUED_EVENT_BYTES;
use crate::engine::{EventQueue, Scheduled, Time};
use std::time::Instant;

/// The time and the insertion counter take 16 bytes of a queued event; the
/// payload fills the rest, so a bare event is exactly as large as the core's.
const PAYLOAD: usize = QUEUED_EVENT_BYTES - 16;

#[derive(Clone, Copy)]
struct Payload([u8; PAYLOAD]);

/// A delay of 1 us to 20 ms (xorshift64: deterministic, a few instructions).
fn delay(state: &mut u64) -> Time {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    1_000 + *state % 20_000_000
}

/// Events per wall second over `events` events with `pending` events in the
/// queue throughout; and the bytes of one queued bare event.
pub fn events_per_s(events: u64, pending: usize) -> (f64, usize) {
    let mut q: EventQueue<Payload> = EventQueue::new();
    let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..pending {
        q.schedule(delay(&mut rng), Payload([i as u8; PAYLOAD]));
    }
    let mut acc = 0u8;
    let t = Instant::now();
    for _ in 0..events {
        let s = q.pop().expect("the population is constant");
        // Read and write the payload, as the core reads its event.
        acc = acc.wrapping_add(s.event.0[PAYLOAD - 1]);
        let mut next = s.event;
        next.0[0] = acc;
        q.schedule(s.time + delay(&mut rng), next);
    }
    let wall = t.elapsed().as_secs_f64();
    std::hint::black_box(acc);
    (
        events as f64 / wall,
        std::mem::size_of::<Scheduled<Payload>>(),
    )
}
