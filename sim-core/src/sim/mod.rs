//! The simulation: a driver that owns the clock, the event queue and the workload, and one
//! replica (the serving engine) it calls at each event.
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
pub use view::{Ending, HbmUse, Limit, LiveRequest, RecentEnding, Snapshot, StepInfo};

use crate::catalog::{GpuSpec, ModelSpec};
use crate::memory::HbmPlan;
use crate::metrics::{Sample, Summary};
use crate::perf::StepModel;
use crate::scenario::{Arrival, Scenario, ScenarioError};
use crate::workload::{builtin_trace, ClassSource, Trace};
use events::{Effect, EventKind, EventQueue, Wakeup};
use replica::Replica;

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
    now: Micros,
    events: EventQueue,
    events_processed: u64,
    sources: Vec<ClassSource>,
    total_requests: u64,
    replica: Replica,
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
        for (i, c) in scenario.classes.iter().enumerate() {
            let trace = match &c.arrival {
                Arrival::Trace { path, .. } => {
                    let field = format!("classes[{i}].arrival.path");
                    let text = traces.load(path).map_err(|m| ScenarioError::one(&field, m))?;
                    let trace = Trace::parse(&text, &field)?;
                    check_trace_groups(&trace, c, &field)?;
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
        Ok(Simulation {
            replica: Replica::new(scenario, plan, step_model, &opts),
            model,
            gpu,
            now: 0,
            events,
            events_processed: 0,
            total_requests: sources.iter().map(|c| c.remaining).sum(),
            sources,
            scenario: scenario.clone(),
        })
    }

    /// Receives every request's record as it ends (for `llmsim run --requests`).
    pub fn set_request_sink(&mut self, sink: RequestSink) {
        self.replica.recorder_mut().sink = Some(sink);
    }

    /// Sees every continuous-batching plan before it is applied (for tests of the scheduler).
    pub fn set_plan_observer(&mut self, observer: PlanObserver) {
        self.replica.set_plan_observer(observer);
    }

    /// Standard deviation of every inter-token gap so far, in ms (from the ITL histogram).
    pub fn itl_std_ms(&self) -> f64 {
        self.replica.recorder().total.itl.std_ms()
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
    pub fn hbm_plan(&self) -> &HbmPlan {
        self.replica.plan()
    }
    pub fn step_model(&self) -> &StepModel {
        self.replica.step_model()
    }
    pub fn now(&self) -> Micros {
        self.now
    }
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    /// Requests the scenario will send in all.
    pub fn total_requests(&self) -> u64 {
        self.total_requests
    }
    /// Share of all requests that have ended, 0..=1.
    pub fn progress(&self) -> f64 {
        if self.total_requests == 0 {
            1.0
        } else {
            self.replica.recorder().ended_count() as f64 / self.total_requests as f64
        }
    }
    pub fn class_names(&self) -> &[String] {
        self.replica.recorder().class_names()
    }
    /// No event left: every request has ended.
    pub fn is_finished(&self) -> bool {
        self.events.is_empty()
    }
    /// The request counts of all traffic so far, without building a summary (`in_flight` is not
    /// filled in): what a caller watching for a first rejection or preemption reads each event.
    pub fn counts(&self) -> crate::metrics::Counts {
        self.replica.recorder().total.counts
    }
    pub fn series(&self) -> &[Sample] {
        &self.replica.recorder().series.samples
    }
    /// Recent endings and preemptions, oldest first (`snapshot().recent` without a snapshot).
    pub fn recent_endings(&self) -> impl Iterator<Item = &RecentEnding> + '_ {
        self.replica.recorder().recent()
    }
    /// Empirical CDF points (ms, fraction) of TTFT for a class, or all classes with `None`.
    pub fn ttft_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.replica.recorder();
        class.and_then(|c| rec.metrics.get(c)).unwrap_or(&rec.total).ttft_cdf(points)
    }
    /// The TTFT CDF over every request that arrived (`Summary`'s `ttft_ms_censored` as a curve):
    /// requests that timed out, were rejected or lost count at their wait, those still waiting at
    /// their age — a lower bound on the curve the answers would have made. Points `(ms, share)`.
    pub fn ttft_cdf_censored(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let live = self.replica.live_for_summary();
        self.replica.recorder().ttft_cdf_censored(self.now, live, class, points)
    }
    pub fn tpot_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.replica.recorder();
        class.and_then(|c| rec.metrics.get(c)).unwrap_or(&rec.total).tpot_cdf(points)
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
            self.replica.sample_to(t);
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

    /// Advances to the end of the next scheduler iteration (the "step" button).
    pub fn advance_one_iteration(&mut self) {
        while let Some((_, kind)) = self.events.peek() {
            self.process_next();
            if kind == EventKind::Replica(Wakeup::StepEnd) {
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

    fn process_next(&mut self) {
        let Some((time, kind)) = self.events.pop() else { return };
        debug_assert!(time >= self.now, "time went backwards");
        self.replica.sample_to(time);
        self.now = time;
        self.events_processed += 1;
        match kind {
            EventKind::Arrival { class } => {
                let source = &mut self.sources[class as usize];
                let (input, output, next) = source.take(time);
                let group = source.last_group;
                if let Some(t) = next {
                    self.events.push(t, EventKind::Arrival { class });
                }
                self.replica.admit_arrival(time, class as usize, input, output, group);
            }
            EventKind::Replica(w) => self.replica.wake(time, w),
        }
        self.apply_effects();
        // The scheduler decides once every event of this instant is in (simultaneous arrivals
        // can share a batch).
        if self.events.peek().is_none_or(|(t, _)| t > time) {
            self.replica.schedule(time);
            self.apply_effects();
        }
    }

    /// Turns what the replica asked for into events, in the order it asked.
    fn apply_effects(&mut self) {
        for fx in self.replica.drain_effects() {
            match fx {
                Effect::Wake(t, w) => self.events.push(t, EventKind::Replica(w)),
                Effect::Ended { class } => {
                    // closed loop: the user thinks, then sends the next request
                    if let Some(t) = self.sources[class as usize].next_user_arrival(self.now) {
                        self.events.push(t, EventKind::Arrival { class });
                    }
                }
            }
        }
    }

    /// The summary so far (final once `is_finished`).
    pub fn summary(&self) -> Summary {
        self.replica.summary(self.now)
    }

    /// Live requests (queued, prefilling, decoding), in slot order.
    pub fn live_requests(&self) -> Vec<LiveRequest> {
        self.replica.live_requests()
    }

    pub fn snapshot(&self) -> Snapshot {
        self.replica.snapshot(self.now, self.is_finished())
    }

    /// What limits the run now (the snapshot's `limit`, without building a snapshot).
    pub fn limit(&self) -> Limit {
        self.replica.limit()
    }

    /// Internal consistency checks, for tests: counts add up and KV stays within bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.replica.check_invariants()
    }
}
