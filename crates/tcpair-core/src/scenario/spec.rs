//! The serde schema. `deny_unknown_fields` everywhere: a misspelt key is an
//! error, never silently ignored.

use crate::limits;
use crate::registry::Entry;
use crate::units::Quantity;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Free text, shown in reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub run: RunSpec,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared wireless media (`kind = "wifi"`), see docs/wifi.md.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<MediumSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// A mobile host moving between base stations (docs/mobility.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobility: Option<MobilitySpec>,
    #[serde(default)]
    pub output: OutputSpec,
    /// The event trace and pcap capture (docs/trace.md); off when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSpec>,
}

/// `[trace]`: what the event trace and the pcap files record.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Flow names to keep (empty: every flow).
    #[serde(default)]
    pub flows: Vec<String>,
    /// Node names: keep events at these nodes and on their links.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Link names: keep events on these links (both directions).
    #[serde(default)]
    pub links: Vec<String>,
    /// Keep events at or after this time, seconds.
    #[serde(default = "zero")]
    pub start: Quantity,
    /// Keep events before this time, seconds (default: the run's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Quantity>,
    /// Write the event trace (set false for pcap files alone).
    #[serde(default = "yes")]
    pub events: bool,
    /// Write one pcap file per link direction into this directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<String>,
}

fn yes() -> bool {
    true
}

/// The `[mobility]` table: one mobile host, the base station it starts at
/// (its home agent) and its handoffs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MobilitySpec {
    /// The mobile host: a host whose links are all wireless.
    pub host: String,
    /// The base station it is attached to at the start: its home agent.
    pub home: String,
    /// Correspondents send straight to the current base station instead of
    /// through the home agent's tunnel.
    #[serde(default)]
    pub route_optimization: bool,
    /// In time order, none overlapping.
    #[serde(default)]
    pub handoffs: Vec<HandoffSpec>,
    /// Freeze-TCP (Goff et al. 2000): the host's receivers advertise a zero
    /// window `freeze_warning` before each handoff and reopen it after.
    #[serde(default)]
    pub freeze: bool,
    /// Seconds of warning; default: each flow's base round-trip time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeze_warning: Option<Quantity>,
    /// At the end of each handoff the old BS's agents hand their state for
    /// the host's flows to the same agents at the new BS (those that can:
    /// Snoop's cache).
    #[serde(default)]
    pub move_state: bool,
}

/// One handoff: at `at` the host leaves its base station; `delay` later it
/// is attached to `to` and the home agent knows it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffSpec {
    pub at: Quantity,
    pub to: String,
    #[serde(default = "default_handoff_delay")]
    pub delay: Quantity,
}

fn default_handoff_delay() -> Quantity {
    Quantity::Num(1.2)
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated seconds.
    pub duration: Quantity,
    /// Seconds at the start excluded from goodput, throughput, delay and counters.
    #[serde(default = "zero")]
    pub warmup: Quantity,
    #[serde(default = "one", deserialize_with = "de_seed")]
    pub seed: u64,
    /// Abort with an error after this many events (guards against runaway runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_budget: Option<u64>,
    /// Abort with an error when the memory the run holds (an estimate,
    /// checked with the interrupt) passes this size, e.g. `"2GiB"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_budget: Option<serde_json::Value>,
}

fn zero() -> Quantity {
    Quantity::Num(0.0)
}
fn one() -> u64 {
    1
}

