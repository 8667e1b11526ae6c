//! Layer 7: the declarative scenario schema (TOML file or Python dict, same
//! structure), its validation, and the build of a runnable network from it,
//! in small steps: the run settings, the topology (`topo`), the flows
//! (`flows`, with each sender's parts from `tcp`), the BS agents
//! (`agents`, built once here and handed to the simulator), the outputs.
//!
//! Every user error is a [`ConfigError`] naming the field's dotted path and
//! the offending value. Validation finishes before anything runs, so a bad
//! scenario never produces partial output. docs/scenarios.md documents every
//! key; keep the two in step.

mod agents;
mod flows;
mod media;
mod mobility;
pub mod plugins;
mod spec;
mod tcp;
mod topo;
mod trace;

pub use crate::units::Quantity;
pub use agents::NodeAgents;
pub use media::{MediumBuilder, MEDIUM_KINDS};
pub use mobility::{AttachPaths, BaseStation, Handoff, MobilityPlan};
pub use spec::*;
pub use trace::TraceFilter;

use crate::engine::{secs, to_secs, Time};
use crate::error::{from_value, ConfigError};
use crate::limits;
use crate::net::{DirId, Topology};
use crate::packet::NodeId;
use crate::tcp::{SinkConfig, TcpConfig};

/// A validated flow, ready to instantiate.
#[derive(Debug, Clone)]
pub struct FlowPlan {
    pub name: String,
    /// The `variant` the flow names (e.g. "reno", "veno").
    pub variant: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// Start time, start jitter included.
    pub start: Time,
    /// Upper bound of the per-packet sending delay (0: none).
    pub send_jitter: Time,
    pub packet_size: u32,
    pub ack_size: u32,
    pub tcp: TcpConfig,
    pub sink: SinkConfig,
    pub data_path: Vec<DirId>,
    pub ack_path: Vec<DirId>,
    /// A flow of the mobile host: its paths at each base station (empty
    /// for every other flow).
    pub attach: Vec<AttachPaths>,
}

/// A flow's sizes once checked (the scenario reads them as any whole number,
/// so that a value too large for 32 bits gets its field's own range).
#[derive(Debug, Clone, Copy)]
struct Sizes {
    packet: u32,
    ack: u32,
    window: u32,
}

/// A validated scenario, built together with its [`Topology`].
#[derive(Debug)]
pub struct Scenario {
    /// The normalized spec (defaults filled in), as `tcpair validate` prints it.
    pub spec: ScenarioSpec,
    pub duration: Time,
    pub warmup: Time,
    pub seed: u64,
    pub event_budget: Option<u64>,
    /// `run.memory_budget` in bytes (docs/reliability.md).
    pub memory_budget: Option<u64>,
    /// The most rows each per-run table may hold (`output.max_rows`).
    pub max_rows: u64,
    /// `output.drops` and `output.recoveries`: keep those tables.
    pub keep_drops: bool,
    pub keep_recoveries: bool,
    pub flows: Vec<FlowPlan>,
    pub timeseries: bool,
    pub sample_interval: Time,
    pub throughput_window: Time,
    /// The BS agents of each node that has any, in chain order (built here,
    /// once; the simulator takes them over).
    pub bs: Vec<NodeAgents>,
    /// The event trace and pcap capture, when `[trace]` is given.
    pub trace: Option<TraceFilter>,
    /// The mobile host and its handoffs (`[mobility]`).
    pub mobility: Option<MobilityPlan>,
}

/// Parse TOML text into the generic value tree the schema is read from. A
/// syntax error is one line that says where it is (line and column).
pub fn parse_toml(text: &str) -> Result<serde_json::Value, ConfigError> {
    toml::from_str::<serde_json::Value>(text).map_err(|e| {
        let what: Vec<&str> = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let at = e
            .span()
            .and_then(|s| text.get(..s.start))
            .map(|before| {
                let line = before.matches('\n').count() + 1;
                let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                    .chars()
                    .count()
                    + 1;
                format!(" (at line {line}, column {column})")
            })
            .unwrap_or_default();
        ConfigError::new("", format!("not valid TOML: {}{at}", what.join("; ")))
    })
}

/// Parse JSON text (what the Python API sends).
pub fn parse_json(text: &str) -> Result<serde_json::Value, ConfigError> {
    serde_json::from_str(text).map_err(|e| ConfigError::new("", format!("not valid JSON: {e}")))
}

fn err(path: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(path, msg)
}

/// A duration in seconds, finite and >= 0 (> 0 unless `allow_zero`), at most
/// `MAX_TIME_S` and not below the 1 ns resolution ([`limits::time_of`]).
fn check_secs(path: &str, q: &Quantity, allow_zero: bool) -> Result<f64, ConfigError> {
    let v = q.as_secs().map_err(|m| err(path, m))?;
    limits::time_of(path, v, allow_zero)?;
    Ok(v)
}

