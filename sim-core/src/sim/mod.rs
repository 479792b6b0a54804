//! The simulation: a driver that owns the clock, the event queue, the workload, the router and
//! the recorder, and the replicas (serving engines; `scenario.replicas`, one by default) it
//! calls at each event.
//!
//! Simulated time is an integer number of microseconds. Events (an arrival, or a timer a
//! replica set: the end of an iteration, a queue timeout, the end of a static batch's fill
//! window, the end of an OOM restart) sit in one priority queue ordered by time and then by the
//! order they were made, so a run is a pure function of its scenario.
//!
//! | module | what it holds |
//! | --- | --- |
//! | `events` | time, the event queue, what a replica asks of its driver |
//! | `requests` | request slots and handles, the wait queues |
//! | `kv` | the KV pool: units, batch slots, per-class reservations, watermark |
//! | `decode` | the decode group: lockstep decoding in O(1) per iteration |
//! | `plan`, `schedule` | continuous batching: an iteration planned as a value, then applied |
//! | `prefix` | prefix caching: shared prompt blocks as chains, reference counts, LRU eviction |
//! | `static_batch`, `oom` | static batching; OOM restarts after over-commit |
//! | `record` | per-request metrics, the time series, recent endings, the summary |
//! | `view` | what the page reads: snapshots, live requests, the HBM split |
//! | `replica` | one serving engine, driven by the calls above |
//!
//! An arriving request goes to the replica the router picks ([`crate::cluster::Router`]) from
//! each replica's load at that instant. With prefill/decode disaggregation ([`crate::disagg`])
//! the router picks among the prefill replicas; a prefilled prompt's KV then crosses the links
//! (an event when it arrives) to the decode replica with the fewest requests queued, running
//! and on their way to it.

mod decode;
mod events;
mod kv;
mod oom;
mod plan;
mod prefix;
mod record;
mod replica;
mod requests;
mod schedule;
mod static_batch;
mod view;

pub use events::Micros;
pub use oom::MAX_OOM_RETRIES;
pub use plan::{AdmitStop, IterationPlan, PlanContext, PlannedChunk, PlannedPreemption};
pub use record::RequestSink;
pub use requests::Phase;
pub use schedule::PlanObserver;
pub use view::{Ending, HbmUse, KvTransfer, Limit, LiveRequest, Pool, RecentEnding, ReplicaView, Snapshot, StepInfo};

use crate::catalog::{GpuSpec, ModelSpec};
use crate::cluster::{Load, Policy, Reason, Router, RouterConfig};
use crate::disagg::Links;
use crate::memory::HbmPlan;
use crate::metrics::{ReplicaSummary, RouterSummary, Sample, Summary};
use crate::perf::StepModel;
use crate::scenario::{Arrival, Scenario, ScenarioError};
use crate::session::{AfterTurn, Sessions};
use crate::workload::{builtin_trace, ClassSource, Trace};
use events::{Effect, EventKind, EventQueue, Wakeup};
use prefix::{CacheStats, Prefix};
use record::{Recorder, SharedRecorder};
use replica::{Occupancy, Replica};
use requests::Handle;
use std::cell::{Ref, RefCell};
use std::rc::Rc;

/// Options that shape what a run records, not what it computes.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Time-series interval at the start of the run (it doubles as the series fills).
    pub sample_interval_us: Micros,
    /// Most time-series points kept.
    pub max_samples: usize,
    /// Most recent request endings kept for the stage.
    pub recent_capacity: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { sample_interval_us: 250_000, max_samples: 512, recent_capacity: 256 }
    }
}

/// Reads trace files named in a scenario; the lab's built-in traces need no loader.
pub trait TraceLoader {
    fn load(&self, path: &str) -> Result<String, String>;
}

/// A loader that knows only the built-in traces.
pub struct BuiltinTraces;

impl TraceLoader for BuiltinTraces {
    fn load(&self, path: &str) -> Result<String, String> {
        builtin_trace(path).map(str::to_string).ok_or_else(|| {
            let names: Vec<&str> = crate::workload::BUILTIN_TRACES.iter().map(|(n, _)| *n).collect();
            format!("is not a built-in trace (built in: {})", names.join(", "))
        })
    }
}

