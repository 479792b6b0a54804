//! The capacity planner: from a resource contract to the cheapest configuration that meets it.
//!
//! A contract fixes the model, the request limits, the SLOs, the acceptance rules and the
//! traffic (`workload`); the planner chooses the rest — GPU type, tensor parallelism, engine,
//! the scheduler's caps, colocated or a prefill/decode split, the router, and how many
//! replicas — and answers with the cheapest configuration whose contract `llmsim check`
//! accepts, why each cheaper one failed, and the Pareto fronts around it.
//!
//! # Method
//!
//! Roughly as DistServe and Vidur-Search do it:
//!
//! 1. **Candidates**: GPU × tensor parallelism × engine × `max_num_seqs` (the memory-safe
//!    limit — `max_num_seqs` sequences of the longest allowed length fit the KV pool — and the
//!    two powers of two below it) × `max_num_batched_tokens` (the engine's default and 2,048)
//!    × colocated or split (1P1D, 1P2D, 2P1D; the same TP in both pools, or each pool its own, a
//!    factor of two apart, both holding the weights and one longest sequence) × router and prefix caching (with shared
//!    prefixes: the cache with least-outstanding or prefix-affinity routing, and no cache). A *unit* is one replica, or one split group.
//! 2. **Analytic pruning**, no simulation: a unit whose weights and one longest sequence do not
//!    fit is out (`Bound::Weights`); the roofline ceiling (`sim_core::ceiling`) bounds the share
//!    of the contract's load one unit can carry, hence the fewest units and the least cost;
//!    a candidate whose least cost is not below the best found so far is not simulated.
//! 3. **Capacity by bisection**: the share `x` of the contract's load one unit carries while
//!    passing every acceptance rule (the contract's rules with the goodput floor and the rate
//!    limit scaled by `x`) — probes on the same seed, so the same random numbers at every `x`,
//!    bisected in log space until the bracket is within 3%. Units = ⌈1 / x⌉.
//! 4. **A confirming run** of the whole cluster, with its router, at the full load: the
//!    contract check itself, on the contract's seed and the next two (`CONFIRM_SEEDS`: a
//!    configuration that passes one draw of the traffic by luck is not an answer); one or two
//!    more units if it fails.
//!
//! Before bisecting, a candidate is first probed at the share it would carry with the most
//! units that still cost less than the best so far: if it fails there it cannot win, and that
//! failed run is the record of *which constraint bound first* (`bound::classify`).
//!
//! # Determinism
//!
//! Every probe, capacity and confirmation is a function of the candidate and the share only
//! (cached by them). The search finds the cheapest cost `B`; the answer — the best, the cheaper
//! candidates rejected at the most units below `B`, the Pareto fronts of the candidates whose
//! least cost is within 1.5 × `B` (least cost first, at most `PARETO_RUNS` more runs) — is then
//! computed from `B` alone, whatever order the candidates were tried in (with several workers,
//! each spends its part of the runs on its share, so the fronts may differ by a point).

pub mod bound;
pub mod launch;
#[cfg(test)]
mod tests;

use crate::contract::{CheckLine, Contract};
use bound::{Bound, Evidence};
use serde::{Deserialize, Serialize};
use sim_core::ceiling::Ceiling;
use sim_core::profile::Engine;
use sim_core::scenario::{Arrival, DisaggConfig, GpuRef, Policy, Scenario, ScenarioError};
use sim_core::sim::TraceLoader;
use std::collections::HashMap;

/// Candidates whose least cost is within this multiple of the cheapest are evaluated for the
/// Pareto fronts.
pub const PARETO_SPAN: f64 = 1.5;
/// Most runs spent on the Pareto fronts' candidates beyond the search (a count, so the same
/// contract gives the same fronts). Workers sharing a search (`PlanOptions::shard`) share it:
/// each spends its part.
pub const PARETO_RUNS: u64 = 300;
/// The most runs the search makes before it has found any configuration that passes (then it
/// answers with what bound the candidates tried); shared by workers as `PARETO_RUNS` is.
pub const SEARCH_RUNS: u64 = 1500;
/// A configuration is confirmed on the contract's seed and the seeds after it, this many in all
/// (every run must pass).
pub const CONFIRM_SEEDS: u64 = 3;
/// The capacity bisection stops when its bracket is within this ratio.
pub const BISECTION_RATIO: f64 = 1.03;
/// Tensor-parallel degrees searched.
pub const TP_DEGREES: [u32; 4] = [1, 2, 4, 8];
/// Prefill/decode splits searched (prefill replicas, decode replicas per unit).
pub const SPLITS: [(u32, u32); 3] = [(1, 1), (1, 2), (2, 1)];
/// The KV link of a split: 400 Gb/s RDMA between nodes, GB/s per direction.
pub const SPLIT_LINK_GBPS: f64 = 50.0;
/// The fewest requests a probe simulates (fewer when the contract's workload has fewer).
pub const MIN_PROBE_REQUESTS: u64 = 300;

/// What the planner may choose from.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOptions {
    /// GPU ids to consider (`None`: the whole catalogue).
    pub gpus: Option<Vec<String>>,
    /// Most GPUs of the whole configuration.
    pub max_gpus: u32,
    pub engines: Vec<Engine>,
    /// Also consider prefill/decode splits.
    pub splits: bool,
    /// Skip candidates that cannot beat the best so far (false: evaluate every candidate, for
    /// checking the pruned search against the exhaustive one).
    pub prune: bool,
    /// `(k, n)`: this search is worker `k` of `n`, and takes every `n`-th candidate of the
    /// least-cost order from the `k`-th. Its search phase then ends by waiting for
    /// [`Planner::begin_answer`] with the cheapest cost of all workers; the workers' answers
    /// join in [`PlanAnswer::merge`].
    pub shard: Option<(u32, u32)>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { gpus: None, max_gpus: 64, engines: Engine::ALL.to_vec(), splits: true, prune: true, shard: None }
    }
}

/// Colocated replicas, or prefill/decode split groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Layout {
    Colocated,
    Split { prefill: u32, decode: u32 },
}

/// One configuration of a unit (a replica or a split group), the units not yet counted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub gpu: String,
    pub tp: u32,
    pub engine: Engine,
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub layout: Layout,
    /// A split's decode pool's tensor parallelism when it is not `tp` (then `tp` is the
    /// prefill pool's): `disaggregation.decode_num_gpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_tp: Option<u32>,
    /// How the router spreads requests over units (read with more than one).
    pub router: Policy,
    /// Prefix caching (searched on and off when the workload shares prefixes or holds
    /// conversations; otherwise the engine's default, which caches nothing here).
    #[serde(default = "yes")]
    pub prefix_caching: bool,
    /// Price of one GPU-hour.
    pub usd_per_gpu_hour: f64,
}

