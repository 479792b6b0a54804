//! The simulation: one event type, one loop.
//!
//! Simulated time is an integer number of microseconds. Events (an arrival, the end of a
//! scheduler iteration, a queue timeout, the end of a static batch's fill window, the end of an
//! OOM restart) sit in one priority queue ordered by time and then by the order they were made,
//! so a run is a pure function of its scenario.
//!
//! Sequences that are decoding advance in lockstep, one token per iteration, so the engine keeps
//! them as a *decode group*: a global decode-step counter `k` and, per sequence, the step it
//! joined at. Context sums, KV block growth (by block phase), inter-token gaps and finishes are
//! then updated in O(1) per iteration plus O(log n) per sequence event, whatever the batch size.

use crate::catalog::{GpuSpec, ModelSpec};
use crate::memory::HbmPlan;
use crate::metrics::{ClassMetrics, Outcome, RequestRecord, Sample, Series, Summary};
use crate::perf::{BatchWork, StepModel};
use crate::scenario::{Arrival, Batching, KvLayout, Scenario, ScenarioError};
use crate::workload::{builtin_trace, ClassSource, Trace};
use kv::{KvPool, PoolConfig};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

mod kv;

/// Simulated time in microseconds.
pub type Micros = u64;

/// Resends of one request after OOM restarts before its client gives up.
pub const MAX_OOM_RETRIES: u32 = 3;

/// Where a live request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Queued,
    Prefill,
    Decode,
}

/// A request's end, for the stage's recent-events list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Completed,
    Rejected,
    TimedOut,
    Failed,
    /// Not an end: sent back to the queue to be recomputed.
    Preempted,
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Arrival { class: u16 },
    StepEnd,
    Timeout { slot: u32, gen: u32 },
    BatchWindow,
    RestartDone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    time: Micros,
    seq: u64,
    kind: EventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Handle {
    slot: u32,
    gen: u32,
}

#[derive(Clone, Debug)]
struct Req {
    id: u64,
    gen: u32,
    live: bool,
    class: u16,
    arrival: Micros,
    input: u32,
    output: u32,
    phase: Phase,
    /// Tokens to compute before decoding (the prompt, or prompt + generated after preemption).
    prefill_target: u32,
    prefilled: u32,
    /// Tokens emitted so far (outside the decode group; inside it, see `generated()`).
    generated: u32,
    first_scheduled: Option<Micros>,
    first_token: Option<Micros>,
    /// KV units held (blocks for paged, tokens for contiguous).
    units: u64,
    preemptions: u32,
    /// Times this request was resent after an OOM restart.
    retries: u32,
    admit_order: u64,
    // decode group membership
    dec_k0: u64,
    dec_gen0: u32,
    join_id: u64,
    /// Static batching: done generating, waiting for the batch to end.
    static_done: bool,
}

/// Live request as the stage sees it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LiveRequest {
    pub id: u64,
    pub class: u16,
    pub phase: Phase,
    pub arrival_s: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// Prompt tokens computed (of `prefill_target`).
    pub prefilled: u32,
    pub prefill_target: u32,
    /// Output tokens generated so far.
    pub generated: u32,
    pub preemptions: u32,
    /// KV tokens this request holds, and the tokens its allocation could hold.
    pub kv_tokens: u64,
    pub kv_reserved_tokens: u64,
}

/// A request that recently ended or was preempted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RecentEnding {
    pub id: u64,
    pub class: u16,
    pub ending: Ending,
    pub at_s: f64,
}

/// HBM split for the gauge, bytes summed over the replica's GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HbmUse {
    pub capacity: f64,
    pub weights: f64,
    pub activations: f64,
    /// KV holding tokens.
    pub kv_used: f64,
    /// KV allocated but empty: the tail of paged blocks, or contiguous over-reservation.
    pub kv_waste: f64,
    /// KV pool not allocated.
    pub kv_free: f64,
    /// Beyond gpu_memory_utilization. Negative while an over-committed server eats into it.
    pub headroom: f64,
    pub utilization_limit: f64,
}

impl HbmUse {
    /// Share of the capacity allocated now: weights, activations and the KV cache in use or
    /// reserved (what a memory monitor would report as used). 0 without capacity.
    pub fn allocated_share(&self) -> f64 {
        if self.capacity > 0.0 {
            (self.weights + self.activations + self.kv_used + self.kv_waste) / self.capacity
        } else {
            0.0
        }
    }
}

/// What the last iteration did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepInfo {
    pub start_s: f64,
    pub duration_ms: f64,
    pub prefill_tokens: u64,
    pub decode_seqs: u64,
    pub compute_bound_share: f64,
}

/// Everything the UI draws at one moment. Its size depends on live requests only.
#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub now_s: f64,
    pub finished: bool,
    /// Server down for an OOM restart until this time.
    pub restarting_until_s: Option<f64>,
    pub requests: Vec<LiveRequest>,
    pub recent: Vec<RecentEnding>,
    /// Requests waiting, per class.
    pub queued: Vec<u64>,
    pub running: u64,
    pub hbm: HbmUse,
    pub last_step: StepInfo,
    pub summary: Summary,
}

struct DecodeGroup {
    /// Decode iterations completed.
    k: u64,
    n: u64,
    n_class: Vec<u64>,
    /// Σ KV tokens of members after the last completed step.
    ctx_sum: u64,
    /// Members per class and block phase: member crosses into a new block at step k when
    /// (phase + k) % block == 0.
    phase_count: Vec<Vec<u64>>,
    /// Members whose last token is not the group's last decode step (just joined).
    fresh: Vec<(Handle, Micros)>,
    last_decode_end: Micros,
    finishes: BinaryHeap<Reverse<(u64, u32, u64)>>,
    next_join_id: u64,
}

struct StaticBatch {
    members: Vec<Handle>,
    /// Members' outputs, ascending, for ITL counts.
    outputs_sorted: Vec<u32>,
    p_max: u32,
    o_max: u32,
    /// Decode steps done (0 = prefill not yet done).
    step: u32,
    prefill_done: bool,
}

struct InFlightStep {
    prefills: Vec<(Handle, u32)>,
    decode: bool,
    /// Blocks allocated at the start of this step for decode members' next token.
    growth_units: u64,
}

