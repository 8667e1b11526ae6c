//! What a pipeline says about each packet: deliver or drop, and why.

/// Why the pipeline dropped a packet. (Queue overflow is recorded by the link.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// Lost to the error model (bit errors, fading, ...).
    Corruption,
    /// Sent into the link during an outage.
    Outage,
}

/// One decision, in delivery order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PipeOut {
    Deliver(u32),
    Drop(u32, DropCause),
}
