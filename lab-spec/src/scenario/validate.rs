//! Validation: every field against its allowed range (ranges from `crate::settings`) and the
//! structure rules (required and omitted fields, unique names, shares at most 1); all problems
//! collected, each naming its field.

use super::{Arrival, Batching, FieldError, PrefixConfig, Scenario, ScenarioError, SCENARIO_VERSION};
use crate::catalog::{Dtype, GpuSpec, ModelSpec};
use crate::message::Problem;

impl Scenario {
    /// Checks every field against its allowed range; collects all problems.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let mut v = Validator::default();
        if self.version != SCENARIO_VERSION {
            v.err("version", Problem::Version { expected: SCENARIO_VERSION, got: self.version });
        }
        match self.model_spec() {
            Ok(m) => validate_model(&mut v, &m),
            Err(e) => v.errors.extend(e.errors),
        }
        match self.gpu_spec() {
            Ok(g) => {
                validate_gpu(&mut v, &g);
                if self.dtype == Dtype::Fp8 && g.fp8_flops.is_none() {
                    v.err("dtype", Problem::Fp8Unsupported { gpu: g.id.clone() });
                } else if !self.dtype.runs_on(&g) {
                    let options = Dtype::ALL.iter().filter(|d| d.runs_on(&g)).map(|d| d.name().to_string()).collect();
                    v.err("dtype", Problem::NotListed { options, got: self.dtype.name().to_string() });
                }
            }
            Err(e) => v.errors.extend(e.errors),
        }
        if let Some(kv) = self.kv_dtype.filter(|d| d.is_4bit()) {
            let options = Dtype::KV.iter().map(|d| d.name().to_string()).collect();
            v.err("kv_dtype", Problem::NotListed { options, got: kv.name().to_string() });
        }
        crate::settings::check_ranges(self, &mut v.errors);
        // An optional number set to NaN by code reads as unset in JSON: name it here.
        let mut optional = vec![("gpu_usd_per_hour".to_string(), self.gpu_usd_per_hour)];
        optional.push(("scheduler.queue_timeout_ms".into(), self.scheduler.queue_timeout_ms));
        for (i, c) in self.classes.iter().enumerate() {
            let slo = [("slo.ttft_ms", c.slo.ttft_ms), ("slo.tpot_ms", c.slo.tpot_ms), ("slo.e2e_ms", c.slo.e2e_ms)];
            let fields = slo.into_iter().chain([("reserved_share", c.reserved_share)]);
            optional.extend(fields.map(|(f, x)| (format!("classes[{i}].{f}"), x)));
        }
        for (field, x) in optional {
            if x.is_some_and(|x| !x.is_finite()) {
                v.err(&field, Problem::NotFinite { got: x.unwrap_or_default() });
            }
        }
        let sch = &self.scheduler;
        // without chunks a whole prompt, or a preempted sequence recomputed, must fit one step;
        // with whole prompts mixed into the decode steps and admission that never preempts
        // (TensorRT-LLM) only the prompt must, and a longer one is turned away on arrival
        if !sch.chunked_prefill
            && !sch.never_recomputes()
            && sch.batching == Batching::Continuous
            && sch.max_num_batched_tokens < sch.max_model_len
        {
            v.err(
                "scheduler.max_num_batched_tokens",
                Problem::BatchBelowContext { max_model_len: sch.max_model_len, got: sch.max_num_batched_tokens },
            );
        }
        if self.classes.is_empty() || self.classes.len() > 8 {
            v.err("classes", Problem::ClassCount { got: self.classes.len() });
        }
        let mut share_sum = 0.0;
        for (i, c) in self.classes.iter().enumerate() {
            let p = format!("classes[{i}]");
            if c.name.trim().is_empty() || c.name.len() > 40 {
                v.err(&format!("{p}.name"), Problem::NameLength);
            }
            if self.classes[..i].iter().any(|o| o.name == c.name) {
                v.err(&format!("{p}.name"), Problem::NameTaken { name: c.name.clone() });
            }
            let is_trace = matches!(c.arrival, Arrival::Trace { .. });
            if let Arrival::Trace { path, .. } = &c.arrival {
                if path.trim().is_empty() {
                    v.err(&format!("{p}.arrival.path"), Problem::NoTracePath);
                }
            }
            if is_trace {
                for (field, present) in [
                    ("num_requests", c.num_requests.is_some()),
                    ("input_tokens", c.input_tokens.is_some()),
                    ("output_tokens", c.output_tokens.is_some()),
                ] {
                    if present {
                        v.err(&format!("{p}.{field}"), Problem::GivenByTrace);
                    }
                }
            } else {
                if c.num_requests.is_none() {
                    let n = crate::settings::find("num_requests").and_then(|r| r.number()).expect("a row");
                    v.err(&format!("{p}.num_requests"), Problem::Required { range: Some((n.min, n.max)) });
                }
                for (field, d) in [("input_tokens", &c.input_tokens), ("output_tokens", &c.output_tokens)] {
                    if d.is_none() {
                        v.err(&format!("{p}.{field}"), Problem::Required { range: None });
                    }
                }
            }
            // a closed loop's users are its cap; a conversation's turns wait for its answers
            if c.max_concurrency.is_some() && (matches!(c.arrival, Arrival::ClosedLoop { .. }) || c.session.is_some()) {
                v.err(&format!("{p}.max_concurrency"), Problem::DoesNotApply);
            }
            if let Some(pc) = &c.prefix {
                // the prompt is the prefix and at least one token more, and an answer must fit
                let max_shared = (sch.max_model_len as u64).saturating_sub(2).max(1);
                v.range_u(&format!("{p}.prefix.shared_tokens"), pc.shared_tokens as u64, 1, max_shared);
                v.range_u(&format!("{p}.prefix.groups"), pc.groups as u64, 1, PrefixConfig::MAX_GROUPS as u64);
            }
            share_sum += c.reserved_share.unwrap_or(0.0);
        }
        if share_sum > 1.0 + 1e-9 {
            v.err("classes", Problem::SharesOverOne { sum: share_sum });
        }
        super::speculative::check(self, &mut v.errors);
        super::disagg::check(self, &mut v.errors);
        super::session::check(self, &mut v.errors);
        if v.errors.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError { errors: v.errors })
        }
    }
}

