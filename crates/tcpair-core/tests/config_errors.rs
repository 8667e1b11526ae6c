//! Bad input: one error naming the field (and the value), never a panic.

mod common;
use common::*;
use serde_json::{json, Value};

fn base() -> Value {
    one_link("reno", json!({"model": "uniform", "p": 0.01}), 10.0)
}

fn expect(edit: impl FnOnce(&mut Value), path: &str, mentions: &str) {
    assert_refused(base(), edit, path, mentions);
}

#[test]
fn unknown_key() {
    expect(|v| v["run"]["durration"] = json!(5), "run", "durration");
    expect(
        |v| v["links"][1]["forward"]["jitter"] = json!(1),
        "links.wireless.forward",
        "jitter",
    );
}

#[test]
fn wrong_type() {
    expect(
        |v| v["flows"][0]["window"] = json!("big"),
        "flows.tcp1.window",
        "big",
    );
}

#[test]
fn negative_bandwidth() {
    expect(
        |v| v["links"][0]["bandwidth"] = json!(-5.0),
        "links.wired.bandwidth",
        "-5",
    );
    expect(
        |v| v["links"][0]["bandwidth"] = json!("fast"),
        "links.wired.bandwidth",
        "fast",
    );
}

#[test]
fn negative_delay() {
    expect(
        |v| v["links"][0]["delay"] = json!(-0.1),
        "links.wired.delay",
        "-0.1",
    );
}

#[test]
fn probability_outside_unit_interval() {
    expect(
        |v| v["links"][1]["forward"]["loss"]["p"] = json!(1.5),
        "links.wireless.forward.loss.p",
        "1.5",
    );
}

#[test]
fn unknown_error_model() {
    expect(
        |v| v["links"][1]["forward"]["loss"]["model"] = json!("gilbert"),
        "links.wireless.forward.loss.model",
        "gilbert",
    );
}

#[test]
fn unknown_node() {
    expect(
        |v| v["flows"][0]["dst"] = json!("mh2"),
        "flows.tcp1.dst",
        "mh2",
    );
    expect(
        |v| v["links"][0]["from"] = json!("nowhere"),
        "links.wired.from",
        "nowhere",
    );
}

#[test]
fn unroutable_flow() {
    expect(
        |v| {
            v["nodes"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "island"}));
            v["flows"][0]["dst"] = json!("island");
        },
        "flows.tcp1.dst",
        "no route",
    );
}

#[test]
fn non_positive_duration() {
    expect(|v| v["run"]["duration"] = json!(0), "run.duration", "0");
    expect(|v| v["run"]["duration"] = json!(-3), "run.duration", "-3");
}

#[test]
fn unknown_variant() {
    expect(
        |v| v["flows"][0]["variant"] = json!("cubic"),
        "flows.tcp1.variant",
        "cubic",
    );
}

#[test]
fn duplicate_names() {
    expect(
        |v| v["nodes"][1]["name"] = json!("fh"),
        "nodes[1].name",
        "fh",
    );
}

#[test]
fn flow_on_a_router() {
    expect(
        |v| v["flows"][0]["dst"] = json!("bs"),
        "flows.tcp1.dst",
        "router",
    );
}

#[test]
fn reorder_range_inverted() {
    expect(
        |v| v["links"][1]["forward"]["reorder"] = json!({"p": 0.1, "min": 5, "max": 2}),
        "links.wireless.forward.reorder",
        "5",
    );
}

#[test]
fn warmup_not_shorter_than_duration() {
    expect(|v| v["run"]["warmup"] = json!(10.0), "run.warmup", "10");
}

#[test]
fn event_budget_overrun_is_an_error_not_a_hang() {
    let mut v = base();
    v["run"]["event_budget"] = json!(1000);
    let err = tcpair_core::sim::run_json(&v.to_string()).unwrap_err();
    assert!(err.to_string().starts_with("run.event_budget"), "{err}");
}

#[test]
fn malformed_text() {
    let e = tcpair_core::sim::run_toml("[run\nduration = 1").unwrap_err();
    assert!(e.to_string().contains("TOML"), "{e}");
}