fn yes() -> bool {
    true
}

impl Candidate {
    /// GPUs of one unit.
    pub fn unit_gpus(&self) -> u32 {
        match self.layout {
            Layout::Colocated => self.tp,
            Layout::Split { prefill, decode } => prefill * self.tp + decode * self.decode_gpus(),
        }
    }

    /// GPUs of each decode replica of a split (`tp` unless the decode pool has its own).
    pub fn decode_gpus(&self) -> u32 {
        self.decode_tp.unwrap_or(self.tp)
    }

    /// `tp2`, or a split with its own TP per pool `tp2/4` (prefill/decode).
    fn tp_label(&self) -> String {
        match self.decode_tp {
            Some(d) if d != self.tp => format!("tp{}/{d}", self.tp),
            _ => format!("tp{}", self.tp),
        }
    }

    pub fn usd_per_hour(&self, units: u32) -> f64 {
        f64::from(units * self.unit_gpus()) * self.usd_per_gpu_hour
    }

    /// The label without the engine and its token budget (`2 × h100-sxm tp1 seqs 64`): what
    /// the candidates of one [`RejectedGroup`] share.
    pub fn shape_label(&self, units: u32) -> String {
        let layout = match self.layout {
            Layout::Colocated => format!("{units} ×"),
            Layout::Split { prefill, decode } => format!("{}P{}D ×", prefill * units, decode * units),
        };
        format!(
            "{layout} {} {} seqs {}{}{}",
            self.gpu,
            self.tp_label(),
            self.max_num_seqs,
            if self.router == Policy::PrefixAffinity { " prefix-affinity" } else { "" },
            if self.prefix_caching { "" } else { " no-prefix-cache" }
        )
    }

    /// The engine and its token budget (`vllm 8192`).
    pub fn variant(&self) -> String {
        format!("{} {}", self.engine.name(), self.max_num_batched_tokens)
    }

    /// A short name: `2 × h100-sxm tp1 vllm seqs 64 tokens 8192`.
    pub fn label(&self, units: u32) -> String {
        let layout = match self.layout {
            Layout::Colocated => format!("{units} ×"),
            Layout::Split { prefill, decode } => format!("{}P{}D ×", prefill * units, decode * units),
        };
        format!(
            "{layout} {} {} {} seqs {} tokens {}{}{}",
            self.gpu,
            self.tp_label(),
            self.engine.name(),
            self.max_num_seqs,
            self.max_num_batched_tokens,
            if self.router == Policy::PrefixAffinity { " prefix-affinity" } else { "" },
            if self.prefix_caching { "" } else { " no-prefix-cache" }
        )
    }

    /// The probe key: what a one-unit run depends on (the router only splits a unit's prompts
    /// over its prefill replicas).
    fn unit_key(&self) -> String {
        let router = match self.layout {
            Layout::Split { prefill, .. } if prefill > 1 => self.router.name(),
            _ => "",
        };
        format!(
            "{}/{}/{}/{}/{}/{:?}/{router}/{}",
            self.gpu,
            self.tp_label(),
            self.engine.name(),
            self.max_num_seqs,
            self.max_num_batched_tokens,
            self.layout,
            self.prefix_caching
        )
    }
}

/// A failed acceptance line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fail {
    pub rule: String,
    pub measured: f64,
    pub target: f64,
}

/// An acceptance line's margin: how far the measured value is inside its target, as a share
/// of the target (negative: outside).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slack {
    pub rule: String,
    pub measured: f64,
    pub target: f64,
    pub slack: f64,
}

fn fails_of(lines: &[CheckLine]) -> Vec<Fail> {
    lines
        .iter()
        .filter(|l| !l.pass)
        .map(|l| Fail { rule: l.field.clone(), measured: l.measured, target: l.target })
        .collect()
}

fn slack_of(lines: &[CheckLine]) -> Vec<Slack> {
    lines
        .iter()
        .map(|l| {
            let t = if l.target.abs() > 1e-12 { l.target.abs() } else { 1.0 };
            let slack = match l.op {
                sim_core::Op::AtMost => (l.target - l.measured) / t,
                _ => (l.measured - l.target) / t,
            };
            Slack { rule: l.field.clone(), measured: l.measured, target: l.target, slack }
        })
        .collect()
}

/// One run's outcome, as much of it as the search keeps.
#[derive(Clone, Debug)]
struct Probe {
    pass: bool,
    fails: Vec<Fail>,
    bound: Bound,
    evidence: Evidence,
    ttft_p99_ms: f64,
    tpot_p50_ms: f64,
    usd_per_million_good_tokens: f64,
    slack: Vec<Slack>,
}

/// A configuration that met the contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feasible {
    pub candidate: Candidate,
    /// The candidate's rank in the least-cost order (the tie-break between equal costs).
    pub rank: usize,
    pub units: u32,
    pub gpus: u32,
    /// Share of the contract's load one unit carries within every rule (bisected).
    pub unit_capacity: f64,
    pub usd_per_hour: f64,
    pub usd_per_million_good_tokens: f64,
    pub ttft_p99_ms: f64,
    /// Output tokens per second per GPU at the unit's capacity.
    pub tokens_per_s_per_gpu: f64,
    /// Output tokens per second a user sees at the unit's capacity (1 / TPOT p50).
    pub tokens_per_s_per_user: f64,
}

/// A configuration cheaper than the best that failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    pub candidate: Candidate,
    pub units: u32,
    pub usd_per_hour: f64,
    pub bound: Bound,
    /// The bound's sentence in English.
    pub why: String,
    pub evidence: Evidence,
    pub fails: Vec<Fail>,
}

/// A configuration left out before any run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    pub gpu: String,
    pub tp: u32,
    pub bound: Bound,
    pub why: String,
}

