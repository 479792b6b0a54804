//! A lesson's realistic neighbours: its runs with one thing changed — the offered load ×0.7 and
//! ×1.3, each engine profile, the engine's default caps, the next GPU, the next model size of the
//! family — so a lesson can be checked to teach what holds one step away from its own runs, not
//! only on them (`llmsim lesson ID --neighbours`).
//!
//! A neighbour never touches what the lesson itself varies between its runs (a lesson comparing
//! GPUs has no "next GPU"; a scheduler field that differs between the runs keeps each run's
//! value); when it cannot apply, or would change nothing, it says why ([`Skip`]).

use super::{Agreement, Lesson};
use serde::Serialize;
use sim_core::profile::{Engine, SGLANG_MAX_PREFILL_TOKENS};
use sim_core::scenario::{Arrival, Scenario, ScenarioError};

/// One neighbour: what it changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Neighbour {
    /// Every class's offered load times this factor (Poisson and bursty rates, closed-loop users,
    /// a trace's speed).
    Load(f64),
    /// The engine's scheduling as its profile sets it (prompts-first batches for SGLang, blocks
    /// of 32 for TensorRT-LLM, prefix caching), keeping the run's caps: those are [`Neighbour::DefaultCaps`].
    Engine(Engine),
    /// The engine's default `max_num_seqs` and `max_num_batched_tokens` on the run's GPU (for
    /// vLLM on an H100: 1,024 and 8,192).
    DefaultCaps,
    /// The next GPU of its line in the catalogue ([`next_gpu`]).
    NextGpu,
    /// The next larger model of the same family ([`next_model`]), on as many GPUs as it needs
    /// to fit (tensor parallel 1, 2, 4 or 8), as it would be deployed.
    NextModel,
}

/// The neighbours every lesson is checked on, in the order they are reported.
pub const NEIGHBOURS: [Neighbour; 8] = [
    Neighbour::Load(0.7),
    Neighbour::Load(1.3),
    Neighbour::Engine(Engine::Vllm),
    Neighbour::Engine(Engine::Sglang),
    Neighbour::Engine(Engine::Trtllm),
    Neighbour::DefaultCaps,
    Neighbour::NextGpu,
    Neighbour::NextModel,
];

/// The share of seeds a lesson must bear out on a neighbour to hold there (16 of 20).
pub const HOLDS_AT: f64 = 0.8;

/// The neighbours a lesson is known not to hold on, by lesson id: its explanation says so, in the
/// sentence [`LIMIT_SENTENCE`] (always said), naming each and why. A neighbour that does not hold
/// and is not listed here is a lesson to fix (`llmsim lesson ID --neighbours --check` fails).
pub const LIMITS: &[(&str, &[&str])] = &[
    ("mean-hides-tail", &["next-model"]),
    ("ttft-vs-tpot", &["next-model"]),
    ("goodput-vs-throughput", &["load-0.7", "next-gpu", "next-model"]),
    ("headroom", &["load-0.7", "next-gpu", "next-model"]),
    ("latency-vs-throughput-first", &["engine-trtllm", "next-model"]),
    ("mixed-traffic", &["engine-trtllm"]),
    ("cost-per-good-token", &["next-model"]),
    ("safe-zone", &["engine-trtllm", "next-gpu", "next-model"]),
    ("prefix-caching", &["next-model"]),
    ("disaggregation", &["load-0.7", "next-gpu", "next-model"]),
    ("quantization", &["next-gpu"]),
    ("tp-vs-replicas", &["engine-trtllm"]),
    ("what-limits", &["default-caps", "next-model"]),
];

/// The sentence of a lesson's explanation that names where it stops holding.
pub const LIMIT_SENTENCE: &str = "where";

/// Whether lesson `id`'s explanation names neighbour `n` as a place it stops holding.
pub fn named_limit(id: &str, n: Neighbour) -> bool {
    let n = n.id();
    LIMITS.iter().any(|(l, ns)| *l == id && ns.contains(&n.as_str()))
}

