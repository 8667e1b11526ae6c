//! Robustness: random loss patterns, and the short paths against the general ones.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Whatever is lost (data up to 3 times per segment, some ACKs), every
    /// variant delivers everything in order, and the counters agree:
    /// originals sent once each, cuts = FRs + timeouts, one event per cut.
    #[test]
    fn always_completes(
        v in 0usize..4,
        window in 2u32..40,
        lt in any::<bool>(),
        delack in any::<bool>(),
        kills in proptest::collection::vec((0u32..150, 1u32..4), 0..25),
        ack_kills in proptest::collection::vec(1u64..200, 0..10),
        ser_us in 0u64..3000,
    ) {
        let v = ALL[v];
        let n = 150u64;
        let c = TcpConfig {
            window,
            limited_transmit: lt,
            total_segments: Some(n),
            ..cfg(v)
        };
        let sink = SinkConfig { delayed_ack: delack, ..sink_cfg(v) };
        let mut h = net(c, sink, ser_us * crate::engine::US)
            .kills_a(&kills)
            .kill_acks(&ack_kills);
        h.run_until(3600 * SEC);
        prop_assert!(h.sender().finished(), "{:?} stuck at una {}", v, h.sender().snd_una());
        prop_assert_eq!(h.record().delivered, n);
        let s = st(&h);
        prop_assert_eq!(s.sent - s.retransmits, n);
        prop_assert_eq!(s.window_cuts, s.fast_retransmits + s.timeouts);
        prop_assert_eq!(h.record().recoveries.len() as u64, s.window_cuts);
        prop_assert!(h.sender().cwnd() >= 1.0 && h.sender().ssthresh() >= 2.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// The short paths of a plain sender (a new ACK outside recovery) and
    /// receiver (the next segment in order) do what the general paths do:
    /// the same transmissions, ACKs, recoveries and counters.
    #[test]
    fn short_paths_match_the_general_ones(
        v in 0usize..3,
        window in 2u32..40,
        lt in any::<bool>(),
        kills in proptest::collection::vec((0u32..150, 1u32..4), 0..25),
        ack_kills in proptest::collection::vec(1u64..200, 0..10),
        ser_us in 0u64..3000,
    ) {
        let v = ALL[v]; // Tahoe, Reno, NewReno: SACK never takes a short path
        let c = TcpConfig { window, limited_transmit: lt, total_segments: Some(150), ..cfg(v) };
        let build = || net(c.clone(), sink_cfg(v), ser_us * crate::engine::US)
            .kills_a(&kills)
            .kill_acks(&ack_kills);
        let (mut short, mut general) = (build(), build().without_short_paths());
        short.run_until(3600 * SEC);
        general.run_until(3600 * SEC);
        prop_assert_eq!(format!("{:?}", short.record()), format!("{:?}", general.record()));
        prop_assert_eq!(st(&short), st(&general));
        prop_assert_eq!(short.sender().cwnd().to_bits(), general.sender().cwnd().to_bits());
    }
}