/// A trace's `prefix_group` column names one of its class's shared prefixes: the class must
/// have them (their length comes from `prefix.shared_tokens`) and the group must exist.
fn check_trace_groups(trace: &Trace, c: &crate::scenario::ClassConfig, field: &str) -> Result<(), ScenarioError> {
    let Some(bad) = trace.rows.iter().find(|r| r.group.is_some_and(|g| c.prefix.is_none_or(|p| g >= p.groups))) else {
        return Ok(());
    };
    let problem = match c.prefix {
        Some(p) => crate::message::Problem::TracePrefixGroup {
            line: bad.line,
            max: p.groups as u64 - 1,
            got: bad.group.map(u64::from),
        },
        None => crate::message::Problem::TracePrefixUnset { line: bad.line },
    };
    Err(ScenarioError::one(field, problem))
}

/// A running simulation. Build it from a scenario, advance it, read snapshots or a summary.
pub struct Simulation {
    scenario: Scenario,
    model: ModelSpec,
    gpu: GpuSpec,
    class_names: Vec<String>,
    now: Micros,
    events: EventQueue,
    events_processed: u64,
    sources: Vec<ClassSource>,
    total_requests: u64,
    next_id: u64,
    replicas: Vec<Replica>,
    rec: SharedRecorder,
    router: Router,
    routed: Routed,
    /// Each replica's occupancy as of its last call, and their sum (the time series' state).
    occupancy: Vec<Occupancy>,
    occupied: Occupancy,
    /// Replicas called during the current instant, in the order first called (they schedule
    /// once every event of the instant is in).
    touched: Vec<u16>,
    /// What the replicas scheduled at the end of an instant mark (discarded: the instant is
    /// over), kept so marking allocates nothing.
    touched_after: Vec<u16>,
    loads: Vec<Load>,
    /// Replicas arrivals go to: all, or with disaggregation the prefill pool (the first ones).
    arrival_pool: usize,
    pd: Option<Box<Disagg>>,
    /// Multi-turn conversations (`crate::session`), when any class has them.
    sessions: Option<Box<Sessions>>,
    /// Conversations that ended during the current call, to close on every replica.
    closing: Vec<u32>,
}

/// Prefill/decode disaggregation's state in the driver: the links, the transfers under way,
/// and how the decode replica is picked.
struct Disagg {
    links: Links,
    /// Transfers under way, by slot (`EventKind::Transfer`); freed slots are reused.
    transfers: Vec<Option<Transfer>>,
    free: Vec<u32>,
    /// Per replica: transfers on their way to it.
    incoming: Vec<u64>,
    /// Prompts prefilled during the current call, to send once its effects are drained.
    ready: Vec<(u16, Handle)>,
    router: Router,
}

#[derive(Clone, Copy)]
struct Transfer {
    from: u16,
    to: u16,
    h: Handle,
    /// When it was sent, its first byte left and it arrives, µs.
    sent: Micros,
    sent_on: crate::disagg::Sent,
}

/// Requests the router sent by prefix affinity, and those it could not.
#[derive(Clone, Copy, Default)]
struct Routed {
    by_affinity: u64,
    over_cap: u64,
    none_cached: u64,
}

impl Simulation {
    /// Builds a simulation; fails with field-named errors when the scenario is invalid or the
    /// model does not fit in memory.
    pub fn new(scenario: &Scenario) -> Result<Simulation, ScenarioError> {
        Self::with_options(scenario, &BuiltinTraces, SimOptions::default())
    }

