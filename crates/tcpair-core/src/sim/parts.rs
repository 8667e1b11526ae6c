//! Independent parts of a network, run one after another.
//!
//! Flows that share no link direction (no queue, no impairment), no
//! shared medium and no BS agent whose connections depend on each other
//! (`BsAgent::couples_connections`) cannot affect each other: each part of
//! the network (a set of flows and the directions they use, joined whenever
//! they share one of those) evolves the same whatever the other parts do.
//! With many such parts (10,000 flows, each with its own hosts and links,
//! through one base station), interleaving their events in one queue makes
//! every event read state that left the caches long before: each part is
//! therefore given its own event queue and run on its own, the parts one
//! after another, so that a part's few kilobytes stay in cache while it
//! runs.
//!
//! Results are the same as with one queue for all (a test runs both and
//! compares every table), because nothing in a result depends on the order
//! of two events of different parts:
//! - an event of a part schedules events of the same part only, and within
//!   a part the order of events is the single queue's (by time, then by the
//!   order they were scheduled: the part's own events in the same relative
//!   order either way);
//! - packet ids are counted per part (`Arena::set_id_spaces`);
//! - the tables' rows are ordered by time, then by part (drops,
//!   recoveries) or by flow (time series), not by the order of the events
//!   that wrote them;
//! - a BS agent's timers are per connection (`BsAgent::deadline`), and the
//!   total of its state meters counts settled values at each instant
//!   (`bs::meter`). When an agent serves flows of several parts, its total
//!   is deferred (`Meters::defer`): the parts then run in lockstep windows
//!   of simulated time ([`window_for`]), and the changes logged in a window are
//!   applied in time order once every part has run through it.
//!
//! Runs that trace packets, move a mobile host or share an 802.11 medium
//! keep one queue for all (`Parts::interleaved`): the trace is written in
//! time order as the run goes, and handoffs and media act on the whole
//! network. Their ids and tables follow the parts all the same.

use super::{Ev, Sim, CHECK_EVERY};
use crate::engine::{EventQueue, Time, SEC};
use crate::error::SimError;
use crate::net::Topology;
use crate::packet::FlowId;
use crate::scenario::Scenario;

/// The longest window of simulated time the parts run through in turn while
/// a BS agent's total is deferred: its log takes changes up to 2^32 ns
/// (4.29 s) from the window's start, in 256 slices of 2^24 ns
/// (`bs/meter_log.rs`).
const MAX_WINDOW: Time = 4 * SEC;
const _: () = assert!(MAX_WINDOW < 1 << 32, "the log's 256 slices");
/// The shortest window.
const MIN_WINDOW: Time = SEC;
/// Part-seconds per window: with more parts than 2,500 the window shortens
/// from [`MAX_WINDOW`] so that the log (4 bytes per change of a total,
/// about 16 MiB per simulated second at 10,000 Snoop flows) stays that of
/// 10,000 parts through one second at most.
const PART_SECONDS: Time = 10_000 * SEC;

/// The window for `parts` parts. Each time a part resumes, its state (its
/// queue, flows, links and agents' connections: a few KiB) comes back from
/// memory; a longer window does that less often, and a shorter one holds a
/// shorter log. At 10,000 Snoop flows x 60 s (the core's program,
/// alternated runs): windows of 4 s took 35.0 s and 290 MiB, of 2 s 36.7 s
/// and 249 MiB, of 1 s 39.0 s and 235 MiB; once the rest of a flow's state
/// had shrunk, 2 s took 36.3 s and 212 MiB, 1 s 38.2 s and 200 MiB: 1 s
/// keeps a Snoop flow within 20 KiB (docs/performance.md). Results do not
/// depend on it.
fn window_for(parts: usize) -> Time {
    (PART_SECONDS / parts.max(1) as Time).clamp(MIN_WINDOW, MAX_WINDOW)
}

