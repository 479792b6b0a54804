//! A serving benchmark as users run one against a real server, and its result under the names
//! `vllm bench serve` writes into its saved JSON, so the lab's answer can be set beside a real
//! run line by line.
//!
//! The client is the one `vllm bench serve` runs with `--dataset-name random`: `num_prompts`
//! prompts of `input_len` tokens, each asking for `output_len` tokens (`ignore_eos`), exactly with
//! `--random-range-ratio 0` (the default) or spread around them ([`Spread`]). How they are sent
//! (`vllm/benchmarks/serve.py`:
//! `get_request`, `_get_current_request_rate`, `benchmark`):
//!
//! * `--request-rate inf` (the default) with `--max-concurrency C`: every prompt is ready at once
//!   and at most C are in flight; a new one is sent the moment one ends. In the lab these are C
//!   closed-loop users without think time, all starting at t = 0 (so the first C prompts arrive
//!   together and queue for prefill behind each other — which is what the client does too).
//! * `--request-rate inf` without a cap: every prompt arrives at t = 0.
//! * `--request-rate R` (`--burstiness B`), or a ramp-up (`--ramp-up-strategy linear|exponential`
//!   from `--ramp-up-start-rps` to `--ramp-up-end-rps`): the client computes every send time
//!   before it sends. Request i's rate is R, or the ramp's rate at progress i / max(N − 1, 1);
//!   its gap is a gamma of shape B and scale 1/(rate·B) (mean 1/rate; B = 1 is Poisson,
//!   B = ∞ an even 1/rate); the gaps add up from the benchmark's start, the first one included;
//!   without a ramp the times are then scaled so the last is N / R. The lab draws the gammas
//!   from a stream seeded by the scenario's seed and hands the times to the engine as a trace.
//!   With `--max-concurrency C` too, a prompt whose time has come while C are in flight waits at
//!   the client (the class's `max_concurrency`) and is sent when one ends; its TTFT and E2EL
//!   count from then, as vLLM's clock starts after the semaphore; the wait is its `queue_times`
//!   entry.
//!
//! TTFT, TPOT, E2EL are computed per completed request exactly as `vllm bench serve` does
//! (TPOT = (E2EL − TTFT)/(output − 1) for outputs longer than one token) and summarised with
//! numpy's mean, median, population standard deviation and linearly interpolated percentiles.
//! ITL comes from the lab's histogram of every inter-token gap (three significant digits; the
//! mean is exact). The duration runs from the benchmark's start (before the first gap) to the
//! last response.

use serde::Serialize;
use sim_core::message::Problem;
use sim_core::metric::{Latency, Metric, Stat};
use sim_core::metrics::{Outcome, RequestRecord, Summary};
use sim_core::scenario::{Arrival, ClassConfig, LengthDist, Scenario, ScenarioError, Slo};
use sim_core::sim::{Simulation, TraceLoader};
use std::cell::RefCell;
use std::rc::Rc;

/// How prompts are sent.
#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    /// `--request-rate inf --max-concurrency C`: at most this many requests in flight, the next
    /// sent as soon as one ends.
    MaxConcurrency(u32),
    /// Every prompt at once (`--request-rate inf` without a concurrency cap).
    AllAtOnce,
    /// A finite request rate or a ramp-up: send times computed before the first is sent.
    Schedule(Schedule),
}

impl Load {
    /// `--request-rate per_s --burstiness burstiness`, without a cap.
    pub fn rate(per_s: f64, burstiness: f64) -> Load {
        Load::Schedule(Schedule { rate: Rate::PerS(per_s), burstiness, max_concurrency: None })
    }
}

/// A client that computes its send times first (`vllm bench serve` with a finite
/// `--request-rate` or a ramp-up).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub rate: Rate,
    /// `--burstiness`: the gamma shape of the gaps (1 = Poisson; `f64::INFINITY` = even gaps).
    pub burstiness: f64,
    /// `--max-concurrency`: the client's cap on requests in flight.
    pub max_concurrency: Option<u32>,
}

