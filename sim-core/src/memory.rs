//! HBM: what the weights take, what the engine's profile run reserves for activations, the KV
//! pool that is left, and what must fit in the headroom outside it.
//!
//! As in vLLM (V1), the server's budget is `gpu_memory_utilization × capacity`, and the KV pool is
//! what the budget leaves after the weights, the peak activations of a profile run at
//! `max_num_batched_tokens` (and of the sampler over `max_num_seqs` rows) and the non-torch memory
//! the profile sees grow. Outside the budget, in the headroom `(1 − utilisation) × capacity`, the
//! process still needs its CUDA context (in use before the budget is measured) and its CUDA
//! graphs (captured after the pool is allocated), and other processes on the GPU need theirs: if
//! those do not fit, the server does not start. KV per token depends on the attention form
//! ([`KvFormula`]): `2 (K and V) · layers · kv_heads · head_dim · bytes` for MHA/GQA,
//! `layers · (kv_lora_rank + qk_rope_head_dim) · bytes` for multi-head latent attention;
//! sliding-window layers stop growing at their window and linear-attention layers hold a fixed
//! state per sequence. Sources: docs/model.md §3.

use crate::catalog::{AttentionForm, GpuSpec, ModelSpec};
use crate::message::{self, Problem, Shortfall};
use crate::perf::KvTraffic;
use crate::scenario::{KvLayout, Scenario, ScenarioError};
use crate::settings::Value;
use serde::Serialize;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// Sampler memory of the profile run per (sequence, vocabulary entry): fp32 logits, probabilities
/// and the top-k/top-p sort's values and indices. Fitted to vLLM's logged peak activation of five
/// models on H100 at max_num_seqs 1024 (38.3–38.6 B; docs/model.md §3).
pub const SAMPLER_BYTES_PER_LOGIT: f64 = 38.4;
/// Non-torch memory the profile run sees grow on one GPU (cuBLAS workspaces, allocator
/// overhead): vLLM logs 0.13 GiB at TP 1 on H100.
pub const NON_TORCH_BYTES: f64 = 0.13 * GIB;
/// Extra non-torch memory per GPU with tensor parallelism (NCCL and custom all-reduce buffers):
/// vLLM logs 0.55 GiB at TP 2 against 0.14 GiB at TP 1 for the same model.
pub const NON_TORCH_TP_BYTES: f64 = 0.42 * GIB;
/// Memory in use on one GPU before vLLM measures its budget (CUDA context, loaded kernels):
/// "Free memory on device: 78.57/79.18 GiB on startup" at TP 1 on H100.
pub const CUDA_CONTEXT_BYTES: f64 = 0.61 * GIB;
/// The same with tensor parallelism (NCCL communicators initialised first): 77.64/79.18 GiB free
/// at TP 2.
pub const CUDA_CONTEXT_TP_BYTES: f64 = 1.54 * GIB;
/// CUDA graphs, captured after the KV pool is allocated, outside the budget: vLLM logs 0.10–1.03
/// GiB per GPU ("Graph capturing finished in N secs, took X GiB"); the median, 0.39 GiB, rounded.
pub const CUDA_GRAPH_BYTES: f64 = 0.4 * GIB;

/// How the memory of all GPUs of one replica is split. All figures in bytes, summed over GPUs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HbmPlan {
    pub capacity_bytes: f64,
    pub weights_bytes: f64,
    /// Inside the budget: the profile run's peak activations plus the non-torch memory it sees.
    pub activation_bytes: f64,
    /// Outside the budget, in the headroom: the CUDA context and the CUDA graphs.
    pub runtime_bytes: f64,
    /// Outside the budget, in the headroom: memory other processes hold on the GPUs.
    pub other_process_bytes: f64,
    /// KV pool the scheduler may fill (`gpu_memory_utilization` applied).
    pub kv_capacity_bytes: f64,
    /// Capacity × (1 − utilisation): outside the budget (runtime and other processes live here).
    pub headroom_bytes: f64,
    /// KV bytes per token for the whole model (all GPUs).
    pub kv_bytes_per_token: f64,
    /// Tokens the pool holds.
    pub kv_capacity_tokens: u64,
    /// Tokens that fit before physical memory runs out (for over-commit: beyond it is an OOM).
    pub kv_physical_tokens: u64,
    pub block_size: u32,
    pub layout: KvLayout,
    pub max_model_len: u32,
    /// The model's KV formula (one copy, before tensor-parallel replication).
    pub kv: KvFormula,
    /// How the pool's tokens grow with a sequence (`kv_bytes_per_token` is one of its tokens).
    pub pool_growth: PoolGrowth,
}

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