/// The planner's answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlanAnswer {
    pub best: Option<Best>,
    pub next_cheaper: Option<NextCheaper>,
    /// Cheaper configurations that failed, most expensive first (one per candidate).
    pub rejected: Vec<Rejected>,
    pub pareto: Pareto,
    /// When nothing passes: the constraint no candidate met, and the closest candidate.
    pub infeasible: Option<Infeasible>,
    /// GPU × parallelism pairs left out by memory or the GPU budget.
    pub excluded: Vec<Excluded>,
    /// Every configuration that met the contract, of those evaluated (the fronts' points).
    pub evaluated: Vec<Feasible>,
    /// Candidates considered (every unit configuration, with those left out by memory).
    pub searched: u64,
    /// Simulation runs made.
    pub simulated: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Best {
    /// A complete contract `llmsim check` accepts.
    pub contract: Contract,
    pub usd_per_hour: f64,
    pub usd_per_million_good_tokens: f64,
    pub launch: Vec<String>,
    pub plan: Feasible,
    /// Each acceptance line's margin in the confirming run.
    pub slack: Vec<Slack>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NextCheaper {
    pub contract: Contract,
    pub usd_per_hour: f64,
    pub fails: Vec<Fail>,
    pub bound: Bound,
    pub why: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pareto {
    /// Cost against p99 TTFT: no other point is both cheaper and faster.
    pub cost_ttft: Vec<Feasible>,
    /// Tokens/s per GPU against tokens/s per user.
    pub gpu_user: Vec<Feasible>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Infeasible {
    /// The constraint that bound most candidates at the most units allowed.
    pub bound: Bound,
    pub why: String,
    /// The candidate with the fewest failed lines at the most units allowed.
    pub closest: Option<Rejected>,
}

/// Where the search is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Finding the cheapest cost.
    Search,
    /// A worker's search is over; it waits for the cheapest cost of all workers.
    Waiting,
    /// Evaluating what the answer reports around it.
    Answer,
    Done,
}

/// The search so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub phase: Phase,
    /// Candidates tried (of `total`).
    pub tried: usize,
    pub total: usize,
    pub simulated: u64,
    pub best_usd_per_hour: Option<f64>,
    /// The best's rank in the least-cost order (what `offer_best` takes with its cost).
    pub best_rank: Option<usize>,
    pub best_label: Option<String>,
}

/// A cost to beat: a configuration's cost and its candidate's rank in the least-cost order
/// (of two at the same cost, the earlier wins, whichever worker found it).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mark {
    cost: f64,
    rank: usize,
}

impl Mark {
    fn beats(self, other: Mark) -> bool {
        self.cost < other.cost || (self.cost == other.cost && self.rank < other.rank)
    }
}

struct Cand {
    c: Candidate,
    /// Position in the least-cost order of all candidates (before a worker takes its share).
    rank: usize,
    /// Share of the load one unit carries at most (the roofline).
    ceiling: f64,
    /// The fewest units (ceiling) and their cost.
    min_units: u32,
    min_cost: f64,
    max_units: u32,
}

/// The search, a candidate at a time (`step`), so that a page can show progress and cancel.
pub struct Planner<'a> {
    contract: Contract,
    traces: &'a dyn TraceLoader,
    cands: Vec<Cand>,
    /// Candidate indices, least cost first.
    order: Vec<usize>,
    next: usize,
    phase: Phase,
    excluded: Vec<Excluded>,
    searched: u64,
    simulated: u64,
    probes: HashMap<(String, u64), Probe>,
    capacities: HashMap<String, Option<f64>>,
    confirmed: HashMap<(usize, u32), Probe>,
    feasible: HashMap<usize, Feasible>,
    /// Cheapest so far: (cost, candidate, units).
    best: Option<(f64, usize, u32)>,
    /// The cheapest another worker found.
    offered: Option<Mark>,
    sharded: bool,
    /// Runs made when the Pareto fronts' evaluation began.
    pareto_from: u64,
    /// This search's part of `PARETO_RUNS` and `SEARCH_RUNS` (all of them, unless sharded).
    pareto_runs: u64,
    search_runs: u64,
    prune: bool,
    /// Mean output tokens per second of the contract's load.
    output_rate: f64,
    workload_requests: u64,
}

/// The contract's load scaled by `x`: every class's rate (users, trace speed) and its request
/// count (at least `MIN_PROBE_REQUESTS`, at most the contract's), the same seed.
fn scaled(s: &Scenario, x: f64) -> Scenario {
    let mut s = s.clone();
    for c in &mut s.classes {
        match &mut c.arrival {
            Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s *= x,
            Arrival::ClosedLoop { users, .. } => *users = ((*users as f64 * x).round() as u32).max(1),
            Arrival::Trace { speedup, .. } => *speedup *= x,
        }
        if let Some(n) = c.num_requests {
            let floor = n.min(MIN_PROBE_REQUESTS);
            c.num_requests = Some(((n as f64 * x).round() as u64).clamp(floor, n));
        }
    }
    s
}

/// A GPU × engine × TP whose unit holds the weights and one longest sequence: its unit
/// scenario (one replica, the engine's defaults, the contract's limits), its memory-safe
/// `max_num_seqs` and its token budgets.
struct Fitting {
    gpu: String,
    engine: Engine,
    s: Scenario,
    safe: u32,
    budgets: Vec<u32>,
}

/// `max_num_seqs` searched below the memory-safe limit: it and the two powers of two below it
/// (down to 8).
fn seqs_from(safe: u32) -> Vec<u32> {
    let mut seqs = vec![safe];
    let mut p = 1u32 << (31 - safe.leading_zeros());
    if p == safe {
        p /= 2;
    }
    while seqs.len() < 3 && p >= 8 {
        seqs.push(p);
        p /= 2;
    }
    seqs
}

/// The routers and prefix caching searched: with shared prefixes the cache with either router,
/// and no cache; otherwise the engine's own.
fn routers_of(s: &Scenario, shares_prefixes: bool) -> Vec<(Policy, bool)> {
    if shares_prefixes {
        vec![(Policy::LeastOutstanding, true), (Policy::PrefixAffinity, true), (Policy::LeastOutstanding, false)]
    } else {
        vec![(Policy::LeastOutstanding, s.scheduler.prefix_caching)]
    }
}

/// Adds candidate `c`, one unit of which carries `share` of the load at most, unless even its
/// fewest units exceed the GPU budget.
fn push_cand(cands: &mut Vec<Cand>, searched: &mut u64, c: Candidate, share: f64, max_gpus: u32) {
    let max_units = max_gpus / c.unit_gpus();
    if max_units == 0 {
        return;
    }
    let min_units = ((1.0 / share.max(1e-9)).ceil() as u32).max(1);
    if min_units > max_units {
        return;
    }
    *searched += 1;
    cands.push(Cand { rank: 0, min_cost: c.usd_per_hour(min_units), c, ceiling: share, min_units, max_units });
}

fn engine_budget(e: Engine, gpu: &sim_core::GpuSpec, context: u32) -> u32 {
    e.defaults(Some(gpu), context).max_num_batched_tokens
}

