//! The serving engine's efficiency constants ([`EngineConfig`]; docs/model.md), calibrated
//! defaults from `crate::perf`.

use crate::perf;
use serde::{Deserialize, Serialize};

/// A field a file leaves out takes its calibrated value ([`EngineConfig::default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Achievable share of peak FLOP/s in large matrix products.
    pub mfu: f64,
    /// Achievable share of peak memory bandwidth when streaming weights and KV.
    pub mbu: f64,
    /// Fixed CPU and launch cost of every iteration.
    pub iteration_overhead_ms: f64,
    /// Kernel launch cost per layer of an iteration with prompt tokens (decode-only iterations
    /// replay a CUDA graph and do not pay it).
    pub layer_launch_us: f64,
    /// Latency of one tensor-parallel all-reduce over NVLink (custom one-shot/two-shot kernel),
    /// besides its transfer time.
    pub allreduce_latency_us: f64,
    /// Latency of one ring all-reduce over PCIe (GPUs without NVLink), besides its transfer time.
    pub pcie_allreduce_latency_us: f64,
    /// Share of the fp8 peak reached, relative to `mfu` (fp8 kernels sit further from the roof).
    pub fp8_efficiency: f64,
    /// Exponent k of the smoothed roofline (c^k + m^k)^(1/k): 1 adds compute and memory time,
    /// large k takes their maximum.
    pub roofline_sharpness: f64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            mfu: perf::DEFAULT_MFU,
            mbu: perf::DEFAULT_MBU,
            iteration_overhead_ms: perf::DEFAULT_OVERHEAD_MS,
            layer_launch_us: perf::DEFAULT_LAYER_LAUNCH_US,
            allreduce_latency_us: perf::DEFAULT_ALLREDUCE_US,
            pcie_allreduce_latency_us: perf::DEFAULT_PCIE_ALLREDUCE_US,
            fp8_efficiency: perf::DEFAULT_FP8_EFFICIENCY,
            roofline_sharpness: perf::DEFAULT_SHARPNESS,
        }
    }
}

impl EngineConfig {
    pub(super) fn is_default(&self) -> bool {
        *self == EngineConfig::default()
    }
}