/// The request rate of a [`Schedule`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// `--request-rate`, requests per second.
    PerS(f64),
    /// `--ramp-up-strategy`, `--ramp-up-start-rps`, `--ramp-up-end-rps`.
    Ramp { strategy: RampUp, start_rps: u32, end_rps: u32 },
}

/// `--ramp-up-strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RampUp {
    Linear,
    Exponential,
}

impl RampUp {
    pub const ALL: [RampUp; 2] = [RampUp::Linear, RampUp::Exponential];
    pub fn name(self) -> &'static str {
        match self {
            RampUp::Linear => "linear",
            RampUp::Exponential => "exponential",
        }
    }
    pub fn parse(s: &str) -> Option<RampUp> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }
}

impl Rate {
    /// The rate request `index` of `total` is sent at (`_get_current_request_rate`): the rate,
    /// or the ramp's at progress index / max(total − 1, 1): linear start + (end − start) ×
    /// progress, exponential start × (end / start)^progress.
    pub fn at(&self, index: u64, total: u64) -> f64 {
        match *self {
            Rate::PerS(r) => r,
            Rate::Ramp { strategy, start_rps, end_rps } => {
                let progress = index as f64 / total.saturating_sub(1).max(1) as f64;
                let (a, b) = (start_rps as f64, end_rps as f64);
                match strategy {
                    RampUp::Linear => a + (b - a) * progress,
                    RampUp::Exponential => a * (b / a).powf(progress),
                }
            }
        }
    }
}

impl Schedule {
    /// When each of `total` prompts is sent, s from the benchmark's start (`get_request`'s
    /// `delay_ts`): the gaps are gammas of shape `burstiness` and scale 1/(rate·burstiness), or
    /// 1/rate with an infinite burstiness, drawn from a stream seeded by `seed`, summed from the
    /// first; without a ramp the times are scaled so the last is total / rate.
    pub fn send_times(&self, total: u64, seed: u64) -> Vec<f64> {
        let b = self.burstiness;
        let n = total as usize;
        let draws = if b.is_finite() { sim_core::workload::unit_gamma_draws(seed, b, n) } else { vec![1.0; n] };
        let mut t = 0.0;
        let mut times: Vec<f64> = draws
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let rate = self.rate.at(i as u64, total);
                t += if b.is_finite() { g / (rate * b) } else { 1.0 / rate };
                t
            })
            .collect();
        if let (Rate::PerS(r), Some(&last)) = (self.rate, times.last()) {
            if last != 0.0 {
                let factor = total as f64 / r / last;
                times.iter_mut().for_each(|x| *x *= factor);
            }
        }
        times
    }
}

/// How prompt and output lengths spread around a benchmark's `input_len` and `output_len`: each
/// prompt's lengths are whole numbers drawn uniformly from a range, apart from each other.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Spread {
    /// Every prompt `input_len` tokens long, every output `output_len` (`--random-range-ratio 0`).
    #[default]
    Fixed,
    /// `vllm bench serve --random-range-ratio r`, r in [0, 1): from ⌊L(1 − r)⌋ to ⌈L(1 + r)⌉,
    /// an output at least 1 (`vllm/benchmarks/datasets.py`, `RandomDataset.get_sampling_params`).
    Symmetric(f64),
    /// The range of vLLM's `benchmarks/benchmark_serving.py` before it became symmetric (mid-2025;
    /// the copy InferenceMAX benchmarks with): from ⌊L·r⌋ to L, r in (0, 1].
    Below(f64),
}

impl Spread {
    /// The lengths a prompt of nominal length `len` can have, both ends included: `len` itself
    /// when fixed (validation judges it), else at least 1.
    pub fn bounds(self, len: u32) -> (u32, u32) {
        let l = len as f64;
        let (lo, hi) = match self {
            Spread::Fixed => return (len, len),
            Spread::Symmetric(r) => {
                ((l * (1.0 - r)).floor() as u32, (l * (1.0 + r)).ceil().min(u32::MAX as f64) as u32)
            }
            Spread::Below(r) => ((l * r).floor() as u32, len),
        };
        (lo.max(1), hi.max(1))
    }