#[test]
fn bs_agent_errors_name_the_field() {
    // Unknown agent.
    expect(
        |v| v["nodes"][1]["bs"] = json!(["snooop"]),
        "nodes.bs.bs[0]",
        "unknown BS agent \"snooop\"",
    );
    // Unknown parameter of a known agent.
    expect(
        |v| v["nodes"][1]["bs"] = json!([{"agent": "snoop", "cache_size": 5}]),
        "nodes.bs.bs[0]",
        "cache_size",
    );
    // Out-of-range parameter.
    expect(
        |v| v["nodes"][1]["bs"] = json!([{"agent": "snoop", "cache": 0}]),
        "nodes.bs.bs[0].cache",
        "0",
    );
    // A table without `agent`.
    expect(
        |v| v["nodes"][1]["bs"] = json!([{"cache": 5}]),
        "nodes.bs.bs[0]",
        "`agent`",
    );
    // Agents on a node no flow passes through (the sender's own host).
    expect(
        |v| v["nodes"][0]["bs"] = json!(["snoop"]),
        "nodes.fh.bs",
        "no flow passes through",
    );
}

#[test]
fn bs_agent_next_to_no_wireless_link() {
    let mut v = base();
    v["links"][1]["kind"] = json!("wired");
    v["nodes"][1]["bs"] = json!(["syndrome"]);
    let msg = error_of(&v);
    assert!(msg.starts_with("nodes.bs.bs"), "{msg}");
    assert!(msg.contains("wireless"), "{msg}");
}

#[test]
fn syndrome_receiver_needs_a_syndrome_bs() {
    expect(
        |v| v["flows"][0]["sink"] = json!({"syndrome": true}),
        "flows.tcp1.sink.syndrome",
        "syndrome",
    );
    // A Snoop BS is not a Syndrome counter.
    expect(
        |v| {
            v["nodes"][1]["bs"] = json!(["snoop"]);
            v["flows"][0]["sink"] = json!({"syndrome": true});
        },
        "flows.tcp1.sink.syndrome",
        "found none",
    );
    expect(
        |v| {
            v["nodes"][1]["bs"] = json!(["syndrome"]);
            v["flows"][0]["sink"] = json!({"syndrome": true, "syndrome_unused_credit": "float"});
        },
        "flows.tcp1.sink.syndrome_unused_credit",
        "\"float\"",
    );
}

#[test]
fn clrp_end_points_need_a_clrp_bs_and_valid_parameters() {
    expect(
        |v| v["flows"][0]["sink"] = json!({"clrp": true}),
        "flows.tcp1.sink.clrp",
        "`clrp` BS agent",
    );
    expect(
        |v| {
            v["nodes"][1]["bs"] = json!(["snoop"]);
            v["flows"][0]["tcp"] = json!({"clrp": true});
        },
        "flows.tcp1.tcp.clrp",
        "found none",
    );
    expect(
        |v| {
            v["nodes"][1]["bs"] = json!(["clrp"]);
            v["flows"][0]["tcp"] = json!({"clrp": true, "clrp_rxmit_threshold": 0});
        },
        "flows.tcp1.tcp.clrp_rxmit_threshold",
        "got 0",
    );
    expect(
        |v| {
            v["nodes"][1]["bs"] = json!(["clrp"]);
            v["flows"][0]["sink"] = json!({"clrp": true, "clrp_max_blocks": 9});
        },
        "flows.tcp1.sink.clrp_max_blocks",
        "got 9",
    );
    expect(
        |v| v["nodes"][1]["bs"] = json!([{"agent": "clrp", "max_blocks": 0}]),
        "nodes.bs.bs[0].max_blocks",
        "got 0",
    );
    expect(
        |v| v["nodes"][1]["bs"] = json!([{"agent": "clrp", "rxmit_treshold": 2}]),
        "nodes.bs.bs[0]",
        "rxmit_treshold",
    );
}

fn detector(d: Value) -> impl FnOnce(&mut Value) {
    move |v| v["flows"][0]["tcp"] = json!({ "detector": d })
}

#[test]
fn unknown_detector() {
    expect(
        detector(json!("lda_xx")),
        "flows.tcp1.tcp.detector",
        "unknown detector \"lda_xx\" (known: none, eln, oracle, always_wireless, pr, ncpld, veno, spike, jtcp, relds, lda_eq)",
    );
}

#[test]
fn detector_parameter_out_of_range() {
    let cases = [
        (
            json!({"name": "pr", "min_small_rtts": 0}),
            "min_small_rtts",
            "0",
        ),
        (json!({"name": "ncpld", "fraction": 1.5}), "fraction", "1.5"),
        (json!({"name": "veno", "beta": -3}), "beta", "-3"),
        (json!({"name": "spike", "alpha": 0.2}), "beta", "0.333"),
        (json!({"name": "jtcp", "rtts": -1}), "rtts", "-1"),
        (json!({"name": "relds", "k": 20}), "k", "20"),
        (json!({"name": "lda_eq", "threshold": 2}), "threshold", "2"),
    ];
    for (d, field, value) in cases {
        expect(
            detector(d),
            &format!("flows.tcp1.tcp.detector.{field}"),
            value,
        );
    }
}