/// The parts of a run and their event queues.
#[derive(Debug)]
pub(super) struct Parts {
    /// The part of each flow (parts numbered by their first flow).
    pub of_flow: Vec<u32>,
    /// The flows of each part, ascending.
    pub flows: Vec<Vec<FlowId>>,
    /// Each link direction's lane in its part's event queue.
    pub lane: Vec<u32>,
    /// The queues of the parts not running now (`None`: the running part's,
    /// which is `Sim::q`); empty when the parts share one queue.
    parked: Vec<Option<EventQueue<Ev>>>,
    /// The running part.
    current: usize,
    /// Events processed by the parts not running now.
    events_elsewhere: u64,
    /// Events pending in the parts not running now.
    pending_elsewhere: usize,
    /// Events every part's queue holds a copy of (the warm-up's end, the
    /// time series' samples) processed by parts other than the first: one
    /// queue for all would have processed each once.
    copies: u64,
    /// The window the parts run through in turn when some BS agent's total
    /// is deferred ([`window_for`]); `None` otherwise.
    windowed: Option<Time>,
}

impl Parts {
    /// The parts of `scenario`'s flows; with `separate`, a queue per part
    /// (the first is returned to run first), else one queue for all.
    pub fn new(scenario: &Scenario, topo: &Topology, separate: bool) -> (Parts, EventQueue<Ev>) {
        let of_flow = partition(scenario, topo);
        let n = of_flow.iter().max().map_or(1, |&m| m as usize + 1);
        let mut flows = vec![Vec::new(); n];
        for (f, &p) in of_flow.iter().enumerate() {
            flows[p as usize].push(f as FlowId);
        }
        let separate = separate && n > 1;
        let (lane, lanes) = lanes(scenario, topo, &of_flow, n, separate);
        let mut queues: Vec<EventQueue<Ev>> = lanes
            .iter()
            .map(|&k| EventQueue::with_lanes_and_capacity(k, if separate { 16 } else { 1024 }))
            .collect();
        let first = queues.remove(0);
        let mut parked: Vec<Option<EventQueue<Ev>>> = queues.into_iter().map(Some).collect();
        if separate {
            parked.insert(0, None);
        }
        let parts = Parts {
            of_flow,
            flows,
            lane,
            parked,
            current: 0,
            events_elsewhere: 0,
            pending_elsewhere: 0,
            copies: 0,
            windowed: None,
        };
        (parts, first)
    }

    /// Forget the pending events of the parked queues, keeping their counts
    /// ([`EventQueue::release_pending`]): at the end of a run.
    pub fn release_pending(&mut self) {
        for q in self.parked.iter_mut().flatten() {
            q.release_pending();
        }
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    /// Whether the parts share one queue (or there is only one).
    pub fn interleaved(&self) -> bool {
        self.parked.is_empty()
    }

    /// How many flows the running queue holds events of (of `all` flows).
    pub fn running_count(&self, all: usize) -> usize {
        if self.interleaved() {
            all
        } else {
            self.flows[self.current].len()
        }
    }

    /// The `k`-th flow the running queue holds events of.
    pub fn running_flow(&self, k: usize) -> usize {
        if self.interleaved() {
            k
        } else {
            self.flows[self.current][k] as usize
        }
    }
}

/// Union-find over flows and what they share.
struct Joins(Vec<u32>);

impl Joins {
    fn find(&mut self, mut i: u32) -> u32 {
        while self.0[i as usize] != i {
            let up = self.0[self.0[i as usize] as usize];
            self.0[i as usize] = up;
            i = up;
        }
        i
    }

    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b) as usize] = a.min(b);
        }
    }
}

