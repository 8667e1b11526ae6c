//! Without loss and with a window covering the bandwidth-delay product, a
//! flow fills the bottleneck: goodput within 2% of its capacity.

mod common;
use common::*;
use serde_json::json;

#[test]
fn lossless_goodput_matches_bottleneck_capacity() {
    for variant in ["tahoe", "reno", "newreno", "sack"] {
        let mut v = one_link(variant, json!({"model": "uniform", "p": 0.0}), 100.0);
        v["run"]["warmup"] = json!(5.0);
        let r = run(&v);
        let f = &r.flows[0];
        // The bottleneck carries 2 Mb/s of whole packets; goodput counts
        // packet_size bytes per delivered segment, so the ideal is 2000 kb/s.
        let rel = (f.goodput_kbps - 2000.0).abs() / 2000.0;
        assert!(rel < 0.02, "{variant}: goodput {} kb/s", f.goodput_kbps);
        assert_eq!(f.retransmits, 0, "{variant}");
        assert_eq!(r.summary.packets.dropped, 0, "{variant}");
    }
}

#[test]
fn shipped_scenarios_are_valid() {
    for name in ["clrp_one_link.toml", "pftk_check.toml"] {
        let v = tcpair_core::scenario::parse_toml(&shipped(name)).unwrap();
        tcpair_core::scenario::Scenario::build(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
