//! The scenario: everything a run depends on, as a versioned JSON document.
//!
//! Field names are a contract (scripts and shared links depend on them): fields may be added,
//! never renamed. `docs/scenario.md` documents every field. Parsing rejects unknown fields and
//! names the field of any invalid value together with its allowed range.

use crate::catalog::{self, Dtype, GpuSpec, ModelSpec};
use crate::cluster::RouterConfig;
pub use crate::disagg::DisaggConfig;
use crate::message::Problem;
pub use crate::profile::Engine;
pub use crate::speculative::SpeculativeConfig;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The scenario format version this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ScenarioFile")]
pub struct Scenario {
    pub version: u32,
    /// Optional title shown by the lab and the CLI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub seed: u64,
    /// A catalogue id (`llama-3-8b`) or an inline model specification.
    pub model: ModelRef,
    /// A catalogue id (`h100-sxm`) or an inline GPU specification.
    pub gpu: GpuRef,
    /// GPUs serving one model replica with tensor parallelism: 1, 2, 4 or 8.
    pub num_gpus: u32,
    /// Precision of weights and compute.
    pub dtype: Dtype,
    /// Precision of the KV cache; defaults to `dtype`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_dtype: Option<Dtype>,
    /// Share of each GPU's memory the server may use (the rest is headroom), like vLLM's flag.
    pub gpu_memory_utilization: f64,
    /// GiB that other processes hold on each GPU (another model, a notebook, a monitoring agent):
    /// it must fit in the headroom with the CUDA context and graphs, or the server cannot start.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_process_gib: f64,
    /// Price of one GPU-hour in USD; defaults to the catalogue price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_usd_per_hour: Option<f64>,
    /// The serving engine modelled: its documented scheduler defaults fill the scheduler fields a
    /// file leaves out (`crate::profile`); vLLM when not named.
    pub engine_profile: Engine,
    pub scheduler: SchedulerConfig,
    /// Efficiency constants of the serving engine (see docs/model.md); defaults are calibrated.
    #[serde(skip_serializing_if = "EngineConfig::is_default")]
    pub engine: EngineConfig,
    /// Identical replicas of the engine, each on `num_gpus` GPUs, behind one router.
    #[serde(skip_serializing_if = "is_one")]
    pub replicas: u32,
    /// How the router picks a replica (only read with more than one).
    #[serde(skip_serializing_if = "RouterConfig::is_default")]
    pub router: RouterConfig,
    pub classes: Vec<ClassConfig>,
    /// Speculative decoding (`crate::speculative`); absent: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative: Option<SpeculativeConfig>,
    /// Prefill/decode disaggregation (`crate::disagg`); absent: every replica does both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disaggregation: Option<DisaggConfig>,
}