fn gcd(a: u32, b: u32) -> u32 {
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

/// Peak activations of vLLM's profile run on one GPU: a forward pass over
/// `max_num_batched_tokens` tokens, then the sampler over one row per sequence
/// (`min(max_num_seqs, max_num_batched_tokens)`). The forward's hidden states stay allocated
/// while the larger of the two transients runs: the forward's (hidden states and MLP
/// intermediates, sharded by TP) or the sampler's (the full vocabulary on every GPU).
pub fn activation_peak_per_gpu(m: &ModelSpec, max_batched_tokens: u32, max_seqs: u32, tp: u32) -> f64 {
    let tokens = max_batched_tokens as f64;
    let hidden_states = tokens * m.hidden_size as f64 * 2.0;
    let forward = tokens * (4.0 * m.hidden_size as f64 + 2.0 * m.intermediate_size as f64 / tp as f64) * 2.0;
    let rows = max_seqs.min(max_batched_tokens) as f64;
    let sampler = rows * m.vocab_size as f64 * SAMPLER_BYTES_PER_LOGIT;
    hidden_states + forward.max(sampler)
}

/// Non-torch memory inside the budget on one GPU.
pub fn non_torch_per_gpu(tp: u32) -> f64 {
    if tp > 1 {
        NON_TORCH_BYTES + NON_TORCH_TP_BYTES
    } else {
        NON_TORCH_BYTES
    }
}

/// Memory outside the budget on one GPU that the serving process itself holds: its CUDA
/// context and its CUDA graphs.
pub fn runtime_per_gpu(tp: u32) -> f64 {
    (if tp > 1 { CUDA_CONTEXT_TP_BYTES } else { CUDA_CONTEXT_BYTES }) + CUDA_GRAPH_BYTES
}

/// One change of one setting that would make a scenario that does not fit in memory fit: the
/// smallest such change, found with the plan's own fit check ([`HbmPlan::fits`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    /// The `settings` row (`gpu_memory_utilization`).
    pub setting: &'static str,
    /// The value that fits.
    pub value: Value,
    /// How the value relates to the ones that fit: the least (`AtLeast`: utilisation, GPUs),
    /// the most (`AtMost`: max_model_len), or just this one (`Exactly`: dtype fp8).
    pub bound: Bound,
}

/// Whether a [`Fix`]'s value is the least or the most that fits, or the one choice that does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    AtLeast,
    AtMost,
    Exactly,
}

impl Fix {
    /// `gpu_memory_utilization ≥ 0.22`, `num_gpus = 2`, `scheduler.max_model_len ≤ 4096`,
    /// `dtype = fp8`: the setting's JSON path and the value.
    pub fn describe(&self) -> String {
        let path = crate::settings::find(self.setting).map_or(self.setting, |r| r.path);
        let value = match &self.value {
            Value::Number(x) => crate::settings::fmt_num(*x),
            Value::Text(t) => t.clone(),
            v => format!("{v:?}"),
        };
        let op = match (self.bound, self.setting) {
            // num_gpus takes only 1, 2, 4 or 8: the fewest that fit is the one to name
            (_, "num_gpus") | (Bound::Exactly, _) => "=",
            (Bound::AtLeast, _) => "≥",
            (Bound::AtMost, _) => "≤",
        };
        format!("{path} {op} {value}")
    }
}

/// GPU counts beyond one node that [`beyond_node`] tries: whole 8-GPU nodes, doubling.
const MULTI_NODE_GPUS: [u32; 6] = [16, 32, 64, 128, 256, 512];
/// The utilisation assumed for a multi-node estimate (vLLM's default is 0.9; large deployments
/// run close to it).
const MULTI_NODE_UTILIZATION: f64 = 0.9;

