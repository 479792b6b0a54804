//! The serving engine's efficiency constants ([`EngineConfig`]; docs/model.md) and their
//! calibrated defaults, which `crate::perf`'s step-time model reads.

use serde::{Deserialize, Serialize};

/// Achievable share of peak tensor FLOP/s (calibrated; see docs/model.md).
pub const DEFAULT_MFU: f64 = 0.65;
/// Achievable share of peak memory bandwidth (calibrated).
pub const DEFAULT_MBU: f64 = 0.85;
/// Fixed cost of one iteration: scheduling, sampling, launching the step (calibrated).
pub const DEFAULT_OVERHEAD_MS: f64 = 0.8;
/// Kernel launches of one layer, paid by iterations that are not replayed from a CUDA graph
/// (those with prompt tokens; engines capture graphs for decode-only batches) (calibrated).
pub const DEFAULT_LAYER_LAUNCH_US: f64 = 90.0;
/// Latency of one all-reduce over a direct GPU link (NVLink, Infinity Fabric) by a custom
/// one-shot/two-shot kernel, besides its transfer (calibrated).
pub const DEFAULT_ALLREDUCE_US: f64 = 28.0;
/// Latency of one ring all-reduce (NCCL) over PCIe, besides its transfer (calibrated on the
/// 2023 rows).
pub const DEFAULT_PCIE_ALLREDUCE_US: f64 = 80.0;
/// Host cost of one all-reduce in an iteration that is not replayed from a CUDA graph, besides
/// the layer's launches: none for vLLM and SGLang, whose rows the shared fit needs none for
/// (docs/model.md); TensorRT-LLM's own, `crate::profile::TRTLLM_EAGER_ALLREDUCE_US`.
pub const DEFAULT_EAGER_ALLREDUCE_US: f64 = 0.0;
/// Exponent of the smoothed roofline max (1 = sum of the two times, ∞ = the plain max).
pub const DEFAULT_SHARPNESS: f64 = 1.6;
/// Share of the fp8 peak reached relative to the bf16 share (fp8 GEMMs sit further from
/// their roof: ~45–47% of fp8 peak measured vs ~67–70% of fp16 peak).
pub const DEFAULT_FP8_EFFICIENCY: f64 = 0.75;
/// A request's way from the client's send to the engine's waiting queue, besides the front
/// end's work on it: the HTTP request, the hop to the engine process.
pub const DEFAULT_REQUEST_LATENCY_MS: f64 = 2.0;
/// The front-end process's work on a request (parsing, validating, preparing it), one request
/// at a time.
pub const DEFAULT_FRONTEND_CPU_MS: f64 = 1.0;
/// Tokenizing the prompt in the front-end process, per prompt token.
pub const DEFAULT_TOKENIZE_US_PER_TOKEN: f64 = 0.5;
/// A token's way from the engine to the client: detokenizing, the front end's output queue,
/// the streamed HTTP chunk.
pub const DEFAULT_STREAM_LATENCY_MS: f64 = 2.0;
/// Each request's front-end times vary by a factor drawn uniformly in `1 ± this`.
pub const DEFAULT_FRONTEND_JITTER: f64 = 0.5;
/// Each iteration's time varies by a factor drawn uniformly in `1 ± this`.
pub const DEFAULT_STEP_JITTER: f64 = 0.05;

