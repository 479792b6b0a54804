//! Writing a value into its typed field by row id.

use crate::message::Problem;
use crate::scenario::{Arrival, ClassConfig, LengthDist, Scenario};
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

/// Writes the JSON value `set` made for row `id` (of class `i`) into its typed field, as
/// `serde_json::from_value` of the whole scenario would (the same conversions and messages,
/// without a second copy of the scenario's deserializer in the wasm; docs/wasm-size.md). `None`
/// when the scenario has no such field; `tests/settings.rs` checks every row against the whole-
/// scenario round trip.
pub(super) fn write(s: &mut Scenario, id: &str, i: usize, json: Json) -> Option<Result<(), Problem>> {
    fn put<T: DeserializeOwned>(field: &mut T, json: Json) -> Result<(), Problem> {
        *field = serde_json::from_value(json).map_err(|e| Problem::parse(&e))?;
        Ok(())
    }
    fn class(s: &mut Scenario, i: usize) -> Option<&mut ClassConfig> {
        s.classes.get_mut(i)
    }
    Some(match id {
        "seed" => put(&mut s.seed, json),
        "num_gpus" => put(&mut s.num_gpus, json),
        "dtype" => put(&mut s.dtype, json),
        "kv_dtype" => put(&mut s.kv_dtype, json),
        "gpu_usd_per_hour" => put(&mut s.gpu_usd_per_hour, json),
        "gpu_memory_utilization" => put(&mut s.gpu_memory_utilization, json),
        "max_num_seqs" => put(&mut s.scheduler.max_num_seqs, json),
        "max_num_batched_tokens" => put(&mut s.scheduler.max_num_batched_tokens, json),
        "chunked_prefill" => put(&mut s.scheduler.chunked_prefill, json),
        "batching" => put(&mut s.scheduler.batching, json),
        "kv_layout" => put(&mut s.scheduler.kv_layout, json),
        "prefix_caching" => put(&mut s.scheduler.prefix_caching, json),
        "admission" => put(&mut s.scheduler.admission, json),
        "mixed_prefill" => put(&mut s.scheduler.mixed_prefill, json),
        "overlap" => put(&mut s.scheduler.overlap, json),
        "batch_wait_iters" => put(&mut s.scheduler.batch_wait_iters, json),
        "batch_wait_tokens_ratio" => put(&mut s.scheduler.batch_wait_tokens_ratio, json),
        "block_size" => put(&mut s.scheduler.block_size, json),
        "max_model_len" => put(&mut s.scheduler.max_model_len, json),
        "queue_timeout_ms" => put(&mut s.scheduler.queue_timeout_ms, json),
        "max_queue_len" => put(&mut s.scheduler.max_queue_len, json),
        "isolation" => put(&mut s.scheduler.isolation, json),
        "batch_timeout_ms" => put(&mut s.scheduler.batch_timeout_ms, json),
        "overcommit" => put(&mut s.scheduler.overcommit, json),
        "restart_s" => put(&mut s.scheduler.restart_s, json),
        "retry_on_oom" => put(&mut s.scheduler.retry_on_oom, json),
        "mfu" => put(&mut s.engine.mfu, json),
        "mbu" => put(&mut s.engine.mbu, json),
        "iteration_overhead_ms" => put(&mut s.engine.iteration_overhead_ms, json),
        "layer_launch_us" => put(&mut s.engine.layer_launch_us, json),
        "allreduce_latency_us" => put(&mut s.engine.allreduce_latency_us, json),
        "eager_allreduce_us" => put(&mut s.engine.eager_allreduce_us, json),
        "pcie_allreduce_latency_us" => put(&mut s.engine.pcie_allreduce_latency_us, json),
        "fp8_efficiency" => put(&mut s.engine.fp8_efficiency, json),
        "roofline_sharpness" => put(&mut s.engine.roofline_sharpness, json),
        "request_latency_ms" => put(&mut s.engine.request_latency_ms, json),
        "frontend_cpu_ms" => put(&mut s.engine.frontend_cpu_ms, json),
        "tokenize_us_per_token" => put(&mut s.engine.tokenize_us_per_token, json),
        "stream_latency_ms" => put(&mut s.engine.stream_latency_ms, json),
        "frontend_jitter" => put(&mut s.engine.frontend_jitter, json),
        "step_jitter" => put(&mut s.engine.step_jitter, json),
        "draft_tokens" => put(&mut s.speculative.as_mut()?.draft_tokens, json),
        "acceptance_rate" => put(&mut s.speculative.as_mut()?.acceptance_rate, json),
        "draft_model" => put(&mut s.speculative.as_mut()?.draft_model, json),
        "prefill_replicas" => put(&mut s.disaggregation.as_mut()?.prefill_replicas, json),
        "decode_replicas" => put(&mut s.disaggregation.as_mut()?.decode_replicas, json),
        "kv_link_gbps" => put(&mut s.disaggregation.as_mut()?.kv_link_gbps, json),
        "kv_link_latency_us" => put(&mut s.disaggregation.as_mut()?.kv_link_latency_us, json),
        "prefill_num_gpus" => put(&mut s.disaggregation.as_mut()?.prefill_num_gpus, json),
        "decode_num_gpus" => put(&mut s.disaggregation.as_mut()?.decode_num_gpus, json),
        "class_name" => put(&mut class(s, i)?.name, json),
        "num_requests" => put(&mut class(s, i)?.num_requests, json),
        "slo_ttft_ms" => put(&mut class(s, i)?.slo.ttft_ms, json),
        "slo_tpot_ms" => put(&mut class(s, i)?.slo.tpot_ms, json),
        "slo_e2e_ms" => put(&mut class(s, i)?.slo.e2e_ms, json),
        "priority" => put(&mut class(s, i)?.priority, json),
        "reserved_share" => put(&mut class(s, i)?.reserved_share, json),
        "max_concurrency" => put(&mut class(s, i)?.max_concurrency, json),
        _ => {
            let c = class(s, i)?;
            match (id, &mut c.arrival) {
                ("rate_per_s", Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. }) => {
                    put(rate_per_s, json)
                }
                ("cv", Arrival::Bursty { cv, .. }) => put(cv, json),
                ("users", Arrival::ClosedLoop { users, .. }) => put(users, json),
                ("think_time_ms", Arrival::ClosedLoop { think_time_ms, .. }) => put(think_time_ms, json),
                ("trace", Arrival::Trace { path, .. }) => put(path, json),
                ("speedup", Arrival::Trace { speedup, .. }) => put(speedup, json),
                _ => {
                    let (dist, key) = if let Some(key) = id.strip_prefix("input_tokens_") {
                        (c.input_tokens.as_mut()?, key)
                    } else {
                        (c.output_tokens.as_mut()?, id.strip_prefix("output_tokens_")?)
                    };
                    match (key, dist) {
                        ("value", LengthDist::Fixed { value }) => put(value, json),
                        ("min", LengthDist::Uniform { min, .. }) => put(min, json),
                        ("max", LengthDist::Uniform { max, .. }) => put(max, json),
                        ("mean", LengthDist::Lognormal { mean, .. }) => put(mean, json),
                        ("sigma", LengthDist::Lognormal { sigma, .. }) => put(sigma, json),
                        _ => return None,
                    }
                }
            }
        }
    })
}
