//! `tcpair-sim SCENARIO.toml` (or `SCENARIO.json`): run one scenario with the
//! Rust core alone and print the JSON result. For profiling and benchmarking without Python; the
//! user-facing CLI is `tcpair` (Python).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        eprintln!("usage: tcpair-sim SCENARIO.toml|SCENARIO.json");
        return ExitCode::from(2);
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args[1]);
            return ExitCode::from(2);
        }
    };
    let result = if args[1].ends_with(".json") {
        tcpair_core::sim::run_json(&text)
    } else {
        tcpair_core::sim::run_toml(&text)
    };
    match result {
        Ok(r) => {
            println!("{}", r.to_json());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