/// The part of each flow: flows are joined when they use the same link
/// direction, the same shared medium, or pass a node whose agents couple
/// their connections; every flow of a run with a mobile host is in one part.
fn partition(scenario: &Scenario, topo: &Topology) -> Vec<u32> {
    let nf = scenario.flows.len() as u32;
    if nf == 0 {
        return Vec::new();
    }
    if scenario.mobility.is_some() {
        return vec![0; nf as usize];
    }
    let nd = topo.dirs.len() as u32;
    let nm = topo.media.len() as u32;
    // Elements: flows, then directions, then media, then nodes.
    let mut joins = Joins((0..nf + nd + nm + topo.nodes.len() as u32).collect());
    let mut coupling = vec![false; topo.nodes.len()];
    for n in &scenario.bs {
        coupling[n.node as usize] = n.agents.iter().any(|a| a.couples_connections());
    }
    for (f, plan) in scenario.flows.iter().enumerate() {
        let paths = [&plan.data_path, &plan.ack_path];
        let attached = plan.attach.iter().flat_map(|a| [&a.data, &a.ack]);
        for &d in paths.into_iter().chain(attached).flatten() {
            joins.join(f as u32, nf + d);
            let dir = &topo.dirs[d as usize];
            if let Some((m, _, _)) = dir.medium {
                joins.join(nf + d, nf + nd + m);
            }
            for node in [dir.from, dir.to] {
                if coupling[node as usize] {
                    joins.join(nf + d, nf + nd + nm + node);
                }
            }
        }
    }
    // Number the parts by their first flow.
    let mut number = std::collections::HashMap::new();
    (0..nf)
        .map(|f| {
            let root = joins.find(f);
            let next = number.len() as u32;
            *number.entry(root).or_insert(next)
        })
        .collect()
}

/// Each direction's lane, and the number of lanes of each part's queue:
/// with separate queues a direction's lane is its index among its part's
/// directions (a direction no flow uses goes to part 0), else its own id.
fn lanes(
    scenario: &Scenario,
    topo: &Topology,
    of_flow: &[u32],
    parts: usize,
    separate: bool,
) -> (Vec<u32>, Vec<usize>) {
    let nd = topo.dirs.len();
    if !separate {
        return ((0..nd as u32).collect(), vec![nd]);
    }
    let mut part_of_dir = vec![0u32; nd];
    for (f, plan) in scenario.flows.iter().enumerate() {
        for &d in plan.data_path.iter().chain(&plan.ack_path) {
            part_of_dir[d as usize] = of_flow[f];
        }
    }
    let mut count = vec![0usize; parts];
    let lane = part_of_dir
        .iter()
        .map(|&p| {
            count[p as usize] += 1;
            (count[p as usize] - 1) as u32
        })
        .collect();
    (lane, count)
}

impl Sim {
    /// Make part `p`'s queue the running one.
    fn switch_part(&mut self, p: usize) {
        let parts = &mut self.parts;
        if p == parts.current {
            return;
        }
        let next = parts.parked[p].take().expect("a parked part");
        parts.events_elsewhere += self.q.events_processed();
        parts.events_elsewhere -= next.events_processed();
        parts.pending_elsewhere += self.q.len();
        parts.pending_elsewhere -= next.len();
        let prev = std::mem::replace(&mut self.q, next);
        parts.parked[parts.current] = Some(prev);
        parts.current = p;
    }

    /// Call `f` with each part's queue (the running one too) and its part.
    pub(super) fn for_each_queue(&mut self, mut f: impl FnMut(usize, &mut EventQueue<Ev>)) {
        f(self.parts.current, &mut self.q);
        for (p, q) in self.parts.parked.iter_mut().enumerate() {
            if let Some(q) = q {
                f(p, q);
            }
        }
    }

    /// Events pending in every part.
    pub(super) fn pending_events(&self) -> usize {
        self.q.len() + self.parts.pending_elsewhere
    }

    /// How many independent parts the network has.
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// Events processed so far, in every part (an event every part has a
    /// copy of counted once).
    pub fn events_processed(&self) -> u64 {
        self.parts.events_elsewhere + self.q.events_processed() - self.parts.copies
    }

    /// A copy of an event every part's queue holds ran: count it once.
    pub(super) fn note_copy(&mut self) {
        if self.parts.current > 0 {
            self.parts.copies += 1;
        }
    }

    /// The time of the latest event processed, in any part.
    pub fn now(&self) -> Time {
        let parked = self.parts.parked.iter().flatten().map(|q| q.now());
        parked.fold(self.q.now(), Time::max)
    }