    /// The ratio, when it is outside the range its client accepts: [0, 1) for
    /// [`Spread::Symmetric`] (vLLM refuses others), (0, 1] for [`Spread::Below`].
    pub fn out_of_range(self) -> Option<f64> {
        match self {
            Spread::Fixed => None,
            Spread::Symmetric(r) => (!(0.0..1.0).contains(&r)).then_some(r),
            Spread::Below(r) => (!(r > 0.0 && r <= 1.0)).then_some(r),
        }
    }

    fn dist(self, len: u32) -> LengthDist {
        match self.bounds(len) {
            (lo, hi) if lo == hi => LengthDist::Fixed { value: lo },
            (min, max) => LengthDist::Uniform { min, max },
        }
    }
}

/// The trace path under which [`Bench::run`] hands its send schedule to the engine.
pub const SCHEDULE_TRACE: &str = "bench:schedule";

/// A loader that gives the bench's schedule under [`SCHEDULE_TRACE`] and any other path from
/// the loader it wraps.
struct WithSchedule<'a> {
    /// Handed over once (the benchmark has one class): a long schedule is not copied.
    csv: RefCell<String>,
    rest: &'a dyn TraceLoader,
}

impl TraceLoader for WithSchedule<'_> {
    fn load(&self, path: &str) -> Result<String, String> {
        if path == SCHEDULE_TRACE {
            Ok(std::mem::take(&mut *self.csv.borrow_mut()))
        } else {
            self.rest.load(path)
        }
    }
}

/// One benchmark: the server (a scenario's model, GPUs, precisions and scheduler) and the client.
#[derive(Clone, Debug)]
pub struct Bench {
    /// The server: its classes are replaced by the benchmark's one class.
    pub server: Scenario,
    pub input_len: u32,
    pub output_len: u32,
    /// How the lengths spread around `input_len` and `output_len`.
    pub spread: Spread,
    pub num_prompts: u64,
    pub load: Load,
    /// Percentiles reported (`--metric-percentiles`, default 99).
    pub percentiles: Vec<f64>,
}

/// The name of the benchmark's one traffic class.
pub const CLASS: &str = "bench";

/// The server a benchmark runs against on vLLM's defaults ([`server_json`]).
pub fn vllm_server_json(model: &str, gpu: &str, num_gpus: u64, dtype: &str) -> serde_json::Value {
    server_json(Engine::Vllm, model, gpu, num_gpus, dtype, 0)
}

pub use sim_core::profile::{Engine, SGLANG_MAX_PREFILL_TOKENS};

/// The server a benchmark runs against, as scenario JSON (so a caller can override fields and
/// validation names them): `engine`'s profile (its scheduler defaults, [`Engine::defaults`]),
/// `gpu_memory_utilization` the engine's share of the GPU ([`Engine::memory_share`]: 0.9, or
/// SGLang's `mem_fraction_static` for the GPU), seed 0, and a placeholder class that [`Bench::scenario`]
/// replaces. `longest` is the longest sequence (prompt + output) the benchmark sends:
/// `max_model_len` (and, for a scheduler that prefills whole prompts, the token budget) are raised
/// to hold it, as a user starting the server for that benchmark would.
pub fn server_json(
    engine: Engine,
    model: &str,
    gpu: &str,
    num_gpus: u64,
    dtype: &str,
    longest: u32,
) -> serde_json::Value {
    let context = sim_core::catalog::find_model(model).map(|m| m.max_context).unwrap_or(8192);
    let spec = sim_core::catalog::find_gpu(gpu);
    let d = engine.defaults(spec.as_ref(), context);
    let share = engine.memory_share(spec.as_ref(), num_gpus as u32);
    let mut scheduler = serde_json::Map::new();
    if longest > d.max_model_len {
        scheduler.insert("max_model_len".into(), longest.into());
        if !d.chunked_prefill && longest > d.max_num_batched_tokens {
            scheduler.insert("max_num_batched_tokens".into(), longest.into());
        }
    }
    serde_json::json!({
        "version": 1,
        "name": "llmsim bench",
        "seed": 0,
        "model": model,
        "gpu": gpu,
        "num_gpus": num_gpus,
        "dtype": dtype,
        "gpu_memory_utilization": share,
        "engine_profile": engine.name(),
        "scheduler": scheduler,
        "classes": [{
            "name": CLASS,
            "arrival": { "kind": "closed_loop", "users": 1, "think_time_ms": 0.0 },
            "num_requests": 1,
            "input_tokens": { "kind": "fixed", "value": 1 },
            "output_tokens": { "kind": "fixed", "value": 1 },
        }],
    })
}

