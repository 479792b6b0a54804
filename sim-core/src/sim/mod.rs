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
//! | `time` | simulated time: integer microseconds |
//! | `events` | the event queue, what a replica asks of its driver |
//! | `requests` | request slots and handles, the wait queues |
//! | `kv` | the KV pool: units, batch slots, per-class reservations, watermark |
//! | `decode` | the decode group: lockstep decoding in O(1) per iteration |
//! | `prefix` | prefix caching: shared prompt blocks as chains, reference counts, LRU eviction |
//! | `static_batch` | static batching's batch: its members and the work of its next step |
//! | `record` | per-request metrics, the time series, recent endings, the summary |
//! | `view` | what the page reads, as plain values: snapshots, live requests, the HBM split |
//! | `state` | a replica read-only (`State`): what the planner reads, the page's readings of it |
//! | `plan` | an iteration (continuous) or the next batch (static) planned as a value from a `State` |
//! | `replica` | one serving engine, driven by the calls above; private state its own methods change |
//! | `transfer` | disaggregation in the driver: the links, the KV transfers under way |
//! | `observe` | reading the driver: accessors, the summary, live requests, snapshots, checks |
//!
//! An arriving request goes to the replica the router picks ([`crate::cluster::Router`]) from
//! each replica's load at that instant. With prefill/decode disaggregation ([`crate::disagg`])
//! the router picks among the prefill replicas; a prefilled prompt's KV then crosses the links
//! (an event when it arrives) to the decode replica with the fewest requests queued, running
//! and on their way to it.

mod decode;
mod events;
mod kv;
mod observe;
mod plan;
mod prefix;
mod record;
mod replica;
mod requests;
mod state;
mod static_batch;
pub(crate) mod time;
mod transfer;
mod view;

pub use plan::{BatchWait, IterationPlan, PlanContext, PlanObserver, PlannedChunk, PlannedPreemption};
pub use record::RequestSink;
pub use replica::MAX_OOM_RETRIES;
pub use requests::Phase;
pub use time::Micros;
pub use view::{
    AdmitStop, Ending, HbmUse, KvTransfer, Limit, LiveRequest, Pool, RecentEnding, ReplicaView, Snapshot, StepInfo,
};

use crate::catalog::{GpuSpec, ModelSpec};
use crate::cluster::{kv_share, Load, Policy, Reason, Router, RouterConfig};
use crate::disagg::Links;
use crate::frontend::FrontEnd;
use crate::memory::HbmPlan;
use crate::metrics::Summary;
use crate::perf::StepModel;
use crate::scenario::{Arrival, Scenario, ScenarioError};
use crate::session::{AfterTurn, Sessions};
use crate::workload::{builtin_trace, ClassSource, Trace};
use events::{Effect, EventKind, EventQueue, Wakeup};
use prefix::Prefix;
use record::{Recorder, SharedRecorder};
use replica::{Occupancy, Replica};
use requests::Way;
use std::cell::RefCell;
use std::rc::Rc;
use transfer::Disagg;

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
    /// The serving front end (`crate::frontend`), when it delays anything, and the requests on
    /// their way through it.
    front: Option<Box<Front>>,
}

/// The front end and the requests between their client and the engines.
struct Front {
    delays: FrontEnd,
    on_the_way: Vec<OnTheWay>,
    free: Vec<u32>,
}

