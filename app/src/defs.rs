//! Definitions shown one hover or focus away from every metric and setting
//! (metrics follow vLLM's benchmark definitions, as sim-core measures them).

use leptos::prelude::*;

pub const TTFT: &str = "Time to first token: from the request's arrival to its first output token. It includes the time spent in the queue and the whole prefill.";
pub const TPOT: &str = "Time per output token: (E2E − TTFT) / (output tokens − 1), per request with more than one output token. The pace a user sees once text starts streaming.";
pub const ITL: &str = "Inter-token latency: every gap between two consecutive output tokens of a request, all gaps of all requests pooled. Stalls (a long prefill in the same batch) show up here.";
pub const E2E: &str = "End-to-end latency: from arrival to the last output token.";
pub const P50: &str = "Median: half of the completed requests were faster than this.";
pub const P95: &str = "95th percentile: 1 request in 20 was slower than this.";
pub const P99: &str = "99th percentile: 1 request in 100 was slower than this — the tail your unluckiest users see.";
pub const MEAN: &str = "Arithmetic mean, next to p99 on purpose: averages hide the tail. A mean can look fine while 1 request in 100 waits many times longer.";
pub const THROUGHPUT: &str = "Throughput: output tokens of completed requests per second of simulated time (requests per second beside it). Counts every completed request, good or not.";
pub const GOODPUT: &str = "Goodput: the same, counting only requests that met every SLO of their class (TTFT, TPOT and E2E limits). Throughput that users actually experienced as good.";
pub const SLO_ATTAINMENT: &str = "SLO attainment: requests that met every SLO of their class ÷ requests that ended (completed, rejected, timed out or lost).";
pub const COST_OUTPUT: &str =
    "GPU cost so far ($/GPU-hour × GPUs × simulated time) divided by the output tokens generated, per million tokens.";
pub const COST_GOOD: &str = "The same cost divided only by the output tokens of requests that met their SLOs: what a useful token really costs.";
pub const COMPLETED: &str = "Requests that received all their output tokens.";
pub const REJECTED: &str = "Refused at arrival: the queue was full (max queue), the server was restarting, or prompt + output exceed the max context.";
pub const TIMED_OUT: &str = "Dropped after waiting longer than the queue timeout without a first token.";
pub const PREEMPTED: &str = "Preemptions: a running request evicted to free KV cache and sent back to the queue to recompute its prompt (a request preempted twice counts twice).";
pub const OOM: &str = "Out-of-memory restarts: an over-committed server grew its KV cache past the GPU's memory and restarted (down for restart_s).";
pub const FAILED: &str = "Requests lost in an OOM restart (in flight when it happened, or resent too often).";
pub const IN_FLIGHT: &str = "Arrived and not yet ended: waiting in a queue or running.";

pub const HBM: &str = "GPU memory (HBM) of all GPUs of the replica: model weights, activations and runtime, the KV cache pool (in use, allocated but empty, free) and the headroom the memory-utilisation setting keeps free.";
pub const KV_USED: &str = "KV cache holding tokens of running requests.";
pub const KV_WASTE: &str = "KV allocated but empty: the unused tail of paged blocks, or — with contiguous KV — each request's reservation for the maximum context it will not use (fragmentation).";
pub const KV_FREE: &str = "KV pool not yet allocated: room for more requests.";
pub const HEADROOM: &str = "Memory kept free by gpu_memory_utilization (e.g. 0.9 keeps 10 %). An over-committed server eats into it and, past the GPU's capacity, runs out of memory.";
pub const WEIGHTS: &str = "Model weights: parameters × bytes per parameter (2 for fp16/bf16, 1 for fp8).";
pub const ACTIVATIONS: &str = "Activations of one forward pass over the largest batch, the logits, and the runtime's reserve (CUDA context, communication buffers).";

/// A label with its definition one hover or keyboard focus away.
#[component]
pub fn Term(#[prop(into)] label: String, def: &'static str) -> impl IntoView {
    view! {
        <span class="term" tabindex="0">
            {label}
            <span class="def" role="tooltip">{def}</span>
        </span>
    }
}
