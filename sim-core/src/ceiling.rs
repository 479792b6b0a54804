//! The most a replica could ever serve: a roofline upper bound on its rates, for a search
//! that must skip configurations without simulating them (`lab_content::plan`).
//!
//! Two rates bound a replica whatever the traffic's timing:
//! * **prefill**: prompt tokens per second when every iteration is one full chunk of
//!   `max_num_batched_tokens` prompt tokens of prompts of the mean length `L`, each token
//!   attending to `(L + 1) / 2` positions on average (a prompt's attention grows with the square
//!   of its length, so prompts of varying length cost at least as much per token as prompts
//!   of the mean length), no decode in the step;
//! * **decode**: tokens per second when `max_num_seqs` sequences decode together in every
//!   iteration (the fullest batch the scheduler allows), each reading the KV of its prompt and
//!   half its answer (the mean context over an answer's tokens).
//!
//! A request needs its prompt prefilled and its answer decoded, so a replica serves at most
//! `min(prefill / prompt tokens, decode / output tokens)` requests per second. Both are step
//! times of `perf::StepModel` on the least work of their kind, so the bound holds for every
//! mix the scheduler could form (a mixed step is longer than either of its parts alone).

use crate::perf::{BatchWork, StepModel};
use crate::scenario::{Scenario, ScenarioError};
use crate::HbmPlan;

/// A replica's roofline rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ceiling {
    /// Prompt tokens per second, at most.
    pub prefill_tokens_per_s: f64,
    /// Output tokens per second, at most.
    pub decode_tokens_per_s: f64,
}

impl Ceiling {
    /// The ceiling of one replica of `s` (its model, GPU, tensor parallelism, precision and
    /// scheduler caps) for prompts of `prompt` and answers of `output` tokens on average, with
    /// the memory plan it was computed from.
    pub fn of(s: &Scenario, prompt: f64, output: f64) -> Result<(Ceiling, HbmPlan), ScenarioError> {
        Ceiling::of_replica(s, 0, prompt, output)
    }

    /// The ceiling of replica `i` of `s`, on its own tensor parallelism (with disaggregation,
    /// its pool's: `disaggregation.prefill_num_gpus` or `decode_num_gpus`), with its memory plan.
    pub fn of_replica(s: &Scenario, i: usize, prompt: f64, output: f64) -> Result<(Ceiling, HbmPlan), ScenarioError> {
        let model = s.model_spec()?;
        let gpu = s.gpu_spec()?;
        let plan = HbmPlan::of_replica(s, i, &model, &gpu)?;
        let tp = s.replica_num_gpus(i);
        let step = StepModel::new(&model, &gpu, tp, s.dtype, plan.kv_traffic(), &s.engine);
        let chunk = u64::from(s.scheduler.max_num_batched_tokens.max(1));
        let prefill = BatchWork {
            prefill_tokens: chunk,
            prefill_attn_pairs: chunk as f64 * (prompt.max(1.0) + 1.0) / 2.0,
            prefill_chunks: 1,
            logit_tokens: 1,
            ..BatchWork::default()
        };
        let seqs = u64::from(s.scheduler.max_num_seqs.max(1));
        let context = (prompt.max(0.0) + output.max(0.0) / 2.0).max(1.0) as u64;
        let decode = BatchWork {
            decode_seqs: seqs,
            decode_ctx_tokens: seqs * context,
            logit_tokens: seqs,
            ..BatchWork::default()
        };
        let secs = |w: &BatchWork| step.step_time(w).micros().max(1) as f64 / 1e6;
        Ok((
            Ceiling {
                prefill_tokens_per_s: chunk as f64 / secs(&prefill),
                decode_tokens_per_s: seqs as f64 / secs(&decode),
            },
            plan,
        ))
    }

    /// Requests per second of `prompt` and `output` tokens a replica serves at most.
    pub fn requests_per_s(&self, prompt: f64, output: f64) -> f64 {
        let p = if prompt > 0.0 { self.prefill_tokens_per_s / prompt } else { f64::INFINITY };
        let d = if output > 0.0 { self.decode_tokens_per_s / output } else { f64::INFINITY };
        p.min(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Simulation;

    fn scenario() -> Scenario {
        let mut s: Scenario = crate::presets::find("chat-latency-first").expect("preset").scenario();
        s.engine = s.engine.clone().gpu_only();
        s
    }

    /// The bound holds: a replica driven far past it completes fewer requests per second.
    #[test]
    fn no_run_beats_the_ceiling() {
        let mut s = scenario();
        let c0 = &s.classes[0];
        let (i, o) = (c0.input_tokens.as_ref().unwrap().typical(), c0.output_tokens.as_ref().unwrap().typical());
        let (c, _) = Ceiling::of(&s, i, o).unwrap();
        let bound = c.requests_per_s(i, o);
        assert!(bound.is_finite() && bound > 0.0);
        for k in &mut s.classes {
            k.arrival = crate::scenario::Arrival::Poisson { rate_per_s: bound * 3.0 };
            k.num_requests = Some(600);
        }
        s.scheduler.queue_timeout_ms = None;
        s.scheduler.max_queue_len = None;
        let summary = Simulation::new(&s).unwrap().run_to_end();
        let served = summary.all.throughput.requests_per_s;
        assert!(served <= bound * 1.15, "served {served:.2} req/s, ceiling {bound:.2}");
        assert!(summary.all.throughput.output_tokens_per_s <= c.decode_tokens_per_s);
    }

    /// More sequences per step decode more tokens per second (the weights are read once per
    /// step); a bigger chunk prefills faster per token.
    #[test]
    fn caps_raise_the_ceiling() {
        let mut s = scenario();
        let (a, _) = Ceiling::of(&s, 1000.0, 200.0).unwrap();
        s.scheduler.max_num_seqs *= 4;
        s.scheduler.max_num_batched_tokens *= 4;
        let (b, _) = Ceiling::of(&s, 1000.0, 200.0).unwrap();
        assert!(b.decode_tokens_per_s > a.decode_tokens_per_s * 2.0);
        assert!(b.prefill_tokens_per_s >= a.prefill_tokens_per_s);
    }
}