/// Why a neighbour does not apply to a lesson.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Skip {
    /// The runs have no offered load to scale.
    NoLoad,
    /// The lesson varies this between its runs: it is the lesson's own question.
    Varied { what: &'static str },
    /// The runs already are this neighbour.
    Unchanged,
    /// Nothing follows this GPU or model in the catalogue.
    NoNext { of: String },
    /// The changed runs cannot start (the model does not fit, a setting out of range).
    Invalid { message: String },
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::NoLoad => write!(f, "the runs have no arrival rate to scale"),
            Skip::Varied { what } => write!(f, "the lesson varies the {what} between its runs itself"),
            Skip::Unchanged => write!(f, "the lesson's runs already are this"),
            Skip::NoNext { of } => write!(f, "nothing follows {of} in the catalogue"),
            Skip::Invalid { message } => write!(f, "the changed runs cannot start: {message}"),
        }
    }
}

/// The next GPU of each line: more memory or the next generation (H100 → H200 → B200 → B300).
pub fn next_gpu(id: &str) -> Option<&'static str> {
    const NEXT: &[(&str, &str)] = &[
        ("a100-40gb", "a100-80gb"),
        ("a100-80gb", "h100-sxm"),
        ("h100-sxm", "h200"),
        ("h20", "h200"),
        ("h200", "b200"),
        ("b200", "b300"),
        ("gb200", "b300"),
        ("l4", "l40s"),
        ("rtx-4090", "rtx-pro-6000"),
        ("l40s", "rtx-pro-6000"),
        ("rtx-pro-6000", "h200"),
        ("mi300x", "mi325x"),
    ];
    NEXT.iter().find(|(a, _)| *a == id).map(|(_, b)| *b)
}

/// The model families of the catalogue, smallest first.
const FAMILIES: &[&[&str]] = &[
    &["llama-2-7b", "llama-2-13b", "llama-2-70b"],
    &["llama-3-8b", "llama-3-70b"],
    &["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"],
    &["qwen2.5-7b", "qwen2.5-72b"],
    &["qwen3-8b", "qwen3-32b"],
    &["qwen3-30b-a3b", "qwen3-235b-a22b"],
    &["gpt-oss-20b", "gpt-oss-120b"],
];

/// The next larger model of `id`'s family.
pub fn next_model(id: &str) -> Option<&'static str> {
    FAMILIES.iter().find_map(|f| f.iter().position(|m| *m == id).and_then(|i| f.get(i + 1).copied()))
}

impl Neighbour {
    /// Its stable id (`load-0.7`, `engine-sglang`, `default-caps`, `next-gpu`, `next-model`).
    pub fn id(self) -> String {
        match self {
            Neighbour::Load(f) => format!("load-{f}"),
            Neighbour::Engine(e) => format!("engine-{}", e.name()),
            Neighbour::DefaultCaps => "default-caps".into(),
            Neighbour::NextGpu => "next-gpu".into(),
            Neighbour::NextModel => "next-model".into(),
        }
    }

    /// What a changed run now is, in a few words (`h200`, `llama-3.1-70b on 4 GPUs`).
    pub fn describe(self, s: &Scenario) -> String {
        match self {
            Neighbour::Load(_) => format!("{:.3} req/s", crate::sweep::offered_rate(s)),
            Neighbour::Engine(e) => e.label().to_string(),
            Neighbour::DefaultCaps => {
                format!("{} seqs, {} tokens", s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens)
            }
            Neighbour::NextGpu => s.gpu.id().to_string(),
            Neighbour::NextModel => format!("{} on {} GPU(s)", s.model.id(), s.num_gpus),
        }
    }

