//! Storage precisions of weights and KV cache: names, sizes, which GPUs run them.

use super::GpuSpec;
use serde::{Deserialize, Serialize};

/// Storage precision of weights or KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp16,
    Bf16,
    Fp8,
    /// 4-bit integer weights with a 16-bit scale and a 4-bit zero point per group of 128
    /// (AWQ, GPTQ); the products run in bf16 (weight-only, W4A16).
    Int4,
    /// OCP microscaling fp4: e2m1 values with an 8-bit power-of-two scale per block of 32
    /// (gpt-oss's expert weights).
    Mxfp4,
    /// NVIDIA's fp4: e2m1 values with an fp8 (e4m3) scale per block of 16.
    Nvfp4,
}

impl Dtype {
    pub const ALL: [Dtype; 6] = [Dtype::Bf16, Dtype::Fp16, Dtype::Fp8, Dtype::Int4, Dtype::Mxfp4, Dtype::Nvfp4];
    /// The precisions a KV cache can be stored in (4-bit formats are for weights only).
    pub const KV: [Dtype; 3] = [Dtype::Bf16, Dtype::Fp16, Dtype::Fp8];

    /// The dtype named `name` (`bf16`, `fp16`, `fp8`, `int4`, `mxfp4`, `nvfp4`, any case).
    pub fn parse(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name().eq_ignore_ascii_case(name))
    }

    /// Bytes per element, the block scales included.
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Fp16 | Dtype::Bf16 => 2.0,
            Dtype::Fp8 => 1.0,
            // 4 bits + 16-bit scale / 128 + 4-bit zero / 128 = 4.156 bits
            Dtype::Int4 => (4.0 + 16.0 / 128.0 + 4.0 / 128.0) / 8.0,
            // 4 bits + 8-bit scale / 32 = 4.25 bits
            Dtype::Mxfp4 => (4.0 + 8.0 / 32.0) / 8.0,
            // 4 bits + 8-bit scale / 16 = 4.5 bits (the one fp32 scale per tensor is negligible)
            Dtype::Nvfp4 => (4.0 + 8.0 / 16.0) / 8.0,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
            Dtype::Int4 => "int4",
            Dtype::Mxfp4 => "mxfp4",
            Dtype::Nvfp4 => "nvfp4",
        }
    }
    /// A 4-bit weight format (never a KV cache's).
    pub fn is_4bit(self) -> bool {
        matches!(self, Dtype::Int4 | Dtype::Mxfp4 | Dtype::Nvfp4)
    }
    /// Whether `gpu` runs weights in this precision, and so which dtypes it offers: fp8 needs
    /// fp8 tensor cores (vLLM has no fp8 path before Ada/Hopper in the lab's catalogue: A100s
    /// refuse it); the fp4 formats run on fp4 tensor cores (Blackwell) or weight-only through
    /// the Marlin kernels of vLLM and SGLang, which need an NVIDIA GPU (compute capability ≥ 7.5,
    /// every NVIDIA GPU here) — AMD parts have neither; int4 (AWQ/GPTQ) runs everywhere.
    pub fn runs_on(self, gpu: &GpuSpec) -> bool {
        match self {
            Dtype::Fp8 => gpu.fp8_flops.is_some(),
            Dtype::Mxfp4 | Dtype::Nvfp4 => gpu.fp4_flops.is_some() || !gpu.is_amd(),
            _ => true,
        }
    }
}