    /// Schedule `ev` at `at` in the queue of flow `flow`'s part.
    pub(super) fn schedule_for(&mut self, flow: FlowId, at: Time, ev: Ev) {
        let p = self.parts.of_flow[flow as usize] as usize;
        match self.parts.parked.get_mut(p) {
            Some(Some(q)) => {
                q.schedule(at, ev);
                self.parts.pending_elsewhere += 1;
            }
            _ => self.q.schedule(at, ev),
        }
    }

    /// Schedule `ev` at `at` in every part's queue (the warm-up's end, the
    /// time series' first sample).
    pub(super) fn schedule_everywhere(&mut self, at: Time, ev: Ev) {
        self.q.schedule(at, ev);
        for q in self.parts.parked.iter_mut().flatten() {
            q.schedule(at, ev);
            self.parts.pending_elsewhere += 1;
        }
    }

    /// Defer the totals of the BS agents that serve flows of several parts
    /// (their changes come part after part), and run in windows if any.
    pub(super) fn defer_shared_totals(&mut self) {
        if self.parts.interleaved() {
            return;
        }
        for (i, a) in self.agents.iter_mut().enumerate() {
            let node = self.agent_node[i];
            let mut parts = self.flows.iter().enumerate().filter_map(|(f, fl)| {
                let passes = self
                    .routes
                    .path(fl.data_path)
                    .iter()
                    .chain(self.routes.path(fl.ack_path));
                passes
                    .clone()
                    .any(|&d| {
                        self.topo.dirs[d as usize].from == node
                            || self.topo.dirs[d as usize].to == node
                    })
                    .then_some(self.parts.of_flow[f])
            });
            let first = parts.next();
            if parts.any(|p| Some(p) != first) {
                a.meters_mut().defer(0);
                self.parts.windowed = Some(window_for(self.parts.len()));
            }
        }
    }

    /// Run every part up to and including time `end`: one after another
    /// (in windows of [`window_for`] when a BS total is deferred), or in one
    /// queue when the parts share it.
    pub(super) fn run_parts_until(
        &mut self,
        end: Time,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), SimError> {
        if self.parts.interleaved() {
            return self.run_queue_until(end, true, stop);
        }
        let mut from = self.now();
        loop {
            let boundary = match self.parts.windowed {
                Some(w) => (from / w + 1).saturating_mul(w),
                None => Time::MAX,
            };
            let last = boundary > end;
            let limit = if last { end } else { boundary };
            for p in 0..self.parts.len() {
                self.switch_part(p);
                self.run_queue_until(limit, last, stop)?;
            }
            self.settle_totals(limit);
            if last {
                return Ok(());
            }
            from = boundary;
        }
    }

    /// Apply the deferred BS totals' changes logged so far (every part
    /// has run up to `until`).
    fn settle_totals(&mut self, until: Time) {
        for a in &mut self.agents {
            a.meters_mut().settle(until);
        }
    }

    /// Process the running queue's events before `limit` (and at `limit`
    /// with `inclusive`), with the periodic checks.
    pub(super) fn run_queue_until(
        &mut self,
        limit: Time,
        inclusive: bool,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), SimError> {
        let budget = self.scenario.event_budget.unwrap_or(u64::MAX);
        while let Some(t) = self.q.peek_time() {
            if t > limit || (t == limit && !inclusive) {
                break;
            }
            let done = self.events_processed();
            if done >= budget {
                return Err(SimError::EventBudgetExceeded {
                    budget,
                    sim_time_s: format!("{:.6}", crate::engine::to_secs(t)),
                });
            }
            if done.is_multiple_of(CHECK_EVERY) {
                self.check_slice(t, stop)?;
            }
            let ev = self.q.pop().expect("peeked").event;
            if self.q.lookahead() > 0 {
                self.prefetch_coming();
            }
            self.handle(ev);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_shorten_past_2500_parts() {
        assert_eq!(window_for(1), MAX_WINDOW);
        assert_eq!(window_for(2_500), 4 * SEC);
        assert_eq!(window_for(5_000), 2 * SEC);
        assert_eq!(window_for(10_000), SEC);
        assert_eq!(window_for(1_000_000), MIN_WINDOW);
    }
}