impl Bench {
    /// The scenario the benchmark runs: the server with one class of fixed-length prompts (for a
    /// [`Load::Schedule`], a trace class whose rows [`Bench::trace_csv`] writes).
    pub fn scenario(&self) -> Scenario {
        let mut s = self.server.clone();
        let users = |n: u64| n.clamp(1, u32::MAX as u64) as u32;
        let (arrival, max_concurrency) = match &self.load {
            Load::MaxConcurrency(c) => (
                Arrival::ClosedLoop { users: (*c as u64).min(self.num_prompts.max(1)) as u32, think_time_ms: 0.0 },
                None,
            ),
            Load::AllAtOnce => (Arrival::ClosedLoop { users: users(self.num_prompts), think_time_ms: 0.0 }, None),
            Load::Schedule(sch) => {
                (Arrival::Trace { path: SCHEDULE_TRACE.to_string(), speedup: 1.0 }, sch.max_concurrency)
            }
        };
        let traced = matches!(self.load, Load::Schedule(_));
        let len = |value: u32| (!traced).then_some(self.spread.dist(value));
        s.classes = vec![ClassConfig {
            name: CLASS.to_string(),
            arrival,
            num_requests: (!traced).then_some(self.num_prompts),
            input_tokens: len(self.input_len),
            output_tokens: len(self.output_len),
            slo: Slo::default(),
            priority: 0,
            reserved_share: None,
            prefix: None,
            session: None,
            max_concurrency,
        }];
        s
    }

    /// When each prompt is sent, s from the benchmark's start: 0 for every one with
    /// `--request-rate inf` (a cap then holds them at the client), else the schedule's.
    pub fn send_times(&self) -> Vec<f64> {
        match &self.load {
            Load::Schedule(sch) => sch.send_times(self.num_prompts, self.server.seed),
            _ => vec![0.0; self.num_prompts as usize],
        }
    }

    /// The schedule as the engine reads a trace: `arrival_s,input_len,output_len`, in µs; with a
    /// [`Spread`], each prompt's lengths drawn from streams seeded by the scenario's seed.
    pub fn trace_csv(&self, times: &[f64]) -> String {
        let n = times.len();
        let draw = |stream: u64, len: u32| match self.spread.bounds(len) {
            (lo, hi) if lo == hi => vec![lo; n],
            (lo, hi) => sim_core::workload::uniform_draws(self.server.seed, stream, lo, hi, n),
        };
        let (inputs, outputs) = (draw(0, self.input_len), draw(1, self.output_len));
        let mut csv = String::from("arrival_s,input_len,output_len\n");
        for ((t, i), o) in times.iter().zip(inputs).zip(outputs) {
            csv.push_str(&format!("{t:.6},{i},{o}\n"));
        }
        csv
    }

