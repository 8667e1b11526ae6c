//! Snoop and ELN-Snoop (Amir, Balakrishnan, Seshan and Katz 1995; the paper
//! behind `tcpair reproduce snoop-fig3`), and the ELN-based variant that
//! Chen et al. 2002 (§2.2 item 3) compare Syndrome with.
//!
//! Map of the scheme:
//! - BS parts: [`agent`] (`snoop`: per-connection cache, local
//!   retransmission with a Jacobson timer, DUPACK suppression, §3.1's
//!   `snoop_output()`/`snoop_input()`; its packets in `bs::cache`, one
//!   store for all of an agent's connections), [`eln_snoop`] (`eln_snoop`: no cache,
//!   ELN on DUPACKs for packets the BS forwarded) and [`eln_track`] (the
//!   MH -> FH half every Snoop agent shares: holes in what arrives from the
//!   MH get ELN on the FH's DUPACKs; and `on_packet`, which hands each
//!   packet to the agent's half its direction names); [`params`]: Snoop's
//!   parameters and their defaults.
//! - [`ns2`] (`snoop_ns2`): Snoop as ns-2.35's `tcp/snoop.cc` builds it, the
//!   comparator Chen et al. 2002 and the CLRP paper ran (first DUPACK passed
//!   on, 100 ms timer floor, no backoff, no Karn), its per-connection state
//!   in `ns2_conn`; [`ns2_params`].
//! - Sender part: none of its own; an ELN-aware sender is the `eln`
//!   detector (`tcp::detect::eln`) with the restoring responder.
//! - Receiver part: the plain sink.
//! - Scenario keys: a node's `bs = ["snoop"]` or `[{ agent = "snoop", cache,
//!   max_local_rtx, min_rto, initial_rto, max_backoff }]`, `bs = ["eln_snoop"]`, `bs = ["snoop_ns2"]` or `[{ agent = "snoop_ns2",
//!   cache, max_local_rtx, snoop_tick, srtt, rttvar, g }]`; the
//!   sender's `tcp.detector = "eln"` (or `tcp.eln = true`).
//! - Docs: docs/snoop.md. Tests: the unit tests here, tests/snoop_e2e.rs,
//!   tests/bs_e2e.rs. Sweep and target: sweeps/snoop_fig3.toml,
//!   `tcpair reproduce snoop-fig3` (python/tcpair/reproduce/amir1995/fig3.py).

pub mod agent;
pub mod eln_snoop;
pub mod eln_track;
mod handover;
pub mod ns2;
mod ns2_conn;
pub mod ns2_params;
pub mod params;
mod rtt;
