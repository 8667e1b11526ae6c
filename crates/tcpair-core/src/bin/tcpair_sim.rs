//! `tcpair-sim`: run one scenario file with the Rust core alone, without the
//! Python interpreter, and print the run's JSON answer. With `--summary` it
//! holds the flows and the summary that `tcpair run FILE --json` prints, from
//! the same work; without it, every table as well. This is the command for single runs where start-up
//! counts (a shell loop over thousands of runs, a timing against another
//! simulator's whole process): it starts in about 2 ms where the Python
//! command takes 0.05 s or more before its first event. Overrides
//! (`--set`), plug-ins written in Python, sweeps, stores and reports are the
//! Python command's (`tcpair`).
//!
//! `--peak-memory` also writes this program's peak resident memory to stderr
//! (`peak_rss_kib=N`, Linux's `VmHWM` of this program alone: a parent's
//! memory, which `wait4`'s count includes when the parent forked it, is not in
//! it), for `tcpair bench --flows ... --core-binary`.
//!
//! Bad input (a missing file, a bad option, a scenario the core rejects) gets
//! one line `error: ...` on stderr naming the file, field or option and
//! exit code 2, with nothing on stdout.

use std::process::ExitCode;
use tcpair_core::scenario::{parse_json, parse_toml, Scenario};
use tcpair_core::sim::Sim;
use tcpair_core::{ConfigError, SimError};

const USAGE: &str = "usage: tcpair-sim [--summary] [--seed N] [--peak-memory] FILE";

const HELP: &str = "\
Run one scenario file with tcpair's Rust core alone and print the run as JSON.

FILE is a scenario in TOML (as `tcpair run` takes) or in JSON (a file ending
in .json). Shipped scenarios are the files under scenarios/ in the repository.

options:
  --summary        print the flows and the summary only (the `flows` and
                   `summary` of `tcpair run FILE --json`); without it, every
                   table as well
  --seed N         set run.seed (a whole number from 0 to 2^63 - 1)
  --peak-memory    write this program's peak resident memory to stderr
                   (peak_rss_kib=N)
  -h, --help       show this message
  -V, --version    show the version

Overrides (--set), Python plug-ins, sweeps and reports: the `tcpair` command.";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Ask {
    Run(RunArgs),
    Help,
    Version,
}

/// A run's arguments.
#[derive(Debug, PartialEq, Default)]
struct RunArgs {
    path: String,
    summary: bool,
    peak_memory: bool,
    /// `--seed`, as given: the core checks its range with the scenario's.
    seed: Option<serde_json::Number>,
}

fn main() -> ExitCode {
    // This program owns its process (engine/malloc.rs).
    tcpair_core::engine::malloc::fix_mmap_threshold();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Ask::Run(args)) => args,
        Ok(Ask::Help) => {
            println!("{USAGE}\n\n{HELP}");
            return ExitCode::SUCCESS;
        }
        Ok(Ask::Version) => {
            println!("tcpair-sim {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(msg) => return fail(&format!("{msg} (tcpair-sim --help lists the options)")),
    };
    let text = match read_scenario(&args.path) {
        Ok(text) => text,
        Err(msg) => return fail(&msg),
    };
    match run(&text, &args) {
        Ok(out) => {
            println!("{out}");
            if args.peak_memory {
                match peak_rss_kib() {
                    Some(kib) => eprintln!("peak_rss_kib={kib}"),
                    None => eprintln!("peak_rss_kib=unknown (no /proc/self/status VmHWM here)"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Read the command line (without the program's name).
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Ask, String> {
    let mut out = RunArgs::default();
    let mut path = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Ask::Help),
            "-V" | "--version" => return Ok(Ask::Version),
            "--summary" => out.summary = true,
            "--peak-memory" => out.peak_memory = true,
            "--seed" => {
                let value = args.next().ok_or("--seed: needs a value, e.g. --seed 3")?;
                out.seed = Some(seed_of(&value)?);
            }
            _ if arg.starts_with("--seed=") => out.seed = Some(seed_of(&arg["--seed=".len()..])?),
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(format!("no such option: {arg}"))
            }
            _ if path.is_some() => return Err(format!("one scenario file only, got also {arg}")),
            _ => path = Some(arg),
        }
    }
    out.path = path.ok_or("no scenario file given")?;
    Ok(Ask::Run(out))
}

/// `--seed`'s value: a whole number as written (the core says whether it is in
/// range, as for `run.seed` in the file); a fraction, an exponent or a number
/// beyond 64 bits is refused here, in the terms it was given.
fn seed_of(text: &str) -> Result<serde_json::Number, String> {
    // Integer parsing takes an optional sign and digits alone.
    let t = text.trim();
    t.parse::<i64>()
        .map(Into::into)
        .or_else(|_| t.parse::<u64>().map(Into::into))
        .map_err(|_| format!("--seed: expected a whole number from 0 to 2^63 - 1, got {text:?}"))
}

/// The scenario file's text; a missing file, a folder or unreadable bytes in
/// the terms `tcpair run` uses.
fn read_scenario(path: &str) -> Result<String, String> {
    let p = std::path::Path::new(path);
    if p.is_dir() {
        return Err(format!("{path}: is a directory, not a scenario file"));
    }
    std::fs::read(p)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{path}: no such scenario file"),
            _ => format!("{path}: cannot read scenario file: {e}"),
        })
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|e| {
                format!(
                    "{path}: not valid UTF-8 at byte {}",
                    e.utf8_error().valid_up_to()
                )
            })
        })
}