fn is_one(x: &u32) -> bool {
    *x == 1
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn default_num_gpus() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModelRef {
    Id(String),
    Custom(Box<ModelSpec>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GpuRef {
    Id(String),
    Custom(Box<GpuSpec>),
}

impl ModelRef {
    /// The catalogue id, or the inline model's own id.
    pub fn id(&self) -> &str {
        match self {
            ModelRef::Id(id) => id,
            ModelRef::Custom(m) => &m.id,
        }
    }
}

impl GpuRef {
    /// The catalogue id, or the inline GPU's own id.
    pub fn id(&self) -> &str {
        match self {
            GpuRef::Id(id) => id,
            GpuRef::Custom(g) => &g.id,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Batching {
    /// Collect a batch, run it to completion, free it at once.
    Static,
    /// Iteration-level scheduling: sequences join and leave the batch every step (vLLM, Orca).
    Continuous,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KvLayout {
    /// Fixed-size blocks allocated as a sequence grows (PagedAttention).
    Paged,
    /// Each admitted sequence reserves `max_model_len` tokens up front.
    Contiguous,
}

/// The scheduler as a run uses it, every field set. A file may leave out the fields an engine
/// profile sets (`crate::profile::SchedulerDefaults`); [`SchedulerFile`] reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SchedulerConfig {
    pub batching: Batching,
    /// Most sequences in one batch (static: the batch size B).
    pub max_num_seqs: u32,
    /// Most tokens (prefill + decode) one iteration may process.
    pub max_num_batched_tokens: u32,
    /// Split long prompts into chunks and mix them with decodes (Sarathi-Serve, vLLM).
    pub chunked_prefill: bool,
    pub kv_layout: KvLayout,
    /// Tokens per KV block (paged layout).
    pub block_size: u32,
    /// Longest sequence (prompt + output) the server accepts.
    pub max_model_len: u32,
    /// A request still waiting for its first token this long after arrival is dropped.
    pub queue_timeout_ms: Option<f64>,
    /// Arrivals beyond this many waiting requests are rejected.
    pub max_queue_len: Option<u32>,
    /// One queue per class with reserved batch slots and KV, instead of one shared FCFS queue.
    pub isolation: bool,
    /// Static batching: longest wait for a batch to fill before it starts anyway.
    pub batch_timeout_ms: f64,
    /// Admit on the KV in use now rather than on guaranteed space; running out of memory is then
    /// an OOM restart instead of a preemption.
    pub overcommit: bool,
    /// Time the server is down after an OOM.
    pub restart_s: f64,
    /// After an OOM, requeue the in-flight requests instead of failing them.
    pub retry_on_oom: bool,
    /// Keep the KV blocks of shared prompt prefixes and reuse them (vLLM's automatic prefix
    /// caching); paged KV and continuous batching only.
    pub prefix_caching: bool,
}

/// The scheduler as a file gives it: the profile's fields may be left out (`None`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerFile {
    #[serde(default)]
    batching: Option<Batching>,
    #[serde(default)]
    max_num_seqs: Option<u32>,
    #[serde(default)]
    max_num_batched_tokens: Option<u32>,
    #[serde(default)]
    chunked_prefill: Option<bool>,
    #[serde(default)]
    kv_layout: Option<KvLayout>,
    #[serde(default)]
    block_size: Option<u32>,
    #[serde(default)]
    max_model_len: Option<u32>,
    #[serde(default)]
    queue_timeout_ms: Option<f64>,
    #[serde(default)]
    max_queue_len: Option<u32>,
    #[serde(default)]
    isolation: bool,
    #[serde(default = "default_batch_timeout_ms")]
    batch_timeout_ms: f64,
    #[serde(default)]
    overcommit: bool,
    #[serde(default = "default_restart_s")]
    restart_s: f64,
    #[serde(default)]
    retry_on_oom: bool,
    #[serde(default)]
    prefix_caching: Option<bool>,
}

impl Default for SchedulerFile {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every scheduler field has a default")
    }
}

impl SchedulerFile {
    /// The scheduler with the profile's values where the file gave none.
    fn resolve(self, d: crate::profile::SchedulerDefaults) -> SchedulerConfig {
        let batching = self.batching.unwrap_or(d.batching);
        let kv_layout = self.kv_layout.unwrap_or(d.kv_layout);
        SchedulerConfig {
            batching,
            max_num_seqs: self.max_num_seqs.unwrap_or(d.max_num_seqs),
            max_num_batched_tokens: self.max_num_batched_tokens.unwrap_or(d.max_num_batched_tokens),
            chunked_prefill: self.chunked_prefill.unwrap_or(d.chunked_prefill),
            kv_layout,
            block_size: self.block_size.unwrap_or(d.block_size),
            max_model_len: self.max_model_len.unwrap_or(d.max_model_len),
            queue_timeout_ms: self.queue_timeout_ms,
            max_queue_len: self.max_queue_len,
            isolation: self.isolation,
            batch_timeout_ms: self.batch_timeout_ms,
            overcommit: self.overcommit,
            restart_s: self.restart_s,
            retry_on_oom: self.retry_on_oom,
            prefix_caching: self.prefix_caching.unwrap_or(d.prefix_caching),
        }
    }
}

fn default_batch_timeout_ms() -> f64 {
    50.0
}
fn default_restart_s() -> f64 {
    30.0
}

/// A scenario as a file gives it ([`Scenario`]'s fields, the scheduler's profile fields
/// optional); reading one fills them from the engine profile.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    version: u32,
    #[serde(default)]
    name: Option<String>,
    seed: u64,
    model: ModelRef,
    gpu: GpuRef,
    #[serde(default = "default_num_gpus")]
    num_gpus: u32,
    dtype: Dtype,
    #[serde(default)]
    kv_dtype: Option<Dtype>,
    gpu_memory_utilization: f64,
    #[serde(default)]
    other_process_gib: f64,
    #[serde(default)]
    gpu_usd_per_hour: Option<f64>,
    #[serde(default)]
    engine_profile: Engine,
    #[serde(default)]
    scheduler: SchedulerFile,
    #[serde(default)]
    engine: EngineConfig,
    #[serde(default = "default_num_gpus")]
    replicas: u32,
    #[serde(default)]
    router: RouterConfig,
    classes: Vec<ClassConfig>,
    #[serde(default)]
    speculative: Option<SpeculativeConfig>,
    #[serde(default)]
    disaggregation: Option<DisaggConfig>,
}

impl From<ScenarioFile> for Scenario {
    fn from(f: ScenarioFile) -> Scenario {
        let context = match &f.model {
            ModelRef::Id(id) => catalog::find_model(id).map(|m| m.max_context),
            ModelRef::Custom(m) => Some(m.max_context),
        };
        let gpu = match &f.gpu {
            GpuRef::Id(id) => catalog::find_gpu(id),
            GpuRef::Custom(g) => Some((**g).clone()),
        };
        // an unknown model gets a context for the defaults; validation names the model
        let defaults = f.engine_profile.defaults(gpu.as_ref(), context.unwrap_or(8192));
        Scenario {
            version: f.version,
            name: f.name,
            seed: f.seed,
            model: f.model,
            gpu: f.gpu,
            num_gpus: f.num_gpus,
            dtype: f.dtype,
            kv_dtype: f.kv_dtype,
            gpu_memory_utilization: f.gpu_memory_utilization,
            other_process_gib: f.other_process_gib,
            gpu_usd_per_hour: f.gpu_usd_per_hour,
            engine_profile: f.engine_profile,
            scheduler: f.scheduler.resolve(defaults),
            engine: f.engine,
            replicas: f.replicas,
            router: f.router,
            classes: f.classes,
            speculative: f.speculative,
            disaggregation: f.disaggregation,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Achievable share of peak FLOP/s in large matrix products.
    #[serde(default = "default_mfu")]
    pub mfu: f64,
    /// Achievable share of peak memory bandwidth when streaming weights and KV.
    #[serde(default = "default_mbu")]
    pub mbu: f64,
    /// Fixed CPU and launch cost of every iteration.
    #[serde(default = "default_overhead_ms")]
    pub iteration_overhead_ms: f64,
    /// Kernel launch cost per layer of an iteration with prompt tokens (decode-only iterations
    /// replay a CUDA graph and do not pay it).
    #[serde(default = "default_layer_launch_us")]
    pub layer_launch_us: f64,
    /// Latency of one tensor-parallel all-reduce over NVLink (custom one-shot/two-shot kernel),
    /// besides its transfer time.
    #[serde(default = "default_allreduce_us")]
    pub allreduce_latency_us: f64,
    /// Latency of one ring all-reduce over PCIe (GPUs without NVLink), besides its transfer time.
    #[serde(default = "default_pcie_allreduce_us")]
    pub pcie_allreduce_latency_us: f64,
    /// Share of the fp8 peak reached, relative to `mfu` (fp8 kernels sit further from the roof).
    #[serde(default = "default_fp8_eff")]
    pub fp8_efficiency: f64,
    /// Exponent k of the smoothed roofline (c^k + m^k)^(1/k): 1 adds compute and memory time,
    /// large k takes their maximum.
    #[serde(default = "default_sharpness")]
    pub roofline_sharpness: f64,
}

pub(crate) fn default_mfu() -> f64 {
    crate::perf::DEFAULT_MFU
}
pub(crate) fn default_mbu() -> f64 {
    crate::perf::DEFAULT_MBU
}
pub(crate) fn default_overhead_ms() -> f64 {
    crate::perf::DEFAULT_OVERHEAD_MS
}
pub(crate) fn default_allreduce_us() -> f64 {
    crate::perf::DEFAULT_ALLREDUCE_US
}
pub(crate) fn default_layer_launch_us() -> f64 {
    crate::perf::DEFAULT_LAYER_LAUNCH_US
}
pub(crate) fn default_pcie_allreduce_us() -> f64 {
    crate::perf::DEFAULT_PCIE_ALLREDUCE_US
}
pub(crate) fn default_fp8_eff() -> f64 {
    crate::perf::DEFAULT_FP8_EFFICIENCY
}
pub(crate) fn default_sharpness() -> f64 {
    crate::perf::DEFAULT_SHARPNESS
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            mfu: default_mfu(),
            mbu: default_mbu(),
            iteration_overhead_ms: default_overhead_ms(),
            layer_launch_us: default_layer_launch_us(),
            allreduce_latency_us: default_allreduce_us(),
            pcie_allreduce_latency_us: default_pcie_allreduce_us(),
            fp8_efficiency: default_fp8_eff(),
            roofline_sharpness: default_sharpness(),
        }
    }
}

impl EngineConfig {
    fn is_default(&self) -> bool {
        *self == EngineConfig::default()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    pub name: String,
    pub arrival: Arrival,
    /// Requests this class sends (from the trace when omitted for a trace class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_requests: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<LengthDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<LengthDist>,
    #[serde(default)]
    pub slo: Slo,
    /// Lower is served first when classes compete (0 = highest).
    #[serde(default)]
    pub priority: u32,
    /// With isolation: share of batch slots and KV reserved for this class (0..1); classes
    /// without one split what is left equally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_share: Option<f64>,
    /// Each request starts with one of `groups` shared prefixes of `shared_tokens` tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<PrefixConfig>,
    /// Multi-turn conversations: each arrival starts one (`crate::session`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<crate::session::SessionConfig>,
}

/// Shared prompt prefixes of a class (a system prompt, a few-shot template, a document): each
/// request's prompt starts with one of `groups` prefixes of `shared_tokens` tokens, chosen
/// uniformly; `input_tokens` is the whole prompt, the prefix included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrefixConfig {
    pub shared_tokens: u32,
    pub groups: u32,
}

impl PrefixConfig {
    /// Most prefix groups a class may have.
    pub const MAX_GROUPS: u32 = 100_000;
}

/// Read by `crate::tagged` (as serde's derive would, without its buffered `Content`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arrival {
    /// Exponential inter-arrival times.
    Poisson { rate_per_s: f64 },
    /// Gamma inter-arrival times with the given coefficient of variation (cv = 1 is Poisson).
    Bursty { rate_per_s: f64, cv: f64 },
    /// `users` clients, each sending its next request after the previous one ends and an
    /// exponentially distributed think time.
    ClosedLoop { users: u32, think_time_ms: f64 },
    /// Replay of a CSV trace `arrival_s,input_len,output_len`.
    Trace {
        path: String,
        /// Divide trace arrival times by this (2.0 replays twice as fast); 1 when left out.
        speedup: f64,
    },
}

impl Arrival {
    /// The `kind` names, as the JSON writes them.
    pub const KINDS: [&'static str; 4] = ["poisson", "bursty", "closed_loop", "trace"];

    pub fn kind(&self) -> &'static str {
        match self {
            Arrival::Poisson { .. } => Self::KINDS[0],
            Arrival::Bursty { .. } => Self::KINDS[1],
            Arrival::ClosedLoop { .. } => Self::KINDS[2],
            Arrival::Trace { .. } => Self::KINDS[3],
        }
    }
}

impl LengthDist {
    /// The `kind` names, as the JSON writes them.
    pub const KINDS: [&'static str; 3] = ["fixed", "uniform", "lognormal"];

    pub fn kind(&self) -> &'static str {
        match self {
            LengthDist::Fixed { .. } => Self::KINDS[0],
            LengthDist::Uniform { .. } => Self::KINDS[1],
            LengthDist::Lognormal { .. } => Self::KINDS[2],
        }
    }

    /// A representative length (the value, the midpoint, the mean): kept when the kind changes.
    pub fn typical(&self) -> f64 {
        match self {
            LengthDist::Fixed { value } => *value as f64,
            LengthDist::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            LengthDist::Lognormal { mean, .. } => *mean,
        }
    }
}

/// Read by `crate::tagged`, like [`Arrival`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LengthDist {
    Fixed {
        value: u32,
    },
    Uniform {
        min: u32,
        max: u32,
    },
    /// Log-normal with the given arithmetic mean and log-space sigma, rounded, at least 1.
    Lognormal {
        mean: f64,
        sigma: f64,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_ms: Option<f64>,
}

/// One invalid value: the field's path and what is wrong with it, as a typed [`Problem`] (for
/// the page to word in its language) and in plain English (`message`, the problem's `Display`:
/// what the CLI prints).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
    #[serde(skip)]
    pub problem: Problem,
}

impl FieldError {
    pub fn new(field: impl Into<String>, problem: impl Into<Problem>) -> FieldError {
        let problem = problem.into();
        FieldError { field: field.into(), message: problem.to_string(), problem }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} {}", self.field, self.message)
        }
    }
}