    /// The paths of the scenario this neighbour may change (a test holds it to them).
    pub fn paths(self) -> &'static [&'static str] {
        match self {
            Neighbour::Load(_) => &["arrival.rate_per_s", "arrival.users", "arrival.speedup"],
            Neighbour::Engine(_) => &[
                "engine_profile",
                "scheduler.batching",
                "scheduler.chunked_prefill",
                "scheduler.kv_layout",
                "scheduler.block_size",
                "scheduler.prefix_caching",
                "scheduler.max_num_batched_tokens",
                "scheduler.max_model_len",
                "scheduler.admission",
                "scheduler.mixed_prefill",
                "scheduler.overlap",
                // the constants the profiles set apart (`Engine::constants`)
                "engine.mbu",
                "engine.allreduce_latency_us",
                "engine.eager_allreduce_us",
            ],
            Neighbour::DefaultCaps => &["scheduler.max_num_seqs", "scheduler.max_num_batched_tokens"],
            Neighbour::NextGpu => &["gpu", "gpu_usd_per_hour"],
            Neighbour::NextModel => &["model", "num_gpus", "scheduler.max_model_len"],
        }
    }

    /// `runs` (one seed's scenarios, in the lesson's order) with this neighbour applied, each
    /// validated; or why it does not apply.
    pub fn apply(self, runs: &[Scenario]) -> Result<Vec<Scenario>, Skip> {
        let varies = |f: fn(&Scenario) -> String| runs.windows(2).any(|w| f(&w[0]) != f(&w[1]));
        let mut out = runs.to_vec();
        match self {
            Neighbour::Load(f) => {
                if runs.iter().all(|s| crate::sweep::offered_rate(s) <= 0.0) {
                    return Err(Skip::NoLoad);
                }
                for s in &mut out {
                    scale_load(s, f);
                }
            }
            Neighbour::Engine(e) => {
                let sched = |s: &Scenario| serde_json::to_value(&s.scheduler).unwrap_or_default();
                let varied: Vec<String> = ["batching", "chunked_prefill", "kv_layout", "block_size", "prefix_caching"]
                    .into_iter()
                    .chain(["max_num_batched_tokens", "max_model_len"])
                    .filter(|k| runs.windows(2).any(|w| sched(&w[0]).get(k) != sched(&w[1]).get(k)))
                    .map(String::from)
                    .collect();
                for s in &mut out {
                    let keep = s.scheduler.clone();
                    // engine `e`'s own scheduler, every setting it governs (choosing it on the
                    // page keeps the limits a user set; this neighbour decides which of the
                    // lesson's to keep below)
                    let context = s.model_spec().map_or(8192, |m| m.max_context);
                    // and its engine constants, where the lesson left them at its own engine's
                    s.engine.replace(&s.engine_profile.constants(), &e.constants());
                    s.engine_profile = e;
                    e.defaults(s.gpu_spec().ok().as_ref(), context).apply(&mut s.scheduler);
                    let c = &mut s.scheduler;
                    c.max_num_seqs = keep.max_num_seqs;
                    if e != Engine::Sglang {
                        // SGLang's budget is its prompts-first batch; the others' are caps
                        c.max_num_batched_tokens = keep.max_num_batched_tokens;
                    }
                    c.max_model_len = match e {
                        Engine::Sglang => keep.max_model_len.min(SGLANG_MAX_PREFILL_TOKENS),
                        _ => keep.max_model_len,
                    };
                    let is = |k: &str| varied.iter().any(|v| v == k);
                    if is("batching") {
                        c.batching = keep.batching;
                    }
                    if is("chunked_prefill") {
                        c.chunked_prefill = keep.chunked_prefill;
                    }
                    if is("kv_layout") {
                        c.kv_layout = keep.kv_layout;
                    }
                    if is("block_size") {
                        c.block_size = keep.block_size;
                    }
                    if is("prefix_caching") {
                        c.prefix_caching = keep.prefix_caching;
                    }
                    if is("max_num_batched_tokens") {
                        c.max_num_batched_tokens = keep.max_num_batched_tokens;
                    }
                    if is("max_model_len") {
                        c.max_model_len = keep.max_model_len;
                    }
                    // whole prompts without chunks (TensorRT-LLM): a context the lesson set
                    // below the model's is taken to hold its prompts, and the budget grows to
                    // it, as choosing the engine on the page does
                    if !c.chunked_prefill
                        && c.never_recomputes()
                        && c.max_model_len < context
                        && c.max_num_batched_tokens < c.max_model_len
                    {
                        c.max_num_batched_tokens = c.max_model_len;
                    }
                }
            }
            Neighbour::DefaultCaps => {
                let seqs = varies(|s| s.scheduler.max_num_seqs.to_string());
                let tokens = varies(|s| s.scheduler.max_num_batched_tokens.to_string());
                if seqs && tokens {
                    return Err(Skip::Varied { what: "max_num_seqs and max_num_batched_tokens" });
                }
                for s in &mut out {
                    let context = s.model_spec().map_or(8192, |m| m.max_context);
                    let d = s.engine_profile.defaults(s.gpu_spec().ok().as_ref(), context);
                    if !seqs {
                        s.scheduler.max_num_seqs = d.max_num_seqs;
                    }
                    if !tokens {
                        s.scheduler.max_num_batched_tokens = d.max_num_batched_tokens;
                    }
                }
            }
            Neighbour::NextGpu => {
                if varies(|s| s.gpu.id().to_string()) {
                    return Err(Skip::Varied { what: "GPU" });
                }
                let id = runs.first().map(|s| s.gpu.id().to_string()).unwrap_or_default();
                let next = next_gpu(&id).ok_or_else(|| Skip::NoNext { of: id.clone() })?;
                for s in &mut out {
                    sim_core::settings::set(s, "gpu", 0, &sim_core::settings::Value::Text(next.into()))
                        .map_err(|e| Skip::Invalid { message: e.to_string() })?;
                }
            }
            Neighbour::NextModel => {
                if varies(|s| s.model.id().to_string()) {
                    return Err(Skip::Varied { what: "model" });
                }
                let id = runs.first().map(|s| s.model.id().to_string()).unwrap_or_default();
                let next = next_model(&id).ok_or_else(|| Skip::NoNext { of: id.clone() })?;
                let fixed_gpus = varies(|s| s.num_gpus.to_string());
                for s in &mut out {
                    sim_core::settings::set(s, "model", 0, &sim_core::settings::Value::Text(next.into()))
                        .map_err(|e| Skip::Invalid { message: e.to_string() })?;
                }
                if !fixed_gpus {
                    // one GPU count for every run (the one the most demanding run needs), so the
                    // runs still differ only in what the lesson varies
                    let n = out.iter().zip(runs).map(|(s, before)| gpus_for(s, before)).max();
                    for s in &mut out {
                        s.num_gpus = n.unwrap_or(s.num_gpus);
                    }
                }
            }
        }
        if out == runs {
            return Err(Skip::Unchanged);
        }
        for s in &out {
            sim_core::Simulation::new(s).map_err(|e: ScenarioError| Skip::Invalid { message: e.to_string() })?;
        }
        Ok(out)
    }
}

