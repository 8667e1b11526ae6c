//! CLRP, the Clustered-loss Retransmission Protocol (Sun, Li and Liew 2005):
//! CLRP-BS and TCP-MH, in both directions and over two wireless links.
//!
//! Sun et al. 2005 §II: "the implementation of CLRP and TCP-MH to handle wireless
//! losses is symmetrical". One side *detects* wireless losses and piggy-backs
//! their sequence numbers on ACKs ([`holes::HoleTracker`]); the other side *keeps a
//! list* of (sequence, times notified) and retransmits a packet once it has
//! been notified often enough ([`notices::NoticeList`]).
//!
//! | direction | detects ([`holes::HoleTracker`]) | lists and retransmits ([`notices::NoticeList`]) |
//! |---|---|---|
//! | MH -> FH | CLRP-BS ([`bs`]), numbers arriving from the MH | TCP-MH sender ([`mh`], run by `tcp::sender`) |
//! | FH -> MH | TCP-MH receiver (`tcp::sink`) | CLRP-BS ([`bs`]), from its packet cache |
//!
//! Interpretations (docs/clrp.md has the full list):
//! - A hole is "a wireless loss" once `hole_threshold` *further* packets have
//!   arrived after the packet that revealed it (§II.A: "a hole between
//!   consecutive packets, which persists after several packets have
//!   arrived"). Every arrival counts, retransmissions included.
//! - Retransmission when the count *reaches* `rxmit_threshold` (the
//!   paper's text says "exceeds", its simulations use the value 2);
//!   `rxmit_threshold = 3` gives the strict reading.
//! - The -1 mark (§II.A: "if MH still receives loss information, the times
//!   record will remain negative") holds while the notices could predate the
//!   retransmission's arrival at the detector. It ends when a notice comes on
//!   an ACK whose timestamp echo is later than the retransmission's *mark*
//!   (the send time of the retransmission, or at a BS the send time of the
//!   last packet forwarded before it): that ACK was triggered by a packet
//!   that travelled behind the retransmission on a FIFO hop, so the
//!   retransmission was lost again. The count restarts at 1 and the usual
//!   threshold applies. Without this the paper's rule leaves a lost
//!   retransmission to the sender's timer.
//!
//! Map of the scheme:
//! - Shared mechanisms: [`holes`] (the detector) and [`notices`] (the list).
//! - BS part: [`bs`] (`clrp` agent: both directions) and its optional local
//!   timer, `bs_timer` (not in the paper).
//! - Sender part: [`mh`] (TCP-MH's list of notified losses, retransmission
//!   without a congestion response, DUPACKs of listed losses ignored).
//! - Receiver part: the sink's hole tracker and loss blocks on its ACKs.
//! - Packet option: `packet::LossBlocks`.
//! - Scenario keys: a node's `bs = ["clrp"]` or `[{ agent = "clrp",
//!   hole_threshold, max_blocks, rxmit_threshold, cache, local_timer }]`; `tcp.clrp`,
//!   `tcp.clrp_rxmit_threshold`, `tcp.clrp_inflate`; `sink.clrp`,
//!   `sink.clrp_hole_threshold`, `sink.clrp_max_blocks`.
//! - Flow counters: `clrp_notices`, `clrp_retransmits`, `clrp_holes`.
//! - Docs: docs/clrp.md. Tests: the unit tests here, tests/clrp_rules.rs
//!   (hand-built loss patterns), tests/clrp_e2e.rs. Sweeps and targets:
//!   sweeps/clrp_fig5..13.toml, `tcpair reproduce clrp-fig5` ..
//!   `clrp-fig13` (python/tcpair/reproduce/clrp.py).

pub mod bs;
mod bs_timer;
pub mod holes;
pub mod mh;
pub mod notices;

/// Default `hole_threshold` (3; a parameter, Sun et al. 2005 §II.A leave it open).
pub const DEFAULT_HOLE_THRESHOLD: u32 = 3;
/// Default `max_blocks` (Sun et al. 2005 §II.A: "The value 6 is used in our simulations").
pub const DEFAULT_MAX_BLOCKS: u32 = 6;
/// Default `rxmit_threshold` (Sun et al. 2005 §II.A: "the value 2 is chosen").
pub const DEFAULT_RXMIT_THRESHOLD: u32 = 2;