    /// What the engine's validation cannot name for a schedule (its class is a trace): the rate,
    /// the number of prompts and the lengths, against their settings' ranges, under the fields a
    /// scenario would have them at.
    fn check_schedule(&self) -> Result<(), ScenarioError> {
        if let Some(r) = self.spread.out_of_range() {
            let (min, max) = if matches!(self.spread, Spread::Below(_)) { (0.0, 1.0) } else { (0.0, 0.999) };
            return Err(ScenarioError::one("random_range_ratio", Problem::Range { min, max, got: r }));
        }
        let Load::Schedule(sch) = &self.load else { return Ok(()) };
        let range = |id: &str, field: &str, got: f64| -> Result<(), ScenarioError> {
            let n = sim_core::settings::find(id).and_then(|r| r.number()).expect("a row");
            if got >= n.min && got <= n.max {
                Ok(())
            } else {
                Err(ScenarioError::one(field, Problem::Range { min: n.min, max: n.max, got }))
            }
        };
        range("num_requests", "classes[0].num_requests", self.num_prompts as f64)?;
        range("input_tokens_value", "classes[0].input_tokens.value", self.spread.bounds(self.input_len).1 as f64)?;
        range("output_tokens_value", "classes[0].output_tokens.value", self.spread.bounds(self.output_len).1 as f64)?;
        match sch.rate {
            Rate::PerS(r) => range("rate_per_s", "classes[0].arrival.rate_per_s", r)?,
            Rate::Ramp { start_rps, end_rps, .. } => {
                range("rate_per_s", "classes[0].arrival.rate_per_s", start_rps as f64)?;
                range("rate_per_s", "classes[0].arrival.rate_per_s", end_rps as f64)?;
            }
        }
        if sch.burstiness.is_nan() || sch.burstiness <= 0.0 {
            return Err(ScenarioError::one(
                "classes[0].arrival.cv",
                Problem::Range { min: 0.0, max: f64::INFINITY, got: sch.burstiness },
            ));
        }
        Ok(())
    }

    /// Runs the benchmark to its end.
    pub fn run(&self, traces: &dyn TraceLoader) -> Result<BenchResult, ScenarioError> {
        self.check_schedule()?;
        let scenario = self.scenario();
        let times = self.send_times();
        let csv = if matches!(self.load, Load::Schedule(_)) { self.trace_csv(&times) } else { String::new() };
        let traces = WithSchedule { csv: RefCell::new(csv), rest: traces };
        let mut sim = Simulation::with_options(
            &scenario,
            &traces,
            sim_core::SimOptions { recent_capacity: 0, ..Default::default() },
        )?;
        let records: Rc<RefCell<Vec<RequestRecord>>> = Rc::default();
        let sink = records.clone();
        sim.set_request_sink(Box::new(move |r| sink.borrow_mut().push(r.clone())));
        let summary = sim.run_to_end();
        let itl_std_ms = sim.itl_std_ms();
        drop(sim);
        let records = Rc::try_unwrap(records).map(RefCell::into_inner).unwrap_or_default();
        Ok(BenchResult::of(self, &scenario, &records, &summary, itl_std_ms, &times))
    }
}

/// Mean, median, standard deviation and the chosen percentiles of one latency, as
/// `vllm bench serve` saves them (`mean_ttft_ms`, `median_ttft_ms`, `std_ttft_ms`, `p99_ttft_ms`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub mean: f64,
    pub median: f64,
    pub std: f64,
    /// (percentile, value)
    pub percentiles: Vec<(f64, f64)>,
}

impl Stats {
    /// numpy's `mean`, `median`, `std` (population) and `percentile` (linear) of `values`; all 0
    /// when there are none (as `vllm bench serve` reports with `values or 0`).
    pub fn of(values: &[f64], percentiles: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats { percentiles: percentiles.iter().map(|&p| (p, 0.0)).collect(), ..Default::default() };
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        Stats {
            mean,
            median: percentile(&v, 50.0),
            std: var.sqrt(),
            percentiles: percentiles.iter().map(|&p| (p, percentile(&v, p))).collect(),
        }
    }
}

/// numpy's default (linear) percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