/// Why a scenario cannot run: every invalid field, or a configuration that does not fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioError {
    pub errors: Vec<FieldError>,
}

impl ScenarioError {
    pub fn one(field: impl Into<String>, problem: impl Into<Problem>) -> Self {
        ScenarioError { errors: vec![FieldError::new(field, problem)] }
    }
    /// The message for one field, if that field is invalid.
    pub fn for_field(&self, field: &str) -> Option<&FieldError> {
        self.errors.iter().find(|e| e.field == field)
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Parses and validates a scenario; errors name the field (`scheduler.max_num_seqs`).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario: Scenario = crate::json_path::from_str(text).map_err(|(path, e)| {
            let path = if path == "." { String::new() } else { path };
            // serde_json appends " at line L column C"; keep it, it helps with files.
            ScenarioError::one(path, Problem::parse(&e))
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_json_pretty(&self) -> String {
        crate::pretty::to_string_pretty(self).expect("a scenario always serialises")
    }

    pub fn model_spec(&self) -> Result<ModelSpec, ScenarioError> {
        match &self.model {
            ModelRef::Id(id) => catalog::find_model(id).ok_or_else(|| not_in_catalogue("model", id)),
            ModelRef::Custom(m) => Ok((**m).clone()),
        }
    }

    pub fn gpu_spec(&self) -> Result<GpuSpec, ScenarioError> {
        match &self.gpu {
            GpuRef::Id(id) => catalog::find_gpu(id).ok_or_else(|| not_in_catalogue("gpu", id)),
            GpuRef::Custom(g) => Ok((**g).clone()),
        }
    }

    /// Whether each class waits in a lane of its own: isolation with more than one class (with
    /// one class, isolated or not, there is one lane).
    pub fn lane_per_class(&self) -> bool {
        self.scheduler.isolation && self.classes.len() > 1
    }

    /// Models engine `e`: its scheduler defaults ([`Engine::defaults`] for this model and GPU)
    /// replace every scheduler setting a profile governs; the others (queue limits, isolation,
    /// OOM handling) stay.
    pub fn set_engine_profile(&mut self, e: Engine) {
        let context = self.model_spec().map_or(8192, |m| m.max_context);
        let gpu = self.gpu_spec().ok();
        self.engine_profile = e;
        e.defaults(gpu.as_ref(), context).apply(&mut self.scheduler);
    }

    /// Whether prefix caching has anything to cache: it is on, the KV is paged blocks shared
    /// under continuous batching (with static batching or contiguous KV the setting has no
    /// effect), and some class's prompts start with a shared prefix or are a conversation's
    /// turns (the lab's prompts share nothing else, so with none the cache stays empty and the
    /// run, its summary and its view are those of a server without it). A trace's
    /// conversations (its `session_id` column) are known once it is read: the simulation then
    /// caches them too.
    pub fn caches_prefixes(&self) -> bool {
        let s = &self.scheduler;
        s.prefix_caching
            && s.batching == Batching::Continuous
            && s.kv_layout == KvLayout::Paged
            && self.classes.iter().any(|c| c.prefix.is_some() || c.session.is_some())
    }

    /// Whether a prefix cache would work here (prefix caching on, paged KV, continuous
    /// batching), whatever the prompts share: a trace's conversations need it.
    pub fn could_cache_prefixes(&self) -> bool {
        let s = &self.scheduler;
        s.prefix_caching && s.batching == Batching::Continuous && s.kv_layout == KvLayout::Paged
    }

    /// Replicas serving the traffic: `replicas`, or with disaggregation its two pools together.
    pub fn replica_count(&self) -> usize {
        match &self.disaggregation {
            Some(d) => d.replicas().max(1) as usize,
            None => self.replicas.max(1) as usize,
        }
    }

    /// Replicas the router picks among for an arrival: all, or with disaggregation the prefill
    /// pool (the first replicas).
    pub fn arrival_replicas(&self) -> usize {
        match &self.disaggregation {
            Some(d) => d.prefill_replicas.max(1) as usize,
            None => self.replica_count(),
        }
    }

    pub fn kv_dtype(&self) -> Dtype {
        // 4-bit weights keep a bf16 cache unless told otherwise (vLLM's `kv_cache_dtype` "auto")
        self.kv_dtype.unwrap_or(if self.dtype.is_4bit() { Dtype::Bf16 } else { self.dtype })
    }

    pub fn usd_per_hour_per_gpu(&self) -> f64 {
        self.gpu_usd_per_hour.unwrap_or_else(|| self.gpu_spec().map(|g| g.usd_per_hour).unwrap_or(0.0))
    }

    /// Checks every field against its allowed range; collects all problems.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let mut v = Validator::default();
        if self.version != SCENARIO_VERSION {
            v.err("version", Problem::Version { expected: SCENARIO_VERSION, got: self.version });
        }
        match self.model_spec() {
            Ok(m) => validate_model(&mut v, &m),
            Err(e) => v.errors.extend(e.errors),
        }
        match self.gpu_spec() {
            Ok(g) => {
                validate_gpu(&mut v, &g);
                if self.dtype == Dtype::Fp8 && g.fp8_flops.is_none() {
                    v.err("dtype", Problem::Fp8Unsupported { gpu: g.id.clone() });
                } else if !self.dtype.runs_on(&g) {
                    let options = Dtype::ALL.iter().filter(|d| d.runs_on(&g)).map(|d| d.name().to_string()).collect();
                    v.err("dtype", Problem::NotListed { options, got: self.dtype.name().to_string() });
                }
            }
            Err(e) => v.errors.extend(e.errors),
        }
        if let Some(kv) = self.kv_dtype.filter(|d| d.is_4bit()) {
            let options = Dtype::KV.iter().map(|d| d.name().to_string()).collect();
            v.err("kv_dtype", Problem::NotListed { options, got: kv.name().to_string() });
        }
        crate::settings::check_ranges(self, &mut v.errors);
        // An optional number set to NaN by code reads as unset in JSON: name it here.
        let mut optional = vec![("gpu_usd_per_hour".to_string(), self.gpu_usd_per_hour)];
        optional.push(("scheduler.queue_timeout_ms".into(), self.scheduler.queue_timeout_ms));
        for (i, c) in self.classes.iter().enumerate() {
            let slo = [("slo.ttft_ms", c.slo.ttft_ms), ("slo.tpot_ms", c.slo.tpot_ms), ("slo.e2e_ms", c.slo.e2e_ms)];
            let fields = slo.into_iter().chain([("reserved_share", c.reserved_share)]);
            optional.extend(fields.map(|(f, x)| (format!("classes[{i}].{f}"), x)));
        }
        for (field, x) in optional {
            if x.is_some_and(|x| !x.is_finite()) {
                v.err(&field, Problem::NotFinite { got: x.unwrap_or_default() });
            }
        }
        let sch = &self.scheduler;
        if !sch.chunked_prefill
            && sch.batching == Batching::Continuous
            && sch.max_num_batched_tokens < sch.max_model_len
        {
            v.err(
                "scheduler.max_num_batched_tokens",
                Problem::BatchBelowContext { max_model_len: sch.max_model_len, got: sch.max_num_batched_tokens },
            );
        }
        if self.classes.is_empty() || self.classes.len() > 8 {
            v.err("classes", Problem::ClassCount { got: self.classes.len() });
        }
        let mut share_sum = 0.0;
        for (i, c) in self.classes.iter().enumerate() {
            let p = format!("classes[{i}]");
            if c.name.trim().is_empty() || c.name.len() > 40 {
                v.err(&format!("{p}.name"), Problem::NameLength);
            }
            if self.classes[..i].iter().any(|o| o.name == c.name) {
                v.err(&format!("{p}.name"), Problem::NameTaken { name: c.name.clone() });
            }
            let is_trace = matches!(c.arrival, Arrival::Trace { .. });
            if let Arrival::Trace { path, .. } = &c.arrival {
                if path.trim().is_empty() {
                    v.err(&format!("{p}.arrival.path"), Problem::NoTracePath);
                }
            }
            if is_trace {
                for (field, present) in [
                    ("num_requests", c.num_requests.is_some()),
                    ("input_tokens", c.input_tokens.is_some()),
                    ("output_tokens", c.output_tokens.is_some()),
                ] {
                    if present {
                        v.err(&format!("{p}.{field}"), Problem::GivenByTrace);
                    }
                }
            } else {
                if c.num_requests.is_none() {
                    let n = crate::settings::find("num_requests").and_then(|r| r.number()).expect("a row");
                    v.err(&format!("{p}.num_requests"), Problem::Required { range: Some((n.min, n.max)) });
                }
                for (field, d) in [("input_tokens", &c.input_tokens), ("output_tokens", &c.output_tokens)] {
                    if d.is_none() {
                        v.err(&format!("{p}.{field}"), Problem::Required { range: None });
                    }
                }
            }
            if let Some(pc) = &c.prefix {
                // the prompt is the prefix and at least one token more, and an answer must fit
                let max_shared = (sch.max_model_len as u64).saturating_sub(2).max(1);
                v.range_u(&format!("{p}.prefix.shared_tokens"), pc.shared_tokens as u64, 1, max_shared);
                v.range_u(&format!("{p}.prefix.groups"), pc.groups as u64, 1, PrefixConfig::MAX_GROUPS as u64);
            }
            share_sum += c.reserved_share.unwrap_or(0.0);
        }
        if share_sum > 1.0 + 1e-9 {
            v.err("classes", Problem::SharesOverOne { sum: share_sum });
        }
        crate::speculative::check(self, &mut v.errors);
        crate::disagg::check(self, &mut v.errors);
        crate::session::check(self, &mut v.errors);
        if v.errors.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError { errors: v.errors })
        }
    }
}

