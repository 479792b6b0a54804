//! HBM: what the weights take, what the engine's profile run reserves for activations, the KV
//! pool that is left, and what must fit in the headroom outside it.
//!
//! As in vLLM (V1), the server's budget is `gpu_memory_utilization × capacity`, and the KV pool is
//! what the budget leaves after the weights, the peak activations of a profile run at
//! `max_num_batched_tokens` (and of the sampler over `max_num_seqs` rows) and the non-torch memory
//! the profile sees grow. Outside the budget, in the headroom `(1 − utilisation) × capacity`, the
//! process still needs its CUDA context (in use before the budget is measured) and its CUDA
//! graphs (captured after the pool is allocated), and other processes on the GPU need theirs: if
//! those do not fit, the server does not start. Under the SGLang profile the budget
//! (`mem_fraction_static`) holds the weights and the KV pool only, the rest its formula reserves
//! holding the activations (`Engine::activations_in_budget`). KV per token depends on the attention form
//! ([`KvFormula`]): `2 (K and V) · layers · kv_heads · head_dim · bytes` for MHA/GQA,
//! `layers · (kv_lora_rank + qk_rope_head_dim) · bytes` for multi-head latent attention;
//! sliding-window layers stop growing at their window and linear-attention layers hold a fixed
//! state per sequence. Sources: docs/model.md §3.
//!
//! The KV formula of each attention form and how the pool counts a sequence are in `kv`; a plan
//! that does not fit, why, and the smallest changes that would, in `fixes`.

mod fixes;
mod kv;

pub use fixes::{fixes, Bound, Fix};
pub use kv::{article_kv_elements_per_token, kv_bytes_per_token, kv_traffic, KvFormula, PoolGrowth};

use crate::catalog::{AttentionForm, GpuSpec, ModelSpec};
use crate::message::Problem;
use crate::perf::KvTraffic;
use crate::scenario::{KvLayout, Scenario, ScenarioError};
use kv::gcd;
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
    /// The target's weights and, with speculative decoding by a draft model, the draft's.
    pub weights_bytes: f64,
    /// The draft model's part of `weights_bytes` (0 without one).
    #[serde(skip_serializing_if = "crate::is_zero_f64")]
    pub draft_weights_bytes: f64,
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
    /// KV bytes a pool token takes (all GPUs): the target's and, with a draft model, the
    /// draft's, whose layers keep their KV in the same blocks.
    pub kv_bytes_per_token: f64,
    /// The draft model's stored KV bytes per token past its window (its full-attention layers;
    /// all its layers without sliding windows), 0 without one. Its sliding-window layers hold at
    /// most their window (`pool_growth`).
    #[serde(skip_serializing_if = "crate::is_zero_f64")]
    pub draft_kv_bytes_per_token: f64,
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
    /// The target's stored KV traffic (all GPUs, replication included): what its step model reads.
    #[serde(skip)]
    target_traffic: KvTraffic,
}

/// KV bytes one token of `kv` takes in a replica of `tp` GPUs, tensor-parallel replication
/// included, counting `layers` attention layers: KV heads shard across TP ranks, and with more
/// ranks than KV heads they are replicated, so the replica stores `ceil(kv_heads / tp)` heads on
/// each of its GPUs; MLA's latent is shared by all heads, so every rank stores all of it.
fn stored_bytes_per_token(kv: &KvFormula, layers: u32, tp: u32) -> f64 {
    let unit = kv.bytes_per_token_of(layers);
    let tp = tp as f64;
    match kv.form {
        AttentionForm::Mla => unit * tp,
        _ => {
            let kv_heads_stored = (kv.kv_heads as f64 / tp).ceil() * tp;
            unit * kv_heads_stored / kv.kv_heads as f64
        }
    }
}

/// The KV traffic of model `m`'s stored KV on a replica of `tp` GPUs (replication included), as
/// the HBM plan stores it: what a model's step model reads. [`HbmPlan::kv_traffic`] is this for
/// the target; a draft model's step model reads its own.
pub fn stored_kv_traffic(m: &ModelSpec, kv_elem_bytes: f64, tp: u32) -> KvTraffic {
    stored_kv_traffic_of(&KvFormula::of(m, kv_elem_bytes), tp)
}

