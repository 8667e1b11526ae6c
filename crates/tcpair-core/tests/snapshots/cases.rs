//! The snapshot cases: for each shipped scenario, the scheme set-ups it
//! supports and the settings every case of it gets (`matrix`).

use serde_json::{json, Value};

/// One scheme set-up: a label and the settings it needs.
pub type Scheme = (&'static str, Vec<(&'static str, Value)>);

fn bs(
    nodes: &[&'static str],
    agent: &str,
    extra: &[(&'static str, Value)],
) -> Vec<(&'static str, Value)> {
    let mut v: Vec<(&'static str, Value)> =
        nodes.iter().map(|n| (bs_key(n), json!([agent]))).collect();
    v.extend(extra.iter().cloned());
    v
}

fn bs_key(node: &'static str) -> &'static str {
    match node {
        "bs" => "nodes.bs.bs",
        "bs1" => "nodes.bs1.bs",
        "bs2" => "nodes.bs2.bs",
        "ha" => "nodes.ha.bs",
        "fa" => "nodes.fa.bs",
        other => panic!("unknown BS node {other}"),
    }
}

/// The scheme set-ups each scenario supports, with the settings applied to
/// every case of the scenario (`base`).
pub fn matrix(file: &str) -> (Vec<(&'static str, Value)>, Vec<Scheme>) {
    let t = true;
    match file {
        "clrp_one_link.toml" => (
            vec![(
                "links.wireless.forward.loss",
                json!({"model": "expo", "p": 0.03}),
            )],
            vec![
                ("plain", vec![]),
                ("snoop", bs(&["bs"], "snoop", &[])),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.sink.clrp", json!(t))]),
                ),
                (
                    "delack_lt",
                    vec![
                        ("flows.tcp1.sink.delayed_ack", json!(t)),
                        ("flows.tcp1.tcp.limited_transmit", json!(t)),
                    ],
                ),
                (
                    "finite_ts",
                    vec![
                        ("flows.tcp1.segments", json!(1500)),
                        ("output.timeseries", json!(t)),
                        ("output.interval", json!(0.5)),
                    ],
                ),
            ],
        ),
        "clrp_one_link_mh_fh.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "snoop",
                    bs(&["bs"], "snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.tcp.clrp", json!(t))]),
                ),
                (
                    "clrp_literal",
                    bs(
                        &["bs"],
                        "clrp",
                        &[
                            ("flows.tcp1.tcp.clrp", json!(t)),
                            ("flows.tcp1.tcp.clrp_inflate", json!(false)),
                        ],
                    ),
                ),
            ],
        ),
        "clrp_two_links.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "snoop",
                    bs(
                        &["bs1", "bs2"],
                        "snoop",
                        &[("flows.tcp1.tcp.eln", json!(t))],
                    ),
                ),
                (
                    "eln_snoop",
                    bs(
                        &["bs1", "bs2"],
                        "eln_snoop",
                        &[("flows.tcp1.tcp.eln", json!(t))],
                    ),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs1", "bs2"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(
                        &["bs1", "bs2"],
                        "clrp",
                        &[
                            ("flows.tcp1.tcp.clrp", json!(t)),
                            ("flows.tcp1.sink.clrp", json!(t)),
                        ],
                    ),
                ),
            ],
        ),
        "pftk_check.toml" => (vec![], vec![("plain", vec![])]),
        "snoop_paper.toml" => (
            vec![(
                "links.wireless.forward.loss",
                json!({"model": "ber", "ber": 1e-5}),
            )],
            vec![
                ("plain", vec![]),
                ("snoop", bs(&["bs"], "snoop", &[])),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.sink.clrp", json!(t))]),
                ),
            ],
        ),
        "syndrome_paper.toml" => {
            let both = |key: &'static str| -> Vec<(&'static str, Value)> {
                match key {
                    "eln" => vec![
                        ("flows.s1.tcp.eln", json!(t)),
                        ("flows.s2.tcp.eln", json!(t)),
                    ],
                    "syndrome" => vec![
                        ("flows.s1.tcp.eln", json!(t)),
                        ("flows.s2.tcp.eln", json!(t)),
                        ("flows.s1.sink.syndrome", json!(t)),
                        ("flows.s2.sink.syndrome", json!(t)),
                    ],
                    "clrp" => vec![
                        ("flows.s1.sink.clrp", json!(t)),
                        ("flows.s2.sink.clrp", json!(t)),
                    ],
                    _ => unreachable!(),
                }
            };
            let fig11 = [
                (
                    "links.n8-ha.forward.reorder",
                    json!({"p": 0.05, "min": 1, "max": 10}),
                ),
                (
                    "links.n8-ha.forward.duplicate",
                    json!({"p": 0.02, "min": 1, "max": 20}),
                ),
            ];
            let mut syn_fig11 = bs(&["ha"], "syndrome", &both("syndrome"));
            syn_fig11.extend(fig11.iter().cloned());
            let mut snoop_fig11 = bs(&["ha"], "snoop", &[]);
            snoop_fig11.extend(fig11.iter().cloned());
            (
                vec![("links.wireless.forward.loss.p", json!(0.03))],
                vec![
                    ("plain", vec![]),
                    ("snoop", bs(&["ha"], "snoop", &[])),
                    ("eln_snoop", bs(&["ha"], "eln_snoop", &both("eln"))),
                    ("syndrome", bs(&["ha"], "syndrome", &both("syndrome"))),
                    ("clrp", bs(&["ha"], "clrp", &both("clrp"))),
                    ("syndrome_fig11", syn_fig11),
                    ("snoop_fig11", snoop_fig11),
                ],
            )
        }
        // The mobile host of Fig. 14: each scheme at both BSs, and the
        // optimised route.
        "syndrome_fig14.toml" => {
            let syn = [
                ("flows.s1.tcp.eln", json!(t)),
                ("flows.s2.tcp.eln", json!(t)),
                ("flows.s1.sink.syndrome", json!(t)),
                ("flows.s2.sink.syndrome", json!(t)),
            ];
            (
                vec![],
                vec![
                    ("plain", vec![]),
                    ("snoop", bs(&["ha", "fa"], "snoop", &[])),
                    ("syndrome", bs(&["ha", "fa"], "syndrome", &syn)),
                    (
                        "route_optimization",
                        vec![("mobility.route_optimization", json!(t))],
                    ),
                    ("freeze", vec![("mobility.freeze", json!(t))]),
                    (
                        "snoop_moved",
                        bs(&["ha", "fa"], "snoop", &[("mobility.move_state", json!(t))]),
                    ),
                ],
            )
        }
        // Loss-differentiation paths: plain senders, and each with a detector
        // answered by responder 1 (keep the window).
        "pr_chain.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                ("pr", vec![("flows.pr1.tcp.detector", json!("pr"))]),
            ],
        ),
        "pr_dumbbell.toml" => (
            vec![],
            vec![("plain", vec![]), ("pr", every_flow_detector("pr"))],
        ),
        "lda_mixed.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                ("lda_eq", vec![("flows.tcp1.tcp.detector", json!("lda_eq"))]),
                ("spike", vec![("flows.tcp1.tcp.detector", json!("spike"))]),
                ("oracle", vec![("flows.tcp1.tcp.detector", json!("oracle"))]),
            ],
        ),
        // The 802.11b chain: plain, and with 2% packet loss after the MAC.
        "wifi_chain.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "loss2",
                    vec![("media.chain.loss", json!({"model": "uniform", "p": 0.02}))],
                ),
            ],
        ),
        // Park et al. 2010's chain: TCP's own response, and every fast
        // retransmit answered by responders 1 and 21 once per episode, with 3%
        // packet loss on 3 hops.
        "respond_chain.toml" => (
            vec![("run.warmup", json!(5.0))],
            vec![
                ("plain", vec![]),
                ("w_r1", respond_w("1")),
                ("w_r21", respond_w("21")),
            ],
        ),
        // compare-all's one-link path with competing wired traffic: Syndrome in
        // both directions (MH -> FH the BS's own queue drops data: a wireline
        // loss, an AN gap), and Snoop.
        "compare_congested.toml" => {
            let syn = [
                ("flows.tcp1.tcp.eln", json!(t)),
                ("flows.tcp1.sink.syndrome", json!(t)),
            ];
            let mh_fh = [
                ("flows.tcp1.src", json!("mh")),
                ("flows.tcp1.dst", json!("fh")),
                ("links.wireless.from", json!("mh")),
                ("links.wireless.to", json!("bs")),
            ];
            let mut syn_up = bs(&["bs"], "syndrome", &syn);
            syn_up.extend(mh_fh.iter().cloned());
            (
                vec![(
                    "links.wireless.forward.loss",
                    json!({"model": "uniform", "p": 0.02}),
                )],
                vec![
                    ("plain", vec![]),
                    ("snoop", bs(&["bs"], "snoop", &[])),
                    ("syndrome", bs(&["bs"], "syndrome", &syn)),
                    ("syndrome_mh_fh", syn_up),
                ],
            )
        }
        // compare-all's hand-off path (its three hand-offs must end within the
        // run): the scheme at both BSs, and Freeze-TCP.
        "compare_handoff.toml" => (
            vec![("run.duration", json!(50.0))],
            vec![
                ("plain", vec![]),
                ("snoop", bs(&["bs", "bs2"], "snoop", &[])),
                (
                    "syndrome_freeze",
                    bs(
                        &["bs", "bs2"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                            ("mobility.freeze", json!(t)),
                        ],
                    ),
                ),
            ],
        ),
        other => panic!("no snapshot matrix for {other}"),
    }
}

/// The respond_chain scenario as the W group runs it: 3 hops, 3% loss, every
/// fast retransmit answered by `responder`.
fn respond_w(responder: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("flows.tcp1.dst", json!("n3")),
        ("media.chain.loss.p", json!(0.03)),
        ("flows.tcp1.tcp.detector", json!("always_wireless")),
        ("flows.tcp1.tcp.responder", json!(responder)),
    ]
}

/// `flows.fK.tcp.detector = name` for each of the dumbbell's flows f0..f9.
fn every_flow_detector(name: &str) -> Vec<(&'static str, Value)> {
    const KEYS: [&str; 10] = [
        "flows.f0.tcp.detector",
        "flows.f1.tcp.detector",
        "flows.f2.tcp.detector",
        "flows.f3.tcp.detector",
        "flows.f4.tcp.detector",
        "flows.f5.tcp.detector",
        "flows.f6.tcp.detector",
        "flows.f7.tcp.detector",
        "flows.f8.tcp.detector",
        "flows.f9.tcp.detector",
    ];
    KEYS.iter().map(|&k| (k, json!(name))).collect()
}