/// The fewest GPUs (tensor parallel 1, 2, 4 or 8, at least the run's) on which `s`, a run with a
/// larger model, keeps at least the KV capacity in tokens `before` had: as a deployer would size
/// it. Failing that the fewest it starts on, failing that the run's own (which then cannot start).
fn gpus_for(s: &Scenario, before: &Scenario) -> u32 {
    let tokens = |s: &Scenario| {
        let (Ok(m), Ok(g)) = (s.model_spec(), s.gpu_spec()) else { return None };
        sim_core::HbmPlan::new(s, &m, &g).ok().filter(|p| p.starts()).map(|p| p.kv_capacity_tokens)
    };
    let want = tokens(before).unwrap_or(0);
    let with = |n: u32| {
        let mut t = s.clone();
        t.num_gpus = n;
        tokens(&t)
    };
    let sizes = || [1, 2, 4, 8].into_iter().filter(|&n| n >= s.num_gpus);
    sizes()
        .find(|&n| with(n).is_some_and(|k| k >= want))
        .or_else(|| sizes().find(|&n| with(n).is_some()))
        .unwrap_or(s.num_gpus)
}

/// Every class's offered load times `f`, as a load sweep scales it.
fn scale_load(s: &mut Scenario, f: f64) {
    for c in &mut s.classes {
        match &mut c.arrival {
            Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s *= f,
            Arrival::ClosedLoop { users, .. } => *users = ((*users as f64 * f).round() as u32).max(1),
            Arrival::Trace { speedup, .. } => *speedup *= f,
        }
    }
}