fn stored_kv_traffic_of(f: &KvFormula, tp: u32) -> KvTraffic {
    KvTraffic {
        full_bytes_per_token: stored_bytes_per_token(f, f.full_layers, tp),
        window_bytes_per_token: stored_bytes_per_token(f, f.window_layers, tp),
        window: f.window as u64,
        state_bytes: f.state_bytes,
    }
}

/// The pool's token (its bytes, all GPUs), how a sequence's pool tokens grow, and the draft's
/// stored bytes per token past its window (0 without a draft).
///
/// The pool counts tokens per group of layers: for a model alone, `gcd(full, window)` of its
/// layers (all of them for most models). A draft model's layers keep their KV in the target's
/// blocks (vLLM sizes one pool over both models' layers), so its full-attention layers join the
/// target's full ones; its sliding-window layers hold at most their window, as a target's do.
/// Speculation needs a target without sliding windows, so a pool token is then the largest
/// byte count dividing both the full layers' bytes (target's and draft's) and the draft's
/// window layers' bytes, each counted that many times. The draft's linear state joins the
/// target's.
fn pool_unit(kv: &KvFormula, draft: Option<&KvFormula>, tp: u32) -> (f64, PoolGrowth, f64) {
    let stored = |f: &KvFormula, layers: u32| stored_bytes_per_token(f, layers, tp);
    let state_bytes = kv.state_bytes + draft.map_or(0.0, |d| d.state_bytes);
    let growth = |unit: f64, full: u64, window_groups: u64, window: u32| {
        let state_tokens = (state_bytes / unit).ceil() as u64;
        PoolGrowth { full_groups: full, window_groups, window: window as u64, state_tokens }
    };
    match draft {
        Some(d) if kv.window_layers == 0 && d.window_layers > 0 => {
            let full = stored(kv, kv.full_layers) + stored(d, d.full_layers);
            let window = stored(d, d.window_layers);
            // whole bytes (a KV element is at least half a byte, and K and V make two)
            let unit = gcd_u64(full.round() as u64, window.round() as u64) as f64;
            let (f, w) = ((full / unit).round() as u64, (window / unit).round() as u64);
            (unit, growth(unit, f, w, d.window), stored(d, d.full_layers))
        }
        _ => {
            // a draft without windows (or, not accepted by validation, beside a target with
            // windows) counts all its layers in every pool token
            let g = gcd(kv.full_layers, kv.window_layers).max(1);
            let draft_tok = draft.map_or(0.0, |d| stored(d, d.full_layers + d.window_layers));
            let unit = stored(kv, g) + draft_tok;
            (unit, growth(unit, (kv.full_layers / g) as u64, (kv.window_layers / g) as u64, kv.window), draft_tok)
        }
    }
}

fn gcd_u64(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd_u64(b, a % b)
    }
}