/// A running simulation. Build it from a scenario, advance it, read snapshots or a summary.
pub struct Simulation {
    scenario: Scenario,
    model: ModelSpec,
    gpu: GpuSpec,
    plan: HbmPlan,
    step_model: StepModel,
    opts: SimOptions,
    now: Micros,
    events: BinaryHeap<Reverse<Event>>,
    event_seq: u64,
    events_processed: u64,
    sources: Vec<ClassSource>,
    total_requests: u64,
    class_names: Vec<String>,
    slo: Vec<crate::scenario::Slo>,
    priority: Vec<u32>,
    reqs: Vec<Req>,
    free_slots: Vec<u32>,
    next_id: u64,
    /// One queue (shared FCFS) or one per class (isolation).
    queues: Vec<VecDeque<Handle>>,
    queued: Vec<u64>,
    queued_total: u64,
    /// Running (admitted) requests per class, by admission order.
    running: Vec<BTreeMap<u64, u32>>,
    prefilling: Vec<Handle>,
    admit_counter: u64,
    group: DecodeGroup,
    static_batch: Option<StaticBatch>,
    /// Static batching: time of the pending fill-window event.
    window_at: Option<Micros>,
    step: Option<InFlightStep>,
    restarting_until: Option<Micros>,
    pool: KvPool,
    /// KV tokens held by sequences outside the decode group (queued hold none).
    loose_tokens: u64,
    peak_running: u64,
    waste_acc: f64,
    waste_iters: u64,
    metrics: Vec<ClassMetrics>,
    total: ClassMetrics,
    series: Series,
    recent: VecDeque<RecentEnding>,
    last_step: StepInfo,
    sink: Option<RequestSink>,
}

