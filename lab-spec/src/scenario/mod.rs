//! The scenario: everything a run depends on, as a versioned JSON document.
//!
//! Field names are a contract (scripts and shared links depend on them): fields may be added,
//! never renamed. `docs/scenario.md` documents every field. Parsing rejects unknown fields and
//! names the field of any invalid value together with its allowed range.
//!
//! Here: [`Scenario`] and what it answers about itself. Its parts: `refs` (the model and GPU, by
//! catalogue id or inline), `scheduler` ([`SchedulerConfig`] and the file's form of it), `engine`
//! ([`EngineConfig`]), `classes` (traffic classes, arrivals, lengths, SLOs), `read` (a file
//! read into a scenario, the engine profile filling what it leaves out), `validate` (every field
//! checked), `error` ([`ScenarioError`], [`FieldError`]).

mod classes;
mod disagg;
mod engine;
mod error;
mod read;
mod refs;
mod router;
mod scheduler;
mod session;
mod speculative;
mod validate;

pub use crate::profile::Engine;
pub use classes::{Arrival, ClassConfig, LengthDist, PrefixConfig, Slo};
pub use disagg::DisaggConfig;
pub use engine::{
    EngineConfig, EngineFile, DEFAULT_ALLREDUCE_US, DEFAULT_EAGER_ALLREDUCE_US, DEFAULT_FP8_EFFICIENCY,
    DEFAULT_FRONTEND_CPU_MS, DEFAULT_FRONTEND_JITTER, DEFAULT_LAYER_LAUNCH_US, DEFAULT_MBU, DEFAULT_MFU,
    DEFAULT_OVERHEAD_MS, DEFAULT_PCIE_ALLREDUCE_US, DEFAULT_REQUEST_LATENCY_MS, DEFAULT_SHARPNESS, DEFAULT_STEP_JITTER,
    DEFAULT_STREAM_LATENCY_MS, DEFAULT_TOKENIZE_US_PER_TOKEN,
};
pub use error::{FieldError, ScenarioError};
pub use refs::{GpuRef, ModelRef};
pub use router::{default_load_cap, Policy, RouterConfig};
pub use scheduler::{Admission, Batching, KvLayout, SchedulerConfig, SchedulerDefaults, SchedulerFile, TooLong};
pub use session::{SessionConfig, MAX_THINK_MS, MAX_TURNS};
pub use speculative::{expected_tokens, SpeculativeConfig, MAX_ACCEPTANCE, MAX_DRAFT_TOKENS};

use crate::catalog::Dtype;
use serde::{Deserialize, Serialize};

/// The scenario format version this build reads and writes.
pub const SCENARIO_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "read::ScenarioFile")]
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
    #[serde(skip_serializing_if = "crate::is_zero_f64")]
    pub other_process_gib: f64,
    /// Price of one GPU-hour in USD; defaults to the catalogue price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_usd_per_hour: Option<f64>,
    /// The serving engine modelled: its documented scheduler defaults fill the scheduler fields a
    /// file leaves out (`crate::profile`); vLLM when not named.
    pub engine_profile: Engine,
    pub scheduler: SchedulerConfig,
    /// Efficiency constants of the serving engine (see docs/model.md); a file's omitted ones are
    /// its profile's ([`Engine::constants`]), calibrated.
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

impl Scenario {
    pub fn to_json_pretty(&self) -> String {
        crate::pretty::to_string_pretty(self).expect("a scenario always serialises")
    }

    /// Whether each class waits in a lane of its own: isolation with more than one class (with
    /// one class, isolated or not, there is one lane).
    pub fn lane_per_class(&self) -> bool {
        self.scheduler.isolation && self.classes.len() > 1
    }

    /// Models engine `e`: its scheduler defaults ([`Engine::defaults`] for this model and GPU)
    /// replace the scheduler settings a profile governs that are still at the current
    /// profile's defaults; a limit the user set (one that differs from them) stays
    /// ([`SchedulerDefaults::replace`]; the memory share the same way, [`Engine::memory_share`],
    /// and the engine constants, [`Engine::constants`], [`EngineConfig::replace`]),
    /// as do the settings no profile governs (queue limits,
    /// isolation, OOM handling). The one place a change of engine decides what changes: the
    /// page's engine picker and every other caller come through here.
    pub fn set_engine_profile(&mut self, e: Engine) {
        let context = self.model_spec().map_or(8192, |m| m.max_context);
        let gpu = self.gpu_spec().ok();
        let was = self.engine_profile.defaults(gpu.as_ref(), context);
        if self.gpu_memory_utilization == self.engine_profile.memory_share(gpu.as_ref(), self.num_gpus) {
            self.gpu_memory_utilization = e.memory_share(gpu.as_ref(), self.num_gpus);
        }
        self.engine.replace(&self.engine_profile.constants(), &e.constants());
        self.engine_profile = e;
        e.defaults(gpu.as_ref(), context).replace(&was, &mut self.scheduler);
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

    /// GPUs of replica `i` (its tensor parallelism): `num_gpus`, or with disaggregation its
    /// pool's (`disaggregation.prefill_num_gpus` or `decode_num_gpus`, each `num_gpus` when
    /// absent).
    pub fn replica_num_gpus(&self, i: usize) -> u32 {
        match &self.disaggregation {
            Some(d) if d.is_prefill(i) => d.prefill_gpus(self.num_gpus),
            Some(d) => d.decode_gpus(self.num_gpus),
            None => self.num_gpus,
        }
    }

    /// The path of the field that sets replica `i`'s GPUs (`num_gpus`, or with disaggregation
    /// its pool's field when the file gives it).
    pub fn replica_num_gpus_field(&self, i: usize) -> &'static str {
        match &self.disaggregation {
            Some(d) if d.is_prefill(i) && d.prefill_num_gpus.is_some() => "disaggregation.prefill_num_gpus",
            Some(d) if !d.is_prefill(i) && d.decode_num_gpus.is_some() => "disaggregation.decode_num_gpus",
            _ => "num_gpus",
        }
    }

    /// The scenario as replica `i` runs it: `num_gpus` is its own tensor parallelism (the same
    /// scenario, cloned, when that is `num_gpus`).
    pub fn replica_scenario(&self, i: usize) -> Scenario {
        let mut s = self.clone();
        s.num_gpus = self.replica_num_gpus(i);
        s
    }

    /// Every GPU the scenario serves with: each replica's.
    pub fn total_gpus(&self) -> u32 {
        match &self.disaggregation {
            Some(d) => d.total_gpus(self.num_gpus),
            None => self.num_gpus * self.replicas.max(1),
        }
    }

    pub fn kv_dtype(&self) -> Dtype {
        // 4-bit weights keep a bf16 cache unless told otherwise (vLLM's `kv_cache_dtype` "auto")
        self.kv_dtype.unwrap_or(if self.dtype.is_4bit() { Dtype::Bf16 } else { self.dtype })
    }

    pub fn usd_per_hour_per_gpu(&self) -> f64 {
        self.gpu_usd_per_hour.unwrap_or_else(|| self.gpu_spec().map(|g| g.usd_per_hour).unwrap_or(0.0))
    }
}