#[test]
fn detector_parameter_of_the_wrong_type() {
    expect(
        detector(json!({"name": "pr", "min_small_rtts": "six"})),
        "flows.tcp1.tcp.detector.min_small_rtts",
        "six",
    );
    expect(
        detector(json!({"name": "pr", "literal": "yes"})),
        "flows.tcp1.tcp.detector.literal",
        "yes",
    );
    expect(
        detector(json!({"name": "lda_eq", "threshold": [0.5]})),
        "flows.tcp1.tcp.detector.threshold",
        "expected a number, got [0.5]",
    );
}

#[test]
fn unknown_detector_parameter() {
    expect(
        detector(json!({"name": "spike", "gamma": 0.1})),
        "flows.tcp1.tcp.detector",
        "gamma",
    );
    // A parameterless detector takes none.
    expect(
        detector(json!({"name": "oracle", "fraction": 0.5})),
        "flows.tcp1.tcp.detector",
        "fraction",
    );
}

#[test]
fn a_pr_variant_keeps_its_detector() {
    expect(
        |v| {
            v["flows"][0]["variant"] = json!("pr_star");
            v["flows"][0]["tcp"] = json!({"detector": "veno"});
        },
        "flows.tcp1.tcp.detector",
        "variant \"pr_star\" already selects the detector \"pr\"",
    );
}

fn wifi_error(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = wifi_chain(3, 10.0);
    edit(&mut v);
    error_of(&v)
}

#[test]
fn wifi_medium_bad_input() {
    let e = wifi_error(|v| v["media"][0]["stations"][3]["x"] = json!(2000.0));
    eprintln!("{e}");
    assert!(
        e.starts_with("media.chain.stations[3]") && e.contains("no station within tx_range"),
        "{e}"
    );
    let e = wifi_error(|v| v["media"][0]["stations"][1]["y"] = json!(-5.0));
    eprintln!("{e}");
    assert!(
        e.starts_with("media.chain.stations[1].y") && e.contains(">= 0"),
        "{e}"
    );
    let e = wifi_error(|v| v["media"][0]["data_rate"] = json!("54Mb"));
    eprintln!("{e}");
    assert!(
        e.starts_with("media.chain.data_rate") && e.contains("unsupported"),
        "{e}"
    );
    let e = wifi_error(|v| {
        v["media"][0]["stations"] = json!([{"node": "n0", "x": 0.0}]);
        v["flows"][0]["dst"] = json!("n0");
    });
    eprintln!("{e}");
    assert!(
        e.starts_with("media.chain.stations") && e.contains("at least two"),
        "{e}"
    );
    // Two pairs out of range of each other: each station has a neighbour,
    // but no route joins the ends.
    let e = wifi_error(|v| {
        v["media"][0]["stations"][2]["x"] = json!(1000.0);
        v["media"][0]["stations"][3]["x"] = json!(1200.0);
    });
    eprintln!("{e}");
    assert!(e.starts_with("flows.tcp") && e.contains("no route"), "{e}");
    let e = wifi_error(|v| v["media"][0]["kind"] = json!("lte"));
    assert!(e.starts_with("media.chain.kind"), "{e}");
}

#[test]
fn unknown_respond_per() {
    expect(
        |v| v["flows"][0]["tcp"] = json!({ "respond_per": "episode" }),
        "flows.tcp1.tcp.respond_per",
        "unknown value \"episode\" (known: \"hole\", \"window\")",
    );
}

#[test]
fn unknown_rto_estimator() {
    expect(
        |v| v["flows"][0]["tcp"] = json!({ "rto_estimator": "ns3" }),
        "flows.tcp1.tcp.rto_estimator",
        "unknown value \"ns3\" (known: rfc6298, ns2)",
    );
}

#[test]
fn a_python_part_needs_the_python_package() {
    expect(
        detector(json!({"python": "mymod:MyDetector"})),
        "flows.tcp1.tcp.detector.python",
        "only from the Python package",
    );
    expect(
        |v| v["flows"][0]["tcp"] = json!({ "responder": {"python": "mymod:R"} }),
        "flows.tcp1.tcp.responder.python",
        "only from the Python package",
    );
}
