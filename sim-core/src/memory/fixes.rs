//! A plan that does not fit: why the server cannot start or the pool cannot hold a sequence, and
//! the smallest change of each setting that would fit (or, beyond one node, how many GPUs).

use super::{HbmPlan, GIB};
use crate::catalog::{GpuSpec, ModelSpec};
use crate::message::{self, Shortfall};
use crate::scenario::Scenario;
use crate::settings::Value;

pub use crate::settings::{Bound, Fix};

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
    /// The smallest change of each setting that makes `s` fit, found with [`HbmPlan::fits`]:
    /// the fewest GPUs, fp8, the least utilisation (on the setting's 0.01 grid), the longest
    /// max_model_len.
    pub(super) fn fixes(&self, s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> Vec<Fix> {
        let fits = |t: &Scenario| HbmPlan::plan(t, model, gpu).fits();
        let with = |f: &dyn Fn(&mut Scenario)| {
            let mut t = s.clone();
            f(&mut t);
            t
        };
        let fix = crate::settings::fix;
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

    /// Why the server cannot start, per GPU, with the largest utilisation (and the most other
    /// processes may hold) that starts.
    pub(super) fn cannot_start(&self, s: &Scenario) -> message::CannotStart {
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
    pub(super) fn does_not_fit(&self, s: &Scenario, model: &ModelSpec, gpu: &GpuSpec) -> message::DoesNotFit {
        let usable = self.capacity_bytes * s.gpu_memory_utilization;
        let shortfall = if self.weights_bytes + self.activation_bytes > usable {
            Shortfall::Weights {
                // with a draft model both are loaded: "llama-3.1-70b + llama-3.1-8b"
                model: match super::draft_model(s) {
                    Some(d) => format!("{} + {}", model.id, d.id),
                    None => model.id.clone(),
                },
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
}
