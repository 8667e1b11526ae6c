//! `tcpair-sim [--summary] [--peak-memory] SCENARIO.toml` (or
//! `SCENARIO.json`): run one scenario with the Rust core alone and print the
//! JSON result: every table, or with `--summary` the summary and the flows
//! alone (what `tcpair run --json` prints, from the same work). With
//! `--peak-memory` it also writes its peak resident memory to stderr
//! (`peak_rss_kib=N`, Linux's `VmHWM` of this program alone: a parent's
//! memory, which `wait4`'s count includes when the parent forked it, is
//! not in it). For profiling and benchmarking without Python (`tcpair bench
//! --vs-ns2 --core-binary`, `tcpair bench --flows ... --core-binary`); the
//! user-facing CLI is `tcpair` (Python).

use std::process::ExitCode;
use tcpair_core::scenario::plugins::NoPlugins;
use tcpair_core::scenario::{parse_toml, Scenario};
use tcpair_core::sim::Sim;
use tcpair_core::SimError;

const USAGE: &str = "usage: tcpair-sim [--summary] [--peak-memory] SCENARIO.toml|SCENARIO.json";

fn main() -> ExitCode {
    // This program owns its process (engine/malloc.rs).
    tcpair_core::engine::malloc::fix_mmap_threshold();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| match args.iter().position(|a| a == name) {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    };
    let (summary, peak) = (flag("--summary"), flag("--peak-memory"));
    let path = match args.as_slice() {
        [path] if !path.starts_with("--") => path.clone(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let path = &path;
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&text, path.ends_with(".json"), summary) {
        Ok(out) => {
            println!("{out}");
            if peak {
                match peak_rss_kib() {
                    Some(kib) => eprintln!("peak_rss_kib={kib}"),
                    None => eprintln!("peak_rss_kib=unknown (no /proc/self/status VmHWM here)"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The run's JSON answer; the parsed text is dropped before the run's
/// state is built (`Sim::from_json_with`).
fn run(text: &str, json: bool, summary: bool) -> Result<String, SimError> {
    let sim = if json {
        Sim::from_json_with(text, &NoPlugins)?
    } else {
        let (scenario, topo) = Scenario::build(&parse_toml(text)?)?;
        Sim::new(scenario, topo)
    };
    if summary {
        sim.run_summary_json(&mut || false)
    } else {
        Ok(sim.run()?.to_json_text())
    }
}

/// This program's peak resident memory in KiB (`VmHWM`: Linux only).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