/// `run.seed`: any value is read here, so that every seed outside the range
/// (negative, fractional, beyond 64 bits or beyond [`limits::MAX_SEED`]) gets
/// the same message.
fn de_seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    match v.as_u64() {
        Some(seed) if seed <= limits::MAX_SEED => Ok(seed),
        _ => Err(serde::de::Error::custom(format!(
            "must be a whole number from 0 to {} (2^63 - 1), got {v}",
            limits::MAX_SEED
        ))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum NodeKindSpec {
    #[default]
    Host,
    Router,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub kind: NodeKindSpec,
    /// BS agents, in chain order: names (`"snoop"`) or tables with an
    /// `agent` key and parameters (see `bs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bs: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LinkKindSpec {
    #[default]
    Wired,
    Wireless,
}

/// Every link kind, by the name a `[[links]]` table gives as `kind` (the
/// serde names of [`LinkKindSpec`]; a test holds the two together).
pub static LINK_KINDS: &[Entry<LinkKindSpec>] = &[
    Entry {
        name: "wired",
        summary: "point-to-point link (DropTail FIFO, then the line); a loss on it is \
                  congestion in the ground truth",
        source: "ns-2 duplex-link with a DropTail queue",
        build: LinkKindSpec::Wired,
    },
    Entry {
        name: "wireless",
        summary: "point-to-point link as wired; a loss on it other than a queue overflow \
                  is a wireless loss in the ground truth; BS agents act next to it, and a \
                  mobile host reaches its base stations over such links",
        source: "ns-2 duplex-link with a DropTail queue, as the wireless hop of \
                 wired-cum-wireless topologies",
        build: LinkKindSpec::Wireless,
    },
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Defaults to "FROM-TO".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// Bits per second, or "10Mb", "2 Mb/s", ...
    pub bandwidth: Quantity,
    /// One-way propagation delay: seconds, or "10ms", "64us", ...
    pub delay: Quantity,
    /// DropTail limit in packets waiting, both directions (ns-2 default 50).
    #[serde(default = "default_queue", deserialize_with = "limits::de_queue")]
    pub queue: u64,
    #[serde(default)]
    pub kind: LinkKindSpec,
    /// Direction from -> to.
    #[serde(default)]
    pub forward: DirSpec,
    /// Direction to -> from.
    #[serde(default)]
    pub reverse: DirSpec,
}

fn default_queue() -> u64 {
    50
}

/// A shared medium: an 802.11b DCF channel among stations at fixed
/// positions; every pair within `tx_range` is a hop.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MediumSpec {
    pub name: String,
    /// Only "wifi" (802.11b DCF).
    #[serde(default = "default_medium_kind")]
    pub kind: String,
    /// Attached nodes (declared in `[[nodes]]`) and their positions.
    pub stations: Vec<StationSpec>,
    /// Data rate: 1, 2, 5.5 or 11 Mb/s.
    #[serde(default = "default_data_rate")]
    pub data_rate: Quantity,
    /// Control (ACK) and PLCP rate: 1 or 2 Mb/s.
    #[serde(default = "default_basic_rate")]
    pub basic_rate: Quantity,
    /// RTS/CTS exchange before every data frame, with the NAV.
    #[serde(default)]
    pub rts_cts: bool,
    /// Interface queue per station, packets waiting (ns-2 IFQ default 50).
    #[serde(default = "default_queue", deserialize_with = "limits::de_queue")]
    pub queue: u64,
    /// Probability a data frame that did not collide is received in error
    /// (the MAC retries it).
    #[serde(default)]
    pub frame_error: f64,
    /// Packet-level loss on every hop after the MAC (an error model, as a
    /// link's `loss`): the wireless loss TCP sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<serde_json::Value>,
    /// Metres.
    #[serde(default = "default_tx_range")]
    pub tx_range: f64,
    /// Carrier-sense and interference range, metres.
    #[serde(default = "default_cs_range")]
    pub cs_range: f64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    pub node: String,
    /// Metres.
    pub x: f64,
    #[serde(default)]
    pub y: f64,
}

fn default_medium_kind() -> String {
    "wifi".into()
}
fn default_data_rate() -> Quantity {
    Quantity::Num(11e6)
}
fn default_basic_rate() -> Quantity {
    Quantity::Num(1e6)
}
fn default_tx_range() -> f64 {
    250.0
}
fn default_cs_range() -> f64 {
    550.0
}

/// Per-direction settings: queue override and impairments (see `impair`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DirSpec {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "limits::de_queue_opt"
    )]
    pub queue: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outages: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Defaults to "flowN".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default = "default_variant")]
    pub variant: String,
    /// Seconds.
    #[serde(default = "zero")]
    pub start: Quantity,
    /// Random extra start delay, uniform in [0, start_jitter) seconds, from
    /// the flow's own stream: seeds then differ even without random loss.
    #[serde(default = "zero")]
    pub start_jitter: Quantity,
    /// Per-packet processing jitter at the sender (ns-2's `overhead_` in
    /// spirit): each data packet leaves after a uniform [0, send_jitter)
    /// delay, never overtaking the one before it.
    #[serde(default = "zero")]
    pub send_jitter: Quantity,
    /// Whole data packet on the wire, bytes (ns-2 packetSize_).
    #[serde(
        default = "default_packet_size",
        deserialize_with = "crate::units::de_bytes"
    )]
    pub packet_size: u64,
    #[serde(
        default = "default_ack_size",
        deserialize_with = "crate::units::de_bytes"
    )]
    pub ack_size: u64,
    /// Window limit in packets (ns-2 window_).
    #[serde(default = "default_window", deserialize_with = "limits::de_window")]
    pub window: u64,
    /// Finite transfer of this many segments; absent = bulk (FTP) source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<u64>,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub sink: SinkSpec,
}

fn default_variant() -> String {
    "reno".into()
}
fn default_packet_size() -> u64 {
    1000
}
fn default_ack_size() -> u64 {
    40
}
fn default_window() -> u64 {
    20
}