/// The `[run]` table: (duration, warm-up) in seconds.
fn check_run(run: &RunSpec) -> Result<(f64, f64), ConfigError> {
    let duration = check_secs("run.duration", &run.duration, false)?;
    let warmup = check_secs("run.warmup", &run.warmup, true)?;
    if warmup >= duration {
        return Err(err(
            "run.warmup",
            format!("must be shorter than run.duration ({duration} s), got {warmup}"),
        ));
    }
    // run.seed: checked as it is read (`spec::de_seed`).
    if run.event_budget == Some(0) {
        return Err(err(
            "run.event_budget",
            "must be a positive number of events, got 0",
        ));
    }
    Ok((duration, warmup))
}

/// `run.memory_budget`: a memory size (bytes, or a string with a unit).
fn memory_budget(run: &RunSpec) -> Result<Option<u64>, ConfigError> {
    run.memory_budget
        .as_ref()
        .map(|v| crate::units::memory_of(v).map_err(|m| err("run.memory_budget", m)))
        .transpose()
}

/// Rows each per-run table may keep unless `output.max_rows` says otherwise
/// (about 100 MB per table at the widest row).
pub const DEFAULT_MAX_ROWS: u64 = 1_000_000;

/// `output.max_rows`: at least 1.
fn max_rows(out: &OutputSpec) -> Result<u64, ConfigError> {
    match out.max_rows {
        None => Ok(DEFAULT_MAX_ROWS),
        Some(0) => Err(err("output.max_rows", "must be at least 1 row, got 0")),
        Some(n) => Ok(n),
    }
}

impl Scenario {
    /// Validate `value` and build the scenario and its network. Error paths
    /// name list elements by their `name` where they have one.
    pub fn build(value: &serde_json::Value) -> Result<(Scenario, Topology), ConfigError> {
        Self::build_with(value, &plugins::NoPlugins)
    }

    /// [`Scenario::build`] with the parts written outside the core that
    /// `plugins` builds (`tcp.detector = {python = ...}`).
    pub fn build_with(
        value: &serde_json::Value,
        plugins: &dyn plugins::Plugins,
    ) -> Result<(Scenario, Topology), ConfigError> {
        Self::build_unnamed(value, plugins).map_err(|e| e.named(value))
    }

    fn build_unnamed(
        value: &serde_json::Value,
        plugins: &dyn plugins::Plugins,
    ) -> Result<(Scenario, Topology), ConfigError> {
        if !value.is_object() {
            return Err(err(
                "",
                "a scenario must be a table (TOML) or an object (JSON)",
            ));
        }
        let mut spec: ScenarioSpec = from_value(value)?;
        let (duration, warmup) = check_run(&spec.run)?;
        let mut topo = topo::build(&mut spec)?;
        media::build(&spec, &mut topo)?;
        let mut flows = flows::build(&mut spec, &topo, duration, plugins)?;
        let mobility = match &spec.mobility {
            Some(m) => Some(mobility::build(m, &topo, &mut flows, duration)?),
            None => None,
        };
        let bs = agents::build(&spec, &topo, &flows)?;
        let trace = match &spec.trace {
            Some(t) => Some(trace::build(t, &topo, &flows, duration)?),
            None => None,
        };
        let interval = check_secs("output.interval", &spec.output.interval, false)?;
        let window = check_secs(
            "output.throughput_window",
            &spec.output.throughput_window,
            false,
        )?;
        let scenario = Scenario {
            duration: secs(duration),
            warmup: secs(warmup),
            seed: spec.run.seed,
            event_budget: spec.run.event_budget,
            memory_budget: memory_budget(&spec.run)?,
            max_rows: max_rows(&spec.output)?,
            keep_drops: spec.output.drops,
            keep_recoveries: spec.output.recoveries,
            flows,
            timeseries: spec.output.timeseries,
            sample_interval: secs(interval),
            throughput_window: secs(window),
            bs,
            trace,
            mobility,
            spec,
        };
        Ok((scenario, topo))
    }
}

impl Scenario {
    /// The spec as `tcpair validate --json` prints it: every default filled
    /// in (the senders' scalar knobs from the built [`TcpConfig`]) and every
    /// quantity in base units (seconds, bit/s). Feeding it back in runs the
    /// same simulation.
    pub fn normalized(&self) -> ScenarioSpec {
        let mut spec = self.spec.clone();
        let s = |q: &mut Quantity| *q = Quantity::Num(q.as_secs().unwrap_or(f64::NAN));
        s(&mut spec.run.duration);
        s(&mut spec.run.warmup);
        s(&mut spec.output.interval);
        s(&mut spec.output.throughput_window);
        if let Some(t) = &mut spec.trace {
            s(&mut t.start);
            if let Some(e) = &mut t.end {
                s(e);
            }
        }
        for l in &mut spec.links {
            l.bandwidth = Quantity::Num(l.bandwidth.as_bps().unwrap_or(f64::NAN));
            s(&mut l.delay);
        }
        if let Some(m) = &mut spec.mobility {
            for h in &mut m.handoffs {
                s(&mut h.at);
                s(&mut h.delay);
            }
            if let Some(w) = &mut m.freeze_warning {
                s(w);
            }
        }
        for (f, plan) in spec.flows.iter_mut().zip(&self.flows) {
            s(&mut f.start);
            s(&mut f.sink.delack_timeout);
            fill_tcp(&mut f.tcp, &plan.tcp);
        }
        spec
    }
}

