//! End-to-end runs of the Snoop and ELN-Snoop BS agents on the CLRP paper's
//! one-wireless-link path (FH -- BS -- MH): wired 10 Mb/s 10 ms, wireless
//! 2 Mb/s 64 us, window 30, 1000-byte packets, 100 s.

mod common;
use tcpair_core::sim::{run_toml, RunResult};

/// The scenario as TOML; `bs` is the BS node's agent list (TOML), `tcp` the
/// flow's extra TCP options (TOML inline table or empty).
fn scenario(seed: u64, p: f64, bs: &str, tcp: &str) -> String {
    let bs_line = if bs.is_empty() {
        String::new()
    } else {
        format!("bs = {bs}")
    };
    let tcp_line = if tcp.is_empty() {
        String::new()
    } else {
        format!("tcp = {tcp}")
    };
    format!(
        r#"
[run]
duration = 100.0
seed = {seed}

[[nodes]]
name = "fh"
[[nodes]]
name = "bs"
kind = "router"
{bs_line}
[[nodes]]
name = "mh"

[[links]]
name = "wired"
from = "fh"
to = "bs"
bandwidth = "10Mb"
delay = "10ms"
queue = 50
kind = "wired"

[[links]]
name = "wireless"
from = "bs"
to = "mh"
bandwidth = "2Mb"
delay = "64us"
queue = 50
kind = "wireless"
forward = {{ loss = {{ model = "uniform", p = {p} }} }}

[[flows]]
name = "tcp1"
src = "fh"
dst = "mh"
variant = "reno"
packet_size = 1000
window = 30
{tcp_line}
"#
    )
}

fn run(seed: u64, p: f64, bs: &str, tcp: &str) -> RunResult {
    let r = run_toml(&scenario(seed, p, bs, tcp)).expect("scenario runs");
    assert!(r.summary.packets.conserved(), "{:?}", r.summary.packets);
    r
}

/// Mean goodput (kb/s) over seeds 1..=3.
fn mean_goodput(p: f64, bs: &str, tcp: &str) -> f64 {
    (1..=3)
        .map(|s| run(s, p, bs, tcp).flows[0].goodput_kbps)
        .sum::<f64>()
        / 3.0
}

