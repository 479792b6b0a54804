//! The models the lab knows, and how each one's attention stores what it has read.

use serde::{Deserialize, Serialize};

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
    #[serde(default, skip_serializing_if = "crate::is_zero_f64")]
    pub linear_state_bytes: f64,
}

fn one() -> u32 {
    1
}

fn is_zero(x: &u32) -> bool {
    *x == 0
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
/// A model from its dimensions: total and active parameters (billions), layers, hidden size,
/// attention and KV heads, head size, FFN width, vocabulary, context and (experts, active experts).
pub fn model(
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
