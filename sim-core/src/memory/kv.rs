//! KV per token by attention form, and how the pool counts a sequence's tokens.

use crate::catalog::{AttentionForm, ModelSpec};
use crate::perf::KvTraffic;
use serde::Serialize;

/// What one model keeps in memory per sequence, by attention form (docs/model.md §3): the layers
/// whose KV grows with every token, the sliding-window layers whose KV stops at the window, and
/// the linear-attention layers with a fixed state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KvFormula {
    pub form: AttentionForm,
    /// Layers attending over the whole context: their KV grows with every token.
    pub full_layers: u32,
    /// Layers attending over the last `window` tokens: their KV grows until the window is full.
    pub window_layers: u32,
    pub window: u32,
    /// Linear-attention (state-space) layers: a fixed state per sequence, no growth per token.
    pub linear_layers: u32,
    /// MHA/GQA: K/V heads and their size (2 · kv_heads · head_dim elements per layer and token).
    pub kv_heads: u32,
    pub head_dim: u32,
    /// MLA: the latent and the rotary key (kv_lora_rank + qk_rope_head_dim elements per layer and
    /// token, shared by all heads).
    pub kv_lora_rank: u32,
    pub qk_rope_head_dim: u32,
    /// Bytes per KV element (the KV dtype's).
    pub bytes_per_element: f64,
    /// Fixed state of all linear layers for one sequence, bytes.
    pub state_bytes: f64,
}

impl KvFormula {
    pub fn of(m: &ModelSpec, kv_elem_bytes: f64) -> KvFormula {
        KvFormula {
            form: m.attention_form(),
            full_layers: m.full_attn_layers(),
            window_layers: m.window_layers(),
            window: if m.window_layers() > 0 { m.sliding_window } else { 0 },
            linear_layers: m.linear_attn_layers,
            kv_heads: m.num_kv_heads,
            head_dim: m.head_dim,
            kv_lora_rank: m.kv_lora_rank,
            qk_rope_head_dim: m.qk_rope_head_dim,
            bytes_per_element: kv_elem_bytes,
            state_bytes: m.linear_attn_layers as f64 * m.linear_state_bytes,
        }
    }

    /// Bytes `layers` attention layers store per token.
    pub fn bytes_per_token_of(&self, layers: u32) -> f64 {
        match self.form {
            AttentionForm::Mla => {
                layers as f64 * (self.kv_lora_rank + self.qk_rope_head_dim) as f64 * self.bytes_per_element
            }
            _ => 2.0 * layers as f64 * self.kv_heads as f64 * self.head_dim as f64 * self.bytes_per_element,
        }
    }

    /// Bytes a token adds while it is inside every window: all attention layers.
    pub fn bytes_per_token(&self) -> f64 {
        self.bytes_per_token_of(self.full_layers + self.window_layers)
    }

    /// Bytes a token adds once the windows are full: the full-attention layers only.
    pub fn bytes_per_token_past_window(&self) -> f64 {
        self.bytes_per_token_of(self.full_layers)
    }

    /// KV and state of one sequence holding `tokens` tokens.
    pub fn sequence_bytes(&self, tokens: u64) -> f64 {
        let windowed = if self.window_layers > 0 { tokens.min(self.window as u64) } else { 0 };
        tokens as f64 * self.bytes_per_token_of(self.full_layers)
            + windowed as f64 * self.bytes_per_token_of(self.window_layers)
            + self.state_bytes
    }
}

/// How the KV pool counts a sequence: its tokens are counted once per group of
/// `gcd(full, window)` attention layers, `full_groups` times for ever and `window_groups` times
/// until the window; its fixed state is `state_tokens` pool tokens reserved at admission. For a
/// model whose layers all attend over the whole context: one group, no window, no state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PoolGrowth {
    pub full_groups: u64,
    pub window_groups: u64,
    pub window: u64,
    pub state_tokens: u64,
}

impl PoolGrowth {
    /// Pool tokens one sequence of `tokens` tokens holds.
    pub fn sequence_tokens(&self, tokens: u64) -> u64 {
        tokens * self.full_groups + tokens.min(self.window) * self.window_groups + self.state_tokens
    }
}

pub(super) fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// KV cache bytes per token while the token is inside every window (all attention layers):
/// `2 · layers · kv_heads · head_dim · bytes` (MHA/GQA) or `layers · (kv_lora_rank +
/// qk_rope_head_dim) · bytes` (MLA).
pub fn kv_bytes_per_token(m: &ModelSpec, kv_elem_bytes: f64) -> f64 {
    KvFormula::of(m, kv_elem_bytes).bytes_per_token()
}

/// The KV traffic of one copy of the model's KV (no tensor-parallel replication).
pub fn kv_traffic(m: &ModelSpec, kv_elem_bytes: f64) -> KvTraffic {
    let f = KvFormula::of(m, kv_elem_bytes);
    KvTraffic {
        full_bytes_per_token: f.bytes_per_token_of(f.full_layers),
        window_bytes_per_token: f.bytes_per_token_of(f.window_layers),
        window: f.window as u64,
        state_bytes: f.state_bytes,
    }
}

/// The article's simplified formula, per token: 2 · layers · hidden_size (K and V, one element
/// each, no bytes per element, every attention head counted).
pub fn article_kv_elements_per_token(m: &ModelSpec) -> f64 {
    2.0 * m.num_layers as f64 * m.hidden_size as f64
}