/// The sender's scalar settings as built (defaults included), in seconds.
fn fill_tcp(t: &mut TcpSpec, c: &TcpConfig) {
    let q = |v: Time| Some(Quantity::Num(to_secs(v)));
    t.initial_cwnd = Some(c.initial_cwnd);
    t.initial_ssthresh = Some(c.initial_ssthresh);
    t.dupack_threshold = Some(c.dupack_threshold);
    t.limited_transmit = Some(c.limited_transmit);
    t.initial_rto = q(c.initial_rto);
    t.min_rto = q(c.min_rto);
    t.max_rto = q(c.max_rto);
    t.granularity = q(c.granularity);
    t.max_backoff = Some(c.max_backoff);
    t.rto_estimator = Some(c.rto_estimator.name().to_string());
    t.respond_per = Some(c.respond_per.name().to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scenario() -> serde_json::Value {
        json!({
            "run": {"duration": "2s"},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"name": "ab", "from": "a", "to": "b", "bandwidth": "1MBps", "delay": "10ms"}],
            "flows": [{"src": "a", "dst": "b", "start": "500ms"}]
        })
    }

    #[test]
    fn the_link_kinds_registry_is_every_kind_a_links_table_reads() {
        for k in LINK_KINDS {
            let read: LinkKindSpec = serde_json::from_value(json!(k.name)).unwrap();
            assert_eq!(read, k.build, "{}", k.name);
        }
        // serde's refusal lists every kind it reads: the registry has them all.
        let refused = serde_json::from_value::<LinkKindSpec>(json!("nope")).unwrap_err();
        let expected = refused.to_string();
        let expected = expected.split("expected").nth(1).unwrap();
        assert_eq!(
            expected.matches('`').count(),
            2 * LINK_KINDS.len(),
            "{refused}"
        );
    }

    #[test]
    fn an_unknown_medium_kind_names_the_registered_kinds() {
        let mut v = scenario();
        v["media"] = json!([{"name": "m", "kind": "lte", "stations": []}]);
        let e = Scenario::build(&v).unwrap_err();
        assert_eq!(e.path, "media.m.kind");
        assert_eq!(e.message, "unknown medium kind \"lte\" (kinds: wifi)");
    }

    #[test]
    fn a_toml_syntax_error_is_one_line_with_where_it_is() {
        let e = parse_toml("a = 1\nb = \"caf\u{e9}\nc = 2\n").unwrap_err();
        assert_eq!(e.path, "");
        assert!(e.message.starts_with("not valid TOML: "), "{}", e.message);
        assert!(
            e.message.ends_with("(at line 2, column 10)"),
            "{}",
            e.message
        );
        let header = parse_toml("[run\n").unwrap_err().message;
        assert!(
            !header.contains('\n') && header.ends_with("(at line 1, column 5)"),
            "{header}"
        );
    }

    #[test]
    fn normalized_is_in_base_units_with_defaults() {
        let (sc, _) = Scenario::build(&scenario()).unwrap();
        let v = serde_json::to_value(sc.normalized()).unwrap();
        assert_eq!(v["links"][0]["bandwidth"], json!(8e6));
        assert_eq!(v["links"][0]["delay"], json!(0.01));
        assert_eq!(v["links"][0]["queue"], json!(50));
        assert_eq!(v["run"]["duration"], json!(2.0));
        assert_eq!(v["flows"][0]["start"], json!(0.5));
        assert_eq!(v["flows"][0]["name"], json!("flow0"));
        assert_eq!(v["flows"][0]["tcp"]["min_rto"], json!(0.2));
        assert_eq!(v["flows"][0]["tcp"]["dupack_threshold"], json!(3));
        // Normalizing is idempotent: the normalized spec builds to the same spec.
        let (again, _) = Scenario::build(&v).unwrap();
        assert_eq!(serde_json::to_value(again.normalized()).unwrap(), v);
    }

    #[test]
    fn errors_name_list_elements() {
        let mut v = scenario();
        v["links"][0]["queue"] = json!(-1);
        let e = Scenario::build(&v).unwrap_err();
        assert_eq!(e.path, "links.ab.queue");
        assert!(
            e.message
                .contains("a whole number of packets from 0 to 1000000, got -1"),
            "{e}"
        );
        v["links"][0]["queue"] = json!(5);
        v["flows"][0]["window"] = json!("big");
        let e = Scenario::build(&v).unwrap_err();
        assert_eq!(e.path, "flows[0].window", "an unnamed flow keeps its index");
    }
}