/// The draft model of `s`'s speculative decoding, if it names one from the catalogue.
fn draft_model(s: &Scenario) -> Option<ModelSpec> {
    s.speculative.as_ref()?.draft_model.as_deref().and_then(crate::catalog::find_model)
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

/// The settings id of a pool's GPUs (`decode_num_gpus`) as the table holds it.
fn id_static(id: &str) -> &'static str {
    if id == "prefill_num_gpus" {
        "prefill_num_gpus"
    } else {
        "decode_num_gpus"
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

    /// The plan of replica `i` of `s`: [`HbmPlan::new`] of its scenario, on its own tensor
    /// parallelism ([`Scenario::replica_scenario`]: with disaggregation, its pool's). When it
    /// does not fit because of a pool's own `prefill_num_gpus` or `decode_num_gpus`, the error
    /// names that field, and a fix of the GPUs is a fix of that field.
    pub fn of_replica(s: &Scenario, i: usize, model: &ModelSpec, gpu: &GpuSpec) -> Result<HbmPlan, ScenarioError> {
        let field = s.replica_num_gpus_field(i);
        if field == "num_gpus" {
            return HbmPlan::new(s, model, gpu);
        }
        HbmPlan::new(&s.replica_scenario(i), model, gpu).map_err(|mut e| {
            let id = field.trim_start_matches("disaggregation.");
            for f in &mut e.errors {
                if let Problem::DoesNotFit(d) = &mut f.problem {
                    for fix in d.fixes.iter_mut().filter(|x| x.setting == "num_gpus") {
                        *fix = crate::settings::fix(id_static(id), fix.value.clone(), fix.bound);
                    }
                }
                *f = crate::scenario::FieldError::new(field, f.problem.clone());
            }
            e
        })
    }

    /// The split, whether or not it fits ([`HbmPlan::fits`] says).
    fn plan(s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> HbmPlan {
        let tp = s.num_gpus as f64;
        let capacity = gpu.hbm_bytes * tp;
        let draft = draft_model(s);
        let draft_weights = draft.as_ref().map_or(0.0, |d| d.params_total * s.dtype.bytes());
        let weights = model.params_total * s.dtype.bytes() + draft_weights;
        let sched = &s.scheduler;
        // SGLang's share (`mem_fraction_static`) holds the weights and the KV pool only: the
        // rest it reserves holds the activations (`Engine::activations_in_budget`)
        let activation = if s.engine_profile.activations_in_budget() {
            activation_peak_per_gpu(model, sched.max_num_batched_tokens, sched.max_num_seqs, s.num_gpus) * tp
                + non_torch_per_gpu(s.num_gpus) * tp
        } else {
            0.0
        };
        let runtime = runtime_per_gpu(s.num_gpus) * tp;
        let other = s.other_process_gib * GIB * tp;
        let kv = KvFormula::of(model, s.kv_dtype().bytes());
        let draft_kv = draft.as_ref().map(|d| KvFormula::of(d, s.kv_dtype().bytes()));
        let (unit, pool_growth, draft_tok) = pool_unit(&kv, draft_kv.as_ref(), s.num_gpus);
        let usable = capacity * s.gpu_memory_utilization;
        let kv_capacity = usable - weights - activation;
        let physical = capacity - runtime - other - weights - activation;
        HbmPlan {
            capacity_bytes: capacity,
            weights_bytes: weights,
            draft_weights_bytes: draft_weights,
            activation_bytes: activation,
            runtime_bytes: runtime,
            other_process_bytes: other,
            kv_capacity_bytes: kv_capacity.max(0.0),
            headroom_bytes: capacity - usable,
            kv_bytes_per_token: unit,
            draft_kv_bytes_per_token: draft_tok,
            kv_capacity_tokens: (kv_capacity.max(0.0) / unit) as u64,
            kv_physical_tokens: (physical.max(0.0) / unit) as u64,
            block_size: sched.block_size,
            layout: sched.kv_layout,
            max_model_len: sched.max_model_len,
            target_traffic: stored_kv_traffic_of(&kv, s.num_gpus),
            kv,
            pool_growth,
        }
    }

    /// The KV pool holds one sequence of max_model_len tokens.
    fn holds_one_sequence(&self) -> bool {
        self.kv_capacity_tokens >= self.pool_growth.sequence_tokens(self.max_model_len as u64)
    }

    /// The KV traffic of the target's stored KV (all GPUs, replication included), for its step
    /// model: a draft model's KV is read by the draft's own passes.
    pub fn kv_traffic(&self) -> KvTraffic {
        self.target_traffic
    }

    /// The server starts and its KV pool holds one sequence: what [`HbmPlan::new`] accepts.
    pub fn fits(&self) -> bool {
        self.starts() && self.holds_one_sequence()
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

    pub fn capacity_blocks(&self) -> u64 {
        self.kv_capacity_tokens / self.block_size as u64
    }
    pub fn physical_blocks(&self) -> u64 {
        self.kv_physical_tokens / self.block_size as u64
    }
}

#[cfg(test)]
mod tests;