/// For a model that no setting fits on one node: the fewest GPUs of this kind (16, 32, … 512)
/// whose memory would hold its weights, activations and one sequence's KV, in the smallest
/// weight dtype the GPU computes in, at [`MULTI_NODE_UTILIZATION`] — the same plan as one node's,
/// with the weights spread over every GPU (as pipeline and expert parallelism spread them).
fn beyond_node(s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> Option<message::BeyondNode> {
    let mut t = s.clone();
    if gpu.fp8_flops.is_some() && crate::catalog::Dtype::Fp8.bytes() < t.dtype.bytes() {
        t.dtype = crate::catalog::Dtype::Fp8;
    }
    t.gpu_memory_utilization = t.gpu_memory_utilization.max(MULTI_NODE_UTILIZATION);
    MULTI_NODE_GPUS.into_iter().find_map(|n| {
        t.num_gpus = n;
        HbmPlan::plan(&t, model, gpu).fits().then(|| message::BeyondNode {
            gpus: n,
            dtype: t.dtype.name().to_string(),
            utilization: t.gpu_memory_utilization,
        })
    })
}

/// The smallest changes that make `s` fit in memory, one per setting that can (more GPUs, fp8,
/// more utilisation, a shorter max_model_len); empty when it fits, when nothing of these makes
/// it fit, or when its model or GPU is unknown.
pub fn fixes(s: &Scenario) -> Vec<Fix> {
    match (s.model_spec(), s.gpu_spec()) {
        (Ok(m), Ok(g)) if !HbmPlan::plan(s, &m, &g).fits() => HbmPlan::plan(s, &m, &g).fixes(s, &m, &g),
        _ => Vec::new(),
    }
}

impl HbmPlan {
    pub fn new(s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> Result<HbmPlan, ScenarioError> {
        let plan = HbmPlan::plan(s, model, gpu);
        if !plan.starts() {
            return Err(ScenarioError::one("", Problem::CannotStart(Box::new(plan.cannot_start(s)))));
        }
        if !plan.holds_one_sequence() {
            return Err(ScenarioError::one("", Problem::DoesNotFit(Box::new(plan.does_not_fit(s, model, gpu)))));
        }
        Ok(plan)
    }

    /// The split, whether or not it fits ([`HbmPlan::fits`] says).
    fn plan(s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> HbmPlan {
        let tp = s.num_gpus as f64;
        let capacity = gpu.hbm_bytes * tp;
        let weights = model.params_total * s.dtype.bytes();
        let sched = &s.scheduler;
        let activation = activation_peak_per_gpu(model, sched.max_num_batched_tokens, sched.max_num_seqs, s.num_gpus)
            * tp
            + non_torch_per_gpu(s.num_gpus) * tp;
        let runtime = runtime_per_gpu(s.num_gpus) * tp;
        let other = s.other_process_gib * GIB * tp;
        // KV heads shard across TP ranks; with more ranks than KV heads they are replicated, so
        // the replica stores ceil(kv_heads / tp) heads on each of its tp GPUs. MLA's latent is
        // shared by all heads: every rank stores all of it. Linear state shards by head.
        let kv = KvFormula::of(model, s.kv_dtype().bytes());
        // the pool counts tokens per group of gcd(full, window) layers (all layers for most models)
        let g = gcd(kv.full_layers, kv.window_layers).max(1);
        let unit = kv.bytes_per_token_of(g);
        let kv_tok_stored = match kv.form {
            AttentionForm::Mla => unit * tp,
            _ => {
                let kv_heads_stored = (model.num_kv_heads as f64 / tp).ceil() * tp;
                unit * kv_heads_stored / model.num_kv_heads as f64
            }
        };
        let pool_growth = PoolGrowth {
            full_groups: (kv.full_layers / g) as u64,
            window_groups: (kv.window_layers / g) as u64,
            window: kv.window as u64,
            state_tokens: (kv.state_bytes / kv_tok_stored).ceil() as u64,
        };
        let usable = capacity * s.gpu_memory_utilization;
        let kv_capacity = usable - weights - activation;
        let physical = capacity - runtime - other - weights - activation;
        HbmPlan {
            capacity_bytes: capacity,
            weights_bytes: weights,
            activation_bytes: activation,
            runtime_bytes: runtime,
            other_process_bytes: other,
            kv_capacity_bytes: kv_capacity.max(0.0),
            headroom_bytes: capacity - usable,
            kv_bytes_per_token: kv_tok_stored,
            kv_capacity_tokens: (kv_capacity.max(0.0) / kv_tok_stored) as u64,
            kv_physical_tokens: (physical.max(0.0) / kv_tok_stored) as u64,
            block_size: sched.block_size,
            layout: sched.kv_layout,
            max_model_len: sched.max_model_len,
            kv,
            pool_growth,
        }
    }

    /// The KV pool holds one sequence of max_model_len tokens.
    fn holds_one_sequence(&self) -> bool {
        self.kv_capacity_tokens >= self.pool_growth.sequence_tokens(self.max_model_len as u64)
    }

    /// The KV traffic of the stored KV (all GPUs, replication included), for the step model.
    pub fn kv_traffic(&self) -> KvTraffic {
        let g = &self.pool_growth;
        KvTraffic {
            full_bytes_per_token: g.full_groups as f64 * self.kv_bytes_per_token,
            window_bytes_per_token: g.window_groups as f64 * self.kv_bytes_per_token,
            window: g.window,
            state_bytes: self.kv.state_bytes,
        }
    }

    /// The server starts and its KV pool holds one sequence: what [`HbmPlan::new`] accepts.
    pub fn fits(&self) -> bool {
        self.starts() && self.holds_one_sequence()
    }

    /// The smallest change of each setting that makes `s` fit, found with [`HbmPlan::fits`]:
    /// the fewest GPUs, fp8, the least utilisation (on the setting's 0.01 grid), the longest
    /// max_model_len.
    fn fixes(&self, s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> Vec<Fix> {
        let fits = |t: &Scenario| HbmPlan::plan(t, model, gpu).fits();
        let with = |f: &dyn Fn(&mut Scenario)| {
            let mut t = s.clone();
            f(&mut t);
            t
        };
        let fix = |setting, value, bound| Fix { setting, value, bound };
        let mut out = Vec::new();
        let gpus = [1u32, 2, 4, 8].into_iter().filter(|&n| n > s.num_gpus);
        if let Some(n) = gpus.into_iter().find(|&n| fits(&with(&|t| t.num_gpus = n))) {
            out.push(fix("num_gpus", Value::Number(n as f64), Bound::AtLeast));
        }
        if s.dtype.bytes() > crate::catalog::Dtype::Fp8.bytes()
            && gpu.fp8_flops.is_some()
            && fits(&with(&|t| t.dtype = crate::catalog::Dtype::Fp8))
        {
            out.push(fix("dtype", Value::Text(crate::catalog::Dtype::Fp8.name().to_string()), Bound::Exactly));
        }
        // the utilisation grid is the setting's step, 0.01: hundredths above the current value
        let first = (s.gpu_memory_utilization * 100.0 + 1e-9).floor() as u32 + 1;
        let least = (first..=100).map(|k| k as f64 / 100.0).find(|&u| fits(&with(&|t| t.gpu_memory_utilization = u)));
        if let Some(u) = least {
            out.push(fix("gpu_memory_utilization", Value::Number(u), Bound::AtLeast));
        }
        // max_model_len: the longest that fits, by bisection (a shorter one never fits less)
        let len_fits = |n: u32| fits(&with(&|t| t.scheduler.max_model_len = n));
        if self.starts() && s.scheduler.max_model_len > 2 && len_fits(2) {
            let (mut lo, mut hi) = (2u32, s.scheduler.max_model_len); // lo fits, hi does not
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if len_fits(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            out.push(fix("max_model_len", Value::Number(lo as f64), Bound::AtMost));
        }
        out
    }

    /// What must fit in the headroom: the CUDA context, the CUDA graphs and other processes.
    pub fn outside_budget_bytes(&self) -> f64 {
        self.runtime_bytes + self.other_process_bytes
    }

    /// The headroom holds what lives outside the budget; otherwise the server cannot start
    /// (vLLM: "Free memory on device … is less than desired GPU memory utilization", or CUDA out
    /// of memory while capturing graphs).
    pub fn starts(&self) -> bool {
        self.outside_budget_bytes() <= self.headroom_bytes
    }

    /// Why the server cannot start, per GPU, with the largest utilisation (and the most other
    /// processes may hold) that starts.
    fn cannot_start(&self, s: &Scenario) -> message::CannotStart {
        let tp = s.num_gpus as f64;
        let per = |b: f64| b / tp / GIB;
        let need = self.outside_budget_bytes() / tp;
        let gpu_bytes = self.capacity_bytes / tp;
        let room = (per(self.headroom_bytes) - per(self.runtime_bytes)).max(0.0);
        message::CannotStart {
            utilization: s.gpu_memory_utilization,
            headroom_gib: per(self.headroom_bytes),
            runtime_gib: per(self.runtime_bytes),
            other_gib: per(self.other_process_bytes),
            max_utilization: ((1.0 - need / gpu_bytes) * 100.0).floor() / 100.0,
            max_other_gib: (room * 100.0).floor() / 100.0,
        }
    }

    /// Why the pool cannot hold one sequence, and the smallest changes that fit.
    fn does_not_fit(&self, s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> message::DoesNotFit {
        let usable = self.capacity_bytes * s.gpu_memory_utilization;
        let shortfall = if self.weights_bytes + self.activation_bytes > usable {
            Shortfall::Weights {
                model: model.id.clone(),
                dtype: s.dtype.name().to_string(),
                weights_gib: self.weights_bytes / GIB,
                activation_gib: self.activation_bytes / GIB,
                num_gpus: s.num_gpus,
                utilization: s.gpu_memory_utilization,
                budget_gib: usable / GIB,
            }
        } else {
            Shortfall::KvPool {
                kv_gib: self.kv_capacity_bytes / GIB,
                kv_tokens: self.kv_capacity_tokens,
                max_model_len: s.scheduler.max_model_len,
            }
        };
        let fixes = self.fixes(s, model, gpu);
        let beyond_node = if fixes.is_empty() { beyond_node(s, model, gpu) } else { None };
        message::DoesNotFit { shortfall, gpu: gpu.id.clone(), fixes, beyond_node }
    }

    pub fn capacity_blocks(&self) -> u64 {
        self.kv_capacity_tokens / self.block_size as u64
    }
    pub fn physical_blocks(&self) -> u64 {
        self.kv_physical_tokens / self.block_size as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{find_gpu, find_model, Dtype};

    /// vLLM's logged memory profile (llm-d-benchmark, config_explorer/empirical-vllm-memory-results.md):
    /// `vllm serve` on one H100 (79.18 GiB), defaults there: max_num_batched_tokens 8192,
    /// max_num_seqs 1024, gpu_memory_utilization 0.9.
    fn vllm_h100(model: &str, tp: u32, dtype: Dtype) -> (Scenario, ModelSpec, GpuSpec) {
        let mut s = crate::presets::find("chat-latency-first").unwrap().scenario();
        s.num_gpus = tp;
        s.dtype = dtype;
        s.gpu_memory_utilization = 0.9;
        s.scheduler.max_num_batched_tokens = 8192;
        s.scheduler.max_num_seqs = 1024;
        s.scheduler.max_model_len = 16000;
        let mut gpu = find_gpu("h100-sxm").unwrap();
        gpu.hbm_bytes = 79.18 * GIB;
        (s, find_model(model).unwrap(), gpu)
    }

    fn gib(b: f64) -> f64 {
        b / GIB
    }

    #[test]
    fn profile_peak_matches_vllm_logs() {
        // model, TP, logged peak activation (GiB per GPU)
        for (model, tp, dtype, logged) in [
            ("llama-3.1-8b", 1, Dtype::Bf16, 4.76),
            ("llama-3-70b", 2, Dtype::Fp8, 4.84),
            ("qwen3-32b", 1, Dtype::Bf16, 5.64),
        ] {
            let (s, m, _) = vllm_h100(model, tp, dtype);
            let peak = gib(activation_peak_per_gpu(&m, 8192, 1024, tp));
            assert!((peak - logged).abs() < 0.05 * logged, "{model}: {peak:.2} GiB, vLLM logged {logged}");
            assert_eq!(s.scheduler.max_num_seqs, 1024);
        }
    }

    #[test]
    fn kv_pool_is_the_budget_less_weights_activations_and_non_torch() {
        // Llama-3.1-8B: 0.9 × 79.18 = 71.26 GiB budget − 14.99 weights − 4.76 activations − 0.13
        // non-torch = 51.38 GiB of KV cache in vLLM's log
        let (s, m, g) = vllm_h100("llama-3.1-8b", 1, Dtype::Bf16);
        let p = HbmPlan::new(&s, &m, &g).unwrap();
        assert!((gib(p.weights_bytes) - 14.99).abs() < 0.1, "{}", gib(p.weights_bytes));
        assert!((gib(p.activation_bytes) - (4.76 + 0.13)).abs() < 0.1, "{}", gib(p.activation_bytes));
        assert!((gib(p.kv_capacity_bytes) - 51.38).abs() < 0.2, "{}", gib(p.kv_capacity_bytes));
        // the headroom holds the CUDA context (0.61) and the graphs (0.4): 7.92 − 1.01 spare
        assert!((gib(p.headroom_bytes) - 7.918).abs() < 0.01);
        assert!((gib(p.runtime_bytes) - 1.01).abs() < 1e-9);
        let physical = p.kv_physical_tokens as f64 * p.kv_bytes_per_token;
        assert!((gib(physical) - (51.38 + 7.918 - 1.01)).abs() < 0.2, "{}", gib(physical));
        // two GPUs: NCCL's buffers inside the budget, the bigger context outside
        let (mut s2, m2, g2) = vllm_h100("llama-3-70b", 2, Dtype::Fp8);
        s2.scheduler.max_model_len = 8192;
        let p2 = HbmPlan::new(&s2, &m2, &g2).unwrap();
        assert!((gib(p2.runtime_bytes) / 2.0 - (1.54 + 0.4)).abs() < 1e-9);
        let act = gib(p2.activation_bytes) / 2.0;
        assert!((act - (4.84 + 0.55)).abs() < 0.2, "{act}");
    }

    #[test]
    fn too_little_headroom_does_not_start() {
        let (mut s, m, g) = vllm_h100("llama-3.1-8b", 1, Dtype::Bf16);
        // 79.18 GiB: 1.01 GiB outside the budget needs 1 − util ≥ 1.28 %
        s.gpu_memory_utilization = 0.98;
        assert!(HbmPlan::new(&s, &m, &g).is_ok());
        s.gpu_memory_utilization = 0.99;
        let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
        assert!(e.contains("cannot start") && e.contains("gpu_memory_utilization ≤ 0.98"), "{e}");
        // another process holding memory: 0.95 leaves 3.96 GiB, 2.95 of it free for others
        s.gpu_memory_utilization = 0.95;
        s.other_process_gib = 2.9;
        let p = HbmPlan::new(&s, &m, &g).unwrap();
        assert!((gib(p.other_process_bytes) - 2.9).abs() < 1e-9);
        s.other_process_gib = 3.0;
        let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
        assert!(e.contains("other processes hold 3.00 GiB") && e.contains("other_process_gib ≤ 2.94"), "{e}");
    }

    #[test]
    fn the_suggested_fix_is_the_smallest_that_fits() {
        // Llama-3-8B on one H100 at gpu_memory_utilization 0.2: the budget (16 GiB) barely
        // holds the weights
        let mut s = crate::presets::find("chat-latency-first").unwrap().scenario();
        s.gpu_memory_utilization = 0.2;
        let (m, g) = (s.model_spec().unwrap(), s.gpu_spec().unwrap());
        let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
        let found = fixes(&s);
        let util = found.iter().find(|f| f.setting == "gpu_memory_utilization").expect("a utilisation fits");
        let Value::Number(u) = util.value else { panic!("{util:?}") };
        assert_eq!(util.bound, Bound::AtLeast);
        assert!(u < 0.3, "the least utilisation that fits, not the most: {u}");
        let at = |u: f64| {
            let mut t = s.clone();
            t.gpu_memory_utilization = u;
            t
        };
        assert!(HbmPlan::new(&at(u), &m, &g).is_ok(), "{u} fits");
        assert!(HbmPlan::new(&at(u - 0.01), &m, &g).is_err(), "{} does not", u - 0.01);
        assert!(fixes(&at(u)).is_empty());
        assert!(e.contains(&format!("gpu_memory_utilization ≥ {}", crate::settings::fmt_num(u))), "{e}");
        assert!(!e.contains("0.95"), "{e}");
        // more GPUs: the fewest that fit
        let gpus = found.iter().find(|f| f.setting == "num_gpus").expect("more GPUs fit");
        assert_eq!(gpus.value, Value::Number(2.0));
        assert!(e.contains("num_gpus = 2"), "{e}");

        // a pool too small for max_model_len: the longest that fits, and one more does not
        let mut s = at(u - 0.01);
        s.scheduler.max_model_len = m.max_context;
        let found = fixes(&s);
        let len = found.iter().find(|f| f.setting == "max_model_len").expect("a shorter limit fits");
        let Value::Number(n) = len.value else { panic!("{len:?}") };
        assert_eq!(len.bound, Bound::AtMost);
        let with_len = |n: f64| {
            let mut t = s.clone();
            t.scheduler.max_model_len = n as u32;
            HbmPlan::new(&t, &m, &g).is_ok()
        };
        assert!(n < m.max_context as f64 && with_len(n) && !with_len(n + 1.0), "{n}");
        assert!(HbmPlan::new(&s, &m, &g).unwrap_err().to_string().contains(&format!("scheduler.max_model_len ≤ {n}")));
    }
}
