//! `run.memory_budget`: an estimate of the memory a run holds, cheap enough to
//! take with the interrupt check (every [`super::CHECK_EVERY`] events), and the
//! error that stops a run over its budget (docs/reliability.md).

use super::flow::FlowState;
use super::{Ev, Sim};
use crate::engine::Scheduled;
use crate::error::SimError;
use crate::impair::Pipeline;
use crate::metrics::{DropRecord, RecoveryRecord, Sample};
use crate::net::LinkDir;
use std::mem::size_of;

/// What one table cell costs by the end of the run, beyond the record: a
/// JSON value while the result is built, a string's own allocation for the
/// text columns, its share of the encoded text and, from Python, of the
/// decoded result. Measured on a one-link run with 20% loss (91,404 rows,
/// 1.18 M cells): peak RSS minus the idle process over cells is 93 bytes
/// with `tcpair-sim` and 118 bytes through `tcpair.run`.
pub(super) const CELL_BYTES: u64 = 120;

/// The columns of each table (`tables.rs`).
const DROP_COLUMNS: u64 = 12;
const RECOVERY_COLUMNS: u64 = 14;
const SAMPLE_COLUMNS: u64 = 6;

/// A pending event, counted twice: a lane's buffer may hold up to twice
/// what it holds now.
const EVENT_BYTES: u64 = 2 * size_of::<Scheduled<Ev>>() as u64;

fn table_bytes(rows: usize, record: usize, columns: u64) -> u64 {
    rows as u64 * (record as u64 + columns * CELL_BYTES)
}

impl Sim {
    /// Bytes the run holds, estimated: the per-flow and per-link state built
    /// at the start, the packets and pending events, and the tables' rows
    /// with their share of the encoded result. Constant time.
    pub fn held_bytes(&self) -> u64 {
        let built = self.flows.len() * size_of::<FlowState>()
            + self.topo.dirs.len() * (size_of::<LinkDir>() + size_of::<Pipeline>());
        built as u64
            + self.arena.held_bytes() as u64
            + self.pending_events() as u64 * EVENT_BYTES
            + table_bytes(self.drops.len(), size_of::<DropRecord>(), DROP_COLUMNS)
            + table_bytes(
                self.recoveries.len(),
                size_of::<RecoveryRecord>(),
                RECOVERY_COLUMNS,
            )
            + table_bytes(self.samples.len(), size_of::<Sample>(), SAMPLE_COLUMNS)
    }

    /// The error when the run holds more than `run.memory_budget`.
    pub(super) fn check_memory(&self, sim_time_s: impl FnOnce() -> String) -> Result<(), SimError> {
        let Some(budget) = self.scenario.memory_budget else {
            return Ok(());
        };
        let held = self.held_bytes();
        if held > budget {
            return Err(SimError::MemoryBudgetExceeded {
                budget,
                held,
                sim_time_s: sim_time_s(),
            });
        }
        Ok(())
    }
}
