//! The catalogue: GPUs and models the lab knows by name.
//!
//! Every number comes from `shared/reference/gpus.csv` and `models.csv`; the source of each is
//! listed in `docs/model.md`. Capacities in the CSV are in GB as vendors print them; HBM and GDDR
//! parts are built from binary-sized dies, so they are taken as GiB here.

use serde::{Deserialize, Serialize};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// A GPU as the step-time and memory models see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Catalogue id (lower case), or any name for an inline custom GPU.
    pub id: String,
    /// Human-readable name.
    #[serde(default)]
    pub name: String,
    /// Memory capacity in bytes.
    pub hbm_bytes: f64,
    /// Memory bandwidth in bytes/s.
    pub mem_bandwidth: f64,
    /// Dense bf16/fp16 tensor FLOP/s.
    pub bf16_flops: f64,
    /// Dense fp8 tensor FLOP/s; `None` when the part has no fp8 tensor cores.
    #[serde(default)]
    pub fp8_flops: Option<f64>,
    /// GPU-to-GPU bandwidth in one direction, bytes/s (half the bidirectional figure).
    pub interconnect_bw: f64,
    /// Name of the link, for display.
    #[serde(default)]
    pub interconnect: String,
    /// Default price per GPU-hour in USD (a scenario may override it).
    pub usd_per_hour: f64,
}

/// A transformer as the step-time and memory models see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub id: String,
    #[serde(default)]
    pub name: String,
    /// Parameters resident in memory (all experts for a MoE).
    pub params_total: f64,
    /// Parameters used per token (top-k experts for a MoE; equals `params_total` when dense).
    pub params_active: f64,
    pub num_layers: u32,
    pub hidden_size: u32,
    pub num_attention_heads: u32,
    pub num_kv_heads: u32,
    pub head_dim: u32,
    pub intermediate_size: u32,
    pub vocab_size: u32,
    pub max_context: u32,
    /// Experts per MoE layer (1 for a dense model).
    #[serde(default = "one")]
    pub num_experts: u32,
    /// Experts each token is routed to (1 for a dense model).
    #[serde(default = "one")]
    pub experts_per_token: u32,
}

fn one() -> u32 {
    1
}

impl ModelSpec {
    /// Parameters in the input embedding and the LM head (untied in every catalogue model).
    pub fn embedding_params(&self) -> f64 {
        2.0 * self.vocab_size as f64 * self.hidden_size as f64
    }
    /// Parameters that all experts together hold (0 for a dense model).
    pub fn expert_params(&self) -> f64 {
        if self.num_experts <= 1 || self.experts_per_token >= self.num_experts {
            return 0.0;
        }
        let e = self.num_experts as f64;
        let k = self.experts_per_token as f64;
        // total - active = expert_params * (E - k) / E
        (self.params_total - self.params_active) * e / (e - k)
    }
    /// Non-embedding parameters that every token passes through, outside the experts.
    pub fn shared_linear_params(&self) -> f64 {
        self.params_total - self.expert_params() - self.embedding_params()
    }
    /// Query heads × head dim: the width of the attention products.
    pub fn attn_width(&self) -> f64 {
        self.num_attention_heads as f64 * self.head_dim as f64
    }
    pub fn is_moe(&self) -> bool {
        self.expert_params() > 0.0
    }
}

#[allow(clippy::too_many_arguments)]
fn gpu(
    id: &str,
    name: &str,
    gb: f64,
    tbps: f64,
    bf16_tf: f64,
    fp8_tf: Option<f64>,
    link_bidir_gbps: f64,
    link: &str,
    usd: f64,
) -> GpuSpec {
    GpuSpec {
        id: id.into(),
        name: name.into(),
        hbm_bytes: gb * GIB,
        mem_bandwidth: tbps * 1e12,
        bf16_flops: bf16_tf * 1e12,
        fp8_flops: fp8_tf.map(|t| t * 1e12),
        interconnect_bw: link_bidir_gbps * 1e9 / 2.0,
        interconnect: link.into(),
        usd_per_hour: usd,
    }
}

/// The GPUs the lab knows, in display order.
pub fn gpus() -> Vec<GpuSpec> {
    vec![
        gpu("a100-40gb", "NVIDIA A100 40GB SXM4", 40.0, 1.555, 312.0, None, 600.0, "NVLink3", 1.48),
        gpu("a100-80gb", "NVIDIA A100 80GB SXM4", 80.0, 2.039, 312.0, None, 600.0, "NVLink3", 2.45),
        gpu("h100-sxm", "NVIDIA H100 SXM5 80GB", 80.0, 3.35, 989.4, Some(1978.9), 900.0, "NVLink4", 2.69),
        gpu("h200", "NVIDIA H200 SXM 141GB", 141.0, 4.8, 989.4, Some(1978.9), 900.0, "NVLink4", 3.59),
        gpu("l4", "NVIDIA L4 24GB", 24.0, 0.3, 121.0, Some(242.0), 64.0, "PCIe Gen4 x16", 0.78),
        gpu("l40s", "NVIDIA L40S 48GB", 48.0, 0.864, 362.05, Some(733.0), 64.0, "PCIe Gen4 x16", 1.40),
        gpu("mi300x", "AMD Instinct MI300X 192GB", 192.0, 5.3, 1307.4, Some(2614.9), 896.0, "Infinity Fabric", 1.85),
        gpu("rtx-4090", "NVIDIA GeForce RTX 4090 24GB", 24.0, 1.008, 165.15, Some(330.3), 64.0, "PCIe Gen4 x16", 0.60),
        gpu(
            "rtx-pro-6000",
            "NVIDIA RTX PRO 6000 Blackwell 96GB (Server)",
            96.0,
            1.597,
            503.8,
            Some(1007.6),
            128.0,
            "PCIe Gen5 x16",
            1.79,
        ),
    ]
}

