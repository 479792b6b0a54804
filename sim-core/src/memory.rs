//! HBM: what the weights take, what is set aside for activations, and the KV pool that is left.
//!
//! HBM = weights + activation reserve + KV pool + headroom. The pool is sized, as in vLLM, by
//! `gpu_memory_utilization × capacity − weights − activations`; the rest of the capacity is the
//! headroom. KV bytes per token = 2 (K and V) · layers · kv_heads · head_dim · bytes per element.

use crate::catalog::{GpuSpec, ModelSpec};
use crate::scenario::{KvLayout, Scenario, ScenarioError};
use serde::Serialize;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// Memory the runtime holds on each GPU outside tensors (CUDA context, NCCL buffers, graphs).
pub const RUNTIME_RESERVE_BYTES: f64 = 0.5 * GIB;

/// How the memory of all GPUs of one replica is split. All figures in bytes, summed over GPUs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HbmPlan {
    pub capacity_bytes: f64,
    pub weights_bytes: f64,
    pub activation_bytes: f64,
    /// KV pool the scheduler may fill (`gpu_memory_utilization` applied).
    pub kv_capacity_bytes: f64,
    /// Capacity × (1 − utilisation): kept free.
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
}

/// KV cache bytes per token: 2 · layers · kv_heads · head_dim · bytes per element.
pub fn kv_bytes_per_token(m: &ModelSpec, kv_elem_bytes: f64) -> f64 {
    2.0 * m.num_layers as f64 * m.num_kv_heads as f64 * m.head_dim as f64 * kv_elem_bytes
}

/// The article's simplified formula, per token: 2 · layers · hidden_size (K and V, one element
/// each, no bytes per element, every attention head counted).
pub fn article_kv_elements_per_token(m: &ModelSpec) -> f64 {
    2.0 * m.num_layers as f64 * m.hidden_size as f64
}

impl HbmPlan {
    pub fn new(s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> Result<HbmPlan, ScenarioError> {
        let tp = s.num_gpus as f64;
        let capacity = gpu.hbm_bytes * tp;
        let weights = model.params_total * s.dtype.bytes();
        let sched = &s.scheduler;
        // Peak activations of one forward pass over max_num_batched_tokens (hidden states, MLP
        // intermediates sharded by TP) and fp32 logits for a full batch of sequences.
        let act_per_gpu = sched.max_num_batched_tokens as f64
            * (4.0 * model.hidden_size as f64 + 2.0 * model.intermediate_size as f64 / tp)
            * 2.0
            + (sched.max_num_seqs.min(sched.max_num_batched_tokens)) as f64 * model.vocab_size as f64 * 4.0
            + RUNTIME_RESERVE_BYTES;
        let activation = act_per_gpu * tp;
        // KV heads shard across TP ranks; with more ranks than KV heads they are replicated, so
        // the replica stores ceil(kv_heads / tp) heads on each of its tp GPUs.
        let kv_heads_stored = (model.num_kv_heads as f64 / tp).ceil() * tp;
        let kv_tok_stored =
            kv_bytes_per_token(model, s.kv_dtype().bytes()) * kv_heads_stored / model.num_kv_heads as f64;
        let usable = capacity * s.gpu_memory_utilization;
        let kv_capacity = usable - weights - activation;
        let physical = capacity - weights - activation;
        let plan = HbmPlan {
            capacity_bytes: capacity,
            weights_bytes: weights,
            activation_bytes: activation,
            kv_capacity_bytes: kv_capacity.max(0.0),
            headroom_bytes: capacity - usable,
            kv_bytes_per_token: kv_tok_stored,
            kv_capacity_tokens: (kv_capacity.max(0.0) / kv_tok_stored) as u64,
            kv_physical_tokens: (physical.max(0.0) / kv_tok_stored) as u64,
            block_size: sched.block_size,
            layout: sched.kv_layout,
            max_model_len: sched.max_model_len,
        };
        let need = sched.max_model_len as u64;
        if plan.kv_capacity_tokens < need {
            return Err(ScenarioError::one("", plan.does_not_fit_message(s, model, gpu)));
        }
        Ok(plan)
    }

    fn does_not_fit_message(&self, s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> String {
        let usable = self.capacity_bytes * s.gpu_memory_utilization;
        let why = if self.weights_bytes + self.activation_bytes > usable {
            format!(
                "{} in {} needs {:.1} GiB for weights (+{:.1} GiB activations), but {} × {} at gpu_memory_utilization {:.2} gives {:.1} GiB",
                model.id,
                s.dtype.name(),
                self.weights_bytes / GIB,
                self.activation_bytes / GIB,
                s.num_gpus,
                gpu.id,
                s.gpu_memory_utilization,
                usable / GIB
            )
        } else {
            format!(
                "the KV pool ({:.2} GiB, {} tokens) cannot hold one sequence of max_model_len {} tokens",
                self.kv_capacity_bytes / GIB,
                self.kv_capacity_tokens,
                s.scheduler.max_model_len
            )
        };
        let mut fixes = Vec::new();
        for n in [1u32, 2, 4, 8] {
            if n <= s.num_gpus {
                continue;
            }
            let mut t = s.clone();
            t.num_gpus = n;
            if HbmPlan::new(&t, model, gpu).is_ok() {
                fixes.push(format!("num_gpus = {n}"));
                break;
            }
        }
        if s.dtype != crate::catalog::Dtype::Fp8 && gpu.fp8_flops.is_some() {
            let mut t = s.clone();
            t.dtype = crate::catalog::Dtype::Fp8;
            if HbmPlan::new(&t, model, gpu).is_ok() {
                fixes.push("dtype = fp8".to_string());
            }
        }
        if s.gpu_memory_utilization < 0.95 {
            let mut t = s.clone();
            t.gpu_memory_utilization = 0.95;
            if HbmPlan::new(&t, model, gpu).is_ok() {
                fixes.push("gpu_memory_utilization = 0.95 (less headroom)".to_string());
            }
        }
        if self.weights_bytes + self.activation_bytes <= usable {
            let mut t = s.clone();
            t.scheduler.max_model_len = (self.kv_capacity_tokens as u32).max(2);
            if t.scheduler.max_model_len >= 2 && HbmPlan::new(&t, model, gpu).is_ok() {
                fixes.push(format!("scheduler.max_model_len ≤ {}", self.kv_capacity_tokens));
            }
        }
        if fixes.is_empty() {
            format!("does not fit: {why}; no setting of num_gpus, dtype or utilisation makes it fit on {}", gpu.id)
        } else {
            format!("does not fit: {why}. It would fit with {}", fixes.join(", or "))
        }
    }

    pub fn capacity_blocks(&self) -> u64 {
        self.kv_capacity_tokens / self.block_size as u64
    }
    pub fn physical_blocks(&self) -> u64 {
        self.kv_physical_tokens / self.block_size as u64
    }
}
