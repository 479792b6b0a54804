//! The serving engine's efficiency constants ([`EngineConfig`]; docs/model.md), calibrated
//! defaults from `crate::perf`.

use serde::{Deserialize, Serialize};

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

fn default_mfu() -> f64 {
    crate::perf::DEFAULT_MFU
}
fn default_mbu() -> f64 {
    crate::perf::DEFAULT_MBU
}
fn default_overhead_ms() -> f64 {
    crate::perf::DEFAULT_OVERHEAD_MS
}
fn default_allreduce_us() -> f64 {
    crate::perf::DEFAULT_ALLREDUCE_US
}
fn default_layer_launch_us() -> f64 {
    crate::perf::DEFAULT_LAYER_LAUNCH_US
}
fn default_pcie_allreduce_us() -> f64 {
    crate::perf::DEFAULT_PCIE_ALLREDUCE_US
}
fn default_fp8_eff() -> f64 {
    crate::perf::DEFAULT_FP8_EFFICIENCY
}
fn default_sharpness() -> f64 {
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
    pub(super) fn is_default(&self) -> bool {
        *self == EngineConfig::default()
    }
}
