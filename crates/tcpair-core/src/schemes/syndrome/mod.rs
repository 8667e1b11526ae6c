//! Syndrome (Chen, Hsiao, Hou, Ge and Fitz 2002): the BS numbers the packets
//! it relays per connection; the receiver compares those numbers with the
//! TCP sequence numbers to count wireless losses and sets ELN on their
//! duplicate ACKs; the sender does not cut its window on ELN.
//!
//! Map of the scheme:
//! - BS part: [`counter`] (`syndrome` agent, Fig. 1 lines 1-6: the attached
//!   number AN, given back when the BS's own queue drops the packet).
//! - Receiver part: [`receiver`] (Fig. 1 lines 7-18, Tables 2 and 3,
//!   Props. 9-14, Eq. (1); credits and ELN marking), run by `tcp::sink`.
//! - Sender part: the `eln` detector (`tcp::detect::eln`) with the restoring
//!   responder (Fig. 1 lines 19-22).
//! - Packet option: `packet::SynTags` (one tag per Syndrome BS on the path).
//! - Scenario keys: a node's `bs = ["syndrome"]`, `sink.syndrome`,
//!   `sink.syndrome_unused_credit`, and the sender's `tcp.detector = "eln"`.
//! - Flow counters: `syndrome_credits`, `impossible_syndromes`.
//! - Docs: docs/syndrome.md. Tests: the unit tests here,
//!   tests/syndrome_examples.rs (Examples 1-5, cases C1.a-d), tests/bs_e2e.rs.
//!   Sweeps and targets: sweeps/syndrome_fig10..13.toml, `tcpair reproduce
//!   syndrome-fig10` .. `syndrome-fig13` (python/tcpair/reproduce/chen2002/figs10_13.py).

pub mod counter;
pub mod receiver;