/// A request sent by its client, not yet at the engines.
#[derive(Clone, Copy)]
struct OnTheWay {
    class: u16,
    input: u32,
    output: u32,
    prefix: Prefix,
    way: Way,
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
        // each replica's memory plan and step model on its own tensor parallelism (with
        // disaggregation, its pool's): one per tensor-parallel size, shared by its replicas
        let n = scenario.replica_count();
        let mut roles: Vec<(Scenario, HbmPlan, StepModel)> = Vec::new();
        for i in 0..n {
            if roles.iter().any(|r| r.0.num_gpus == scenario.replica_num_gpus(i)) {
                continue;
            }
            let role = scenario.replica_scenario(i);
            let plan = HbmPlan::of_replica(scenario, i, &model, &gpu)?;
            let step = StepModel::new(&model, &gpu, role.num_gpus, role.dtype, plan.kv_traffic(), &role.engine);
            roles.push((role, plan, step));
        }
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
        let replicas: Vec<Replica> = (0..n)
            .map(|i| {
                let (role, plan, step) = roles
                    .iter()
                    .find(|r| r.0.num_gpus == scenario.replica_num_gpus(i))
                    .expect("every replica's pool has its plan");
                Replica::new(role, i, plan.clone(), step.clone(), rec.clone(), caches)
            })
            .collect();
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
            front: FrontEnd::new(&scenario.engine, scenario.seed)
                .map(|delays| Box::new(Front { delays, on_the_way: Vec::new(), free: Vec::new() })),
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
                let (sent, next) = source.arrive(time);
                let (group, row_session) = (source.last_group, source.last_session);
                if let Some(t) = next {
                    self.events.push(t, EventKind::Arrival { class });
                }
                // at its class's cap the request waits at the client
                let Some((input, output)) = sent else { return self.end_of_instant(time) };
                let mut prefix = group.map_or(Prefix::None, Prefix::Group);
                let mut input = input;
                if let Some(sessions) = self.sessions.as_mut() {
                    if let Some(id) = row_session {
                        // a trace's turn: sent now, or held until the previous turn's answer
                        match sessions.trace_row(c, id, input, output, group) {
                            Some((slot, prompt)) => {
                                (prefix, input) = (Prefix::Session { slot, group: sessions.group(slot) }, prompt)
                            }
                            None => return self.end_of_instant(time),
                        }
                    } else if sessions.is_session_class(c) {
                        let think = self.scenario.classes[c].session.as_ref().map_or(0.0, |s| s.think_time_ms);
                        let slot = sessions.start(c, input, output, think);
                        prefix = Prefix::Session { slot, group: sessions.group(slot) };
                    }
                }
                match self.through_front_end(time, c, input, output, prefix) {
                    Some(at) => at,
                    None => return self.end_of_instant(time),
                }
            }
            EventKind::Turn { slot } => {
                let sessions = self.sessions.as_mut().expect("turns only with conversations");
                let sources = &self.sources;
                let (c, prompt, output) = sessions.next_turn(slot, |c, rng| sources[c].turn_lengths(rng));
                let prefix = Prefix::Session { slot, group: sessions.group(slot) };
                match self.through_front_end(time, c, prompt, output, prefix) {
                    Some(at) => at,
                    None => return self.end_of_instant(time),
                }
            }
            EventKind::Reach { slot } => {
                let front = self.front.as_mut().expect("requests reach the engines only through a front end");
                let r = front.on_the_way[slot as usize];
                front.free.push(slot);
                self.send(time, r.class as usize, r.input, r.output, r.prefix, r.way)
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

    /// A client sends request (class, prompt, output) at `now`: without a front end it reaches
    /// the engines at once (the replica it went to is returned); through one it is on its way
    /// until its delay has passed (`None`).
    fn through_front_end(
        &mut self,
        now: Micros,
        class: usize,
        input: u32,
        output: u32,
        prefix: Prefix,
    ) -> Option<usize> {
        let Some(front) = self.front.as_mut() else {
            return Some(self.send(now, class, input, output, prefix, Way { sent: now, to_client: 0 }));
        };
        let d = front.delays.draw(now, input);
        let r = OnTheWay { class: class as u16, input, output, prefix, way: Way { sent: now, to_client: d.to_client } };
        let slot = match front.free.pop() {
            Some(s) => {
                front.on_the_way[s as usize] = r;
                s
            }
            None => {
                front.on_the_way.push(r);
                front.on_the_way.len() as u32 - 1
            }
        };
        self.events.push(now + d.to_engine, EventKind::Reach { slot });
        None
    }

    /// Sends request (class, prompt, output), sent by its client as `way` says, to the replica
    /// the router picks; returns it.
    fn send(&mut self, now: Micros, class: usize, input: u32, output: u32, prefix: Prefix, way: Way) -> usize {
        let at = self.route(class, prefix);
        let id = self.next_id;
        self.next_id += 1;
        self.replicas[at].admit_arrival(now, id, class, input, output, prefix, way);
        at
    }

    /// The replica for a request of `class` whose prompt starts with `prefix`: the router's
    /// pick.
    fn route(&mut self, class: usize, prefix: Prefix) -> usize {
        let n = self.arrival_pool;
        if n == 1 {
            return 0;
        }
        // the figures the policy reads (the costly ones it does not are left at zero)
        let read = self.router.figures();
        for (i, (r, o)) in self.replicas[..n].iter().zip(&self.occupancy).enumerate() {
            self.loads[i] = Load {
                outstanding: o.queued + o.running,
                kv_used: if read.kv_in_use { kv_share(o.kv_used, o.kv_capacity) } else { 0.0 },
                cached_blocks: if read.prefix_chain { r.cached_prefix_blocks(class, prefix) } else { 0 },
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
                Effect::Ended { class, session, completed, to_client } => {
                    // the client hears of the ending this much later
                    let heard = self.now + to_client as u64;
                    // a request waiting at the client at its class's cap is sent then
                    if session.is_none() && self.sources[class as usize].ended() {
                        self.events.push(heard, EventKind::Arrival { class });
                    }
                    if let (Some(slot), Some(sessions)) = (session, self.sessions.as_mut()) {
                        match sessions.turn_ended(slot, completed, heard) {
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
                    if let Some(t) = self.sources[class as usize].next_user_arrival(heard) {
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