#[allow(clippy::too_many_arguments)]
fn model(
    id: &str,
    name: &str,
    total_b: f64,
    active_b: f64,
    layers: u32,
    hidden: u32,
    heads: u32,
    kv_heads: u32,
    head_dim: u32,
    ffn: u32,
    vocab: u32,
    ctx: u32,
    experts: (u32, u32),
) -> ModelSpec {
    ModelSpec {
        id: id.into(),
        name: name.into(),
        params_total: total_b * 1e9,
        params_active: active_b * 1e9,
        num_layers: layers,
        hidden_size: hidden,
        num_attention_heads: heads,
        num_kv_heads: kv_heads,
        head_dim,
        intermediate_size: ffn,
        vocab_size: vocab,
        max_context: ctx,
        num_experts: experts.0,
        experts_per_token: experts.1,
    }
}

/// The models the lab knows, in display order.
pub fn models() -> Vec<ModelSpec> {
    const DENSE: (u32, u32) = (1, 1);
    vec![
        model("llama-2-7b", "Llama-2-7B", 6.74, 6.74, 32, 4096, 32, 32, 128, 11008, 32000, 4096, DENSE),
        model("llama-2-13b", "Llama-2-13B", 13.02, 13.02, 40, 5120, 40, 40, 128, 13824, 32000, 4096, DENSE),
        model("llama-2-70b", "Llama-2-70B", 68.98, 68.98, 80, 8192, 64, 8, 128, 28672, 32000, 4096, DENSE),
        model("llama-3-8b", "Llama-3-8B", 8.03, 8.03, 32, 4096, 32, 8, 128, 14336, 128256, 8192, DENSE),
        model("llama-3.1-8b", "Llama-3.1-8B", 8.03, 8.03, 32, 4096, 32, 8, 128, 14336, 128256, 131072, DENSE),
        model("llama-3-70b", "Llama-3-70B", 70.55, 70.55, 80, 8192, 64, 8, 128, 28672, 128256, 8192, DENSE),
        model("mistral-7b", "Mistral-7B-v0.1", 7.24, 7.24, 32, 4096, 32, 8, 128, 14336, 32000, 8192, DENSE),
        model("qwen2.5-7b", "Qwen2.5-7B", 7.62, 7.62, 28, 3584, 28, 4, 128, 18944, 152064, 32768, DENSE),
        model("qwen2.5-72b", "Qwen2.5-72B", 72.70, 72.70, 80, 8192, 64, 8, 128, 29568, 152064, 32768, DENSE),
        model("qwen3-32b", "Qwen3-32B", 32.76, 32.76, 64, 5120, 64, 8, 128, 25600, 151936, 40960, DENSE),
        model("mixtral-8x7b", "Mixtral-8x7B", 46.70, 12.88, 32, 4096, 32, 8, 128, 14336, 32000, 32768, (8, 2)),
    ]
}

pub fn find_gpu(id: &str) -> Option<GpuSpec> {
    gpus().into_iter().find(|g| g.id == id)
}

pub fn find_model(id: &str) -> Option<ModelSpec> {
    models().into_iter().find(|m| m.id == id)
}

/// Storage precision of weights or KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp16,
    Bf16,
    Fp8,
}

impl Dtype {
    pub const ALL: [Dtype; 3] = [Dtype::Bf16, Dtype::Fp16, Dtype::Fp8];

    /// The dtype named `name` (`bf16`, `fp16`, `fp8`, any case).
    pub fn parse(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name().eq_ignore_ascii_case(name))
    }

    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Fp16 | Dtype::Bf16 => 2.0,
            Dtype::Fp8 => 1.0,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kv_bytes_per_token_match_reference_table() {
        // models.csv column kv_bytes_per_token_fp16_computed
        let expect = [
            ("llama-2-7b", 524288.0),
            ("llama-2-13b", 819200.0),
            ("llama-2-70b", 327680.0),
            ("llama-3-8b", 131072.0),
            ("mistral-7b", 131072.0),
            ("qwen2.5-7b", 57344.0),
            ("qwen2.5-72b", 327680.0),
            ("mixtral-8x7b", 131072.0),
            ("qwen3-32b", 262144.0),
        ];
        for (id, bytes) in expect {
            let m = find_model(id).unwrap();
            let kv = 2.0 * m.num_layers as f64 * m.num_kv_heads as f64 * m.head_dim as f64 * 2.0;
            assert_eq!(kv, bytes, "{id}");
        }
    }

    #[test]
    fn mixtral_expert_split_reproduces_active_params() {
        let m = find_model("mixtral-8x7b").unwrap();
        let active = m.shared_linear_params() + m.embedding_params() + m.expert_params() * 2.0 / 8.0;
        assert!((active - m.params_active).abs() / m.params_active < 1e-9);
        assert!(m.expert_params() > 40e9 && m.expert_params() < 50e9);
        assert!(!find_model("llama-3-8b").unwrap().is_moe());
    }

    #[test]
    fn llama2_7b_non_embedding_params_match_published_6_48b() {
        let m = find_model("llama-2-7b").unwrap();
        let ne = m.shared_linear_params();
        assert!((ne / 1e9 - 6.48).abs() < 0.01, "{ne}");
    }

    #[test]
    fn ids_are_unique_and_lower_case() {
        let mut ids: Vec<String> = gpus().into_iter().map(|g| g.id).chain(models().into_iter().map(|m| m.id)).collect();
        for id in &ids {
            assert_eq!(id, &id.to_lowercase());
        }
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }
}
