//! `tcpair-sim [--summary] SCENARIO.toml` (or `SCENARIO.json`): run one
//! scenario with the Rust core alone and print the JSON result: every table,
//! or with `--summary` the summary and the flows alone (what `tcpair run
//! --json` prints, from the same work). For profiling and benchmarking
//! without Python (`tcpair bench --vs-ns2 --core-binary`); the user-facing
//! CLI is `tcpair` (Python).

use std::process::ExitCode;
use tcpair_core::scenario::plugins::NoPlugins;
use tcpair_core::scenario::{parse_toml, Scenario};
use tcpair_core::sim::Sim;
use tcpair_core::SimError;

const USAGE: &str = "usage: tcpair-sim [--summary] SCENARIO.toml|SCENARIO.json";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (summary, path) = match args.as_slice() {
        [path] if !path.starts_with("--") => (false, path),
        [flag, path] if flag == "--summary" => (true, path),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
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
        Ok(sim.run()?.to_json().to_string())
    }
}