impl<'a> Planner<'a> {
    pub fn new(
        contract: &Contract,
        opts: &PlanOptions,
        traces: &'a dyn TraceLoader,
    ) -> Result<Planner<'a>, ScenarioError> {
        let base = contract.scenario()?;
        let model = base.model_spec()?;
        let gpus: Vec<sim_core::GpuSpec> = match &opts.gpus {
            None => sim_core::catalog::gpus(),
            Some(ids) => {
                let mut v = Vec::new();
                for id in ids {
                    v.push(sim_core::catalog::find_gpu(id).ok_or_else(|| {
                        ScenarioError::one(
                            "gpus",
                            format!("names `{id}`, which is not a catalogue GPU (`llmsim gpus` lists them)"),
                        )
                    })?);
                }
                v
            }
        };
        let engines = if opts.engines.is_empty() { Engine::ALL.to_vec() } else { opts.engines.clone() };
        let shares_prefixes = base.classes.iter().any(|c| c.prefix.is_some() || c.session.is_some());
        let l = &contract.request_limits;
        let max_len = u64::from(l.max_input_tokens) + u64::from(l.max_output_tokens);
        // The load in requests per second and their mean prompt (the part to prefill) and
        // answer, for the roofline: a conversation sends its turns' count of requests, each
        // turn's prompt the history and new input; with prefix caching only the new tokens
        // count (the history and the shared prefix can be cached), so the ceiling stays an
        // upper bound. A closed loop's users send at most one request per think time.
        let caching = base.could_cache_prefixes();
        let (mut p_tokens, mut o_tokens, mut requests) = (0.0, 0.0, 0.0);
        for c in &base.classes {
            let r = match &c.arrival {
                Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s,
                Arrival::ClosedLoop { users, think_time_ms } => f64::from(*users) / (think_time_ms / 1000.0).max(1.0),
                Arrival::Trace { speedup, .. } => *speedup,
            };
            let turns = c.session.as_ref().map_or(1.0, |s| s.turns.typical().max(1.0));
            let input = c.input_tokens.as_ref().map_or(1.0, |d| d.typical());
            let shared = c.prefix.as_ref().map_or(0.0, |p| f64::from(p.shared_tokens)).min(input - 1.0).max(0.0);
            let output = c.output_tokens.as_ref().map_or(1.0, |d| d.typical());
            let new = input - shared;
            let whole = input + (turns - 1.0) / 2.0 * (new + output);
            let prefill = if caching { new } else { whole };
            p_tokens += r * turns * prefill;
            o_tokens += r * turns * output;
            requests += r * turns;
        }
        let (mean_in, mean_out) = if requests > 0.0 { (p_tokens / requests, o_tokens / requests) } else { (1.0, 1.0) };
        let total_rate = requests;
        let mut cands = Vec::new();
        let mut excluded = Vec::new();
        let mut searched = 0u64;
        let mut seen = std::collections::HashSet::new();
        let splits = opts.splits && base.speculative.is_none() && !base.scheduler.overcommit;
        // every GPU × engine × TP that holds the weights and one longest sequence
        let mut fitting: Vec<Fitting> = Vec::new();
        for gpu in &gpus {
            for tp in TP_DEGREES {
                for &engine in &engines {
                    // the unit's scenario with the engine's defaults and the contract's limits
                    let mut s = base.clone();
                    s.gpu = GpuRef::Id(gpu.id.clone());
                    s.num_gpus = tp;
                    if contract.resources.gpu != gpu.id {
                        s.gpu_usd_per_hour = None;
                    }
                    s.replicas = 1;
                    s.disaggregation = None;
                    s.set_engine_profile(engine);
                    s.gpu_memory_utilization = contract.resources.gpu_memory_utilization;
                    s.scheduler.max_model_len = max_len as u32;
                    s.scheduler.max_num_seqs = 1;
                    let budgets = {
                        let d = engine_budget(engine, gpu, model.max_context).max(2048);
                        if d > 2048 {
                            vec![d, 2048]
                        } else {
                            vec![d]
                        }
                    };
                    s.scheduler.max_num_batched_tokens = budgets[0];
                    searched += 1;
                    let plan = match Ceiling::of(&s, mean_in, mean_out) {
                        Ok((_, plan)) => plan,
                        Err(e) => {
                            if engine == engines[0] {
                                excluded.push(Excluded {
                                    gpu: gpu.id.clone(),
                                    tp,
                                    bound: Bound::Weights,
                                    why: e.errors.first().map_or_else(String::new, |f| f.to_string()),
                                });
                            }
                            continue;
                        }
                    };
                    let safe = if plan.kv_bytes_per_token > 0.0 {
                        (plan.kv_capacity_bytes / (max_len as f64 * plan.kv_bytes_per_token)).floor()
                    } else {
                        4096.0
                    };
                    if !plan.starts() || !plan.fits() || safe < 1.0 {
                        if engine == engines[0] {
                            excluded.push(Excluded {
                                gpu: gpu.id.clone(),
                                tp,
                                bound: Bound::Weights,
                                why: format!(
                                    "{:.1} GiB of weights leave {:.1} GiB of KV per replica: not one sequence of {max_len} tokens",
                                    plan.weights_bytes / f64::from(1u32 << 30) * f64::from(tp),
                                    plan.kv_capacity_bytes / f64::from(1u32 << 30)
                                ),
                            });
                        }
                        continue;
                    }
                    let safe = (safe as u32).min(engine.defaults(Some(gpu), model.max_context).max_num_seqs).min(4096);
                    let seqs = seqs_from(safe);
                    let mut layouts = vec![Layout::Colocated];
                    if splits {
                        layouts.extend(SPLITS.iter().map(|&(prefill, decode)| Layout::Split { prefill, decode }));
                    }
                    let routers = routers_of(&s, shares_prefixes);
                    fitting.push(Fitting { gpu: gpu.id.clone(), engine, s: s.clone(), safe, budgets: budgets.clone() });
                    for &n in &seqs {
                        for &mnbt in &budgets {
                            let mut u = s.clone();
                            u.scheduler.max_num_seqs = n;
                            u.scheduler.max_num_batched_tokens =
                                if u.scheduler.chunked_prefill { mnbt.max(n) } else { mnbt.max(max_len as u32) };
                            if !seen.insert((gpu.id.clone(), tp, engine.name(), n, u.scheduler.max_num_batched_tokens))
                            {
                                continue;
                            }
                            let Ok((ceiling, _)) = Ceiling::of(&u, mean_in, mean_out) else { continue };
                            let unit_rate = ceiling.requests_per_s(mean_in, mean_out);
                            for &layout in &layouts {
                                for &(router, prefix_caching) in &routers {
                                    let c = Candidate {
                                        gpu: gpu.id.clone(),
                                        tp,
                                        engine,
                                        max_num_seqs: n,
                                        max_num_batched_tokens: u.scheduler.max_num_batched_tokens,
                                        layout,
                                        decode_tp: None,
                                        router,
                                        prefix_caching,
                                        usd_per_gpu_hour: u.usd_per_hour_per_gpu(),
                                    };
                                    // a split unit's ceiling: its prefill pool's prompts and
                                    // its decode pool's tokens
                                    let share = match layout {
                                        Layout::Colocated => unit_rate,
                                        Layout::Split { prefill, decode } => (ceiling.prefill_tokens_per_s
                                            * f64::from(prefill)
                                            / mean_in.max(1e-9))
                                        .min(ceiling.decode_tokens_per_s * f64::from(decode) / mean_out.max(1e-9)),
                                    } / total_rate.max(1e-9);
                                    push_cand(&mut cands, &mut searched, c, share, opts.max_gpus);
                                }
                            }
                        }
                    }
                }
            }
        }
        // splits whose pools have their own TP: each pool's TP one that fits (as above), the
        // two a factor of two apart (prefill TP2 and decode TP4, or the other way); one
        // max_num_seqs for both pools, memory-safe in each. After the splits of one TP, so
        // that of two at the same least cost the one TP keeps the earlier rank.
        if splits {
            let mut seen_pairs = std::collections::HashSet::new();
            for fp in &fitting {
                for fd in fitting.iter().filter(|f| {
                    f.gpu == fp.gpu
                        && f.engine == fp.engine
                        && (f.s.num_gpus == 2 * fp.s.num_gpus || fp.s.num_gpus == 2 * f.s.num_gpus)
                }) {
                    let (tp, decode_tp) = (fp.s.num_gpus, fd.s.num_gpus);
                    let mut u = fp.s.clone();
                    u.disaggregation = Some(DisaggConfig {
                        prefill_replicas: 1,
                        decode_replicas: 1,
                        kv_link_gbps: SPLIT_LINK_GBPS,
                        kv_link_latency_us: 0.0,
                        prefill_num_gpus: None,
                        decode_num_gpus: Some(decode_tp),
                    });
                    let routers = routers_of(&u, shares_prefixes);
                    for n in seqs_from(fp.safe.min(fd.safe)) {
                        for &mnbt in &fp.budgets {
                            u.scheduler.max_num_seqs = n;
                            u.scheduler.max_num_batched_tokens =
                                if u.scheduler.chunked_prefill { mnbt.max(n) } else { mnbt.max(max_len as u32) };
                            let key = (
                                fp.gpu.clone(),
                                tp,
                                decode_tp,
                                fp.engine.name(),
                                n,
                                u.scheduler.max_num_batched_tokens,
                            );
                            if !seen_pairs.insert(key) {
                                continue;
                            }
                            let Ok((pc, _)) = Ceiling::of_replica(&u, 0, mean_in, mean_out) else { continue };
                            let Ok((dc, _)) = Ceiling::of_replica(&u, 1, mean_in, mean_out) else { continue };
                            for &(prefill, decode) in &SPLITS {
                                for &(router, prefix_caching) in &routers {
                                    let c = Candidate {
                                        gpu: fp.gpu.clone(),
                                        tp,
                                        engine: fp.engine,
                                        max_num_seqs: n,
                                        max_num_batched_tokens: u.scheduler.max_num_batched_tokens,
                                        layout: Layout::Split { prefill, decode },
                                        decode_tp: Some(decode_tp),
                                        router,
                                        prefix_caching,
                                        usd_per_gpu_hour: u.usd_per_hour_per_gpu(),
                                    };
                                    let share = (pc.prefill_tokens_per_s * f64::from(prefill) / mean_in.max(1e-9))
                                        .min(dc.decode_tokens_per_s * f64::from(decode) / mean_out.max(1e-9))
                                        / total_rate.max(1e-9);
                                    push_cand(&mut cands, &mut searched, c, share, opts.max_gpus);
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut order: Vec<usize> = (0..cands.len()).collect();
        order.sort_by(|&a, &b| cands[a].min_cost.total_cmp(&cands[b].min_cost).then(a.cmp(&b)));
        for (rank, &i) in order.iter().enumerate() {
            cands[i].rank = rank;
        }
        let workers = opts.shard.map_or(1, |(_, n)| u64::from(n.max(1)));
        if let Some((k, n)) = opts.shard {
            let n = n.max(1) as usize;
            order = order.into_iter().enumerate().filter(|(p, _)| p % n == k as usize % n).map(|(_, i)| i).collect();
        }
        Ok(Planner {
            contract: contract.clone(),
            traces,
            cands,
            order,
            next: 0,
            phase: Phase::Search,
            excluded,
            searched,
            simulated: 0,
            probes: HashMap::new(),
            capacities: HashMap::new(),
            confirmed: HashMap::new(),
            feasible: HashMap::new(),
            best: None,
            offered: None,
            sharded: opts.shard.is_some(),
            pareto_from: 0,
            pareto_runs: PARETO_RUNS.div_ceil(workers),
            search_runs: SEARCH_RUNS.div_ceil(workers),
            prune: opts.prune,
            output_rate: o_tokens.max(0.0),
            workload_requests: base.classes.iter().filter_map(|c| c.num_requests).sum(),
        })
    }

    /// The cost to beat: the cheapest this search found or another worker offered.
    fn bound(&self) -> Option<Mark> {
        let own = self.best.map(|(cost, i, _)| Mark { cost, rank: self.cands[i].rank });
        match (own, self.offered) {
            (Some(a), Some(b)) => Some(if b.beats(a) { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// Another worker's best (its cost and rank, from its `progress`): candidates that cannot
    /// beat it are skipped.
    pub fn offer_best(&mut self, usd_per_hour: f64, rank: usize) {
        let m = Mark { cost: usd_per_hour, rank };
        if usd_per_hour.is_finite() && self.offered.is_none_or(|o| m.beats(o)) {
            self.offered = Some(m);
        }
    }

    /// A worker's answer phase, with the best of all workers (cost and rank).
    pub fn begin_answer(&mut self, best: Option<(f64, usize)>) {
        if let Some((cost, rank)) = best {
            self.offer_best(cost, rank);
        }
        if self.phase == Phase::Waiting {
            self.phase = Phase::Answer;
            self.next = 0;
        }
    }

    fn end_search(&mut self) -> bool {
        self.next = 0;
        if self.sharded {
            self.phase = Phase::Waiting;
            false
        } else {
            self.phase = Phase::Answer;
            self.bound().is_some() && !self.order.is_empty()
        }
    }

    pub fn progress(&self) -> Progress {
        Progress {
            phase: self.phase,
            tried: if self.next > self.order.len() { self.next - self.order.len() } else { self.next },
            total: self.order.len(),
            simulated: self.simulated,
            best_usd_per_hour: self.best.map(|b| b.0),
            best_rank: self.best.map(|(_, i, _)| self.cands[i].rank),
            best_label: self.best.map(|(_, i, u)| self.cands[i].c.label(u)),
        }
    }

    /// Runs the whole search.
    pub fn run(mut self) -> PlanAnswer {
        while self.step() {}
        self.answer()
    }

    /// The contract of candidate `c` with `units` units at the load share `x` (1: the
    /// contract's whole load; a unit's probe: one unit at its share).
    pub fn contract_for(&self, c: &Candidate, units: u32, x: f64) -> Contract {
        let mut k = self.contract.clone();
        k.resources.gpu = c.gpu.clone();
        k.resources.num_gpus = c.tp;
        if self.contract.resources.gpu != c.gpu {
            k.resources.gpu_usd_per_hour = None;
        }
        k.request_limits.max_concurrency = c.max_num_seqs;
        if let Some(r) = &mut k.request_limits.max_rate_per_s {
            *r *= x;
        }
        if let Some(g) = &mut k.slo.goodput_min_req_s {
            *g *= x;
        }
        let mut w = if x == 1.0 { k.workload.clone() } else { scaled(&k.workload, x) };
        w.gpu = GpuRef::Id(c.gpu.clone());
        w.num_gpus = c.tp;
        w.gpu_usd_per_hour = None;
        w.set_engine_profile(c.engine);
        w.scheduler.max_num_seqs = c.max_num_seqs;
        w.scheduler.max_num_batched_tokens = c.max_num_batched_tokens;
        w.router.policy = c.router;
        w.scheduler.prefix_caching = c.prefix_caching;
        match c.layout {
            Layout::Colocated => {
                w.replicas = units;
                w.disaggregation = None;
            }
            Layout::Split { prefill, decode } => {
                w.replicas = 1;
                w.disaggregation = Some(DisaggConfig {
                    prefill_replicas: prefill * units,
                    decode_replicas: decode * units,
                    kv_link_gbps: SPLIT_LINK_GBPS,
                    kv_link_latency_us: 0.0,
                    prefill_num_gpus: None,
                    decode_num_gpus: c.decode_tp.filter(|&d| d != c.tp),
                });
            }
        }
        k.workload = w;
        k
    }

    fn run_contract(&mut self, k: &Contract) -> Probe {
        self.simulated += 1;
        match k.check(self.traces) {
            Ok(r) => {
                let (bound, evidence) = bound::classify(&r, &r.scenario);
                Probe {
                    pass: r.pass,
                    fails: fails_of(&r.lines),
                    bound,
                    evidence,
                    ttft_p99_ms: r.summary.all.ttft_ms.p99,
                    tpot_p50_ms: r.summary.all.tpot_ms.p50,
                    usd_per_million_good_tokens: r.summary.cost.usd_per_million_good_tokens,
                    slack: slack_of(&r.lines),
                }
            }
            Err(e) => Probe {
                pass: false,
                fails: e
                    .errors
                    .iter()
                    .map(|f| Fail { rule: f.field.clone(), measured: f64::NAN, target: f64::NAN })
                    .collect(),
                bound: Bound::Weights,
                evidence: Evidence::default(),
                ttft_p99_ms: f64::NAN,
                tpot_p50_ms: f64::NAN,
                usd_per_million_good_tokens: f64::NAN,
                slack: Vec::new(),
            },
        }
    }

    /// One unit of candidate `i` at share `x` (cached).
    fn probe(&mut self, i: usize, x: f64) -> Probe {
        let key = (self.cands[i].c.unit_key(), x.to_bits());
        if let Some(p) = self.probes.get(&key) {
            return p.clone();
        }
        let k = self.contract_for(&self.cands[i].c.clone(), 1, x);
        let p = self.run_contract(&k);
        self.probes.insert(key, p.clone());
        p
    }

    /// The share of the load one unit of candidate `i` carries within every rule, bisected in
    /// log space below the roofline's share (`None`: it fails even at 1/256 of it).
    fn capacity(&mut self, i: usize) -> Option<f64> {
        let key = self.cands[i].c.unit_key();
        if let Some(c) = self.capacities.get(&key) {
            return *c;
        }
        let top = self.cands[i].ceiling;
        // the bracket: the roofline's share above, and below it the first of top/4, top/16,
        // top/64, top/256 that passes
        let mut hi = top;
        let mut lo = top / 4.0;
        let mut found = false;
        for _ in 0..4 {
            if self.probe(i, lo).pass {
                found = true;
                break;
            }
            hi = lo;
            lo /= 4.0;
        }
        if found && hi == top {
            // the load's estimate can be off (closed loops, traces): look above the roofline's
            // share until a probe fails
            let mut k = 0;
            while k < 4 && self.probe(i, hi).pass {
                lo = hi;
                hi *= 4.0;
                k += 1;
            }
        }
        let cap = if !found {
            None
        } else if self.probe(i, hi).pass {
            Some(hi)
        } else {
            while hi / lo > BISECTION_RATIO {
                let mid = (lo * hi).sqrt();
                if self.probe(i, mid).pass {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            Some(lo)
        };
        self.capacities.insert(key, cap);
        cap
    }

    /// The whole cluster of candidate `i` with `units` units at the contract's load (cached).
    fn confirm(&mut self, i: usize, units: u32) -> Probe {
        if let Some(p) = self.confirmed.get(&(i, units)) {
            return p.clone();
        }
        let k = self.contract_for(&self.cands[i].c.clone(), units, 1.0);
        let mut p = self.run_contract(&k);
        // a configuration that passes on the contract's seed alone may be one lucky draw: it
        // must pass on the next seeds too
        for extra in 1..CONFIRM_SEEDS {
            if !p.pass {
                break;
            }
            let mut other = k.clone();
            other.workload.seed = k.workload.seed.wrapping_add(extra);
            let q = self.run_contract(&other);
            if !q.pass {
                p.pass = false;
                p.fails = q.fails;
                p.bound = q.bound;
                p.evidence = q.evidence;
            }
        }
        self.confirmed.insert((i, units), p.clone());
        p
    }

    /// Capacity, units and the confirming run of candidate `i`.
    fn evaluate(&mut self, i: usize) {
        if self.feasible.contains_key(&i) {
            return;
        }
        let Some(cap) = self.capacity(i) else { return };
        let c = &self.cands[i];
        let first = ((1.0 / cap).ceil() as u32).max(1);
        let max_units = c.max_units;
        for units in first..=(first + 2).min(max_units) {
            let p = self.confirm(i, units);
            if p.pass {
                let c = &self.cands[i].c;
                let gpus = units * c.unit_gpus();
                let f = Feasible {
                    candidate: c.clone(),
                    rank: self.cands[i].rank,
                    units,
                    gpus,
                    unit_capacity: cap,
                    usd_per_hour: c.usd_per_hour(units),
                    usd_per_million_good_tokens: p.usd_per_million_good_tokens,
                    ttft_p99_ms: p.ttft_p99_ms,
                    tokens_per_s_per_gpu: cap * self.output_rate / f64::from(c.unit_gpus()),
                    tokens_per_s_per_user: {
                        let at = self.probe(i, cap);
                        if at.tpot_p50_ms > 0.0 {
                            1000.0 / at.tpot_p50_ms
                        } else {
                            0.0
                        }
                    },
                };
                let cost = f.usd_per_hour;
                let mark = Mark { cost, rank: self.cands[i].rank };
                if self.bound().is_none_or(|b| mark.beats(b)) {
                    self.best = Some((cost, i, units));
                }
                self.feasible.insert(i, f);
                return;
            }
        }
    }

    /// Whether candidate `i` at its least cost could beat `b`.
    fn could_beat(&self, i: usize, b: Mark) -> bool {
        Mark { cost: self.cands[i].min_cost, rank: self.cands[i].rank }.beats(b)
    }

    /// The most units of candidate `i` that beat `b`.
    fn units_below(&self, i: usize, b: Mark) -> u32 {
        let c = &self.cands[i];
        let per = c.c.usd_per_hour(1);
        let mut u = (b.cost / per).ceil() as u32 + 1;
        while u > 0 && !(Mark { cost: c.c.usd_per_hour(u), rank: c.rank }.beats(b)) {
            u -= 1;
        }
        u.min(c.max_units)
    }

    /// Does one candidate's work; false when the search is over.
    pub fn step(&mut self) -> bool {
        match self.phase {
            Phase::Search => {
                let Some(&i) = self.order.get(self.next) else {
                    return self.end_search();
                };
                self.next += 1;
                match self.bound() {
                    _ if !self.prune => self.evaluate(i),
                    Some(b) if !self.could_beat(i, b) => {
                        // least cost first: nothing after this one can be cheaper
                        return self.end_search();
                    }
                    Some(b) => {
                        let units = self.units_below(i, b);
                        if units >= self.cands[i].min_units && self.probe(i, 1.0 / f64::from(units)).pass {
                            self.evaluate(i);
                        }
                    }
                    None if self.simulated >= self.search_runs => return self.end_search(),
                    None => self.evaluate(i),
                }
                true
            }
            Phase::Waiting => false,
            Phase::Answer => {
                let Some(b) = self.bound() else {
                    self.phase = Phase::Done;
                    return false;
                };
                // first every cheaper candidate's run at its most units below the best's cost
                // (why it is not the answer), then the Pareto fronts' candidates, least cost
                // first, within `PARETO_SPAN` and `PARETO_RUNS`
                let rejected_pass = self.next < self.order.len();
                let k = if rejected_pass { self.next } else { self.next - self.order.len() };
                let Some(&i) = self.order.get(k) else {
                    self.phase = Phase::Done;
                    return false;
                };
                self.next += 1;
                let c = &self.cands[i];
                if rejected_pass {
                    if !self.could_beat(i, b) {
                        self.next = self.order.len();
                        self.pareto_from = self.simulated;
                        return true;
                    }
                    let units = self.units_below(i, b);
                    if units >= c.min_units && units >= 1 {
                        self.probe(i, 1.0 / f64::from(units));
                    }
                    return true;
                }
                if c.min_cost > b.cost * PARETO_SPAN || self.simulated - self.pareto_from >= self.pareto_runs {
                    self.phase = Phase::Done;
                    return false;
                }
                self.evaluate(i);
                true
            }
            Phase::Done => false,
        }
    }

    fn rejected_at(&mut self, i: usize, units: u32) -> Rejected {
        let p = self.probe(i, 1.0 / f64::from(units.max(1)));
        let c = self.cands[i].c.clone();
        Rejected {
            usd_per_hour: c.usd_per_hour(units),
            candidate: c,
            units,
            bound: p.bound,
            why: bound::explain(p.bound, &p.evidence),
            evidence: p.evidence,
            fails: p.fails,
        }
    }

    /// The answer, from the cheapest cost found (deterministic: see the module's notes).
    pub fn answer(mut self) -> PlanAnswer {
        let order = self.order.clone();
        let Some(b) = self.bound() else {
            // nothing passed: every candidate at the most units allowed
            let mut tally: HashMap<Bound, u32> = HashMap::new();
            let mut closest: Option<Rejected> = None;
            for &i in order.iter().take(64) {
                let u = self.cands[i].max_units;
                let r = self.rejected_at(i, u);
                *tally.entry(r.bound).or_default() += 1;
                if closest.as_ref().is_none_or(|c| r.fails.len() < c.fails.len()) {
                    closest = Some(r);
                }
            }
            let bound = Bound::ALL
                .into_iter()
                .max_by_key(|b| (tally.get(b).copied().unwrap_or(0), std::cmp::Reverse(*b)))
                .filter(|b| tally.contains_key(b))
                .unwrap_or(Bound::Weights);
            let why = match &closest {
                Some(c) => c.why.clone(),
                None => "no GPU of the search holds the weights and one sequence of the longest allowed length".into(),
            };
            return PlanAnswer {
                best: None,
                next_cheaper: None,
                rejected: Vec::new(),
                pareto: Pareto { cost_ttft: Vec::new(), gpu_user: Vec::new() },
                infeasible: Some(Infeasible { bound, why, closest }),
                excluded: self.excluded,
                evaluated: Vec::new(),
                searched: self.searched,
                simulated: self.simulated,
            };
        };
        // cheaper candidates, each at its most units below the cheapest cost
        let mut rejected = Vec::new();
        for &i in &order {
            if !self.could_beat(i, b) {
                break;
            }
            let units = self.units_below(i, b);
            if units == 0 || units < self.cands[i].min_units {
                continue;
            }
            rejected.push(self.rejected_at(i, units));
        }
        // this search's best is the answer's unless another worker found a cheaper one
        let best = self.best.filter(|(cost, i, _)| Mark { cost: *cost, rank: self.cands[*i].rank } == b);
        // the best itself with one unit fewer
        if let Some((_, bi, bu)) = best.filter(|(_, _, u)| *u > 1) {
            rejected.push(self.rejected_at(bi, bu - 1));
        }
        sort_rejected(&mut rejected);
        rejected.dedup_by(|a, b| a.candidate == b.candidate && a.units == b.units);
        // the most expensive of them, checked as a whole cluster (`llmsim check` fails it)
        let mut next_cheaper = None;
        for r in rejected.iter().take(3) {
            let k = self.contract_for(&r.candidate, r.units, 1.0);
            let p = self.run_contract(&k);
            if !p.pass {
                next_cheaper = Some(NextCheaper {
                    usd_per_hour: r.usd_per_hour,
                    fails: p.fails.clone(),
                    bound: p.bound,
                    why: bound::explain(p.bound, &p.evidence),
                    contract: k,
                });
                break;
            }
        }
        let best = best.map(|(_, bi, bu)| {
            let plan = self.feasible[&bi].clone();
            let contract = self.contract_for(&self.cands[bi].c.clone(), bu, 1.0);
            let run = self.confirm(bi, bu);
            Best {
                usd_per_hour: plan.usd_per_hour,
                usd_per_million_good_tokens: run.usd_per_million_good_tokens,
                launch: launch::commands(&contract.scenario().unwrap_or_else(|_| contract.workload.clone())),
                plan,
                slack: run.slack,
                contract,
            }
        });
        let mut all: Vec<(usize, Feasible)> = self.feasible.iter().map(|(i, f)| (*i, f.clone())).collect();
        all.sort_by_key(|(i, _)| *i);
        let evaluated: Vec<Feasible> =
            all.into_iter().filter(|(i, _)| self.cands[*i].min_cost <= b.cost * PARETO_SPAN).map(|(_, f)| f).collect();
        PlanAnswer {
            best,
            next_cheaper,
            rejected,
            pareto: fronts(&evaluated),
            infeasible: None,
            excluded: self.excluded,
            evaluated,
            searched: self.searched,
            simulated: self.simulated,
        }
    }

    /// Requests of the contract's workload (for progress messages).
    pub fn workload_requests(&self) -> u64 {
        self.workload_requests
    }
}

fn sort_rejected(r: &mut [Rejected]) {
    r.sort_by(|a, b| {
        b.usd_per_hour
            .total_cmp(&a.usd_per_hour)
            .then(a.fails.len().cmp(&b.fails.len()))
            .then_with(|| a.candidate.label(a.units).cmp(&b.candidate.label(b.units)))
    });
}

/// The Pareto fronts of `all`: cost against p99 TTFT (both the less the better), and tokens/s
/// per GPU against tokens/s per user (both the more the better).
fn fronts(all: &[Feasible]) -> Pareto {
    let front = |a: &dyn Fn(&Feasible) -> (f64, f64)| -> Vec<Feasible> {
        let mut pts: Vec<&Feasible> = all.iter().collect();
        pts.sort_by(|p, q| {
            let (p0, p1) = a(p);
            let (q0, q1) = a(q);
            p0.total_cmp(&q0)
                .then(p1.total_cmp(&q1))
                .then_with(|| p.candidate.label(p.units).cmp(&q.candidate.label(q.units)))
        });
        let mut out: Vec<Feasible> = Vec::new();
        let mut low = f64::INFINITY;
        for p in pts {
            let (_, y) = a(p);
            if y < low {
                low = y;
                out.push(p.clone());
            }
        }
        out
    };
    Pareto {
        cost_ttft: front(&|f| (f.usd_per_hour, f.ttft_p99_ms)),
        gpu_user: front(&|f| (-f.tokens_per_s_per_gpu, -f.tokens_per_s_per_user)),
    }
}

/// Cheaper candidates that failed alike: one shape (GPU, parallelism, layout, units, cap, router,
/// cache) and one binding constraint, the engines and token budgets that failed so (one line
/// of the CLI's table and of the page's).
#[derive(Clone, Debug)]
pub struct RejectedGroup<'a> {
    /// The group's first candidate (the most expensive, as `rejected` is sorted).
    pub first: &'a Rejected,
    /// `Candidate::shape_label`.
    pub label: String,
    /// `Candidate::variant` of each candidate in it, in `rejected`'s order.
    pub variants: Vec<String>,
}

/// `rejected` in groups of candidates that failed alike, in its order.
pub fn group_rejected(rejected: &[Rejected]) -> Vec<RejectedGroup<'_>> {
    let mut groups: Vec<(String, RejectedGroup)> = Vec::new();
    for r in rejected {
        let label = r.candidate.shape_label(r.units);
        let key = format!("{label}|{:?}", r.bound);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some((_, g)) => g.variants.push(r.candidate.variant()),
            None => groups.push((key, RejectedGroup { first: r, label, variants: vec![r.candidate.variant()] })),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

impl PlanAnswer {
    /// The answer of several workers' searches (`PlanOptions::shard`), each given the cheapest
    /// cost of all before its answer phase.
    pub fn merge(parts: Vec<PlanAnswer>) -> PlanAnswer {
        let simulated = parts.iter().map(|p| p.simulated).sum();
        let searched = parts.iter().map(|p| p.searched).max().unwrap_or(0);
        let excluded = parts.first().map(|p| p.excluded.clone()).unwrap_or_default();
        let mut best: Option<Best> = None;
        let mut next: Option<NextCheaper> = None;
        let mut rejected = Vec::new();
        let mut evaluated = Vec::new();
        let mut infeasible: Option<Infeasible> = None;
        for p in parts {
            if let Some(b) = p.best {
                let better = best.as_ref().is_none_or(|c| {
                    b.usd_per_hour < c.usd_per_hour || (b.usd_per_hour == c.usd_per_hour && b.plan.rank < c.plan.rank)
                });
                if better {
                    best = Some(b);
                }
            }
            if let Some(n) = p.next_cheaper {
                if next.as_ref().is_none_or(|c| n.usd_per_hour > c.usd_per_hour) {
                    next = Some(n);
                }
            }
            rejected.extend(p.rejected);
            evaluated.extend(p.evaluated);
            if let Some(i) = p.infeasible {
                let fewer = |i: &Infeasible| i.closest.as_ref().map_or(usize::MAX, |c| c.fails.len());
                if infeasible.as_ref().is_none_or(|c| fewer(&i) < fewer(c)) {
                    infeasible = Some(i);
                }
            }
        }
        if let Some(b) = &best {
            rejected.retain(|r| r.usd_per_hour < b.usd_per_hour);
            next = next.filter(|n| n.usd_per_hour < b.usd_per_hour);
            infeasible = None;
        }
        sort_rejected(&mut rejected);
        evaluated.sort_by(|a, b| {
            a.usd_per_hour
                .total_cmp(&b.usd_per_hour)
                .then_with(|| a.candidate.label(a.units).cmp(&b.candidate.label(b.units)))
        });
        PlanAnswer {
            best,
            next_cheaper: next,
            rejected,
            pareto: fronts(&evaluated),
            infeasible,
            excluded,
            evaluated,
            searched,
            simulated,
        }
    }
}