fn validate_model(v: &mut Validator, m: &ModelSpec) {
    v.range_f("model.params_total", m.params_total, 1e6, 1e13);
    v.range_f("model.params_active", m.params_active, 1e6, m.params_total.max(1e6));
    v.range_u("model.num_layers", m.num_layers as u64, 1, 1000);
    v.range_u("model.hidden_size", m.hidden_size as u64, 1, 1 << 20);
    v.range_u("model.num_attention_heads", m.num_attention_heads as u64, 1, 1024);
    v.range_u("model.num_kv_heads", m.num_kv_heads as u64, 1, m.num_attention_heads.max(1) as u64);
    v.range_u("model.head_dim", m.head_dim as u64, 1, 4096);
    v.range_u("model.intermediate_size", m.intermediate_size as u64, 1, 1 << 22);
    v.range_u("model.vocab_size", m.vocab_size as u64, 1, 1 << 22);
    v.range_u("model.max_context", m.max_context as u64, 2, 10_000_000);
    v.range_u("model.num_experts", m.num_experts as u64, 1, 1024);
    v.range_u("model.experts_per_token", m.experts_per_token as u64, 1, m.num_experts.max(1) as u64);
    // attention forms: at least one attention layer holds KV (the pool counts in its tokens)
    let layers = m.num_layers as u64;
    v.range_u("model.linear_attn_layers", m.linear_attn_layers as u64, 0, layers.saturating_sub(1));
    v.range_u(
        "model.sliding_window_layers",
        m.sliding_window_layers as u64,
        0,
        layers.saturating_sub(m.linear_attn_layers as u64),
    );
    if m.sliding_window_layers > 0 {
        v.range_u("model.sliding_window", m.sliding_window as u64, 1, 10_000_000);
    }
    v.range_f("model.linear_state_bytes", m.linear_state_bytes, 0.0, 1e12);
    v.range_u("model.kv_lora_rank", m.kv_lora_rank as u64, 0, 65_536);
    v.range_u("model.qk_rope_head_dim", m.qk_rope_head_dim as u64, 0, 4096);
    if m.shared_linear_params() <= 0.0 {
        v.err("model.params_total", Problem::ParamsTooSmall);
    }
}

fn validate_gpu(v: &mut Validator, g: &GpuSpec) {
    v.range_f("gpu.hbm_bytes", g.hbm_bytes, 1e8, 1e13);
    v.range_f("gpu.mem_bandwidth", g.mem_bandwidth, 1e9, 1e14);
    v.range_f("gpu.bf16_flops", g.bf16_flops, 1e11, 1e17);
    if let Some(f) = g.fp8_flops {
        v.range_f("gpu.fp8_flops", f, 1e11, 1e17);
    }
    v.range_f("gpu.interconnect_bw", g.interconnect_bw, 1e8, 1e13);
    v.range_f("gpu.usd_per_hour", g.usd_per_hour, 0.0, 1000.0);
}

#[derive(Default)]
struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    fn err(&mut self, field: &str, problem: Problem) {
        self.errors.push(FieldError::new(field, problem));
    }
    fn range_u(&mut self, field: &str, x: u64, lo: u64, hi: u64) {
        if x < lo || x > hi {
            self.err(field, Problem::Range { min: lo as f64, max: hi as f64, got: x as f64 });
        }
    }
    fn range_f(&mut self, field: &str, x: f64, lo: f64, hi: f64) {
        if !x.is_finite() || x < lo || x > hi {
            self.err(field, Problem::Range { min: lo, max: hi, got: x });
        }
    }
}
