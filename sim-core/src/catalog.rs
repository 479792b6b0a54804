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
    /// Dense fp4 tensor FLOP/s (NVFP4/MXFP4 products); `None` when the part has no fp4 tensor
    /// cores (everything before Blackwell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp4_flops: Option<f64>,
    /// GPU-to-GPU bandwidth in one direction, bytes/s (half the bidirectional figure).
    pub interconnect_bw: f64,
    /// Name of the link, for display.
    #[serde(default)]
    pub interconnect: String,
    /// Default price per GPU-hour in USD (a scenario may override it).
    pub usd_per_hour: f64,
}

impl GpuSpec {
    fn with_fp4(mut self, tflops: f64) -> GpuSpec {
        self.fp4_flops = Some(tflops * 1e12);
        self
    }
    /// An AMD Instinct part (by its catalogue id or name).
    pub fn is_amd(&self) -> bool {
        self.id.starts_with("mi") || self.name.starts_with("AMD")
    }
    /// Whether the GPUs of a node reach each other over a direct link (NVLink, AMD Infinity
    /// Fabric) on which custom all-reduce kernels read peer memory; otherwise (PCIe, or an inline
    /// GPU naming no link) tensor parallelism reduces over a ring.
    pub fn direct_link(&self) -> bool {
        self.interconnect.starts_with("NVLink") || self.interconnect.starts_with("Infinity Fabric")
    }
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
    /// Multi-head latent attention (DeepSeek-V3): rank of the compressed KV latent every head
    /// shares; 0 when the model stores K and V per KV head.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kv_lora_rank: u32,
    /// Multi-head latent attention: the rotary key part stored beside the latent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub qk_rope_head_dim: u32,
    /// Sliding-window attention: the window in tokens (0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sliding_window: u32,
    /// Layers that attend over the window only; the other attention layers see the whole context.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sliding_window_layers: u32,
    /// Linear-attention or state-space layers: no KV cache, a fixed state per sequence.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub linear_attn_layers: u32,
    /// Bytes of one linear layer's state for one sequence (recurrent state and convolution state).
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub linear_state_bytes: f64,
}

fn one() -> u32 {
    1
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

/// How a model's attention stores what it has read, which decides how its memory grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionForm {
    /// Every attention head stores its own K and V.
    Mha,
    /// Grouped-query attention: several query heads share one stored K/V head.
    Gqa,
    /// Multi-head latent attention: one compressed latent per token and layer, shared by all heads.
    Mla,
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
    pub fn attention_form(&self) -> AttentionForm {
        if self.kv_lora_rank > 0 {
            AttentionForm::Mla
        } else if self.num_kv_heads < self.num_attention_heads {
            AttentionForm::Gqa
        } else {
            AttentionForm::Mha
        }
    }
    /// Attention layers that attend over the whole context (their KV grows with every token).
    pub fn full_attn_layers(&self) -> u32 {
        self.num_layers.saturating_sub(self.sliding_window_layers + self.linear_attn_layers)
    }
    /// Layers that attend over a window of `sliding_window` tokens (their KV stops growing there).
    pub fn window_layers(&self) -> u32 {
        if self.sliding_window > 0 {
            self.sliding_window_layers
        } else {
            0
        }
    }
    /// Elements one layer stores per token: K and V of every KV head, or the MLA latent and its
    /// rotary key.
    pub fn kv_elements_per_layer(&self) -> f64 {
        match self.attention_form() {
            AttentionForm::Mla => (self.kv_lora_rank + self.qk_rope_head_dim) as f64,
            _ => 2.0 * self.num_kv_heads as f64 * self.head_dim as f64,
        }
    }
}

/// Bytes of one Gated DeltaNet layer's state for one sequence (Qwen3-Next, Qwen3.5): the
/// recurrent state, a `key_dim × value_dim` matrix per value head, in `ssm_bytes` per element, and
/// the causal convolution's last `conv_kernel − 1` inputs over the query, key and value channels,
/// in `conv_bytes` (vLLM's mamba state: `conv_state` and `temporal_state` per layer).
pub fn gated_deltanet_state_bytes(
    key_heads: u32,
    value_heads: u32,
    key_dim: u32,
    value_dim: u32,
    conv_kernel: u32,
    ssm_bytes: f64,
    conv_bytes: f64,
) -> f64 {
    let recurrent = value_heads as f64 * key_dim as f64 * value_dim as f64;
    let channels = 2.0 * key_heads as f64 * key_dim as f64 + value_heads as f64 * value_dim as f64;
    recurrent * ssm_bytes + (conv_kernel - 1) as f64 * channels * conv_bytes
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
        fp4_flops: None,
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
        )
        .with_fp4(2000.0),
        gpu("b200", "NVIDIA B200 180GB (HGX, 1000 W)", 180.0, 8.0, 2250.0, Some(4500.0), 1800.0, "NVLink5", 5.98)
            .with_fp4(9000.0),
        gpu(
            "b300",
            "NVIDIA B300 288GB (HGX, Blackwell Ultra)",
            288.0,
            8.0,
            2250.0,
            Some(4500.0),
            1800.0,
            "NVLink5",
            5.98,
        )
        .with_fp4(13125.0),
        gpu(
            "gb200",
            "NVIDIA GB200 (one Blackwell GPU of NVL72) 186GB",
            186.0,
            8.0,
            2500.0,
            Some(5000.0),
            1800.0,
            "NVLink5",
            4.54,
        )
        .with_fp4(10000.0),
        gpu("h20", "NVIDIA H20 96GB", 96.0, 4.0, 148.0, Some(296.0), 900.0, "NVLink4", 2.45),
        gpu("mi325x", "AMD Instinct MI325X 256GB", 256.0, 6.0, 1307.4, Some(2614.9), 896.0, "Infinity Fabric", 2.00),
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
        kv_lora_rank: 0,
        qk_rope_head_dim: 0,
        sliding_window: 0,
        sliding_window_layers: 0,
        linear_attn_layers: 0,
        linear_state_bytes: 0.0,
    }
}