/// `field` names an id the catalogue does not have: the message lists the settings row's options.
fn not_in_catalogue(field: &str, id: &str) -> ScenarioError {
    let ids = match crate::settings::find(field).map(|r| r.kind) {
        Some(crate::settings::Kind::Select { options, .. }) => options(),
        _ => Vec::new(),
    };
    ScenarioError::one(field, Problem::NotListed { options: ids, got: id.to_string() })
}

fn validate_model(v: &mut Validator, m: &ModelSpec) {
    v.range_f("model.params_total", m.params_total, 1e6, 1e13);
    v.range_f("model.params_active", m.params_active, 1e6, m.params_total.max(1e6));
    v.range_u("model.num_layers", m.num_layers as u64, 1, 1000);
    v.range_u("model.hidden_size", m.hidden_size as u64, 1, 1 << 20);
    v.range_u("model.num_attention_heads", m.num_attention_heads as u64, 1, 1024);
    v.range_u("model.num_kv_heads", m.num_kv_heads as u64, 1, m.num_attention_heads.max(1) as u64);
    v.range_u("model.head_dim", m.head_dim as u64, 1, 4096);
    v.range_u("model.intermediate_size", m.intermediate_size as u64, 1, 1 << 22);
    v.range_u("model.vocab_size", m.vocab_size as u64, 1, 1 << 22);
    v.range_u("model.max_context", m.max_context as u64, 2, 10_000_000);
    v.range_u("model.num_experts", m.num_experts as u64, 1, 1024);
    v.range_u("model.experts_per_token", m.experts_per_token as u64, 1, m.num_experts.max(1) as u64);
    // attention forms: at least one attention layer holds KV (the pool counts in its tokens)
    let layers = m.num_layers as u64;
    v.range_u("model.linear_attn_layers", m.linear_attn_layers as u64, 0, layers.saturating_sub(1));
    v.range_u(
        "model.sliding_window_layers",
        m.sliding_window_layers as u64,
        0,
        layers.saturating_sub(m.linear_attn_layers as u64),
    );
    if m.sliding_window_layers > 0 {
        v.range_u("model.sliding_window", m.sliding_window as u64, 1, 10_000_000);
    }
    v.range_f("model.linear_state_bytes", m.linear_state_bytes, 0.0, 1e12);
    v.range_u("model.kv_lora_rank", m.kv_lora_rank as u64, 0, 65_536);
    v.range_u("model.qk_rope_head_dim", m.qk_rope_head_dim as u64, 0, 4096);
    if m.shared_linear_params() <= 0.0 {
        v.err("model.params_total", Problem::ParamsTooSmall);
    }
}