/// Sender knobs; absent keys take `TcpConfig::default()` (docs/tcp.md).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Quantity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<u32>,
    /// The RTO's arithmetic: `"rfc6298"` (default) or `"ns2"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_estimator: Option<String>,
    /// Congestion op: a name (`"veno"`) or a table with `name` and its
    /// parameters; default: the variant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion: Option<serde_json::Value>,
    /// Loss detector asked at every fast-retransmit trigger (`"none"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detector: Option<serde_json::Value>,
    /// Responder applied when the detector says wireless (`1`: restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responder: Option<serde_json::Value>,
    /// How often the responder answers within one window of data: `"hole"`
    /// (default: each hole gets its own decision) or `"window"` (one
    /// response per fast-retransmit episode, as a congestion response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub respond_per: Option<String>,
    /// Alias of `detector = "eln"` (an ELN-aware sender, with the default
    /// responder 1): three duplicate ACKs with ELN -> retransmit, keep cwnd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eln: Option<bool>,
    /// CLRP's TCP-MH sender (Sun et al. 2005, MH -> FH); needs a `clrp` BS agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clrp: Option<bool>,
    /// Notices of a wireless loss that trigger its retransmission (2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clrp_rxmit_threshold: Option<u64>,
    /// DUPACKs of listed losses clock out new segments (true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clrp_inflate: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SinkSpec {
    #[serde(default)]
    pub delayed_ack: bool,
    #[serde(default = "default_delack")]
    pub delack_timeout: Quantity,
    /// Default: on for the sack variant, off otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Syndrome receiver (Chen et al. 2002): infer wireless losses from the BS's
    /// attached numbers and set ELN on their duplicate ACKs. Needs a
    /// `syndrome` BS agent on the flow's path.
    #[serde(default)]
    pub syndrome: bool,
    /// What a credit does when its hole is filled without a run of ELN
    /// duplicate ACKs: "keep" (float, Chen et al. 2002 Example 5) or "drop".
    #[serde(default = "default_unused_credit")]
    pub syndrome_unused_credit: String,
    /// CLRP's TCP-MH receiver (Sun et al. 2005, FH -> MH): report persistent holes
    /// as loss blocks on its ACKs. Needs a `clrp` BS agent on the path.
    #[serde(default)]
    pub clrp: bool,
    /// Further packets after which a hole counts as a loss (3).
    #[serde(default = "default_hole_threshold")]
    pub clrp_hole_threshold: u64,
    /// Loss blocks per ACK (6).
    #[serde(default = "default_max_blocks")]
    pub clrp_max_blocks: u64,
}

fn default_hole_threshold() -> u64 {
    crate::schemes::clrp::DEFAULT_HOLE_THRESHOLD.into()
}
fn default_max_blocks() -> u64 {
    crate::schemes::clrp::DEFAULT_MAX_BLOCKS.into()
}

fn default_unused_credit() -> String {
    "keep".into()
}

impl Default for SinkSpec {
    fn default() -> Self {
        Self {
            delayed_ack: false,
            delack_timeout: default_delack(),
            sack: None,
            syndrome: false,
            syndrome_unused_credit: default_unused_credit(),
            clrp: false,
            clrp_hole_threshold: default_hole_threshold(),
            clrp_max_blocks: default_max_blocks(),
        }
    }
}

fn default_delack() -> Quantity {
    Quantity::Num(0.1)
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Record cwnd, ssthresh, sequence sent and moving-window throughput.
    #[serde(default)]
    pub timeseries: bool,
    /// Sampling interval of the time series, seconds.
    #[serde(default = "default_interval")]
    pub interval: Quantity,
    /// Width of the moving window for instantaneous throughput, seconds.
    #[serde(default = "default_tput_window")]
    pub throughput_window: Quantity,
    /// The most rows a per-run table (drops, recoveries, time series) may
    /// hold; a run that would keep more stops with an error naming this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rows: Option<u64>,
    /// Keep the `drops` table (a row per lost packet).
    #[serde(default = "yes")]
    pub drops: bool,
    /// Keep the `recoveries` table (a row per fast retransmit, timeout and
    /// scheme retransmission); the flows' accuracy columns are counted
    /// either way.
    #[serde(default = "yes")]
    pub recoveries: bool,
}

impl Default for OutputSpec {
    fn default() -> Self {
        Self {
            timeseries: false,
            interval: default_interval(),
            throughput_window: default_tput_window(),
            max_rows: None,
            drops: true,
            recoveries: true,
        }
    }
}

fn default_interval() -> Quantity {
    Quantity::Num(0.1)
}
fn default_tput_window() -> Quantity {
    Quantity::Num(1.0)
}