/// Defines [`EngineConfig`] and its file form [`EngineFile`] from one list of fields, so that
/// the two, the defaults and the field-wise operations cannot disagree.
macro_rules! engine_constants {
    ($($(#[$doc:meta])* $field:ident = $default:expr;)+) => {
        /// The engine's efficiency constants. A field a file leaves out takes its engine
        /// profile's value ([`crate::profile::Engine::constants`]; the calibrated defaults,
        /// [`EngineConfig::default`], for vLLM and SGLang).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct EngineConfig {
            $($(#[$doc])* pub $field: f64,)+
        }

        impl Default for EngineConfig {
            fn default() -> Self {
                EngineConfig { $($field: $default,)+ }
            }
        }

        /// The `engine` block as a file gives it: each constant optional, filled from the
        /// engine profile's ([`EngineFile::resolve`]).
        #[derive(Clone, Debug, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct EngineFile {
            $(#[serde(default)] $field: Option<f64>,)+
        }

        impl EngineFile {
            /// The constants with `profile`'s where the file gave none.
            pub fn resolve(self, profile: EngineConfig) -> EngineConfig {
                EngineConfig { $($field: self.$field.unwrap_or(profile.$field),)+ }
            }
        }

        impl EngineConfig {
            /// Choosing a profile whose constants are `new` in place of one whose were `was`:
            /// each constant still at `was`'s value takes `new`'s; one the user set stays (as
            /// [`super::SchedulerDefaults::replace`] does for the scheduler).
            pub fn replace(&mut self, was: &EngineConfig, new: &EngineConfig) {
                $(if self.$field == was.$field {
                    self.$field = new.$field;
                })+
            }
        }
    };
}

engine_constants! {
    /// Achievable share of peak FLOP/s in large matrix products.
    mfu = DEFAULT_MFU;
    /// Achievable share of peak memory bandwidth when streaming weights and KV.
    mbu = DEFAULT_MBU;
    /// Fixed CPU and launch cost of every iteration.
    iteration_overhead_ms = DEFAULT_OVERHEAD_MS;
    /// Kernel launch cost per layer of an iteration with prompt tokens (decode-only iterations
    /// replay a CUDA graph and do not pay it).
    layer_launch_us = DEFAULT_LAYER_LAUNCH_US;
    /// Latency of one tensor-parallel all-reduce over NVLink (custom one-shot/two-shot kernel),
    /// besides its transfer time.
    allreduce_latency_us = DEFAULT_ALLREDUCE_US;
    /// Latency of one ring all-reduce over PCIe (GPUs without NVLink), besides its transfer time.
    pcie_allreduce_latency_us = DEFAULT_PCIE_ALLREDUCE_US;
    /// Host cost of launching one tensor-parallel all-reduce in an iteration that is not
    /// replayed from a CUDA graph (those with prompt tokens), on top of `layer_launch_us`.
    eager_allreduce_us = DEFAULT_EAGER_ALLREDUCE_US;
    /// Share of the fp8 peak reached, relative to `mfu` (fp8 kernels sit further from the roof).
    fp8_efficiency = DEFAULT_FP8_EFFICIENCY;
    /// Exponent k of the smoothed roofline (c^k + m^k)^(1/k): 1 adds compute and memory time,
    /// large k takes their maximum.
    roofline_sharpness = DEFAULT_SHARPNESS;
    /// A request's way from the client into the engine's queue, besides the front end's work
    /// on it (HTTP, the hop to the engine process).
    request_latency_ms = DEFAULT_REQUEST_LATENCY_MS;
    /// The front-end process's work on a request, one request at a time (parsing, validating,
    /// preparing it).
    frontend_cpu_ms = DEFAULT_FRONTEND_CPU_MS;
    /// Tokenizing a prompt in the front-end process, per token.
    tokenize_us_per_token = DEFAULT_TOKENIZE_US_PER_TOKEN;
    /// A token's way from the engine to the client (detokenizing, streaming).
    stream_latency_ms = DEFAULT_STREAM_LATENCY_MS;
    /// Spread of a request's front-end times: each is multiplied by a factor uniform in
    /// `1 ± frontend_jitter` (0: every request takes exactly the times above).
    frontend_jitter = DEFAULT_FRONTEND_JITTER;
    /// Spread of an iteration's time: multiplied by a factor uniform in `1 ± step_jitter`.
    step_jitter = DEFAULT_STEP_JITTER;
}

impl EngineConfig {
    /// These constants without a front end or timing variation: each request reaches the
    /// engine the instant it is sent, its client sees each token the instant it is emitted,
    /// and every iteration takes exactly the step model's time (what a hand-worked case counts).
    pub fn gpu_only(self) -> EngineConfig {
        EngineConfig {
            request_latency_ms: 0.0,
            frontend_cpu_ms: 0.0,
            tokenize_us_per_token: 0.0,
            stream_latency_ms: 0.0,
            frontend_jitter: 0.0,
            step_jitter: 0.0,
            ..self
        }
    }

    pub(super) fn is_default(&self) -> bool {
        *self == EngineConfig::default()
    }
}