/// Receives each request's record as it ends.
pub type RequestSink = Box<dyn FnMut(&RequestRecord)>;

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
            StepModel::new(&model, &gpu, scenario.num_gpus, scenario.dtype, plan.kv_bytes_per_token, &scenario.engine);
        let nclass = scenario.classes.len();
        let mut sources = Vec::with_capacity(nclass);
        for (i, c) in scenario.classes.iter().enumerate() {
            let trace = match &c.arrival {
                Arrival::Trace { path, .. } => {
                    let field = format!("classes[{i}].arrival.path");
                    let text = traces.load(path).map_err(|m| ScenarioError::one(&field, m))?;
                    Some(Trace::parse(&text, &field)?)
                }
                _ => None,
            };
            sources.push(ClassSource::new(scenario.seed, i, c, trace));
        }
        let nqueues = if scenario.scheduler.isolation { nclass } else { 1 };
        let pool = KvPool::new(PoolConfig::from_scenario(scenario, &plan));
        let unit_tokens = pool.unit_tokens();
        let mut sim = Simulation {
            model,
            gpu,
            plan,
            step_model,
            now: 0,
            events: BinaryHeap::new(),
            event_seq: 0,
            events_processed: 0,
            class_names: scenario.classes.iter().map(|c| c.name.clone()).collect(),
            slo: scenario.classes.iter().map(|c| c.slo.clone()).collect(),
            priority: scenario.classes.iter().map(|c| c.priority).collect(),
            total_requests: sources.iter().map(|c| c.remaining).sum(),
            sources,
            reqs: Vec::new(),
            free_slots: Vec::new(),
            next_id: 0,
            queues: vec![VecDeque::new(); nqueues],
            queued: vec![0; nclass],
            queued_total: 0,
            running: vec![BTreeMap::new(); nclass],
            prefilling: Vec::new(),
            admit_counter: 0,
            group: DecodeGroup {
                k: 0,
                n: 0,
                n_class: vec![0; nclass],
                ctx_sum: 0,
                phase_count: vec![vec![0; unit_tokens as usize]; nclass],
                fresh: Vec::new(),
                last_decode_end: 0,
                finishes: BinaryHeap::new(),
                next_join_id: 1,
            },
            static_batch: None,
            window_at: None,
            step: None,
            restarting_until: None,
            pool,
            loose_tokens: 0,
            peak_running: 0,
            waste_acc: 0.0,
            waste_iters: 0,
            metrics: (0..nclass).map(|_| ClassMetrics::new()).collect(),
            total: ClassMetrics::new(),
            series: Series::new(opts.sample_interval_us, opts.max_samples),
            recent: VecDeque::with_capacity(opts.recent_capacity),
            last_step: StepInfo::default(),
            sink: None,
            opts,
            scenario: scenario.clone(),
        };
        for c in 0..nclass {
            for t in sim.sources[c].first_arrivals() {
                sim.push(t, EventKind::Arrival { class: c as u16 });
            }
        }
        Ok(sim)
    }

    /// Receives every request's record as it ends (for `llmsim run --requests`).
    pub fn set_request_sink(&mut self, sink: RequestSink) {
        self.sink = Some(sink);
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
        &self.plan
    }
    pub fn step_model(&self) -> &StepModel {
        &self.step_model
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
            self.total.ended() as f64 / self.total_requests as f64
        }
    }
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// No event left: every request has ended.
    pub fn is_finished(&self) -> bool {
        self.events.is_empty()
    }
    pub fn series(&self) -> &[Sample] {
        &self.series.samples
    }
    /// Recent endings and preemptions, oldest first (`snapshot().recent` without a snapshot).
    pub fn recent_endings(&self) -> impl Iterator<Item = &RecentEnding> + '_ {
        self.recent.iter()
    }
    /// Empirical CDF points (ms, fraction) of TTFT for a class, or all classes with `None`.
    pub fn ttft_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        class.and_then(|c| self.metrics.get(c)).unwrap_or(&self.total).ttft_cdf(points)
    }
    pub fn tpot_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        class.and_then(|c| self.metrics.get(c)).unwrap_or(&self.total).tpot_cdf(points)
    }
    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Micros> {
        self.events.peek().map(|Reverse(e)| e.time)
    }

    /// Processes every event up to and including `t`, then sets the clock to `t`.
    pub fn advance_to(&mut self, t: Micros) {
        while let Some(Reverse(e)) = self.events.peek() {
            if e.time > t {
                break;
            }
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

    /// Advances to the end of the next scheduler iteration (the "step" button).
    pub fn advance_one_iteration(&mut self) {
        loop {
            let Some(Reverse(e)) = self.events.peek().copied() else { return };
            self.process_next();
            if e.kind == EventKind::StepEnd {
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

    fn push(&mut self, time: Micros, kind: EventKind) {
        self.event_seq += 1;
        self.events.push(Reverse(Event { time, seq: self.event_seq, kind }));
    }

    fn sample_to(&mut self, t: Micros) {
        let kv = self.pool.used_share();
        self.series.advance(t, self.queued_total as f64, self.pool.seqs() as f64, kv);
    }

    fn process_next(&mut self) {
        let Some(Reverse(e)) = self.events.pop() else { return };
        debug_assert!(e.time >= self.now, "time went backwards");
        self.sample_to(e.time);
        self.now = e.time;
        self.events_processed += 1;
        match e.kind {
            EventKind::Arrival { class } => self.on_arrival(class as usize),
            EventKind::StepEnd => self.on_step_end(),
            EventKind::Timeout { slot, gen } => self.on_timeout(Handle { slot, gen }),
            EventKind::BatchWindow => {}
            EventKind::RestartDone => {
                self.restarting_until = None;
            }
        }
        // The scheduler decides once every event of this instant is in (simultaneous arrivals
        // can share a batch).
        if self.events.peek().is_none_or(|Reverse(n)| n.time > self.now) {
            self.try_start_step();
        }
    }

    // ---------------------------------------------------------------- arrivals and queues

    fn alloc_req(&mut self, class: usize, input: u32, output: u32) -> Handle {
        let id = self.next_id;
        self.next_id += 1;
        let req = Req {
            id,
            gen: 0,
            live: true,
            class: class as u16,
            arrival: self.now,
            input,
            output,
            phase: Phase::Queued,
            prefill_target: input,
            prefilled: 0,
            generated: 0,
            first_scheduled: None,
            first_token: None,
            units: 0,
            preemptions: 0,
            retries: 0,
            admit_order: 0,
            dec_k0: 0,
            dec_gen0: 0,
            join_id: 0,
            static_done: false,
        };
        if let Some(slot) = self.free_slots.pop() {
            let gen = self.reqs[slot as usize].gen.wrapping_add(1);
            self.reqs[slot as usize] = Req { gen, ..req };
            Handle { slot, gen }
        } else {
            self.reqs.push(req);
            Handle { slot: self.reqs.len() as u32 - 1, gen: 0 }
        }
    }

    fn get(&self, h: Handle) -> Option<&Req> {
        self.reqs.get(h.slot as usize).filter(|r| r.live && r.gen == h.gen)
    }

    fn queue_index(&self, class: usize) -> usize {
        if self.scenario.scheduler.isolation {
            class
        } else {
            0
        }
    }

    fn on_arrival(&mut self, class: usize) {
        let (input, output, next) = self.sources[class].take(self.now);
        if let Some(t) = next {
            self.push(t, EventKind::Arrival { class: class as u16 });
        }
        let h = self.alloc_req(class, input, output);
        self.metrics[class].counts.arrived += 1;
        self.total.counts.arrived += 1;
        let s = &self.scenario.scheduler;
        let too_long = input as u64 + output as u64 > s.max_model_len as u64;
        let q = self.queue_index(class);
        let qlen = if s.isolation { self.queued[class] } else { self.queued_total };
        let queue_full = s.max_queue_len.is_some_and(|m| qlen >= m as u64);
        let down = self.restarting_until.is_some() && !s.retry_on_oom;
        if too_long || queue_full || down {
            self.end_request(h, Outcome::Rejected);
            return;
        }
        self.queues[q].push_back(h);
        self.queued[class] += 1;
        self.queued_total += 1;
        if let Some(ms) = s.queue_timeout_ms {
            let t = self.now + (ms * 1000.0).round() as u64;
            self.push(t, EventKind::Timeout { slot: h.slot, gen: h.gen });
        }
    }

    fn on_timeout(&mut self, h: Handle) {
        let Some(r) = self.get(h) else { return };
        if r.phase == Phase::Queued && r.first_token.is_none() {
            let class = r.class as usize;
            // left in the queue as a tombstone; skipped when popped
            self.queued[class] -= 1;
            self.queued_total -= 1;
            self.end_request(h, Outcome::TimedOut);
        }
    }

    /// Ends a request that holds no KV and is in no structure except (as a tombstone) a queue.
    fn end_request(&mut self, h: Handle, outcome: Outcome) {
        let now = self.now;
        let r = &mut self.reqs[h.slot as usize];
        debug_assert!(r.live && r.gen == h.gen);
        r.live = false;
        let class = r.class as usize;
        let (queue_us, ttft_us) = (r.first_scheduled.map(|t| t - r.arrival), r.first_token.map(|t| t - r.arrival));
        let e2e_us = now - r.arrival;
        let tpot_us = if r.output > 1 { ttft_us.map(|f| (e2e_us - f) / (r.output as u64 - 1)) } else { None };
        let (input, output, id, arrival, preemptions) = (r.input, r.output, r.id, r.arrival, r.preemptions);
        self.free_slots.push(h.slot);
        let slo = &self.slo[class];
        let good = outcome == Outcome::Completed
            && slo.ttft_ms.is_none_or(|l| ttft_us.is_some_and(|t| t as f64 <= l * 1000.0))
            && slo.tpot_ms.is_none_or(|l| tpot_us.is_none_or(|t| t as f64 <= l * 1000.0))
            && slo.e2e_ms.is_none_or(|l| e2e_us as f64 <= l * 1000.0);
        for m in [&mut self.metrics[class], &mut self.total] {
            match outcome {
                Outcome::Completed => {
                    m.counts.completed += 1;
                    m.output_tokens_done += output as u64;
                    m.input_tokens_done += input as u64;
                    m.e2e.record(e2e_us);
                    if let Some(t) = ttft_us {
                        m.ttft.record(t);
                    }
                    if let Some(t) = tpot_us {
                        m.tpot.record(t);
                    }
                    if let Some(q) = queue_us {
                        m.queue.record(q);
                        if let Some(t) = ttft_us {
                            m.prefill.record(t.saturating_sub(q));
                        }
                    }
                    if good {
                        m.good_requests += 1;
                        m.good_output_tokens += output as u64;
                    }
                }
                Outcome::Rejected => m.counts.rejected += 1,
                Outcome::TimedOut => m.counts.timed_out += 1,
                Outcome::Failed => m.counts.failed += 1,
            }
        }
        if outcome == Outcome::Completed {
            self.series.completed(output as u64, good);
        }
        let ending = match outcome {
            Outcome::Completed => Ending::Completed,
            Outcome::Rejected => Ending::Rejected,
            Outcome::TimedOut => Ending::TimedOut,
            Outcome::Failed => Ending::Failed,
        };
        self.note_recent(id, class, ending);
        if let Some(sink) = self.sink.as_mut() {
            sink(&RequestRecord {
                id,
                class: self.class_names[class].clone(),
                arrival_s: arrival as f64 / 1e6,
                input_tokens: input,
                output_tokens: output,
                outcome,
                queue_ms: queue_us.map(|u| u as f64 / 1000.0),
                ttft_ms: ttft_us.filter(|_| outcome == Outcome::Completed).map(|u| u as f64 / 1000.0),
                tpot_ms: tpot_us.filter(|_| outcome == Outcome::Completed).map(|u| u as f64 / 1000.0),
                e2e_ms: Some(e2e_us as f64 / 1000.0).filter(|_| outcome == Outcome::Completed),
                preemptions,
                met_slo: good,
            });
        }
        // closed loop: the user thinks, then sends the next request
        if let Some(t) = self.sources[class].next_user_arrival(now) {
            self.push(t, EventKind::Arrival { class: class as u16 });
        }
    }

    fn note_recent(&mut self, id: u64, class: usize, ending: Ending) {
        if self.opts.recent_capacity == 0 {
            return;
        }
        if self.recent.len() == self.opts.recent_capacity {
            self.recent.pop_front();
        }
        self.recent.push_back(RecentEnding { id, class: class as u16, ending, at_s: self.now as f64 / 1e6 });
    }

    /// The queued request that would be admitted next: with isolation, by class priority and
    /// then arrival across the class queues (skipping queues marked in `blocked`); otherwise the
    /// head of the shared FCFS queue.
    fn peek_waiting(&mut self, blocked: &[bool]) -> Option<Handle> {
        let mut best: Option<(u32, Micros, usize)> = None;
        for q in 0..self.queues.len() {
            if blocked.get(q).copied().unwrap_or(false) {
                continue;
            }
            // drop tombstones (timed-out requests) at the front
            while let Some(&h) = self.queues[q].front() {
                match self.get(h) {
                    Some(r) if r.phase == Phase::Queued => break,
                    _ => {
                        self.queues[q].pop_front();
                    }
                }
            }
            if let Some(&h) = self.queues[q].front() {
                let r = &self.reqs[h.slot as usize];
                let key = (self.priority[r.class as usize], r.arrival, q);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
        best.and_then(|(_, _, q)| self.queues[q].front().copied())
    }

    fn pop_waiting(&mut self, h: Handle) {
        let class = self.reqs[h.slot as usize].class as usize;
        let q = self.queue_index(class);
        let front = self.queues[q].pop_front();
        debug_assert_eq!(front, Some(h));
        self.queued[class] -= 1;
        self.queued_total -= 1;
    }

    // ---------------------------------------------------------------- KV accounting

    /// KV units a running request holds now. Paged decode members grow in aggregate, so their
    /// holding is computed from their token count.
    fn held_units(&self, r: &Req) -> u64 {
        if r.phase == Phase::Decode
            && self.static_batch.is_none()
            && self.scenario.scheduler.kv_layout == KvLayout::Paged
        {
            self.pool.units_for(self.decode_tokens(r))
        } else {
            r.units
        }
    }

    /// KV tokens a request holds now.
    fn kv_tokens(&self, r: &Req) -> u64 {
        match r.phase {
            Phase::Queued => 0,
            Phase::Prefill => r.prefilled as u64,
            Phase::Decode => self.decode_tokens(r),
        }
    }

    fn decode_tokens(&self, r: &Req) -> u64 {
        r.input as u64 + r.dec_gen0 as u64 - 1 + (self.group.k - r.dec_k0)
    }

    fn generated(&self, r: &Req) -> u32 {
        match r.phase {
            Phase::Decode if !r.static_done && self.static_batch.is_none() => {
                r.dec_gen0 + (self.group.k - r.dec_k0) as u32
            }
            _ => r.generated,
        }
    }

    fn block_phase(&self, r: &Req) -> usize {
        let b = self.pool.unit_tokens();
        // crosses at step k when (tokens_before_step) % b == 0, tokens_before(k) = base + k
        let base = (r.input as u64 + r.dec_gen0 as u64 - 1) % b;
        ((base + b - r.dec_k0 % b) % b) as usize
    }

    // ---------------------------------------------------------------- admission and iterations

    fn admit(&mut self, h: Handle) {
        self.pop_waiting(h);
        self.admit_counter += 1;
        let now = self.now;
        let order = self.admit_counter;
        let r = &mut self.reqs[h.slot as usize];
        r.phase = Phase::Prefill;
        r.admit_order = order;
        r.first_scheduled.get_or_insert(now);
        let class = r.class as usize;
        let prompt = r.prefill_target as u64;
        r.units = self.pool.admit_seq(class, prompt);
        self.running[class].insert(order, h.slot);
        self.peak_running = self.peak_running.max(self.pool.seqs());
    }

    fn try_start_step(&mut self) {
        if self.step.is_some() || self.restarting_until.is_some() {
            return;
        }
        match self.scenario.scheduler.batching {
            Batching::Continuous => self.start_continuous_step(),
            Batching::Static => self.start_static_step(),
        }
    }

    fn begin_step(&mut self, work: BatchWork, prefills: Vec<(Handle, u32)>, decode: bool, growth_units: u64) {
        let time = self.step_model.step_time(&work);
        let dur = time.micros();
        let bound = time.linear_compute + time.attn_compute;
        let memb = time.linear_memory + time.attn_memory;
        self.last_step = StepInfo {
            start_s: self.now as f64 / 1e6,
            duration_ms: dur as f64 / 1000.0,
            prefill_tokens: work.prefill_tokens,
            decode_seqs: work.decode_seqs,
            compute_bound_share: if bound + memb > 0.0 { bound / (bound + memb) } else { 0.0 },
        };
        let alloc_tokens = self.pool.used() * self.pool.unit_tokens();
        if alloc_tokens > 0 {
            let used = self.group.ctx_sum + self.loose_tokens;
            self.waste_acc += 1.0 - (used as f64 / alloc_tokens as f64).min(1.0);
            self.waste_iters += 1;
        }
        self.step = Some(InFlightStep { prefills, decode, growth_units });
        self.push(self.now + dur, EventKind::StepEnd);
    }

    fn start_continuous_step(&mut self) {
        let s = self.scenario.scheduler.clone();
        let chunked = s.chunked_prefill;
        let paged = s.kv_layout == KvLayout::Paged;
        loop {
            let mut work = BatchWork::default();
            let mut prefills: Vec<(Handle, u32)> = Vec::new();
            let mut budget = s.max_num_batched_tokens as u64;
            // Without chunked prefill, waiting prompts go first in prefill-only iterations
            // (vLLM's default scheduler); decodes wait.
            let prefill_first = !chunked && self.can_admit_whole_prompt(budget);
            let mut decode = false;
            let mut growth = 0;
            if !prefill_first && self.group.n > 0 {
                if paged && !s.overcommit {
                    self.make_room_for_decode();
                }
                if self.group.n > 0 {
                    if paged {
                        for c in 0..self.class_names.len() {
                            let g = self.decode_growth_units_class(c);
                            if g > 0 {
                                self.pool.take(c, g);
                                growth += g;
                            }
                        }
                    }
                    work.decode_seqs = self.group.n;
                    work.decode_ctx_tokens = self.group.ctx_sum + self.group.n;
                    work.logit_tokens += self.group.n;
                    budget = budget.saturating_sub(self.group.n);
                    decode = true;
                }
            }
            // Continue prompts already being prefilled (chunked), oldest first.
            if chunked || prefill_first {
                let mut i = 0;
                while i < self.prefilling.len() && budget > 0 {
                    let h = self.prefilling[i];
                    let (n, done, target) = {
                        let r = &self.reqs[h.slot as usize];
                        let n = ((r.prefill_target - r.prefilled) as u64).min(budget);
                        (n, r.prefilled as u64, r.prefill_target as u64)
                    };
                    let n = if paged { self.fit_chunk(h, n) } else { n };
                    if n > 0 {
                        work.add_prefill_chunk(done, n, done + n == target);
                        prefills.push((h, n as u32));
                        budget -= n;
                    }
                    i += 1;
                }
            }
            // Admit new prompts while slots, tokens and KV allow.
            if !decode || chunked {
                let mut blocked = vec![false; self.queues.len()];
                while budget > 0 {
                    let Some(h) = self.peek_waiting(&blocked) else { break };
                    let (class, target) = {
                        let r = &self.reqs[h.slot as usize];
                        (r.class as usize, r.prefill_target as u64)
                    };
                    let n = if chunked { target.min(budget) } else { target };
                    if n > budget {
                        break;
                    }
                    if !self.pool.can_admit(class, n) {
                        if self.queues.len() > 1 {
                            blocked[self.queue_index(class)] = true;
                            if blocked.iter().all(|b| *b) {
                                break;
                            }
                            continue;
                        }
                        break;
                    }
                    self.admit(h);
                    let units = if paged { self.pool.units_for(n) } else { 0 };
                    if units > 0 {
                        self.pool.take(class, units);
                        self.reqs[h.slot as usize].units += units;
                    }
                    work.add_prefill_chunk(0, n, n == target);
                    prefills.push((h, n as u32));
                    self.prefilling.push(h);
                    budget -= n;
                }
            }
            if !work.is_empty() {
                if s.overcommit && self.pool.over_physical() {
                    // admission looked only at the KV in use; growth has run past the memory
                    // the GPU has
                    self.oom_restart();
                    return;
                }
                // KV of the chunks is written during the step; count it as held from now
                self.loose_tokens += prefills.iter().map(|&(_, n)| n as u64).sum::<u64>();
                self.begin_step(work, prefills, decode, growth);
                return;
            }
            // Nothing could run. If prompts are stuck half-prefilled with no KV to continue,
            // preempt the newest so the oldest can progress; otherwise stay idle.
            if self.prefilling.is_empty() || !self.preempt_newest() {
                return;
            }
        }
    }

    fn can_admit_whole_prompt(&mut self, budget: u64) -> bool {
        let Some(h) = self.peek_waiting(&[]) else { return false };
        let (class, target) = {
            let r = &self.reqs[h.slot as usize];
            (r.class as usize, r.prefill_target as u64)
        };
        if target > budget {
            return false;
        }
        self.pool.can_admit(class, target)
    }

    /// Shrinks a continuing prefill chunk to the KV that can be allocated for it, and
    /// allocates it (paged layout).
    fn fit_chunk(&mut self, h: Handle, n: u64) -> u64 {
        let (class, done) = {
            let r = &self.reqs[h.slot as usize];
            (r.class as usize, r.prefilled as u64)
        };
        let (n, need) = self.pool.fit_chunk(done, n);
        if need > 0 {
            self.pool.take(class, need);
            self.reqs[h.slot as usize].units += need;
        }
        n
    }

    fn decode_growth_units_class(&self, class: usize) -> u64 {
        let b = self.pool.unit_tokens();
        let idx = ((b - self.group.k % b) % b) as usize;
        self.group.phase_count[class][idx]
    }

    fn decode_growth_units(&self) -> u64 {
        (0..self.class_names.len()).map(|c| self.decode_growth_units_class(c)).sum()
    }

    /// Preempts the newest running sequences until the decode step's new blocks fit.
    fn make_room_for_decode(&mut self) {
        while self.group.n > 0 && self.decode_growth_units() > self.pool.free() {
            if !self.preempt_newest() {
                break;
            }
        }
    }

    /// Preempts (by recompute) the most recently admitted running sequence of the lowest
    /// priority class (isolation) or overall. Never the only running sequence.
    fn preempt_newest(&mut self) -> bool {
        if self.pool.seqs() <= 1 {
            return false;
        }
        let mut victim: Option<(u32, u64, u32)> = None; // (priority, order, slot)
        for (c, m) in self.running.iter().enumerate() {
            if let Some((&order, &slot)) = m.iter().next_back() {
                let p = if self.scenario.scheduler.isolation { self.priority[c] } else { 0 };
                if victim.is_none_or(|v| (p, order) > (v.0, v.1)) {
                    victim = Some((p, order, slot));
                }
            }
        }
        let Some((_, _, slot)) = victim else { return false };
        let h = Handle { slot, gen: self.reqs[slot as usize].gen };
        self.preempt(h);
        true
    }

    fn preempt(&mut self, h: Handle) {
        let (class, phase, units, order) = {
            let r = &self.reqs[h.slot as usize];
            (r.class as usize, r.phase, self.held_units(r), r.admit_order)
        };
        match phase {
            Phase::Decode => {
                let generated = self.generated(&self.reqs[h.slot as usize]);
                let tokens = self.decode_tokens(&self.reqs[h.slot as usize]);
                let ph = self.block_phase(&self.reqs[h.slot as usize]);
                self.group.n -= 1;
                self.group.n_class[class] -= 1;
                self.group.ctx_sum -= tokens;
                self.group.phase_count[class][ph] -= 1;
                self.group.fresh.retain(|(f, _)| *f != h);
                let r = &mut self.reqs[h.slot as usize];
                r.generated = generated;
                r.join_id = u64::MAX; // invalidates its finish entry
            }
            Phase::Prefill => {
                let p = self.reqs[h.slot as usize].prefilled as u64;
                self.loose_tokens -= p;
                self.prefilling.retain(|x| *x != h);
            }
            Phase::Queued => unreachable!("only running sequences are preempted"),
        }
        self.pool.release_seq(class, self.reqs[h.slot as usize].prefill_target as u64, units);
        self.running[class].remove(&order);
        let r = &mut self.reqs[h.slot as usize];
        r.units = 0;
        r.phase = Phase::Queued;
        r.prefilled = 0;
        r.prefill_target = r.input + r.generated;
        r.preemptions += 1;
        let id = r.id;
        // back to the front of its queue
        let q = self.queue_index(class);
        self.queues[q].push_front(h);
        self.queued[class] += 1;
        self.queued_total += 1;
        self.metrics[class].counts.preempted += 1;
        self.total.counts.preempted += 1;
        self.note_recent(id, class, Ending::Preempted);
    }

    fn on_step_end(&mut self) {
        let Some(step) = self.step.take() else { return };
        let now = self.now;
        if self.static_batch.is_some() {
            self.static_step_end();
            self.try_start_step();
            return;
        }
        if step.decode {
            let g = &mut self.group;
            g.k += 1;
            g.ctx_sum += g.n;
            // inter-token gaps: members that took part in the previous decode step all share
            // one gap; fresh members measure from their first token
            let gap = now - g.last_decode_end;
            let mut fresh_class = vec![0u64; self.class_names.len()];
            let fresh = std::mem::take(&mut g.fresh);
            for (h, t) in &fresh {
                let c = self.reqs[h.slot as usize].class as usize;
                fresh_class[c] += 1;
                self.metrics[c].itl.record(now - t);
                self.total.itl.record(now - t);
            }
            for (c, fc) in fresh_class.iter().enumerate() {
                let n = self.group.n_class[c] - fc;
                self.metrics[c].itl.record_n(gap, n);
                self.total.itl.record_n(gap, n);
            }
            self.group.last_decode_end = now;
            // finishes
            while let Some(&Reverse((kf, slot, join))) = self.group.finishes.peek() {
                if kf > self.group.k {
                    break;
                }
                self.group.finishes.pop();
                let r = &self.reqs[slot as usize];
                if !r.live || r.join_id != join || r.phase != Phase::Decode {
                    continue;
                }
                let h = Handle { slot, gen: r.gen };
                self.finish_decode_member(h);
            }
        }
        for (h, n) in step.prefills {
            let Some(r) = self.get(h) else { continue };
            if r.phase != Phase::Prefill {
                continue;
            }
            let r = &mut self.reqs[h.slot as usize];
            r.prefilled += n;
            if r.prefilled >= r.prefill_target {
                self.prefill_complete(h);
            }
        }
    }

    /// A prompt's last chunk ran: it emits a token and joins the decode group (or ends).
    fn prefill_complete(&mut self, h: Handle) {
        let now = self.now;
        self.prefilling.retain(|x| *x != h);
        let r = &mut self.reqs[h.slot as usize];
        r.generated += 1;
        if r.first_token.is_none() {
            r.first_token = Some(now);
        }
        let class = r.class as usize;
        let tokens = r.prefilled as u64;
        self.loose_tokens -= tokens;
        if r.generated >= r.output {
            self.release_running(h);
            self.end_request(h, Outcome::Completed);
            return;
        }
        r.phase = Phase::Decode;
        r.dec_k0 = self.group.k;
        r.dec_gen0 = r.generated;
        let join = self.group.next_join_id;
        self.group.next_join_id += 1;
        r.join_id = join;
        let kf = self.group.k + (r.output - r.generated) as u64;
        self.group.finishes.push(Reverse((kf, h.slot, join)));
        self.group.n += 1;
        self.group.n_class[class] += 1;
        self.group.ctx_sum += tokens;
        let ph = self.block_phase(&self.reqs[h.slot as usize]);
        self.group.phase_count[class][ph] += 1;
        self.group.fresh.push((h, now));
    }

    fn finish_decode_member(&mut self, h: Handle) {
        let (class, tokens, ph) = {
            let r = &self.reqs[h.slot as usize];
            (r.class as usize, self.decode_tokens(r), self.block_phase(r))
        };
        self.group.n -= 1;
        self.group.n_class[class] -= 1;
        self.group.ctx_sum -= tokens;
        self.group.phase_count[class][ph] -= 1;
        let held = self.held_units(&self.reqs[h.slot as usize]);
        let r = &mut self.reqs[h.slot as usize];
        r.generated = r.output;
        r.units = held;
        self.release_running(h);
        self.end_request(h, Outcome::Completed);
    }

    /// Frees a running request's KV and batch slot.
    fn release_running(&mut self, h: Handle) {
        let (class, units, order) = {
            let r = &self.reqs[h.slot as usize];
            (r.class as usize, r.units, r.admit_order)
        };
        self.pool.release_seq(class, self.reqs[h.slot as usize].prefill_target as u64, units);
        self.running[class].remove(&order);
        self.reqs[h.slot as usize].units = 0;
    }

    fn oom_restart(&mut self) {
        let retry = self.scenario.scheduler.retry_on_oom;
        self.total.counts.oom_restarts += 1;
        // everything in the server process is lost: running and queued requests
        let mut victims: Vec<Handle> = Vec::new();
        for m in &self.running {
            for &slot in m.values() {
                victims.push(Handle { slot, gen: self.reqs[slot as usize].gen });
            }
        }
        victims.sort_by_key(|h| self.reqs[h.slot as usize].arrival);
        // reset running state
        for c in 0..self.class_names.len() {
            self.running[c].clear();
            self.group.n_class[c] = 0;
            for p in self.group.phase_count[c].iter_mut() {
                *p = 0;
            }
        }
        self.pool.clear();
        self.group.n = 0;
        self.group.ctx_sum = 0;
        self.group.fresh.clear();
        self.group.finishes.clear();
        self.prefilling.clear();
        self.loose_tokens = 0;
        let until = self.now + (self.scenario.scheduler.restart_s * 1e6).round() as u64;
        self.restarting_until = Some(until);
        self.push(until, EventKind::RestartDone);
        if retry {
            // Requeue in arrival order ahead of those already waiting; they start over. A client
            // gives up after MAX_OOM_RETRIES resends, which also ends restart cascades.
            let (give_up, again): (Vec<Handle>, Vec<Handle>) =
                victims.into_iter().partition(|h| self.reqs[h.slot as usize].retries >= MAX_OOM_RETRIES);
            for h in give_up {
                let r = &mut self.reqs[h.slot as usize];
                r.units = 0;
                r.phase = Phase::Queued;
                self.end_request(h, Outcome::Failed);
            }
            for &h in again.iter().rev() {
                let r = &mut self.reqs[h.slot as usize];
                r.phase = Phase::Queued;
                r.units = 0;
                r.prefilled = 0;
                r.generated = 0;
                r.prefill_target = r.input;
                r.first_token = None;
                r.join_id = u64::MAX;
                r.retries += 1;
                let class = r.class as usize;
                let q = self.queue_index(class);
                self.queues[q].push_front(h);
                self.queued[class] += 1;
                self.queued_total += 1;
            }
        } else {
            for h in victims {
                let r = &mut self.reqs[h.slot as usize];
                r.units = 0;
                r.phase = Phase::Queued;
                self.end_request(h, Outcome::Failed);
            }
            // the queue is lost too
            for q in 0..self.queues.len() {
                while let Some(h) = self.queues[q].pop_front() {
                    if self.get(h).is_some_and(|r| r.phase == Phase::Queued) {
                        let class = self.reqs[h.slot as usize].class as usize;
                        self.queued[class] -= 1;
                        self.queued_total -= 1;
                        self.end_request(h, Outcome::Failed);
                    }
                }
            }
        }
        self.last_step = StepInfo { start_s: self.now as f64 / 1e6, ..Default::default() };
    }

    // ---------------------------------------------------------------- static batching

    fn start_static_step(&mut self) {
        if self.static_batch.is_some() {
            self.static_next_step();
            return;
        }
        let s = self.scenario.scheduler.clone();
        let Some(first) = self.peek_waiting(&[]) else { return };
        let oldest = self.reqs[first.slot as usize].arrival;
        let window = (s.batch_timeout_ms * 1000.0).round() as u64;
        if self.queued_total < s.max_num_seqs as u64 && self.now < oldest + window {
            if self.window_at != Some(oldest + window) {
                self.window_at = Some(oldest + window);
                self.push(oldest + window, EventKind::BatchWindow);
            }
            return;
        }
        // Form a batch: up to B requests in queue order whose padded KV fits.
        let mut members: Vec<Handle> = Vec::new();
        let (mut p_max, mut o_max) = (0u32, 0u32);
        let contiguous = !self.pool.paged();
        while members.len() < s.max_num_seqs as usize {
            let Some(h) = self.peek_waiting(&[]) else { break };
            let r = &self.reqs[h.slot as usize];
            let (p, o) = (p_max.max(r.prefill_target), o_max.max(r.output));
            if self.pool.static_units((p + o) as u64) * (members.len() as u64 + 1) > self.pool.capacity() {
                break;
            }
            p_max = p;
            o_max = o;
            self.admit(h);
            members.push(h);
        }
        if members.is_empty() {
            return;
        }
        let per = self.pool.static_units((p_max + o_max) as u64);
        for &h in &members {
            let class = self.reqs[h.slot as usize].class as usize;
            if !contiguous {
                self.pool.take(class, per);
                self.reqs[h.slot as usize].units = per;
            }
            self.reqs[h.slot as usize].prefilled = 0;
        }
        let mut outputs_sorted: Vec<u32> = members.iter().map(|h| self.reqs[h.slot as usize].output).collect();
        outputs_sorted.sort_unstable();
        self.static_batch = Some(StaticBatch { members, outputs_sorted, p_max, o_max, step: 0, prefill_done: false });
        self.static_next_step();
    }

    fn static_next_step(&mut self) {
        let Some(b) = self.static_batch.as_ref() else { return };
        let n = b.members.len() as u64;
        let mut work = BatchWork::default();
        if !b.prefill_done {
            // prompts padded to the longest
            for _ in 0..n {
                work.add_prefill_chunk(0, b.p_max as u64, true);
            }
        } else {
            let ctx = b.p_max as u64 + b.step as u64;
            work.decode_seqs = n;
            work.decode_ctx_tokens = n * (ctx + 1);
            work.logit_tokens = n;
        }
        let decode = b.prefill_done;
        self.loose_tokens = n * (b.p_max as u64 + b.step as u64 + if decode { 1 } else { 0 });
        self.begin_step(work, Vec::new(), decode, 0);
    }

    fn static_step_end(&mut self) {
        let now = self.now;
        let mut b = self.static_batch.take().expect("static step without a batch");
        if !b.prefill_done {
            b.prefill_done = true;
            for &h in &b.members {
                let r = &mut self.reqs[h.slot as usize];
                r.phase = Phase::Decode;
                r.prefilled = r.prefill_target;
                r.generated = 1;
                r.first_token.get_or_insert(now);
                r.static_done = r.output <= 1;
            }
            self.group.last_decode_end = now;
        } else {
            b.step += 1;
            // token b.step + 1 for every member whose output is that long
            let t = b.step + 1;
            let still = b.outputs_sorted.len() - b.outputs_sorted.partition_point(|&o| o < t);
            let gap = now - self.group.last_decode_end;
            self.group.last_decode_end = now;
            for &h in &b.members {
                let r = &mut self.reqs[h.slot as usize];
                if r.output >= t {
                    r.generated = t;
                    let c = r.class as usize;
                    self.metrics[c].itl.record(gap);
                }
                if r.output <= t {
                    r.static_done = true;
                }
            }
            self.total.itl.record_n(gap, still as u64);
        }
        if b.step + 1 >= b.o_max {
            // batch ends: everyone completes now, all memory freed at once
            for &h in &b.members {
                self.release_running(h);
                self.end_request(h, Outcome::Completed);
            }
            self.window_at = None;
            self.loose_tokens = 0;
            return;
        }
        self.static_batch = Some(b);
    }

    // ---------------------------------------------------------------- reading

    fn hbm_use(&self) -> HbmUse {
        let p = &self.plan;
        let bpt = p.kv_bytes_per_token;
        let alloc = (self.pool.used() * self.pool.unit_tokens()) as f64 * bpt;
        let used_tokens =
            if self.static_batch.is_some() { self.loose_tokens } else { self.group.ctx_sum + self.loose_tokens };
        let used = (used_tokens as f64 * bpt).min(alloc);
        let util_limit = p.capacity_bytes - p.headroom_bytes;
        let free = (p.kv_capacity_bytes - alloc).max(0.0);
        HbmUse {
            capacity: p.capacity_bytes,
            weights: p.weights_bytes,
            activations: p.activation_bytes,
            kv_used: used,
            kv_waste: alloc - used,
            kv_free: free,
            headroom: p.capacity_bytes - p.weights_bytes - p.activation_bytes - alloc - free,
            utilization_limit: util_limit,
        }
    }

    /// The summary so far (final once `is_finished`).
    pub fn summary(&self) -> Summary {
        let duration_s = self.now as f64 / 1e6;
        let mut classes = std::collections::BTreeMap::new();
        let mut inflight_total = 0;
        for (i, m) in self.metrics.iter().enumerate() {
            let mut cs = m.summary(duration_s);
            cs.requests.in_flight = m.counts.arrived - m.ended();
            inflight_total += cs.requests.in_flight;
            classes.insert(self.class_names[i].clone(), cs);
        }
        let t = self.total.summary(duration_s);
        let mut requests = t.requests;
        requests.in_flight = inflight_total;
        let p = &self.plan;
        let usd_per_hour = self.scenario.usd_per_hour_per_gpu() * self.scenario.num_gpus as f64;
        let cost_usd = usd_per_hour * duration_s / 3600.0;
        let per_m = |tokens: u64| if tokens > 0 { cost_usd / (tokens as f64 / 1e6) } else { f64::INFINITY };
        crate::metrics::Summary {
            duration_s,
            requests,
            ttft_ms: t.ttft_ms,
            tpot_ms: t.tpot_ms,
            itl_ms: t.itl_ms,
            e2e_ms: t.e2e_ms,
            queue_ms: t.queue_ms,
            prefill_ms: t.prefill_ms,
            throughput: t.throughput,
            goodput: t.goodput,
            memory: crate::metrics::Memory {
                hbm_bytes: p.capacity_bytes,
                weights_bytes: p.weights_bytes,
                activation_bytes: p.activation_bytes,
                kv_capacity_bytes: p.kv_capacity_bytes,
                kv_peak_bytes: (self.pool.peak() * self.pool.unit_tokens()) as f64 * p.kv_bytes_per_token,
                kv_bytes_per_token: p.kv_bytes_per_token,
                kv_capacity_tokens: p.kv_capacity_tokens,
                peak_running: self.peak_running,
                kv_waste_mean: if self.waste_iters > 0 { self.waste_acc / self.waste_iters as f64 } else { 0.0 },
            },
            cost: crate::metrics::Cost {
                usd_per_hour,
                usd_per_million_output_tokens: per_m(self.total.output_tokens_done),
                usd_per_million_good_tokens: per_m(self.total.good_output_tokens),
            },
            classes,
        }
    }

    /// Live requests (queued, prefilling, decoding), in slot order.
    pub fn live_requests(&self) -> Vec<LiveRequest> {
        let mut out = Vec::with_capacity((self.queued_total + self.pool.seqs()) as usize);
        for r in &self.reqs {
            if !r.live {
                continue;
            }
            let kv = match &self.static_batch {
                Some(b) if r.phase != Phase::Queued => b.p_max as u64 + b.step as u64,
                _ => self.kv_tokens(r),
            };
            out.push(LiveRequest {
                id: r.id,
                class: r.class,
                phase: r.phase,
                arrival_s: r.arrival as f64 / 1e6,
                input_tokens: r.input,
                output_tokens: r.output,
                prefilled: r.prefilled,
                prefill_target: r.prefill_target,
                generated: self.generated(r),
                preemptions: r.preemptions,
                kv_tokens: kv,
                kv_reserved_tokens: r.units * self.pool.unit_tokens(),
            });
        }
        out
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            now_s: self.now as f64 / 1e6,
            finished: self.is_finished(),
            restarting_until_s: self.restarting_until.map(|t| t as f64 / 1e6),
            requests: self.live_requests(),
            recent: self.recent.iter().copied().collect(),
            queued: self.queued.clone(),
            running: self.pool.seqs(),
            hbm: self.hbm_use(),
            last_step: self.last_step,
            summary: self.summary(),
        }
    }

    /// Internal consistency checks, for tests: counts add up and KV stays within bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        let c = &self.total.counts;
        let live = self.reqs.iter().filter(|r| r.live).count() as u64;
        let ended = self.total.ended();
        if c.arrived != ended + live {
            return Err(format!("arrived {} != ended {} + live {}", c.arrived, ended, live));
        }
        if live != self.queued_total + self.pool.seqs() {
            return Err(format!("live {} != queued {} + running {}", live, self.queued_total, self.pool.seqs()));
        }
        if !self.pool.within_capacity() {
            return Err(format!("KV units {} over capacity {}", self.pool.used(), self.pool.capacity()));
        }
        if self.static_batch.is_none() {
            let held: u64 = self.reqs.iter().filter(|r| r.live).map(|r| self.held_units(r)).sum();
            let in_step = self.step.as_ref().map_or(0, |st| st.growth_units);
            if held + in_step != self.pool.used() {
                return Err(format!("KV units held {} + growing {} != accounted {}", held, in_step, self.pool.used()));
            }
        }
        if self.pool.seqs() > self.scenario.scheduler.max_num_seqs as u64 {
            return Err(format!("running {} over max_num_seqs", self.pool.seqs()));
        }
        Ok(())
    }
}