#[test]
fn snoop_beats_reno_on_a_lossy_wireless_hop() {
    let reno = mean_goodput(0.05, "", "");
    let snoop = mean_goodput(0.05, r#"["snoop"]"#, "");
    eprintln!("p=0.05: reno {reno:.1} kb/s, reno+snoop {snoop:.1} kb/s");
    assert!(snoop >= 1.5 * reno, "snoop {snoop} vs reno {reno}");
    let r = run(1, 0.05, r#"[{ agent = "snoop", cache = 100 }]"#, "");
    assert!(r.flows[0].bs_retransmits > 0);
}

#[test]
fn snoop_costs_nothing_without_loss() {
    let reno = mean_goodput(0.0, "", "");
    let snoop = mean_goodput(0.0, r#"["snoop"]"#, "");
    eprintln!("p=0: reno {reno:.1} kb/s, reno+snoop {snoop:.1} kb/s");
    assert!(
        (snoop - reno).abs() <= 0.01 * reno,
        "snoop {snoop} vs reno {reno}"
    );
}

#[test]
fn eln_snoop_avoids_window_cuts() {
    let mut cuts = (0, 0);
    for seed in 1..=3 {
        let reno = run(seed, 0.05, "", "");
        let eln = run(seed, 0.05, r#"["eln_snoop"]"#, "{ eln = true }");
        let f = &eln.flows[0];
        eprintln!(
            "seed {seed}: reno cuts {} goodput {:.1}; eln-snoop cuts {} eln_retransmits {} goodput {:.1}",
            reno.flows[0].window_cuts, reno.flows[0].goodput_kbps, f.window_cuts,
            f.counter("eln_retransmits"), f.goodput_kbps
        );
        assert!(f.counter("eln_retransmits") > 0);
        assert_eq!(f.bs_retransmits, 0);
        assert_eq!(eln.summary.packets.absorbed, 0);
        cuts.0 += reno.flows[0].window_cuts;
        cuts.1 += f.window_cuts;
    }
    assert!(
        cuts.1 < cuts.0,
        "eln-snoop cuts {} vs reno {}",
        cuts.1,
        cuts.0
    );
}

/// With no wireless loss, every loss is upstream of the BS (the dumbbell's
/// wired bottleneck): Snoop must not retransmit locally nor hide DUPACKs
/// from the sender's congestion control. Before the early-ACK rule, the
/// DUPACKs that duplicates of go-back-N retransmissions caused (sent in the
/// same burst as the wanted packet, so their echoed time ties with its send
/// time) triggered 14 unneeded local retransmissions here (docs/snoop.md).
#[test]
fn snoop_in_a_dumbbell_without_wireless_loss_never_retransmits_locally() {
    let text = common::shipped("pr_dumbbell.toml")
        .replace("p = 0.01, start = 10.0", "p = 0.0")
        .replace(
            "name = \"r1\"\nkind = \"router\"",
            "name = \"r1\"\nkind = \"router\"\nbs = [\"snoop\"]",
        );
    assert!(text.contains("bs = [\"snoop\"]") && text.contains("p = 0.0 }"));
    let snoop = run_toml(&text).expect("runs");
    let total = |name: &str| common::bs_counter(&snoop, name);
    assert!(snoop.drops["cause"].as_array().unwrap().len() > 100);
    assert_eq!(total("local_retransmits"), 0);
    assert_eq!(total("local_timeouts"), 0);
    assert!(snoop.flows.iter().all(|f| f.bs_retransmits == 0));
}

/// Losses at the BS's own output queue are congestion: Snoop leaves them to
/// the sender. Before, it kept the packets the queue dropped cached as
/// ordinary ones and retransmitted them locally (here 454 local
/// retransmissions for 617 queue drops), hiding the congestion from the sender.
#[test]
fn snoop_leaves_drops_at_its_own_queue_to_the_sender() {
    let text = scenario(1, 0.0, r#"["snoop"]"#, "").replacen("queue = 50", "queue = 10", 2);
    let r = run_toml(&text).expect("runs");
    let f = &r.flows[0];
    let drops = r.drops["cause"].as_array().unwrap().len();
    eprintln!(
        "queue drops {drops}, local retransmissions {}, sender retransmits {}",
        f.bs_retransmits, f.retransmits
    );
    assert!(drops > 20);
    assert_eq!(f.bs_retransmits, 0);
    assert!(f.retransmits > 0 && f.window_cuts > 0);
}

/// ns-2.35's Snoop: still far better than Reno at 5% loss, but weaker than
/// the default Snoop (half of its DUPACK pairs reach the sender, a lost
/// local retransmission waits for a timer of at least 100 ms).
#[test]
fn ns2_snoop_lies_between_reno_and_the_default_snoop() {
    let reno = mean_goodput(0.05, "", "");
    let ns2 = mean_goodput(0.05, r#"["snoop_ns2"]"#, "");
    let snoop = mean_goodput(0.05, r#"["snoop"]"#, "");
    assert!(ns2 > 1.2 * reno, "ns2 snoop {ns2} vs reno {reno}");
    assert!(ns2 < snoop, "ns2 snoop {ns2} vs snoop {snoop}");
    let r = run(1, 0.05, r#"["snoop_ns2"]"#, "");
    assert!(r.flows[0].bs_retransmits > 0);
    assert!(common::bs_counter(&r, "dupacks_forwarded") > 0);
    assert!(common::bs_counter(&r, "local_timeouts") > 0);
}

#[test]
fn ns2_snoop_costs_nothing_without_loss() {
    let reno = run(1, 0.0, "", "").flows[0].goodput_kbps;
    let r = run(1, 0.0, r#"["snoop_ns2"]"#, "");
    assert!((r.flows[0].goodput_kbps - reno).abs() < 1e-9 * reno);
    assert_eq!(common::bs_counter(&r, "local_retransmits"), 0);
}