    pub fn with_options(
        scenario: &Scenario,
        traces: &dyn TraceLoader,
        opts: SimOptions,
    ) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        let model = scenario.model_spec()?;
        let gpu = scenario.gpu_spec()?;
        let plan = HbmPlan::new(scenario, &model, &gpu)?;
        let step_model =
            StepModel::new(&model, &gpu, scenario.num_gpus, scenario.dtype, plan.kv_traffic(), &scenario.engine);
        let mut sources = Vec::with_capacity(scenario.classes.len());
        let mut trace_sessions = vec![std::collections::BTreeMap::new(); scenario.classes.len()];
        for (i, c) in scenario.classes.iter().enumerate() {
            let trace = match &c.arrival {
                Arrival::Trace { path, .. } => {
                    let field = format!("classes[{i}].arrival.path");
                    let text = traces.load(path).map_err(|m| ScenarioError::one(&field, m))?;
                    let trace = Trace::parse(&text, &field)?;
                    check_trace_groups(&trace, c, &field)?;
                    for id in trace.rows.iter().filter_map(|r| r.session) {
                        *trace_sessions[i].entry(id).or_insert(0u32) += 1;
                    }
                    Some(trace)
                }
                _ => None,
            };
            sources.push(ClassSource::new(scenario.seed, i, c, trace));
        }
        let mut events = EventQueue::default();
        for (c, source) in sources.iter_mut().enumerate() {
            for t in source.first_arrivals() {
                events.push(t, EventKind::Arrival { class: c as u16 });
            }
        }
        let n = scenario.replica_count();
        let arrival_pool = scenario.arrival_replicas();
        let pd = scenario.disaggregation.as_ref().map(|d| {
            let decode = RouterConfig { policy: Policy::LeastOutstanding, ..RouterConfig::default() };
            Box::new(Disagg {
                links: Links::new(d, n),
                transfers: Vec::new(),
                free: Vec::new(),
                incoming: vec![0; n],
                ready: Vec::new(),
                router: Router::new(&decode, n - arrival_pool, scenario.seed),
            })
        });
        let has_sessions =
            scenario.classes.iter().any(|c| c.session.is_some()) || trace_sessions.iter().any(|m| !m.is_empty());
        let total_requests = sources
            .iter()
            .zip(&scenario.classes)
            .enumerate()
            .map(|(i, (src, c))| match &c.session {
                Some(sc) => crate::session::planned_requests(scenario.seed, i, src.remaining, sc),
                None => src.remaining,
            })
            .sum();
        let traced = trace_sessions.iter().any(|m| !m.is_empty());
        let caches = scenario.caches_prefixes() || traced && scenario.could_cache_prefixes();
        let sessions = has_sessions.then(|| Box::new(Sessions::new(scenario, trace_sessions)));
        let rec: SharedRecorder = Rc::new(RefCell::new(Recorder::new(scenario, &opts)));
        let replicas: Vec<Replica> =
            (0..n).map(|i| Replica::new(scenario, i, plan.clone(), step_model.clone(), rec.clone(), caches)).collect();
        let occupancy: Vec<Occupancy> = replicas.iter().map(Replica::occupancy).collect();
        let occupied = occupancy.iter().fold(Occupancy::default(), |a, o| add(a, *o));
        Ok(Simulation {
            router: Router::new(&scenario.router, arrival_pool, scenario.seed),
            arrival_pool,
            pd,
            routed: Routed::default(),
            occupancy,
            occupied,
            touched: Vec::new(),
            touched_after: Vec::new(),
            loads: vec![Load::default(); n],
            replicas,
            rec,
            model,
            gpu,
            class_names: scenario.classes.iter().map(|c| c.name.clone()).collect(),
            now: 0,
            events,
            events_processed: 0,
            total_requests,
            sessions,
            closing: Vec::new(),
            next_id: 0,
            sources,
            scenario: scenario.clone(),
        })
    }

    /// Receives every request's record as it ends (for `llmsim run --requests`).
    pub fn set_request_sink(&mut self, sink: RequestSink) {
        self.rec.borrow_mut().sink = Some(sink);
    }

    /// Sees every continuous-batching plan of the first replica before it is applied (for tests
    /// of the scheduler).
    pub fn set_plan_observer(&mut self, observer: PlanObserver) {
        self.replicas[0].set_plan_observer(observer);
    }

    /// Standard deviation of every inter-token gap so far, in ms (from the ITL histogram).
    pub fn itl_std_ms(&self) -> f64 {
        self.rec.borrow().all().itl.std_ms()
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn model(&self) -> &ModelSpec {
        &self.model
    }
    pub fn gpu(&self) -> &GpuSpec {
        &self.gpu
    }
    /// One replica's HBM plan (every replica has the same).
    pub fn hbm_plan(&self) -> &HbmPlan {
        self.replicas[0].plan()
    }
    pub fn step_model(&self) -> &StepModel {
        self.replicas[0].step_model()
    }
    /// Replicas serving the traffic.
    pub fn replica_count(&self) -> usize {
        self.replicas.len()
    }
    pub fn now(&self) -> Micros {
        self.now
    }
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    /// Requests the scenario will send in all (with conversations: the turns planned, less those
    /// of conversations given up so far).
    pub fn total_requests(&self) -> u64 {
        self.total_requests
    }
    /// Share of all requests that have ended, 0..=1.
    pub fn progress(&self) -> f64 {
        if self.total_requests == 0 {
            1.0
        } else {
            self.rec.borrow().ended_count() as f64 / self.total_requests as f64
        }
    }
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// No event left: every request has ended.
    pub fn is_finished(&self) -> bool {
        self.events.is_empty()
    }
    /// The request counts of all traffic so far, without building a summary (`in_flight` is not
    /// filled in): what a caller watching for a first rejection or preemption reads each event.
    pub fn counts(&self) -> crate::metrics::Counts {
        self.rec.borrow().all_counts()
    }
    /// The time series so far (the whole cluster's).
    pub fn series(&self) -> Ref<'_, [Sample]> {
        Ref::map(self.rec.borrow(), |r| &r.series.samples[..])
    }
    /// Recent endings and preemptions, oldest first (`snapshot().recent` without a snapshot).
    pub fn recent_endings(&self) -> Vec<RecentEnding> {
        self.rec.borrow().recent().copied().collect()
    }
    /// Empirical CDF points (ms, fraction) of TTFT for a class, or all classes with `None`.
    pub fn ttft_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.rec.borrow();
        rec.of(class).unwrap_or(rec.all()).ttft_cdf(points)
    }
    /// The TTFT CDF over every request that arrived (`Summary`'s `ttft_ms_censored` as a curve):
    /// requests that timed out, were rejected or lost count at their wait, those still waiting at
    /// their age — a lower bound on the curve the answers would have made. Points `(ms, share)`.
    pub fn ttft_cdf_censored(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let live = self.replicas.iter().flat_map(Replica::live_for_summary);
        self.rec.borrow().ttft_cdf_censored(self.now, live, class, points)
    }
    pub fn tpot_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.rec.borrow();
        rec.of(class).unwrap_or(rec.all()).tpot_cdf(points)
    }
    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Micros> {
        self.events.peek().map(|(t, _)| t)
    }

    /// Processes every event up to and including `t`, then sets the clock to `t`.
    pub fn advance_to(&mut self, t: Micros) {
        while self.events.peek().is_some_and(|(time, _)| time <= t) {
            self.process_next();
        }
        if t > self.now {
            self.sample_to(t);
            self.now = t;
        }
    }

    /// Processes at most `n` events; returns how many were processed.
    pub fn advance_events(&mut self, n: u64) -> u64 {
        let mut done = 0;
        while done < n && !self.events.is_empty() {
            self.process_next();
            done += 1;
        }
        done
    }

    /// Advances to the end of the next scheduler iteration that ends after now (the "step"
    /// button; with several replicas, the next iteration of any of them). A caller that stopped
    /// within an instant (a page's frame budget) may have an iteration ending now still
    /// pending: it is processed on the way, and the clock still moves on.
    pub fn advance_one_iteration(&mut self) {
        let start = self.now;
        while let Some((t, kind)) = self.events.peek() {
            self.process_next();
            if t > start && matches!(kind, EventKind::Replica { w: Wakeup::StepEnd, .. }) {
                return;
            }
        }
    }

    /// Runs until every request has ended.
    pub fn run_to_end(&mut self) -> Summary {
        while !self.events.is_empty() {
            self.process_next();
        }
        self.summary()
    }

    /// Accounts the time series up to `t` (the state has been constant since the last event).
    fn sample_to(&mut self, t: Micros) {
        let o = self.occupied;
        let kv = if o.kv_capacity > 0 { o.kv_used as f64 / o.kv_capacity as f64 } else { 0.0 };
        self.rec.borrow_mut().series.advance(t, o.queued as f64, o.running as f64, kv);
    }

    fn process_next(&mut self) {
        let Some((time, kind)) = self.events.pop() else { return };
        debug_assert!(time >= self.now, "time went backwards");
        self.sample_to(time);
        self.now = time;
        self.events_processed += 1;
        let at = match kind {
            EventKind::Arrival { class } => {
                let c = class as usize;
                let source = &mut self.sources[c];
                let (input, output, next) = source.take(time);
                let (group, row_session) = (source.last_group, source.last_session);
                if let Some(t) = next {
                    self.events.push(t, EventKind::Arrival { class });
                }
                let mut prefix = group.map_or(Prefix::None, Prefix::Group);
                let mut input = input;
                if let Some(sessions) = self.sessions.as_mut() {
                    if let Some(id) = row_session {
                        // a trace's turn: sent now, or held until the previous turn's answer
                        match sessions.trace_row(c, id, input, output) {
                            Some((slot, prompt)) => (prefix, input) = (Prefix::Session(slot), prompt),
                            None => return self.end_of_instant(time),
                        }
                    } else if sessions.is_session_class(c) {
                        let think = self.scenario.classes[c].session.as_ref().map_or(0.0, |s| s.think_time_ms);
                        prefix = Prefix::Session(sessions.start(c, input, output, think));
                    }
                }
                self.send(time, c, input, output, prefix)
            }
            EventKind::Turn { slot } => {
                let sessions = self.sessions.as_mut().expect("turns only with conversations");
                let sources = &self.sources;
                let (c, prompt, output) = sessions.next_turn(slot, |c, rng| sources[c].turn_lengths(rng));
                self.send(time, c, prompt, output, Prefix::Session(slot))
            }
            EventKind::Replica { at, w } => {
                self.replicas[at as usize].wake(time, w);
                at as usize
            }
            EventKind::Transfer { slot } => self.transfer_arrived(time, slot),
        };
        self.settle(at);
        self.end_of_instant(time);
    }

    /// Each replica called at this instant decides once every event of the instant is in
    /// (simultaneous arrivals can share a batch).
    fn end_of_instant(&mut self, time: Micros) {
        if self.events.peek().is_none_or(|(t, _)| t > time) {
            let touched = std::mem::replace(&mut self.touched, std::mem::take(&mut self.touched_after));
            for &i in &touched {
                self.replicas[i as usize].schedule(time);
                self.settle(i as usize);
            }
            self.touched_after = std::mem::replace(&mut self.touched, touched);
            self.touched_after.clear();
            self.touched.clear();
        }
    }

    /// Sends request (class, prompt, output) to the replica the router picks; returns it.
    fn send(&mut self, now: Micros, class: usize, input: u32, output: u32, prefix: Prefix) -> usize {
        let at = self.route(class, prefix);
        let id = self.next_id;
        self.next_id += 1;
        self.replicas[at].admit_arrival(now, id, class, input, output, prefix);
        at
    }

    /// The replica for a request of `class` whose prompt starts with `prefix`: the router's
    /// pick.
    fn route(&mut self, class: usize, prefix: Prefix) -> usize {
        let n = self.arrival_pool;
        if n == 1 {
            return 0;
        }
        // each policy's own figures (the others are left at zero)
        let policy = self.scenario.router.policy;
        let (affinity, kv) = (policy == Policy::PrefixAffinity, policy == Policy::LeastKv);
        for (i, (r, o)) in self.replicas[..n].iter().zip(&self.occupancy).enumerate() {
            self.loads[i] = Load {
                outstanding: o.queued + o.running,
                kv_used: if kv && o.kv_capacity > 0 { o.kv_used as f64 / o.kv_capacity as f64 } else { 0.0 },
                cached_blocks: if affinity { r.cached_prefix_blocks(class, prefix) } else { 0 },
            };
        }
        let route = self.router.route(&self.loads[..n]);
        match route.reason {
            Reason::Affinity => self.routed.by_affinity += 1,
            Reason::OverCap => self.routed.over_cap += 1,
            Reason::NoneCached => self.routed.none_cached += 1,
            Reason::Policy => {}
        }
        route.replica
    }

    /// After a call into replica `at`: turns what it asked for into events (in the order it
    /// asked), updates its occupancy, and marks it for this instant's scheduling.
    fn settle(&mut self, at: usize) {
        for fx in self.replicas[at].drain_effects() {
            match fx {
                Effect::Wake(t, w) => self.events.push(t, EventKind::Replica { at: at as u16, w }),
                Effect::Ended { class, session, completed } => {
                    if let (Some(slot), Some(sessions)) = (session, self.sessions.as_mut()) {
                        match sessions.turn_ended(slot, completed, self.now) {
                            AfterTurn::Next(t) => {
                                self.events.push(t, EventKind::Turn { slot });
                                continue;
                            }
                            AfterTurn::Wait => continue,
                            AfterTurn::Closed { dropped } => {
                                self.total_requests -= dropped;
                                self.closing.push(slot);
                            }
                        }
                    }
                    // closed loop: the user thinks, then sends the next request
                    if let Some(t) = self.sources[class as usize].next_user_arrival(self.now) {
                        self.events.push(t, EventKind::Arrival { class });
                    }
                }
                Effect::Prefilled(h) => {
                    if let Some(pd) = self.pd.as_mut() {
                        pd.ready.push((at as u16, h));
                    }
                }
            }
        }
        if self.pd.as_ref().is_some_and(|pd| !pd.ready.is_empty()) {
            self.send_prefilled();
        }
        while let Some(slot) = self.closing.pop() {
            self.replicas.iter_mut().for_each(|r| r.end_session(slot));
        }
        let new = self.replicas[at].occupancy();
        let old = std::mem::replace(&mut self.occupancy[at], new);
        self.occupied = add(sub(self.occupied, old), new);
        if !self.touched.contains(&(at as u16)) {
            self.touched.push(at as u16);
        }
    }

    /// Disaggregation: sends the KV of each prompt just prefilled to a decode replica (the
    /// fewest requests queued, running and on their way; ties in turn), queued on the links.
    fn send_prefilled(&mut self) {
        let Some(pd) = self.pd.as_mut() else { return };
        let first = self.arrival_pool;
        let bytes_per_token = self.replicas[0].plan().kv_bytes_per_token;
        for (from, h) in std::mem::take(&mut pd.ready) {
            for (i, o) in self.occupancy[first..].iter().enumerate() {
                let outstanding = o.queued + o.running + pd.incoming[first + i];
                self.loads[i] = Load { outstanding, ..Load::default() };
            }
            let to = first + pd.router.route(&self.loads[..self.replicas.len() - first]).replica;
            let input = self.replicas[from as usize].reqs[h].input;
            let sent_on = pd.links.send(self.now, from as usize, to, input as f64 * bytes_per_token);
            let arrives = sent_on.arrives;
            pd.incoming[to] += 1;
            let t = Some(Transfer { from, to: to as u16, h, sent: self.now, sent_on });
            let slot = match pd.free.pop() {
                Some(slot) => {
                    pd.transfers[slot as usize] = t;
                    slot
                }
                None => {
                    pd.transfers.push(t);
                    pd.transfers.len() as u32 - 1
                }
            };
            self.events.push(arrives, EventKind::Transfer { slot });
        }
    }

    /// Disaggregation: a transfer's KV is at its decode replica: the prefill replica frees the
    /// prompt, the decode replica queues it. Returns the decode replica.
    fn transfer_arrived(&mut self, now: Micros, slot: u32) -> usize {
        let pd = self.pd.as_mut().expect("transfers only with disaggregation");
        let t = pd.transfers[slot as usize].take().expect("a transfer under way");
        pd.free.push(slot);
        pd.incoming[t.to as usize] -= 1;
        let req = self.replicas[t.from as usize].release_sent(now, t.h);
        self.settle(t.from as usize);
        self.replicas[t.to as usize].admit_transferred(now, req.id, &req);
        t.to as usize
    }

    /// The summary so far (final once `is_finished`).
    pub fn summary(&self) -> Summary {
        let merged;
        let prefix = match &self.replicas[..] {
            [one] => one.cache_stats(),
            all => {
                merged = merge_cache_stats(all);
                merged.as_deref()
            }
        };
        let live = self.replicas.iter().flat_map(Replica::live_for_summary);
        let kv_peak = self.replicas.iter().map(Replica::kv_peak_tokens).max().unwrap_or(0);
        let usd_per_hour = self.replicas.iter().map(Replica::usd_per_hour).sum();
        let mut s = self.rec.borrow().summary(self.now, live, self.hbm_plan(), kv_peak, usd_per_hour, prefix);
        s.speculative = crate::speculative::Speculation::summary(self.replicas.iter().filter_map(Replica::speculation));
        if self.replicas.len() > 1 {
            let bpt = self.hbm_plan().kv_bytes_per_token;
            let duration = self.now as f64;
            s.replicas = self
                .replicas
                .iter()
                .map(|r| {
                    let st = r.stats();
                    ReplicaSummary {
                        requests: st.arrived + st.received,
                        completed: st.completed,
                        ttft_ms: st.ttft.dist(),
                        kv_peak_bytes: r.kv_peak_tokens() as f64 * bpt,
                        busy_share: if duration > 0.0 { r.busy_us(self.now) as f64 / duration } else { 0.0 },
                        prefix_hit_rate: r.cache_stats().map(|c| {
                            let (p, k) = c.iter().fold((0, 0), |(p, k), s| (p + s.prompt_tokens, k + s.cached_tokens));
                            if p > 0 {
                                k as f64 / p as f64
                            } else {
                                0.0
                            }
                        }),
                    }
                })
                .collect();
            // the router's choice: over the replicas it picks among
            let pool = &s.replicas[..self.arrival_pool];
            let total: u64 = pool.iter().map(|r| r.requests).sum();
            let most = pool.iter().map(|r| r.requests).max().unwrap_or(0);
            let mean = total as f64 / pool.len() as f64;
            s.router = Some(RouterSummary {
                policy: self.scenario.router.policy.name().to_string(),
                imbalance: if total > 0 { most as f64 / mean } else { 1.0 },
                by_affinity: self.routed.by_affinity,
                over_cap: self.routed.over_cap,
                none_cached: self.routed.none_cached,
            });
        }
        if let (Some(pd), Some(d)) = (&self.pd, &self.scenario.disaggregation) {
            s.disaggregation = Some(pd.links.summary(d));
        }
        s
    }

    /// Live requests (queued, prefilling, decoding), replica by replica, in slot order.
    pub fn live_requests(&self) -> Vec<LiveRequest> {
        let mut out = Vec::new();
        for (i, r) in self.replicas.iter().enumerate() {
            let start = out.len();
            out.extend(r.live_requests());
            out[start..].iter_mut().for_each(|l| l.replica = i as u16);
        }
        if let Some(pd) = self.pd.as_ref().filter(|pd| pd.free.len() < pd.transfers.len()) {
            // the prompts whose KV is on the links, by id
            let mut on_link: Vec<(u64, KvTransfer)> = pd
                .transfers
                .iter()
                .flatten()
                .map(|t| {
                    let s = |us: Micros| us as f64 / 1e6;
                    let view = KvTransfer {
                        to: t.to,
                        sent_s: s(t.sent),
                        start_s: s(t.sent_on.start),
                        arrive_s: s(t.sent_on.arrives),
                    };
                    (self.replicas[t.from as usize].reqs[t.h].id, view)
                })
                .collect();
            on_link.sort_unstable_by_key(|(id, _)| *id);
            for l in out.iter_mut().filter(|l| (l.replica as usize) < self.arrival_pool) {
                if let Ok(i) = on_link.binary_search_by_key(&l.id, |(id, _)| *id) {
                    l.transfer = Some(on_link[i].1);
                }
            }
        }
        out
    }

    /// The replica with the most requests queued and running (the first of equals).
    fn busiest(&self) -> &Replica {
        let mut best = 0;
        for (i, o) in self.occupancy.iter().enumerate() {
            let b = &self.occupancy[best];
            if o.queued + o.running > b.queued + b.running {
                best = i;
            }
        }
        &self.replicas[best]
    }

    pub fn snapshot(&self) -> Snapshot {
        let busiest = self.busiest();
        let mut queued = vec![0; self.class_names.len()];
        for r in &self.replicas {
            queued.iter_mut().zip(r.queued()).for_each(|(q, n)| *q += n);
        }
        Snapshot {
            now_s: self.now as f64 / 1e6,
            finished: self.is_finished(),
            restarting_until_s: busiest.restarting_until.map(|t| t as f64 / 1e6),
            requests: self.live_requests(),
            recent: self.recent_endings(),
            queued,
            running: self.occupied.running,
            hbm: busiest.hbm_use(),
            last_step: busiest.last_step,
            limit: busiest.limit(),
            summary: self.summary(),
            replicas: if self.replicas.len() > 1 {
                self.replicas.iter().map(Replica::view).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// What limits the run now (the snapshot's `limit`, without building a snapshot); with
    /// several replicas, the most loaded one's.
    pub fn limit(&self) -> Limit {
        self.busiest().limit()
    }

    /// Internal consistency checks, for tests: requests are conserved on every replica and
    /// overall, and KV stays within bounds on every replica.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (i, r) in self.replicas.iter().enumerate() {
            r.check_invariants().map_err(|e| format!("replica {i}: {e}"))?;
            if self.occupancy[i] != r.occupancy() {
                return Err(format!("replica {i}: occupancy {:?} != tracked {:?}", r.occupancy(), self.occupancy[i]));
            }
        }
        let rec = self.rec.borrow();
        let c = rec.all_counts();
        let sum = |f: fn(&replica::ReplicaStats) -> u64| self.replicas.iter().map(|r| f(r.stats())).sum::<u64>();
        let (arrived, ended, completed) = (sum(|s| s.arrived), sum(|s| s.ended), sum(|s| s.completed));
        if (c.arrived, c.ended(), c.completed) != (arrived, ended, completed) {
            return Err(format!(
                "cluster arrived/ended/completed {}/{}/{} != replicas' {arrived}/{ended}/{completed}",
                c.arrived,
                c.ended(),
                c.completed
            ));
        }
        if arrived != self.next_id {
            return Err(format!("{} requests sent, replicas received {arrived}", self.next_id));
        }
        if let Some(pd) = &self.pd {
            // every prompt being sent is one transfer under way, counted at its destination
            let sending: u64 = self.replicas.iter().map(|r| r.reqs.live().filter(|q| q.sending).count() as u64).sum();
            let under_way = pd.transfers.iter().flatten().count() as u64;
            let incoming: u64 = pd.incoming.iter().sum();
            if sending != under_way || incoming != under_way {
                return Err(format!("{sending} prompts being sent, {under_way} transfers, {incoming} incoming"));
            }
            let (sent, received) = (sum(|s| s.sent), sum(|s| s.received));
            if sent != received || received != pd.links.transfers - under_way {
                return Err(format!(
                    "{sent} prompts sent, {received} received, {} transfers made ({under_way} under way)",
                    pd.links.transfers
                ));
            }
            for (i, r) in self.replicas.iter().enumerate() {
                let prefill = i < self.arrival_pool;
                if prefill && r.stats().completed > 0 || !prefill && r.stats().arrived > 0 {
                    return Err(format!("replica {i} did the other pool's work"));
                }
            }
        }
        Ok(())
    }
}

fn add(a: Occupancy, b: Occupancy) -> Occupancy {
    Occupancy {
        queued: a.queued + b.queued,
        running: a.running + b.running,
        kv_used: a.kv_used + b.kv_used,
        kv_capacity: a.kv_capacity + b.kv_capacity,
    }
}

fn sub(a: Occupancy, b: Occupancy) -> Occupancy {
    Occupancy {
        queued: a.queued - b.queued,
        running: a.running - b.running,
        kv_used: a.kv_used - b.kv_used,
        kv_capacity: a.kv_capacity - b.kv_capacity,
    }
}

/// Prefix caching over several replicas: each class's counts summed.
fn merge_cache_stats(replicas: &[Replica]) -> Option<Vec<CacheStats>> {
    let mut out: Option<Vec<CacheStats>> = None;
    for st in replicas.iter().filter_map(Replica::cache_stats) {
        let acc = out.get_or_insert_with(|| vec![CacheStats::default(); st.len()]);
        for (a, s) in acc.iter_mut().zip(st) {
            a.prompt_tokens += s.prompt_tokens;
            a.cached_tokens += s.cached_tokens;
            a.evicted_blocks += s.evicted_blocks;
        }
    }
    out
}
