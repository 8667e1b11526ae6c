//! `cargo bench -p tcpair-core`: events and delivered data packets per wall
//! second on the CLRP paper's one-link path (Reno, uniform p = 0.01 on BS->MH,
//! 3000 s simulated), single core, best of 5; then the bare-heap limit (the
//! core's queue with events of the core's size and nothing else to do, best of
//! 5 over as many events) and the core's events/s as a fraction of it. No
//! timing assertions: the figures go to docs/performance.md.

use std::time::Instant;
use tcpair_core::sim::bare_heap;

/// Pending events in the bare heap: about what the benchmark scenario holds (a
/// window of 30 packets and their ACKs on two hops, and a few timers).
const PENDING: [usize; 2] = [64, 4096];

fn main() {
    // `cargo bench` passes "--bench"; `cargo test --benches` runs us briefly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let path = format!(
        "{}/../../scenarios/clrp_one_link.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).expect("shipped scenario");
    let mut v = tcpair_core::scenario::parse_toml(&text).unwrap();
    v["links"][1]["forward"]["loss"]["p"] = 0.01.into();
    v["run"]["duration"] = (if quick { 30.0 } else { 3000.0 }).into();
    let reps = if quick { 1 } else { 5 };
    let mut best = f64::INFINITY;
    let mut events = 0;
    let mut delivered = 0;
    for _ in 0..reps {
        let sim = tcpair_core::sim::Sim::from_value(&v).unwrap();
        let t = Instant::now();
        let r = sim.run().unwrap();
        let wall = t.elapsed().as_secs_f64();
        if wall < best {
            best = wall;
            events = r.summary.events;
            delivered = r.summary.delivered_data_packets;
        }
    }
    let core = events as f64 / best;
    println!(
        "clrp_one_link reno p=0.01 {} s: best wall {:.3} s, {:.2} M events/s, {:.2} M delivered data packets/s ({} events, {} packets)",
        v["run"]["duration"],
        best,
        core / 1e6,
        delivered as f64 / best / 1e6,
        events,
        delivered
    );
    for pending in PENDING {
        let mut limit: f64 = 0.0;
        let mut bytes = 0;
        for _ in 0..reps {
            let (rate, size) = bare_heap::events_per_s(events, pending);
            limit = limit.max(rate);
            bytes = size;
        }
        assert_eq!(bytes, tcpair_core::sim::QUEUED_EVENT_BYTES);
        println!(
            "bare heap, {bytes}-byte events, {pending} pending: best {:.2} M events/s ({events} events); the core's loop runs at {:.0}% of it",
            limit / 1e6,
            100.0 * core / limit
        );
    }
}