/// A benchmark's result; serialised with the keys `vllm bench serve` saves.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    pub model_id: String,
    pub num_prompts: u64,
    /// `None` is `inf`.
    pub request_rate: Option<f64>,
    /// `f64::INFINITY` is `inf`.
    pub burstiness: f64,
    pub max_concurrency: Option<u32>,
    /// `--ramp-up-strategy`, `--ramp-up-start-rps`, `--ramp-up-end-rps`, when ramping up.
    pub ramp_up: Option<(RampUp, u32, u32)>,
    pub duration: f64,
    pub completed: u64,
    pub failed: u64,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub request_throughput: f64,
    pub output_throughput: f64,
    pub total_token_throughput: f64,
    pub ttft: Stats,
    pub tpot: Stats,
    pub itl: Stats,
    pub e2el: Stats,
    /// Per request, in the order they were sent: prompt tokens, output tokens (0 for a failed
    /// one), TTFT and E2E latency in seconds (0 for a failed one), as `vllm bench serve` lists them.
    pub input_lens: Vec<u32>,
    pub output_lens: Vec<u32>,
    pub ttfts: Vec<f64>,
    pub latencies: Vec<f64>,
    /// Per request, s: how long it waited at the client between its send time and its send
    /// (`client_queue_time`: 0 without a cap).
    pub queue_times: Vec<f64>,
}

impl BenchResult {
    fn of(
        b: &Bench,
        scenario: &Scenario,
        records: &[RequestRecord],
        summary: &Summary,
        itl_std_ms: f64,
        times: &[f64],
    ) -> BenchResult {
        // the engine's clock starts at the first send (a trace's first row is at 0); the
        // benchmark's at its start, the first gap before it
        let us = |t: f64| (t * 1e6).round();
        let t0 = times.first().map_or(0.0, |&t| us(t));
        let duration = Metric::DurationS.of(summary) + t0 / 1e6;
        let itl = |s: Stat| Metric::Latency(Latency::Itl, s).of(summary);
        let ok = |r: &RequestRecord| r.outcome == Outcome::Completed;
        let done: Vec<&RequestRecord> = records.iter().filter(|r| ok(r)).collect();
        let mut sent: Vec<&RequestRecord> = records.iter().collect();
        sent.sort_by_key(|r| r.id);
        let completed = done.len() as u64;
        let total_input_tokens: u64 = done.iter().map(|r| r.input_tokens as u64).sum();
        let total_output_tokens: u64 = done.iter().map(|r| r.output_tokens as u64).sum();
        let per = |x: f64| if duration > 0.0 { x / duration } else { 0.0 };
        let col = |f: fn(&RequestRecord) -> Option<f64>| done.iter().filter_map(|r| f(r)).collect::<Vec<f64>>();
        let ps = &b.percentiles;
        // the summary keeps p50, p90, p95, p99 and the max of ITL: a percentile reads the
        // nearest of them at or above it
        let itl_q = |p: f64| {
            itl(match p {
                p if p <= 50.0 => Stat::P50,
                p if p <= 90.0 => Stat::P90,
                p if p <= 95.0 => Stat::P95,
                p if p <= 99.0 => Stat::P99,
                _ => Stat::Max,
            })
        };
        let (request_rate, burstiness, max_concurrency, ramp_up) = match &b.load {
            Load::MaxConcurrency(c) => (None, 1.0, Some(*c), None),
            Load::AllAtOnce => (None, 1.0, None, None),
            Load::Schedule(sch) => match sch.rate {
                Rate::PerS(r) => (Some(r), sch.burstiness, sch.max_concurrency, None),
                Rate::Ramp { strategy, start_rps, end_rps } => {
                    (None, sch.burstiness, sch.max_concurrency, Some((strategy, start_rps, end_rps)))
                }
            },
        };
        // the k-th request sent is the k-th scheduled (the client's queue is first in, first out)
        let queue_times = sent
            .iter()
            .zip(times)
            .map(|(r, &t)| ((r.arrival_s - (us(t) - t0) / 1e6) * 1e6).round().max(0.0) / 1e6)
            .collect();
        BenchResult {
            model_id: scenario.model.id().to_string(),
            num_prompts: b.num_prompts,
            request_rate,
            burstiness,
            max_concurrency,
            ramp_up,
            duration,
            completed,
            failed: records.len() as u64 - completed,
            total_input_tokens,
            total_output_tokens,
            request_throughput: per(completed as f64),
            output_throughput: per(total_output_tokens as f64),
            total_token_throughput: per((total_input_tokens + total_output_tokens) as f64),
            ttft: Stats::of(&col(|r| r.ttft_ms), ps),
            tpot: Stats::of(&col(|r| r.tpot_ms), ps),
            itl: Stats {
                mean: itl(Stat::Mean),
                median: itl(Stat::P50),
                std: itl_std_ms,
                percentiles: ps.iter().map(|&p| (p, itl_q(p))).collect(),
            },
            e2el: Stats::of(&col(|r| r.e2e_ms), ps),
            input_lens: sent.iter().map(|r| r.input_tokens).collect(),
            output_lens: sent.iter().map(|r| if ok(r) { r.output_tokens } else { 0 }).collect(),
            ttfts: sent.iter().map(|r| if ok(r) { r.ttft_ms.unwrap_or(0.0) / 1000.0 } else { 0.0 }).collect(),
            latencies: sent.iter().map(|r| if ok(r) { r.e2e_ms.unwrap_or(0.0) / 1000.0 } else { 0.0 }).collect(),
            queue_times,
        }
    }
}