/// The run's JSON answer. The parsed scenario is dropped before the run's
/// state is built (as `Sim::from_json_with` does): with many flows it is a
/// few KiB a flow that nothing reads again.
fn run(text: &str, args: &RunArgs) -> Result<String, SimError> {
    let (scenario, topo) = {
        let parsed = if args.path.ends_with(".json") {
            parse_json(text)
        } else {
            parse_toml(text)
        };
        // A syntax error is the file's, named as `tcpair run` names it.
        let mut value = parsed.map_err(|e| ConfigError::new(&args.path, e.message))?;
        if let Some(seed) = &args.seed {
            set_seed(&mut value, seed.clone());
        }
        Scenario::build(&value)?
    };
    let sim = Sim::new(scenario, topo);
    if args.summary {
        sim.run_summary_json(&mut || false)
    } else {
        Ok(sim.run()?.to_json_text())
    }
}

/// `run.seed = seed`, as `tcpair run --seed` sets it. A scenario without a
/// `[run]` table gets one (the core then says what else it lacks); one whose
/// `run` is not a table is left for the core to refuse.
fn set_seed(value: &mut serde_json::Value, seed: serde_json::Number) {
    let Some(top) = value.as_object_mut() else {
        return;
    };
    let run = top
        .entry("run")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let Some(run) = run.as_object_mut() {
        run.insert("seed".into(), serde_json::Value::Number(seed));
    }
}

/// This program's peak resident memory in KiB (`VmHWM`: Linux only).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(args: &[&str]) -> Result<Ask, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn reads_a_run_with_its_options_in_any_order() {
        let Ok(Ask::Run(a)) = ask(&["--seed", "7", "s.toml", "--summary"]) else {
            panic!("not a run");
        };
        assert_eq!(
            (a.path.as_str(), a.summary, a.peak_memory),
            ("s.toml", true, false)
        );
        assert_eq!(a.seed, Some(7.into()));
        let Ok(Ask::Run(b)) = ask(&["--seed=3", "--peak-memory", "s.json"]) else {
            panic!("not a run");
        };
        assert_eq!((b.seed, b.peak_memory), (Some(3.into()), true));
    }

    #[test]
    fn help_and_version_win_over_the_rest() {
        assert_eq!(ask(&["s.toml", "--help"]), Ok(Ask::Help));
        assert_eq!(ask(&["-V"]), Ok(Ask::Version));
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        assert_eq!(ask(&[]), Err("no scenario file given".into()));
        assert_eq!(
            ask(&["--fast", "s.toml"]),
            Err("no such option: --fast".into())
        );
        assert_eq!(
            ask(&["a.toml", "b.toml"]),
            Err("one scenario file only, got also b.toml".into())
        );
        assert_eq!(
            ask(&["s.toml", "--seed"]),
            Err("--seed: needs a value, e.g. --seed 3".into())
        );
        let e = ask(&["s.toml", "--seed", "x"]).unwrap_err();
        assert!(
            e.starts_with("--seed: expected a whole number") && e.ends_with("got \"x\""),
            "{e}"
        );
    }

    #[test]
    fn the_seed_is_set_where_tcpair_run_sets_it() {
        let mut v = serde_json::json!({"run": {"duration": 1, "seed": 1}});
        set_seed(&mut v, 9.into());
        assert_eq!(v, serde_json::json!({"run": {"duration": 1, "seed": 9}}));
        let mut bare = serde_json::json!({});
        set_seed(&mut bare, 9.into());
        assert_eq!(bare, serde_json::json!({"run": {"seed": 9}}));
        let mut odd = serde_json::json!({"run": 3});
        set_seed(&mut odd, 9.into());
        assert_eq!(odd, serde_json::json!({"run": 3}));
    }

    #[test]
    fn a_negative_seed_reaches_the_core_which_refuses_it() {
        let args = RunArgs {
            path: "s.toml".into(),
            summary: true,
            seed: Some(seed_of("-5").unwrap()),
            ..Default::default()
        };
        let e = run("[run]\nduration = 1\n", &args).unwrap_err().to_string();
        assert!(
            e.starts_with("run.seed: must be a whole number") && e.ends_with("got -5"),
            "{e}"
        );
    }

    #[test]
    fn a_seed_that_is_no_whole_number_of_64_bits_is_refused_as_written() {
        assert_eq!(seed_of(" 42 "), Ok(42.into()));
        assert_eq!(seed_of("+3"), Ok(3.into()));
        assert_eq!(seed_of("18446744073709551615"), Ok(u64::MAX.into()));
        for bad in [
            "1.5",
            "1e3",
            "",
            "-",
            "+-3",
            "0x10",
            "99999999999999999999999",
        ] {
            let e = seed_of(bad).unwrap_err();
            assert!(e.ends_with(&format!("got {bad:?}")), "{e}");
        }
    }
}