/// Multi-head latent attention: `(kv_lora_rank, qk_rope_head_dim)`.
fn mla(m: ModelSpec, kv_lora_rank: u32, rope: u32) -> ModelSpec {
    ModelSpec { kv_lora_rank, qk_rope_head_dim: rope, ..m }
}

/// `layers` of the model attend over a window of `window` tokens.
fn windowed(m: ModelSpec, window: u32, layers: u32) -> ModelSpec {
    ModelSpec { sliding_window: window, sliding_window_layers: layers, ..m }
}

/// `layers` of the model are linear attention with `state_bytes` of state per sequence each.
fn linear(m: ModelSpec, layers: u32, state_bytes: f64) -> ModelSpec {
    ModelSpec { linear_attn_layers: layers, linear_state_bytes: state_bytes, ..m }
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
        windowed(
            model("mistral-7b", "Mistral-7B-v0.1", 7.24, 7.24, 32, 4096, 32, 8, 128, 14336, 32000, 8192, DENSE),
            4096,
            32,
        ),
        model("qwen2.5-7b", "Qwen2.5-7B", 7.62, 7.62, 28, 3584, 28, 4, 128, 18944, 152064, 32768, DENSE),
        model("qwen2.5-72b", "Qwen2.5-72B", 72.70, 72.70, 80, 8192, 64, 8, 128, 29568, 152064, 32768, DENSE),
        model("qwen3-32b", "Qwen3-32B", 32.76, 32.76, 64, 5120, 64, 8, 128, 25600, 151936, 40960, DENSE),
        model("mixtral-8x7b", "Mixtral-8x7B", 46.70, 12.88, 32, 4096, 32, 8, 128, 14336, 32000, 32768, (8, 2)),
        model("qwen3-8b", "Qwen3-8B", 8.19, 8.19, 36, 4096, 32, 8, 128, 12288, 151936, 40960, DENSE),
        model("qwen3-30b-a3b", "Qwen3-30B-A3B", 30.53, 3.35, 48, 2048, 32, 4, 128, 768, 151936, 40960, (128, 8)),
        model("qwen3-235b-a22b", "Qwen3-235B-A22B", 235.09, 22.19, 94, 4096, 64, 4, 128, 1536, 151936, 40960, (128, 8)),
        // 45 Gated DeltaNet layers (16 key heads, 64 value heads of 128, conv kernel 4, fp32
        // recurrent state) and 15 gated-attention layers
        linear(
            model(
                "qwen3.5-397b-a17b",
                "Qwen3.5-397B-A17B",
                397.0,
                17.0,
                60,
                4096,
                32,
                2,
                256,
                1024,
                248320,
                262144,
                (512, 10),
            ),
            45,
            gated_deltanet_state_bytes(16, 64, 128, 128, 4, 4.0, 2.0),
        ),
        mla(
            model(
                "deepseek-v3",
                "DeepSeek-V3 / R1",
                671.03,
                37.55,
                61,
                7168,
                128,
                128,
                128,
                18432,
                129280,
                163840,
                (256, 8),
            ),
            512,
            64,
        ),
        mla(
            model("kimi-k2", "Kimi-K2", 1026.41, 32.86, 61, 7168, 64, 64, 128, 18432, 163840, 131072, (384, 8)),
            512,
            64,
        ),
        mla(model("glm-5", "GLM-5", 744.0, 40.0, 78, 6144, 64, 64, 256, 12288, 154880, 202752, (256, 8)), 512, 64),
        windowed(
            model("gpt-oss-20b", "gpt-oss-20b", 20.91, 4.19, 24, 2880, 64, 8, 64, 2880, 201088, 131072, (32, 4)),
            128,
            12,
        ),
        windowed(
            model("gpt-oss-120b", "gpt-oss-120b", 116.79, 5.71, 36, 2880, 64, 8, 64, 2880, 201088, 131072, (128, 4)),
            128,
            18,
        ),
        model("llama-3.1-70b", "Llama-3.1-70B", 70.55, 70.55, 80, 8192, 64, 8, 128, 28672, 128256, 131072, DENSE),
        model(
            "llama-3.1-405b",
            "Llama-3.1-405B",
            405.85,
            405.85,
            126,
            16384,
            128,
            8,
            128,
            53248,
            128256,
            131072,
            DENSE,
        ),
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

    /// Rows of a CSV file as maps from the header's names (quoted fields, `""` escapes).
    fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
        let split = |line: &str| {
            let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' if quoted && chars.peek() == Some(&'"') => {
                        cur.push('"');
                        chars.next();
                    }
                    '"' => quoted = !quoted,
                    ',' if !quoted => out.push(std::mem::take(&mut cur)),
                    c => cur.push(c),
                }
            }
            out.push(cur);
            out
        };
        let mut lines = text.lines();
        let header = split(lines.next().unwrap());
        lines.map(|l| header.iter().cloned().zip(split(l)).collect()).collect()
    }

    #[test]
    fn every_catalogue_row_is_in_the_sourced_csv() {
        // sim-core/data/{models,gpus}.csv: the project's copy of shared/reference with a source per
        // row and the lab's id
        let rows = csv_rows(include_str!("../data/models.csv"));
        let num = |r: &std::collections::HashMap<String, String>, k: &str| -> f64 {
            r[k].trim_end_matches('B').parse().unwrap_or(0.0)
        };
        for m in models() {
            let r = rows.iter().find(|r| r["lab_id"] == m.id).unwrap_or_else(|| panic!("{} has no CSV row", m.id));
            assert_eq!(num(r, "num_layers"), m.num_layers as f64, "{}", m.id);
            assert_eq!(num(r, "hidden_size"), m.hidden_size as f64, "{}", m.id);
            assert_eq!(num(r, "num_attention_heads"), m.num_attention_heads as f64, "{}", m.id);
            assert_eq!(num(r, "vocab_size"), m.vocab_size as f64, "{}", m.id);
            // Qwen2.5's row gives its YaRN context (131072); the lab keeps the native 32768
            if !m.id.starts_with("qwen2.5") {
                assert_eq!(num(r, "max_context"), m.max_context as f64, "{}", m.id);
            }
            assert_eq!(num(r, "kv_lora_rank"), m.kv_lora_rank as f64, "{}", m.id);
            assert_eq!(num(r, "sliding_window"), m.sliding_window as f64, "{}", m.id);
            assert_eq!(num(r, "sliding_window_layers"), m.sliding_window_layers as f64, "{}", m.id);
            assert_eq!(num(r, "linear_attn_layers"), m.linear_attn_layers as f64, "{}", m.id);
            assert_eq!(num(r, "linear_state_bytes_per_layer"), m.linear_state_bytes, "{}", m.id);
            let kv = crate::memory::kv_bytes_per_token(&m, 2.0);
            assert_eq!(num(r, "kv_bytes_per_token_fp16_computed"), kv, "{}", m.id);
            let form = format!("{:?}", m.attention_form()).to_uppercase();
            assert_eq!(r["attention_form"], form, "{}", m.id);
            if !r["params_total_computed"].is_empty() {
                assert!((num(r, "params_total_computed") - m.params_total / 1e9).abs() < 0.006, "{}", m.id);
                assert!((num(r, "params_active_computed") - m.params_active / 1e9).abs() < 0.006, "{}", m.id);
            }
            assert!(!r["config_source"].is_empty(), "{}", m.id);
        }
        let rows = csv_rows(include_str!("../data/gpus.csv"));
        for g in gpus() {
            let r = rows.iter().find(|r| r["lab_id"] == g.id).unwrap_or_else(|| panic!("{} has no CSV row", g.id));
            // the leading number of a field; older rows keep free text where no figure was sourced
            let new_row = ["b200", "b300", "gb200", "h20", "mi325x"].contains(&g.id.as_str());
            let check = |k: &str, scale: f64, want: f64| {
                let lead: String = r[k].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
                match lead.parse::<f64>() {
                    Ok(x) => assert!((x * scale - want).abs() <= want * 1e-12, "{} {k}: {x}", g.id),
                    Err(_) => assert!(!new_row, "{} {k}: {:?}", g.id, r[k]),
                }
            };
            check("hbm_capacity_GB", GIB, g.hbm_bytes);
            check("mem_bandwidth_TBps", 1e12, g.mem_bandwidth);
            check("bf16_fp16_dense_TFLOPS", 1e12, g.bf16_flops);
            check("gpu_interconnect_GBps_bidir", 0.5e9, g.interconnect_bw);
            if let Some(f) = g.fp8_flops {
                check("fp8_dense_TFLOPS", 1e12, f);
            }
            if let Some(f) = g.fp4_flops {
                check("fp4_dense_TFLOPS", 1e12, f);
            }
            assert!(!r["spec_source"].is_empty(), "{}", g.id);
            assert!(!new_row || !r["price_sources"].is_empty(), "{}: a price source or the assumption", g.id);
        }
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