/// `p99`, `p99.9`: how `vllm bench serve` writes a percentile into a key.
pub fn percentile_word(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{}", p as u64)
    } else {
        format!("{p}")
    }
}

impl Serialize for BenchResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("backend", "llmsim")?;
        m.serialize_entry("model_id", &self.model_id)?;
        m.serialize_entry("num_prompts", &self.num_prompts)?;
        match self.request_rate {
            Some(r) => m.serialize_entry("request_rate", &r)?,
            None => m.serialize_entry("request_rate", "inf")?,
        }
        if self.burstiness.is_finite() {
            m.serialize_entry("burstiness", &self.burstiness)?;
        } else {
            m.serialize_entry("burstiness", "inf")?;
        }
        m.serialize_entry("max_concurrency", &self.max_concurrency)?;
        if let Some((strategy, start, end)) = self.ramp_up {
            m.serialize_entry("ramp_up_strategy", strategy.name())?;
            m.serialize_entry("ramp_up_start_rps", &start)?;
            m.serialize_entry("ramp_up_end_rps", &end)?;
        }
        m.serialize_entry("duration", &self.duration)?;
        m.serialize_entry("completed", &self.completed)?;
        m.serialize_entry("failed", &self.failed)?;
        m.serialize_entry("total_input_tokens", &self.total_input_tokens)?;
        m.serialize_entry("total_output_tokens", &self.total_output_tokens)?;
        m.serialize_entry("request_throughput", &self.request_throughput)?;
        m.serialize_entry("output_throughput", &self.output_throughput)?;
        m.serialize_entry("total_token_throughput", &self.total_token_throughput)?;
        for (name, st) in self.latencies() {
            m.serialize_entry(&format!("mean_{name}_ms"), &st.mean)?;
            m.serialize_entry(&format!("median_{name}_ms"), &st.median)?;
            m.serialize_entry(&format!("std_{name}_ms"), &st.std)?;
            for (p, v) in &st.percentiles {
                m.serialize_entry(&format!("p{}_{name}_ms", percentile_word(*p)), v)?;
            }
        }
        m.serialize_entry("input_lens", &self.input_lens)?;
        m.serialize_entry("output_lens", &self.output_lens)?;
        m.serialize_entry("ttfts", &self.ttfts)?;
        m.serialize_entry("latencies", &self.latencies)?;
        m.serialize_entry("queue_times", &self.queue_times)?;
        m.end()
    }
}

impl BenchResult {
    /// The four latencies with the names `vllm bench serve` gives them.
    pub fn latencies(&self) -> [(&'static str, &Stats); 4] {
        [("ttft", &self.ttft), ("tpot", &self.tpot), ("itl", &self.itl), ("e2el", &self.e2el)]
    }
}