/// A lesson on one neighbour: its agreement over the seeds, or why the neighbour does not apply.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NeighbourAgreement {
    pub neighbour: String,
    /// What it changed to, read from the first run (`h200`, `llama-3.1-70b on 4 GPUs`).
    pub to: String,
    /// The seeds that bear out the taught answer, of `seeds` (none when skipped).
    pub agree: usize,
    pub seeds: usize,
    pub share: f64,
    /// At least [`HOLDS_AT`] of the seeds agree.
    pub holds: bool,
    /// The lesson's explanation names this neighbour as one it does not hold on ([`LIMITS`]).
    pub named: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<Skip>,
}

impl Lesson {
    /// The lesson's runs on `seed` with `n` applied (after `prepare`, the caller's own changes).
    pub fn neighbour_runs(
        &self,
        seed: u64,
        n: Neighbour,
        prepare: &dyn Fn(&mut [super::LessonRun]) -> Result<(), ScenarioError>,
    ) -> Result<Result<Vec<Scenario>, Skip>, ScenarioError> {
        let mut runs = self.scenarios(seed);
        prepare(&mut runs)?;
        let scenarios: Vec<Scenario> = runs.into_iter().map(|r| r.scenario).collect();
        Ok(n.apply(&scenarios))
    }

    /// The lesson on neighbour `n` over `seeds`, after `prepare` (the `--set` changes; a no-op
    /// for the lesson as it is).
    pub fn neighbour_agreement(
        &self,
        n: Neighbour,
        seeds: &[u64],
        prepare: &dyn Fn(&mut [super::LessonRun]) -> Result<(), ScenarioError>,
    ) -> Result<NeighbourAgreement, ScenarioError> {
        let (mut agree, mut to) = (0, String::new());
        for &seed in seeds {
            match self.neighbour_runs(seed, n, prepare)? {
                Err(skip) => {
                    let neighbour = n.id();
                    let (agree, seeds, share, holds, skip) = (0, 0, 0.0, false, Some(skip));
                    let named = named_limit(self.id, n);
                    return Ok(NeighbourAgreement {
                        neighbour,
                        to: String::new(),
                        agree,
                        seeds,
                        share,
                        holds,
                        named,
                        skip,
                    });
                }
                Ok(runs) => {
                    if to.is_empty() {
                        to = runs.first().map(|s| n.describe(s)).unwrap_or_default();
                    }
                    let sums: Vec<_> = runs
                        .iter()
                        .map(|s| sim_core::Simulation::new(s).map(|mut x| x.run_to_end()))
                        .collect::<Result<_, _>>()?;
                    agree += usize::from((self.outcome)(&sums).answer == self.taught);
                }
            }
        }
        let share = if seeds.is_empty() { 0.0 } else { agree as f64 / seeds.len() as f64 };
        Ok(NeighbourAgreement {
            neighbour: n.id(),
            to,
            agree,
            seeds: seeds.len(),
            share,
            holds: share >= HOLDS_AT,
            named: named_limit(self.id, n),
            skip: None,
        })
    }

    /// The lesson's runs over `seeds` after `prepare`: the agreement [`Lesson::agreement`] gives
    /// for the lesson as it is.
    pub fn agreement_prepared(
        &self,
        seeds: &[u64],
        prepare: &dyn Fn(&mut [super::LessonRun]) -> Result<(), ScenarioError>,
    ) -> Result<Agreement, ScenarioError> {
        let mut per_seed = Vec::new();
        for &seed in seeds {
            let mut runs = self.scenarios(seed);
            prepare(&mut runs)?;
            let sums: Vec<_> = runs
                .iter()
                .map(|r| sim_core::Simulation::new(&r.scenario).map(|mut x| x.run_to_end()))
                .collect::<Result<_, _>>()?;
            let answer = (self.outcome)(&sums).answer;
            per_seed.push(super::SeedAnswer { seed, answer, agrees: answer == self.taught });
        }
        let agree = per_seed.iter().filter(|s| s.agrees).count();
        let agree_share = if per_seed.is_empty() { 0.0 } else { agree as f64 / per_seed.len() as f64 };
        Ok(Agreement { id: self.id, answer: self.taught, agree_share, per_seed })
    }
}