fn validate_gpu(v: &mut Validator, g: &GpuSpec) {
    v.range_f("gpu.hbm_bytes", g.hbm_bytes, 1e8, 1e13);
    v.range_f("gpu.mem_bandwidth", g.mem_bandwidth, 1e9, 1e14);
    v.range_f("gpu.bf16_flops", g.bf16_flops, 1e11, 1e17);
    if let Some(f) = g.fp8_flops {
        v.range_f("gpu.fp8_flops", f, 1e11, 1e17);
    }
    v.range_f("gpu.interconnect_bw", g.interconnect_bw, 1e8, 1e13);
    v.range_f("gpu.usd_per_hour", g.usd_per_hour, 0.0, 1000.0);
}

#[derive(Default)]
struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    fn err(&mut self, field: &str, problem: Problem) {
        self.errors.push(FieldError::new(field, problem));
    }
    fn range_u(&mut self, field: &str, x: u64, lo: u64, hi: u64) {
        if x < lo || x > hi {
            self.err(field, Problem::Range { min: lo as f64, max: hi as f64, got: x as f64 });
        }
    }
    fn range_f(&mut self, field: &str, x: f64, lo: f64, hi: f64) {
        if !x.is_finite() || x < lo || x > hi {
            self.err(field, Problem::Range { min: lo, max: hi, got: x });
        }
    }
}
